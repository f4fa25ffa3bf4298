"""Point values as pure vectorised formulas, and majority.

Every formula takes the ruleset's ``Points`` (the defaults are Hunters &
Gatherers 2020, docs/rules/hg2020.md R6-R8); the rule ids below are that
ruleset's, and the other rulesets' pages say which values they change.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Points:
    """Point values of one ruleset (defaults: Hunters & Gatherers 2020)."""

    enclosure_tile: int = 2  # R6.2: per tile of a completed forest (Carcassonne: city)
    enclosure_bonus: int = 3  # R6.2: per mushroom group (2002: mushroom patch; Carcassonne: coat of arms)
    path_tile: int = 1  # R6.3: per tile of a completed river (Carcassonne: road)
    path_fish: int = 1  # R6.3: per fish in the river and its closing lakes (Carcassonne: 0)
    mammoth: int = 3  # R8.3 (2002: 2)
    aurochs: int = 2  # R8.3 (2002: 2)
    deer: int = 1  # R8.3: per deer not eaten (2002: 2)
    system_fish: int = 1  # R8.2.3: per fish of a river system with huts

    # The value of a completed area, written once: plain arithmetic, so the batched scoring (arrays) and
    # the single-game scoring (Python ints) compute it with the same expression.
    def enclosure(self, tiles, bonus):
        """R6.2: a completed forest (city): per tile plus per bonus (mushroom group, coat of arms)."""
        return self.enclosure_tile * tiles + self.enclosure_bonus * bonus

    def path(self, tiles, fish):
        """R6.3: a completed river (road): per tile plus per fish in it and in the lakes closing it."""
        return self.path_tile * tiles + self.path_fish * fish


HG2020 = Points()


def enclosure_value(tiles, bonus, points: Points = HG2020):
    """R6.2: 2 per tile plus 3 per mushroom group (``points`` for other rulesets)."""
    return points.enclosure(np.asarray(tiles), np.asarray(bonus))


def path_value(tiles, fish, points: Points = HG2020):
    """R6.3: 1 per tile plus 1 per fish in the river and the lakes closing it."""
    return points.path(np.asarray(tiles), np.asarray(fish))


def deer_eaten(deer, tigers, fire=False):
    """R8.3 / R7.17: each tiger eats one deer, none in a meadow with the wildfire."""
    return np.where(fire, 0, np.minimum(deer, tigers))


def animal_value(mammoths, aurochs, deer, points: Points = HG2020):
    """3 per mammoth, 2 per aurochs, 1 per deer (R8.3), before any deer is eaten."""
    return points.mammoth * np.asarray(mammoths) + points.aurochs * np.asarray(aurochs) + points.deer * np.asarray(deer)


def meadow_value(mammoths, aurochs, deer, tigers, fire=False, points: Points = HG2020):
    """R8.3: 3 per mammoth, 2 per aurochs, 1 per deer not eaten; never negative."""
    return animal_value(mammoths, aurochs, deer, points) - points.deer * deer_eaten(deer, tigers, fire)


def system_value(fish, pools, pool_power=False, points: Points = HG2020):
    """R8.2.3 / R7.18: a path system's value: 1 per fish, plus 1 per pool when it holds the ruleset's pool power
    (2020: a river system's lakes with the raft)."""
    return points.system_fish * np.asarray(fish) + np.where(pool_power, pools, 0)


def majority(occupants: np.ndarray) -> np.ndarray:
    """R6.1: [..., seats] occupant counts -> [..., seats] bool scorers (all tied maxima)."""
    top = occupants.max(-1, keepdims=True)
    return (occupants == top) & (top > 0)
