"""How ``toy`` shows itself: the classic edition's drawing of its tiles, with its own name, factory,
legend, help line and the words of its stash move and offer."""

from __future__ import annotations

import dataclasses

from hg_env.rulesets.hg2002.presentation import OCCUPY_HELP
from hg_env.rulesets.hg2002.presentation import PRESENTATION as CLASSIC

PRESENTATION = dataclasses.replace(
    CLASSIC,
    card="",  # no env card of its own: it is no released environment
    listed=90,  # after the shipped rulesets
    gym_name="",  # not registered with Gymnasium
    factory="toy_env",  # hg_env.aec.toy_env(...) is env(ruleset="toy", ...)
    legend="legend (toy): x,y: the tile to place fits here",
    occupy_help=OCCUPY_HELP + "\n  stash 1       stash the tile just placed (3 points at the end, twice a game)",
    moves={"stash": lambda game, decision: "stash the tile (3 points at the end)"},
    offers={"stash": "stash the tile"},  # the text board's and the picture's words, beside the occupants
)
