"""Point values (R6, R7, R8) as pure vectorised formulas, and majority (R6.1)."""

from __future__ import annotations

import numpy as np


def forest_value(tiles, mushrooms):
    """R6.2: 2 per tile plus 3 per mushroom group."""
    return 2 * np.asarray(tiles) + 3 * np.asarray(mushrooms)


def river_value(tiles, fish):
    """R6.3: 1 per tile plus 1 per fish in the river and the lakes closing it."""
    return np.asarray(tiles) + np.asarray(fish)


def deer_eaten(deer, tigers, fire=False):
    """R8.3 / R7.17: each tiger eats one deer, none in a meadow with the wildfire."""
    return np.where(fire, 0, np.minimum(deer, tigers))


def meadow_value(mammoths, aurochs, deer, tigers, fire=False):
    """R8.3: 3 per mammoth, 2 per aurochs, 1 per deer not eaten; never negative."""
    return 3 * np.asarray(mammoths) + 2 * np.asarray(aurochs) + deer - deer_eaten(deer, tigers, fire)


def pit_trap_bonus(deer, tigers, deer_out, mammoths_in, aurochs_in, deer_in, fire=False, eaten_in=None):
    """R7.15: the in-range animals score again; deer far from the trap are eaten first.

    ``eaten_in`` overrides how many in-range deer are eaten (the
    ``pit_trap_deer_choice="player_choice"`` option)."""
    eaten = deer_eaten(deer, tigers, fire)
    if eaten_in is None:
        eaten_in = eaten - np.minimum(eaten, deer_out)
    return 3 * np.asarray(mammoths_in) + 2 * np.asarray(aurochs_in) + deer_in - eaten_in


def pit_trap_eaten_range(deer, tigers, deer_out, deer_in, fire=False):
    """Lowest and highest number of in-range deer the tigers may eat (R7.15)."""
    eaten = deer_eaten(deer, tigers, fire)
    return np.maximum(0, eaten - deer_out), np.minimum(eaten, deer_in)


def river_system_value(fish, lakes, raft=False):
    """R8.2.3 / R7.18: 1 per fish, plus 1 per lake when the system holds the raft."""
    return np.asarray(fish) + np.where(raft, lakes, 0)


def logboat_value(lakes):
    """R7.5: 2 per lake of the logboat's river system."""
    return 2 * np.asarray(lakes)


def hunting_trap_value(mammoths, aurochs, deer, tigers, fire=False):
    """R7.9: 3M + 2A + max(0, D - T) over the animals in range."""
    return meadow_value(mammoths, aurochs, deer, tigers, fire)


def majority(occupants: np.ndarray) -> np.ndarray:
    """R6.1: [..., seats] occupant counts -> [..., seats] bool scorers (all tied maxima)."""
    top = occupants.max(-1, keepdims=True)
    return (occupants == top) & (top > 0)
