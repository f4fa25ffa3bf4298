"""What both Hunters & Gatherers editions show alike: the compact board's legend and their rivers' words."""

from __future__ import annotations

from hg_env.presentation import DrawnZone, plain_zone

COMPACT_LEGEND = (
    "legend: a tile shows its figure, else its features: # forest  ~ river  o lake (. meadow) * last tile\n"
    "        p1# pawn of P1 on a forest (p1. meadow, p1~ river)  h1o hut of P1 on a lake  [ ] tile fits"
)


def count(n: int, singular: str, plural: str | None = None) -> str:
    """``1 gold nugget``, ``2 gold nuggets``."""
    return f"{n} {singular if n == 1 else plural or singular + 's'}"


def hunters_zone(zone: dict, tile: dict, glyphs: list[str], notes: list[str], name: str = "") -> DrawnZone:
    """A Hunters & Gatherers zone: a river runs into a lake or from a spring; ``glyphs`` and ``notes`` are
    the edition's own signs and words, after the river's."""
    plain = plain_zone(zone, tile)
    flow = []
    if plain.type == "river":
        if plain.lake is not None:
            flow.append("into a lake")
        elif plain.spring:
            flow.append("from a spring")
    return DrawnZone(
        **{
            **plain.__dict__,
            "glyphs": tuple(glyphs),
            "name": name or plain.type,
            "notes": (*flow, *notes),
            "ends": False,
        }
    )
