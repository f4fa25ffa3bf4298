"""Golden fingerprints: seeded random games show exactly what they showed when the digests were taken.

Refactors and speed work must leave the games bit-identical (observations, masks, actions, scores,
events, lookahead features). A deliberate rules change updates the digest here, in the same commit,
saying why. ``hgenv bench fingerprint`` prints the digests."""

from __future__ import annotations

import pytest

from hg_env.bench import fingerprint

ALL_FLAGS_FLIPPED = dict(
    board_reach=30,
    start_rotation=1,
    extra_turn_after_last_tile=False,
    hunting_trap_cancel="scored_and_pairs",
    wildfire_affects_hunting_trap=True,
    hut_targets="all_water_zones",
    pit_trap_deer_choice="player_choice",
    auto_skip_forced_actions=False,
)

GOLDEN = [
    (
        {},
        {
            "observations": "63e12c6e7390e106",
            "masks": "a68f04a3a26f42b2",
            "actions": "a80e3b500f2f127b",
            "scores": "c10131b396a1322e",
            "events": "564e5b787ddc0b32",
            "lookahead": "8b1c2e041c9f1747",
        },
    ),
    (
        dict(ALL_FLAGS_FLIPPED, num_games=6),
        {
            "observations": "f794a9a2123452af",
            "masks": "c1772cddeb199bc7",
            "actions": "91116bd52d73d55c",
            "scores": "5a1424d71b05ab7e",
            "events": "8195b39f5af69b6d",
            "lookahead": "3d76fc3dc25003ad",
        },
    ),
]


# Taken once the classic edition's and Carcassonne's rules tests passed (docs/rules/hg2002.md, carcassonne.md).
GOLDEN += [
    (
        {"ruleset": "hg2002"},
        {
            "observations": "fa8d9f4a2a5a9f59",
            "masks": "15a7a34a65036567",
            "actions": "20adb104ae3179ac",
            "scores": "5fbc5b872670afc9",
            "events": "51fe362edd5595ad",
            "lookahead": "9489f8eb5bcfe7fc",
        },
    ),
    (
        {"ruleset": "carcassonne"},
        {
            "observations": "89ad6d6fb4f5c302",
            "masks": "c73db169c136d716",
            "actions": "f31980ef441388f9",
            "scores": "7329f36c707119f1",
            "events": "bbaca38b7b82ecdc",
            "lookahead": "d359682f4e954e30",
        },
    ),
    (
        {"ruleset": "carcassonne", "river": True, "abbot": False, "num_games": 8},
        {
            "observations": "3abddbe5ca8847f4",
            "masks": "f400d60407c96444",
            "actions": "1b00f3c7607226f7",
            "scores": "1364bfcd3e382cfa",
            "events": "d1809dfac99a6f8b",
            "lookahead": "76372130f3099209",
        },
    ),
]
IDS = ["hg2020-defaults", "hg2020-all-flags-flipped", "hg2002", "carcassonne", "carcassonne-river-no-abbot"]


@pytest.mark.parametrize(("flags", "expected"), GOLDEN, ids=IDS)
def test_seeded_games_are_bit_identical(flags: dict, expected: dict) -> None:
    assert fingerprint(**flags) == expected


@pytest.mark.parametrize(("flags", "expected"), GOLDEN, ids=IDS)
def test_games_played_one_state_each_are_bit_identical(flags: dict, expected: dict) -> None:
    """The single-game paths (one game per state: the AEC env, ``Game``) play the same games."""
    expected = {name: digest for name, digest in expected.items() if name != "lookahead"}
    assert fingerprint(one_state_per_game=True, **flags) == expected
