"""One flat Discrete action space for every decision, with encode/decode/describe.

Layout for a board of N cells (N = 625 for the default reach 12): placements, then each occupant
kind's local zones, then each decision the ruleset declares (``Ruleset.decisions``), then none.
Hunters & Gatherers 2020::

    index                         decision          phase
    [0, 4N)                       place (cell, rot)  place    cell*4 + rotation
    [4N, 4N+8)                    pawn on zone l     occupy   local side zone 0..7
    [4N+8, 4N+18)                 hut on zone l      occupy   local zone 0..9
    [4N+18, 5N+18)                retake cell        retake   the own pawn on that tile (R7.1)
    [5N+18, 5N+35)                pit trap k         pit_trap eat k in-range deer (R7.15, option)
    5N+35                         none               retake / occupy: place or retake nothing

The classic 2002 edition has no retake and no pit trap: ``[place 4N][pawn 8][hut 10][none]``.
Carcassonne: ``[place 4N][meeple 10][abbot 10][retake N][none]``, where retake is
"take your abbot back from cell c" in the occupy phase (docs/rules/carcassonne.md).

A tile carries at most one occupant (R5.2), so a cell names a figure to take back.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from hg_env.core.arrays import nonzero
from hg_env.core.rules import Board, Rules, board_geometry
from hg_env.core.ruleset import DEFAULT_RULESET, Decision, Ruleset, get_ruleset


@dataclass(frozen=True)
class ActionLayout:
    """Offsets of the flat action space for one ruleset and board size."""

    ruleset: Ruleset
    board: Board
    place: int
    occupy: int  # first occupant action; the kinds follow each other (``kinds``)
    kinds: tuple[tuple[str, int, int], ...]  # (name, first action, slots) per occupant kind
    occupy_end: int  # one past the last occupant action
    decisions: tuple[tuple[Decision, int, int], ...]  # (decision, first action, width) per declared decision
    none: int
    size: int

    def segment(self, name: str) -> tuple[int, int]:
        """[first, end) of the declared decision ``name``'s actions; ``(none, none)`` if not declared."""
        for decision, first, width in self.decisions:
            if decision.name == name:
                return first, first + width
        return self.none, self.none

    def encode(self, decision: tuple) -> int:
        """Flat index of a decision tuple (see ``decode`` for the forms)."""
        if not isinstance(decision, (tuple, list)) or not decision:
            raise ValueError(f"a decision is a non-empty tuple such as ('none',), got {decision!r}")
        kind = decision[0]
        if kind == "place":
            _, x, y, rot = decision
            if rot not in (0, 1, 2, 3) or isinstance(rot, bool):
                raise ValueError(f"rotation must be 0..3, got {rot!r}")
            return self.place + 4 * self.board.cell(x, y) + rot
        for name, first, slots in self.kinds:
            if kind == name:
                local = decision[1]
                if isinstance(local, bool) or not (isinstance(local, (int, np.integer)) and 0 <= local < slots):
                    raise ValueError(f"a {kind} goes on local zone 0..{slots - 1}, got {local!r}")
                return first + int(local)
        for declared, first, width in self.decisions:
            if kind != declared.name:
                continue
            if declared.operand == "cell":
                _, x, y = decision
                return first + self.board.cell(x, y)
            k = decision[1]
            if isinstance(k, bool) or not (isinstance(k, (int, np.integer)) and 0 <= k < width):
                raise ValueError(f"a {kind} choice must be 0..{width - 1}, got {k!r}")
            return first + int(k)
        if kind == "none":
            return self.none
        known = ["place", *(name for name, _, _ in self.kinds), *(d.name for d, _, _ in self.decisions), "none"]
        raise ValueError(f"unknown decision kind {kind!r} in {self.ruleset.name}; known: {known}")

    def decode(self, action: int) -> tuple:
        """``("place", x, y, rot)``, ``(kind, l)`` for an occupant kind (``"pawn"``, ``"hut"``,
        ``"meeple"``, ``"abbot"``), ``(name, x, y)`` or ``(name, k)`` for a declared decision
        (``("retake", x, y)``, ``("pit", k)``), or ``("none",)``."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"an action is an int, got {action!r} ({type(action).__name__})")
        a = int(action)
        if not 0 <= a < self.size:
            raise ValueError(f"action {a} is outside the action space [0, {self.size})")
        if a < self.occupy:
            cell, rot = divmod(a, 4)
            return ("place", *self.board.xy(cell), rot)
        for name, first, slots in self.kinds:
            if first <= a < first + slots:
                return (name, a - first)
        for decision, first, width in self.decisions:
            if first <= a < first + width:
                if decision.operand == "cell":
                    return (decision.name, *self.board.xy(a - first))
                return (decision.name, a - first)
        return ("none",)

    def describe(self, action: int, tile: int | None = None) -> str:
        """A readable move string, e.g. ``place 41 at (1,0) r0`` or ``pawn on zone 2``."""
        d = self.decode(action)
        if d[0] == "place":
            what = "tile" if tile is None else str(tile)
            return f"place {what} at ({d[1]},{d[2]}) r{d[3]}"
        if d[0] == "none":
            return "none"
        declared = self.ruleset.decision(d[0])
        if declared is not None:
            return declared.describe(d)
        return f"{d[0]} on zone {d[1]}"


@cache
def _layout(ruleset: str, reach: int) -> ActionLayout:
    spec = get_ruleset(ruleset)
    board = board_geometry(reach)
    n = board.num_cells
    occupy = 4 * n
    kinds, first = [], occupy
    for kind in spec.occupants:
        kinds.append((kind.name, first, kind.slots))
        first += kind.slots
    end = first
    decisions = []
    for decision in spec.decisions:
        width = n if decision.operand == "cell" else decision.width
        decisions.append((decision, first, width))
        first += width
    return ActionLayout(spec, board, 0, occupy, tuple(kinds), end, tuple(decisions), first, first + 1)


@cache
def _rules_layout(rules: Rules) -> ActionLayout:
    return _layout(rules.ruleset, rules.reach)


def action_layout(rules: Rules | int | None = None, ruleset: str = DEFAULT_RULESET) -> ActionLayout:
    """The action layout of games with these rules (or of ``ruleset`` on a board of this reach)."""
    if isinstance(rules, Rules):
        return _rules_layout(rules)  # Rules hash once: a dictionary lookup per call
    return _layout(ruleset, 12 if rules is None else int(rules))


def sample_rows(indptr: np.ndarray, actions: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random action per row of compressed legal actions (``engine.legal_actions``);
    -1 for empty rows. Draws exactly what ``sample_uniform`` draws from the same rows as a mask."""
    if len(indptr) == 2:  # one row: the same draw with Python scalars
        start, count = int(indptr[0]), int(indptr[1] - indptr[0])
        pick = int(rng.random() * count)
        return np.array([actions[start + pick] if count else -1], dtype=np.int64)
    return pick_rows(indptr, actions, rng.random(len(indptr) - 1))


def pick_rows(indptr: np.ndarray, actions: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Row i's ``floor(u[i] * count)``-th action (``u`` in [0, 1)), -1 for empty rows: how ``sample_rows``
    and ``engine.sample_legal`` turn their draws into actions."""
    counts = np.diff(indptr)
    pick = indptr[:-1] + (u * counts).astype(np.int64)
    return np.where(counts > 0, actions[np.minimum(pick, len(actions) - 1)] if len(actions) else -1, -1)


def sample_uniform(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a [B, A] bool mask; -1 for empty rows."""
    rows, cols = nonzero(mask)
    counts = np.bincount(rows, minlength=len(mask))
    starts = np.cumsum(counts) - counts
    pick = starts + (rng.random(len(mask)) * counts).astype(np.int64)
    return np.where(counts > 0, cols[np.minimum(pick, len(cols) - 1)] if len(cols) else -1, -1)
