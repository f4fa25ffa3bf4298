"""Hunters & Gatherers 2020 (menhir tiles, six powers): docs/rules/hg2020.md.

95 tiles (``hg_env/data/hg2020_tiles.json``): the start tile 56, 78 regular tiles
and 16 menhir tiles. 5 pawns and 3 huts per player. A completed forest with a
menhir earns the placer an extra turn with a menhir tile (R3.3). Powers: the
shaman, logboat and hunting trap act when placed (``powers``), the pit trap,
wildfire and raft in final scoring (``hunters_gatherers``).
"""

from __future__ import annotations

from hg_env.core.ruleset import Flag, GameArray, Ruleset
from hg_env.core.scoring import Points
from hg_env.core.tiles import KIND_EXTRA, Vocabulary, ZoneFacts
from hg_env.rulesets import hunters_gatherers as hg
from hg_env.rulesets.hg2020 import powers

SPECIALS = ("shaman", "logboat", "hunting_trap", "pit_trap", "wildfire", "raft")


def zone_facts(zone: dict) -> ZoneFacts:
    """A zone of hg2020_tiles.json in the shared vocabulary (R2.4-R2.9)."""
    kind = zone.get("forest_kind")
    return ZoneFacts(
        type=hg.ZONE_TYPES[zone["type"]],
        animals=tuple(zone.get("animals", []).count(a) for a in ("mammoth", "aurochs", "deer", "tiger")),
        fish=zone.get("fish", 0),
        bonus=int(kind == "mushrooms"),
        trigger=int(kind == "menhir"),
        special=zone.get("special") or "",
        pool=zone.get("lake"),
    )


RULESET = Ruleset(
    name="hg2020",
    title="Hunters & Gatherers (2020)",
    env_name="hunters_gatherers_v0",
    data_file="hg2020_tiles.json",
    vocabulary=Vocabulary(
        terrains=hg.TERRAINS, kinds={**hg.KINDS, "menhir": KIND_EXTRA}, zone_facts=zone_facts, specials=SPECIALS
    ),
    flags={
        "extra_turn_after_last_tile": Flag(True, doc="R8.1 / Q3: the last regular tile's menhir extra turn is played"),
        "hunting_trap_cancel": Flag("all", ("all", "scored_and_pairs"), "R7.10 / Q5"),
        "wildfire_affects_hunting_trap": Flag(False, doc="R7.12 / Q6"),
        "hut_targets": Flag("canonical", hg.HUT_TARGETS, "R5.7 / Q10"),
        "pit_trap_deer_choice": Flag("maximize", ("maximize", "player_choice"), "R7.15 / Q7"),
    },
    pieces=(5, 3, 0),
    occupants=hg.OCCUPANTS,
    points=Points(),
    extra_deck="menhir",
    powers=SPECIALS,
    has_systems=True,
    decisions=(powers.RETAKE_DECISION, powers.PIT_DECISION),
    area_names=hg.AREA_NAMES,
    contents=(("fish", "fish"), ("lakes", "pools"), ("menhirs", "trigger"), ("mushrooms", "bonus")),
    observed_areas=hg.OBSERVED_AREAS,
    fire_power="wildfire",
    pool_power="raft",
    cancelled_array="cancelled",
    cancel_power="hunting_trap",
    arrays=(
        GameArray("cancelled", ("zones", 4)),  # [Z, 4] animals of each zone cancelled by the hunting trap (R7.10)
        GameArray("pit_range", (2,), info=("pit_lo", "pit_hi")),  # the pit-trap choice's lowest and highest (R7.15)
    ),
    occupant_table=hg.occupant_table,
    after_place=powers.after_place,
    end_game=powers.end_game,
    final_scoring=hg.final_scoring,
    estimate_areas=hg.estimate_areas,
)
