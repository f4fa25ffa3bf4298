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


@pytest.mark.parametrize(("flags", "expected"), GOLDEN, ids=["hg2020-defaults", "hg2020-all-flags-flipped"])
def test_seeded_games_are_bit_identical(flags: dict, expected: dict) -> None:
    assert fingerprint(**flags) == expected
