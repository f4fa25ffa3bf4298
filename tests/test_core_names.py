"""The core names no game (issue 29): no ruleset's pieces, zone kinds, phases or powers in the code of
``hg_env/core`` (identifiers and string literals; docstrings and comments may cite them as examples)."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path
from types import ModuleType

import pytest

import hg_env.core
from hg_env.core import areas, ruleset, tiles

# What one ruleset calls things: its pieces and zone kinds as identifiers, its phases, decisions and powers as strings.
GAME_IDENTIFIERS = {"PAWN", "HUT", "ABBOT", "Z_LAKE", "Z_WATER", "Z_MONASTERY", "Z_GARDEN", "WATER", "PHASE_NAMES"}
GAME_IDENTIFIERS |= {"raft", "river_system_value"}  # a power's and a path system's game names
# the pools' old names, after H&G's lakes (the pools' code is named by role: C_POOLS, POOL_BITS, PATH_POOL, ...)
GAME_IDENTIFIERS |= {"C_LAKES", "LAKE_BITS", "LAKE_FISH", "LAKE_ZONE", "ZONE_LAKE_INDEX", "RIVER_LAKE", "num_lakes"}
GAME_IDENTIFIERS |= {"lake", "lakes", "lake_fish", "lake_fish_of", "lake_fish_by_byte", "lake_members"}
GAME_IDENTIFIERS |= {"KIND_RIVER", "KIND_RIVER_SOURCE", "KIND_RIVER_LAKE"}  # Carcassonne's tile kinds (its own)
GAME_STRINGS = {
    "retake",
    "pit",
    "pit_trap",
    "raft",
    "hunting_trap",
    "shaman",
    "wildfire",
    "abbot",
    "meeple",
    "pawn",
    "hut",
    # the rulesets' terrains and features (Ruleset.terrain_names, Ruleset.contents)
    *("meadow", "forest", "river", "lake", "lakes", "field", "city", "road", "monastery", "garden"),
}


def test_the_core_code_names_no_game() -> None:
    found = []
    for path in sorted(Path(hg_env.core.__file__).parent.glob("*.py")):
        for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
            named = token.type == tokenize.NAME and token.string in GAME_IDENTIFIERS
            quoted = token.type == tokenize.STRING and token.string.strip("\"'") in GAME_STRINGS | GAME_IDENTIFIERS
            if named or quoted:
                found.append((path.name, token.start[0], token.string))
    assert found == []


@pytest.mark.parametrize(
    ("module", "name"),
    [(ruleset, "PAWN"), (ruleset, "HUT"), (ruleset, "ABBOT")]
    + [(tiles, name) for name in ("Z_WATER", "C_LAKES", "KIND_RIVER", "KIND_RIVER_SOURCE", "KIND_RIVER_LAKE")]
    + [(areas, name) for name in ("LAKE_BITS", "lake_fish_of", "lake_members")],
)
def test_the_core_keeps_no_old_game_names(module: ModuleType, name: str) -> None:
    """The pieces' and the river's old names are gone from the core (each ruleset names its own roles)."""
    with pytest.raises(AttributeError, match=f"has no attribute '{name}'"):
        getattr(module, name)


@pytest.mark.parametrize("name", ["LAKE_FISH", "LAKE_ZONE", "ZONE_LAKE_INDEX", "RIVER_LAKE", "num_lakes"])
def test_a_tile_set_names_its_pools_by_role(name: str) -> None:
    """A compiled tile set's pool tables have role names (POOL_FISH, PATH_POOL, num_pools, ...), not lakes."""
    tile_set = ruleset.get_ruleset("hg2020").tiles
    assert tile_set.num_pools == len(tile_set.POOL_FISH) == len(tile_set.POOL_ZONE) > 0
    assert not hasattr(tile_set, name)


def test_a_ruleset_numbers_its_own_tile_kinds_after_the_core_s() -> None:
    """Carcassonne's river kinds are its own, numbered from FIRST_OWN_KIND on, one number per kind name."""
    kinds = ruleset.get_ruleset("carcassonne").vocabulary.kinds
    assert len(set(kinds.values())) == len(kinds)
    assert {kinds["start"], kinds["regular"]} == {tiles.KIND_START, tiles.KIND_REGULAR}
    assert min(kinds[name] for name in ("river", "river_source", "river_lake")) == tiles.FIRST_OWN_KIND
