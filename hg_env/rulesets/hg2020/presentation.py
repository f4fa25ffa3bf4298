"""How Hunters & Gatherers 2020 is named and drawn (``hg_env.presentation``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hg_env import render as art
from hg_env.presentation import DrawnZone, Glyph, PhaseWords, Presentation
from hg_env.rulesets.hunters_gatherers_presentation import (
    COMPACT_LEGEND,
    COMPACT_SIGNS,
    EVENTS,
    FIGURES,
    LANDSCAPE,
    MUSHROOMS,
    ROLES,
    SIGNS,
    draw_key,
    hunters_zone,
)

if TYPE_CHECKING:
    from PIL import ImageDraw


LEGEND = (
    "legend: . meadow  # forest  ~ river (a side reads bank~bank; - from a spring)  * corners: last tile\n"
    "        , : ; a tile's 2nd, 3rd, 4th meadow  & H its 2nd, 3rd forest (one zone's sides share a sign)\n"
    "        M mammoth  A aurochs  D deer  T tiger  x cancelled  o2 lake with 2 fish  f1 fish in a river\n"
    "        ^ menhir  % mushrooms  Sh shaman  Lb logboat Ht hunting trap Pt pit trap Wf wildfire Rf raft\n"
    "        p1@# pawn of P1 on a forest (@. meadow, @~ river)  h1@o hut of P1   x,y: the tile fits here"
)
OCCUPY_HELP = (
    "  pawn 2        a pawn on zone 2 of the tile just placed;  hut 8  a hut on zone 8\n"
    "  retake 1 -2   (shaman) take back your pawn at (1,-2)\n"
    "  pit 1         (pit-trap option) tigers eat 1 deer in range"
)
CARD = """\
``ruleset="hg2020"`` (the default): ``hunters_gatherers_v0``, Hunters & Gatherers 2020
(docs/rules/hg2020.md). Actions ``Discrete(5N + 36)``, observation ``(85, 25, 25)`` by default::

    [0, 4N) place the drawn tile on cell c with rotation r: 4 * c + r
    [4N, 4N+8) pawn on local zone 0..7 of the tile just placed
    [4N+8, 4N+18) hut on local zone 0..9
    [4N+18, 5N+18) shaman: take back the own pawn on cell c
    [5N+18, 5N+35) pit trap (option): tigers eat k in-range deer
    5N+35 none
"""

SPECIAL_CODES = {
    "shaman": "Sh",
    "logboat": "Lb",
    "hunting_trap": "Ht",
    "pit_trap": "Pt",
    "wildfire": "Wf",
    "raft": "Rf",
}


def draw_menhir(draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float) -> None:
    """A standing stone: a tall grey slab with a rounded top."""
    w, h = size * 0.42, size
    draw.rounded_rectangle((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), radius=w * 0.45, fill=(170, 170, 165))
    draw.rounded_rectangle((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), radius=w * 0.45, outline=art.INK, width=2)
    draw.line((cx - w * 0.1, cy - h * 0.2, cx + w * 0.15, cy + h * 0.1), fill=(110, 110, 105), width=2)


GLYPHS = {"menhir": Glyph("^", "menhir", draw_menhir, 0.26, (0.06, 0.13)), "mushrooms": MUSHROOMS}

POWER_EVENTS = {  # the powers' scoring (R7)
    "PIT_TRAP_SCORED": lambda t: f"{t.who('scorers')} +{t['points']}: pit trap bonus",
    "RAFT_SCORED": lambda t: f"{t.who('scorers')} +{t['points']}: raft, {t['lakes']} lakes",
    "LOGBOAT_SCORED": lambda t: f"{t.player()} +{t['points']}: logboat, {t['lakes']} lakes",
    "HUNTING_TRAP_SCORED": lambda t: f"{t.player()} +{t['points']}: hunting trap",
    "MENHIR_EXTRA_TURN": lambda t: f"{t.player()} closed a menhir forest: extra turn",
}


def drawn_zone(zone: dict, tile: dict) -> DrawnZone:
    """A zone of hg2020_tiles.json: a forest's menhir or mushrooms, a special power's name (R2.4-R2.9)."""
    kind = zone.get("forest_kind")
    glyphs = [kind] if kind in ("menhir", "mushrooms") else []
    special = zone.get("special") or ""
    notes = [special.replace("_", " ")] if special else []
    name = f"{kind} forest" if glyphs else ""
    return DrawnZone(**{**hunters_zone(zone, tile, glyphs, notes, name).__dict__, "special": special})


def retake_move(game: art.GameView, decision: tuple) -> str:
    """``hgenv play``'s line for the shaman's retake (R7.1): the pawn by its role."""
    _, x, y = decision
    tile, _ = game.tile_at(x, y)
    local = int(game.state.occupant_local[0, tile])
    return f"retake {x} {y}: take back your {art.occupant_role(game.ruleset, tile, 'pawn', local)} at ({x},{y})"


PHASES = {
    "retake": PhaseWords(
        board="may take back one of their pawns (shaman)",
        prompt="the shaman lets you take back one of your pawns",
        picture="may take back a pawn",
    ),
    "pit_trap": PhaseWords(
        board="chooses how many deer the tigers eat near the pit trap",
        prompt="choose how many deer the tigers eat near the pit trap",
    ),
}
MOVES = {
    "retake": retake_move,
    "pit": lambda game, decision: f"pit {decision[1]}: tigers eat {decision[1]} deer in the pit trap's range",
}


PRESENTATION = Presentation(
    card=CARD,
    listed=0,
    gym_name="HuntersGatherers",
    factory="env",
    legend=LEGEND,
    compact_legend=COMPACT_LEGEND,
    occupy_help=OCCUPY_HELP,
    zone=drawn_zone,
    figures=FIGURES,
    key=draw_key,
    roles=ROLES,
    signs=SIGNS,
    compact_signs=COMPACT_SIGNS,
    glyphs=GLYPHS,
    terrains=LANDSCAPE,
    special_codes=SPECIAL_CODES,
    events={**EVENTS, **POWER_EVENTS},
    phases=PHASES,
    moves=MOVES,
)
