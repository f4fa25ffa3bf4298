"""Rule options (RULES.md Appendix A) and board geometry."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cache

import numpy as np

from hg_env.core.tiles import DIRECTION_OFFSETS, NUM_TILES

# With 95 tiles no tile can lie more than 94 steps from the start tile, so a
# board of this reach is exactly the unbounded table (board_reach=None).
UNBOUNDED_REACH = NUM_TILES - 1
MIN_PLAYERS, MAX_PLAYERS = 2, 5

_CHOICES = {
    "hunting_trap_cancel": ("all", "scored_and_pairs"),
    "hut_targets": ("canonical", "all_water_zones"),
    "pit_trap_deer_choice": ("maximize", "player_choice"),
}


@dataclass(frozen=True)
class Rules:
    """The configuration flags of RULES.md Appendix A, with their defaults."""

    board_reach: int | None = 12  # R4.3; None = unbounded
    start_rotation: int = 0  # R1.4
    extra_turn_after_last_tile: bool = True  # R8.1 / Q3
    hunting_trap_cancel: str = "all"  # R7.10 / Q5
    wildfire_affects_hunting_trap: bool = False  # R7.12 / Q6
    hut_targets: str = "canonical"  # R5.7 / Q10
    pit_trap_deer_choice: str = "maximize"  # R7.15 / Q7
    auto_skip_forced_actions: bool = True  # R3.7

    def __post_init__(self) -> None:
        reach = self.board_reach
        if reach is not None and (isinstance(reach, bool) or not isinstance(reach, int) or reach < 1):
            raise ValueError(f"board_reach must be an int >= 1 or None, got {reach!r}")
        if self.start_rotation not in (0, 1, 2, 3) or isinstance(self.start_rotation, bool):
            raise ValueError(f"start_rotation must be 0, 1, 2 or 3, got {self.start_rotation!r}")
        for name in ("extra_turn_after_last_tile", "wildfire_affects_hunting_trap", "auto_skip_forced_actions"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
        for name, options in _CHOICES.items():
            if getattr(self, name) not in options:
                raise ValueError(f"{name} must be one of {options}, got {getattr(self, name)!r}")

    @classmethod
    def from_kwargs(cls, **flags: object) -> Rules:
        """Build from keyword flags, naming any unknown flag in the error."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(flags) - known)
        if unknown:
            raise ValueError(f"unknown rule flag(s) {unknown}; known flags: {sorted(known)}")
        return cls(**flags)  # type: ignore[arg-type]

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    @property
    def reach(self) -> int:
        return UNBOUNDED_REACH if self.board_reach is None else self.board_reach

    @property
    def board(self) -> Board:
        return board_geometry(self.reach)


@dataclass(frozen=True, eq=False)
class Board:
    """A square board of (2*reach+1)^2 positions; cell = (y+reach)*size + (x+reach).

    ::

        cell index            x = -reach .. reach  (east)
        y = -reach   0    1    2   ...
        (south)      size ...
    """

    reach: int
    size: int
    num_cells: int
    neighbor: np.ndarray  # [cell, dir] neighbouring cell, -1 when off the board
    block: np.ndarray  # [cell, 9] cells of the 3x3 block (R2.1), -1 when off the board
    xs: np.ndarray  # [cell] x coordinate
    ys: np.ndarray  # [cell] y coordinate
    origin: int  # cell of (0, 0), the start tile

    def cell(self, x: int, y: int) -> int:
        """Cell index of position (x, y); ValueError if off the board (R4.3)."""
        if not (abs(x) <= self.reach and abs(y) <= self.reach):
            raise ValueError(f"position ({x}, {y}) is off the board (board_reach={self.reach})")
        return (y + self.reach) * self.size + (x + self.reach)

    def xy(self, cell: int) -> tuple[int, int]:
        return int(self.xs[cell]), int(self.ys[cell])


@cache
def board_geometry(reach: int) -> Board:
    size = 2 * reach + 1
    ys, xs = np.divmod(np.arange(size * size), size)
    xs, ys = xs - reach, ys - reach

    def at(dx: np.ndarray | int, dy: np.ndarray | int) -> np.ndarray:
        nx, ny = xs[:, None] + dx, ys[:, None] + dy
        on = (np.abs(nx) <= reach) & (np.abs(ny) <= reach)
        return np.where(on, (ny + reach) * size + (nx + reach), -1)

    neighbor = at(DIRECTION_OFFSETS[:, 0], DIRECTION_OFFSETS[:, 1])
    ddx, ddy = np.meshgrid(np.arange(-1, 2), np.arange(-1, 2))
    block = at(ddx.ravel(), ddy.ravel())
    return Board(reach, size, size * size, neighbor, block, xs, ys, reach * size + reach)
