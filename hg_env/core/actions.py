"""One flat Discrete action space for every decision, with encode/decode/describe.

Layout for a board of N cells (N = 625 for the default reach 12)::

    index                         decision          phase
    [0, 4N)                       place (cell, rot)  place    cell*4 + rotation
    [4N, 4N+8)                    pawn on zone l     occupy   local side zone 0..7
    [4N+8, 4N+18)                 hut on zone l      occupy   local zone 0..9
    [4N+18, 5N+18)                retake cell        retake   the own pawn on that tile (R7.1)
    [5N+18, 5N+35)                pit trap k         pit_trap eat k in-range deer (R7.15, option)
    5N+35                         none               retake / occupy: place or retake nothing

A tile carries at most one occupant (R5.2), so a cell names a pawn to retake.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from hg_env.core.rules import Board, board_geometry
from hg_env.core.state import NUM_OCCUPY_TARGETS

MAX_PIT_DEER = 17  # choices 0..16: a 3x3 block holds at most 8 tiles x 2 deer


@dataclass(frozen=True)
class ActionLayout:
    """Offsets of the flat action space for one board size."""

    board: Board
    place: int
    pawn: int
    hut: int
    retake: int
    pit: int
    none: int
    size: int

    def encode(self, decision: tuple) -> int:
        """Flat index of a decision tuple (see ``decode`` for the forms)."""
        kind = decision[0]
        if kind == "place":
            _, x, y, rot = decision
            if rot not in (0, 1, 2, 3):
                raise ValueError(f"rotation must be 0..3, got {rot!r}")
            return self.place + 4 * self.board.cell(x, y) + rot
        if kind in ("pawn", "hut"):
            local = decision[1]
            limit = 8 if kind == "pawn" else 10
            if not (isinstance(local, int) and 0 <= local < limit):
                raise ValueError(f"a {kind} goes on local zone 0..{limit - 1}, got {local!r}")
            return (self.pawn if kind == "pawn" else self.hut) + local
        if kind == "retake":
            _, x, y = decision
            return self.retake + self.board.cell(x, y)
        if kind == "pit":
            k = decision[1]
            if not (isinstance(k, int) and 0 <= k < MAX_PIT_DEER):
                raise ValueError(f"pit-trap choice must be 0..{MAX_PIT_DEER - 1}, got {k!r}")
            return self.pit + k
        if kind == "none":
            return self.none
        raise ValueError(f"unknown decision kind {kind!r}")

    def decode(self, action: int) -> tuple:
        """``("place", x, y, rot)``, ``("pawn", l)``, ``("hut", l)``, ``("retake", x, y)``,
        ``("pit", k)`` or ``("none",)``."""
        a = int(action)
        if not 0 <= a < self.size:
            raise ValueError(f"action {a} is outside the action space [0, {self.size})")
        if a < self.pawn:
            cell, rot = divmod(a, 4)
            return ("place", *self.board.xy(cell), rot)
        if a < self.hut:
            return ("pawn", a - self.pawn)
        if a < self.retake:
            return ("hut", a - self.hut)
        if a < self.pit:
            return ("retake", *self.board.xy(a - self.retake))
        if a < self.none:
            return ("pit", a - self.pit)
        return ("none",)

    def describe(self, action: int, tile: int | None = None) -> str:
        """A readable move string, e.g. ``place 41 at (1,0) r0`` or ``pawn on zone 2``."""
        d = self.decode(action)
        if d[0] == "place":
            what = "tile" if tile is None else str(tile)
            return f"place {what} at ({d[1]},{d[2]}) r{d[3]}"
        if d[0] in ("pawn", "hut"):
            return f"{d[0]} on zone {d[1]}"
        if d[0] == "retake":
            return f"retake pawn at ({d[1]},{d[2]})"
        if d[0] == "pit":
            return f"pit trap: eat {d[1]} deer in range"
        return "none"


@cache
def action_layout(reach: int) -> ActionLayout:
    board = board_geometry(reach)
    n = board.num_cells
    pawn = 4 * n
    hut = pawn + 8
    retake = pawn + NUM_OCCUPY_TARGETS
    pit = retake + n
    none = pit + MAX_PIT_DEER
    return ActionLayout(board, 0, pawn, hut, retake, pit, none, none + 1)


def sample_uniform(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a [B, A] bool mask; -1 for empty rows."""
    rows, cols = np.nonzero(mask)
    counts = np.bincount(rows, minlength=len(mask))
    starts = np.cumsum(counts) - counts
    pick = starts + (rng.random(len(mask)) * counts).astype(np.int64)
    return np.where(counts > 0, cols[np.minimum(pick, len(cols) - 1)] if len(cols) else -1, -1)
