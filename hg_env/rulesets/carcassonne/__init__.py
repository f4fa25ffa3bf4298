"""Base Carcassonne (C3) with farmers, the abbot and the river: docs/rules/carcassonne.md.

84 tiles (``hg_env/data/carcassonne_tiles.json``): the 72 tiles of the base game
(the start tile id 0 among them) and the 12 tiles of The River C3 (ids 72-83,
with the ``river`` flag). 7 meeples per player, and an abbot with the ``abbot``
flag (default on). Cities play the engine's forest role and roads its river
role (completed: 2 per tile + 2 per coat of arms, 1 per tile); fields its meadow
role, scored only at the end by their farmers (3 per completed bordering city).
Monasteries and gardens, the abbot, final scoring and the river's placement rule
are in ``features``.
"""

from __future__ import annotations

import numpy as np

from hg_env.core.rules import Rules
from hg_env.core.ruleset import Flag, OccupantKind, Ruleset
from hg_env.core.scoring import Points
from hg_env.core.tiles import (
    ENCLOSURE,
    KIND_REGULAR,
    KIND_START,
    LAND,
    MAX_LOCAL_ZONES,
    PATH,
    Z_ENCLOSURE,
    Z_LAND,
    Z_PATH,
    TileSet,
    Vocabulary,
    ZoneFacts,
)
from hg_env.rulesets.carcassonne import features
from hg_env.rulesets.carcassonne.features import (
    ABBOT,
    KIND_RIVER,
    KIND_RIVER_LAKE,
    KIND_RIVER_SOURCE,
    MEEPLE,
    WATER,
    Z_GARDEN,
    Z_MONASTERY,
    Z_WATER,
)

ZONE_TYPES = {
    "field": Z_LAND,
    "city": Z_ENCLOSURE,
    "road": Z_PATH,
    "river": Z_WATER,
    "monastery": Z_MONASTERY,
    "garden": Z_GARDEN,
}


def zone_facts(zone: dict) -> ZoneFacts:
    """A zone of carcassonne_tiles.json in the shared vocabulary: coats of arms count as a city's
    bonus, a field lists the cities it borders on its tile (B2.13)."""
    return ZoneFacts(
        type=ZONE_TYPES[zone["type"]],
        bonus=int(zone.get("pennants", 0)),
        borders=tuple(zone.get("cities", [])),
    )


def occupant_table(tiles: TileSet, rules: Rules) -> np.ndarray:
    """[tile, 20] meeple targets (roads, cities, fields, monasteries: B3.10; never a garden or the river,
    A1.3, V1.8), then abbot targets (monasteries and gardens, with the ``abbot`` flag: A1.3)."""
    table = np.zeros((tiles.num_tiles, 2, MAX_LOCAL_ZONES), dtype=bool)
    t, local, kind = tiles.ZONE_TILE, tiles.ZONE_LOCAL, tiles.ZONE_TYPE
    table[t, 0, local] = np.isin(kind, [Z_PATH, Z_ENCLOSURE, Z_LAND, Z_MONASTERY])
    if rules.abbot:
        table[t, 1, local] = np.isin(kind, [Z_MONASTERY, Z_GARDEN])
    return table.reshape(tiles.num_tiles, -1)


def pieces_for(rules: Rules) -> tuple[int, int, int]:
    """B1.2, A1.1: 7 meeples, and the abbot with the ``abbot`` flag."""
    return (7, 0, 1 if rules.abbot else 0)


RULESET = Ruleset(
    name="carcassonne",
    title="Carcassonne (base game C3, farmers, abbot, river)",
    env_name="carcassonne_v0",
    data_file="carcassonne_tiles.json",
    vocabulary=Vocabulary(
        terrains={"field": LAND, "city": ENCLOSURE, "road": PATH, "river": WATER},
        kinds={
            "start": KIND_START,
            "regular": KIND_REGULAR,
            "river_source": KIND_RIVER_SOURCE,
            "river": KIND_RIVER,
            "river_lake": KIND_RIVER_LAKE,
        },
        zone_facts=zone_facts,
    ),
    flags={
        "abbot": Flag(True, doc="A1.1: each player has an abbot; gardens score"),
        "river": Flag(False, doc="V1.1: The River C3 is laid first, from the source"),
    },
    pieces=(7, 0, 1),
    occupants=(
        OccupantKind("meeple", MEEPLE, MAX_LOCAL_ZONES, "area"),
        OccupantKind("abbot", ABBOT, MAX_LOCAL_ZONES, "area"),
    ),
    points=Points(
        enclosure_tile=2, enclosure_bonus=2, path_tile=1, path_fish=0, mammoth=0, aurochs=0, deer=0, system_fish=0
    ),
    decisions=(features.RECALL,),
    area_names={Z_LAND: "field", Z_ENCLOSURE: "city", Z_PATH: "road"},
    bonus_event_key="coats",
    terrain_names=("field", "city", "road", "river"),
    contents=(("coats_of_arms", "bonus"), ("monastery", "monastery"), ("garden", "garden")),
    zone_channels={"monastery": Z_MONASTERY, "garden": Z_GARDEN},
    observed_areas=(
        ("city", "area", (Z_ENCLOSURE,)),
        ("field", "area", (Z_LAND,)),
        ("road", "area", (Z_PATH,)),
        ("cloister", "area", (Z_MONASTERY, Z_GARDEN)),
    ),
    # carcassonne_v0's phase fields as released: 2020's retake and pit_trap too, never set here, so
    # that its trained model (hg_env/arena/models) still reads its observations. A v1 env would drop them.
    observed_phases=("place", "retake", "occupy", "pit_trap", "over"),
    occupant_table=occupant_table,
    pieces_for=pieces_for,
    score_turn=features.score_turn,
    final_scoring=features.final_scoring,
    filter_placements=features.river_placements,
    observe_areas=features.observe_areas,
    estimate_areas=features.estimate_areas,
    deck_tiles=features.deck_tiles,
    deal=features.deal,
    deal_rank=features.deal_rank,
    check_deck_order=features.check_deck_order,
    start_tile=features.start_tile,
)
