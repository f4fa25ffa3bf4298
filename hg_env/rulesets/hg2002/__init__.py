"""Hunters & Gatherers, the classic 2002/2014 edition: docs/rules/hg2002.md.

91 tiles (``hg_env/data/hg2002_tiles.json``): the volcano start tile 0, 78 land
tiles and 12 bonus tiles. What differs from 2020 (K1-K12): 5 pawns and 2 huts
per player; a completed forest with gold nuggets earns the placer one bonus tile
(the same extra-tile mechanism as the menhir, K1, K2); forests 2 per tile + 2 per
mushroom patch (K3); rivers count the fish of their closing lakes only (K4: river
zones carry none); meadows 2 per mammoth, aurochs and deer (K7); huts 1 per fish
(K8); no menhir powers (K9); the bonus tiles' shrine (S1) and fire (S2).
"""

from __future__ import annotations

from hg_env.core.ruleset import Flag, Ruleset
from hg_env.core.scoring import Points
from hg_env.core.tiles import KIND_EXTRA, Vocabulary, ZoneFacts
from hg_env.rulesets import hunters_gatherers as hg

SPECIALS = ("shrine", "fire")


def zone_facts(zone: dict) -> ZoneFacts:
    """A zone of hg2002_tiles.json in the shared vocabulary: gold nuggets trigger a bonus tile,
    mushroom patches add to a forest, the shrine and the fire are meadow specials."""
    special = "shrine" if zone.get("shrine") else "fire" if zone.get("fire") else ""
    return ZoneFacts(
        type=hg.ZONE_TYPES[zone["type"]],
        animals=tuple(zone.get("animals", []).count(a) for a in ("mammoth", "aurochs", "deer", "tiger")),
        fish=zone.get("fish", 0),
        bonus=int(bool(zone.get("mushrooms"))),
        trigger=int(zone.get("gold", 0)),
        special=special,
        pool=zone.get("lake"),
    )


RULESET = Ruleset(
    name="hg2002",
    title="Hunters & Gatherers (classic 2002/2014)",
    env_name="hunters_gatherers_classic_v0",
    data_file="hg2002_tiles.json",
    vocabulary=Vocabulary(
        terrains=hg.TERRAINS, kinds={**hg.KINDS, "bonus": KIND_EXTRA}, zone_facts=zone_facts, specials=SPECIALS
    ),
    flags={
        "extra_turn_after_last_tile": Flag(True, doc="K11: the last land tile's bonus tile turn is played"),
        "hut_targets": Flag("canonical", hg.HUT_TARGETS, "as 2020 R5.7 / Q10"),
    },
    pieces=(5, 2, 0),
    occupants=hg.OCCUPANTS,
    points=Points(enclosure_tile=2, enclosure_bonus=2, path_tile=1, path_fish=1, mammoth=2, aurochs=2, deer=2),
    extra_deck="bonus",
    powers=SPECIALS,
    has_systems=True,
    area_names=hg.AREA_NAMES,
    contents=(("fish", "fish"), ("lakes", "pools"), ("gold", "trigger"), ("mushrooms", "bonus")),
    observed_areas=hg.OBSERVED_AREAS,
    fire_power="fire",
    # hunters_gatherers_classic_v0's phase fields as released: 2020's retake and pit_trap too, never set here, so
    # that its trained model (hg_env/arena/models) still reads its observations. A v1 env would drop them.
    observed_phases=("place", "retake", "occupy", "pit_trap", "over"),
    occupant_table=hg.occupant_table,
    final_scoring=hg.final_scoring,
    estimate_areas=hg.estimate_areas,
    meadow_scorers=hg.shrine_scorers,
)
