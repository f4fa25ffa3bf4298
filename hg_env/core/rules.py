"""Rule options of a game (its ruleset and flags) and board geometry."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from hg_env.core.ruleset import DEFAULT_RULESET, Flag, Ruleset, get_ruleset
from hg_env.core.seats import MAX_PLAYERS, MIN_PLAYERS  # noqa: F401  (re-exported: the player counts Rules validate)
from hg_env.core.tiles import DIRECTION_OFFSETS

# Flags every ruleset has (docs/rules/hg2020.md Appendix A for their ids); a ruleset adds its own.
COMMON_FLAGS: dict[str, Flag] = {
    "auto_skip_forced_actions": Flag(True, doc="R3.7: skip decisions whose only choice is forced"),
}


def check_int(name: str, value: Any, low: int, high: int) -> int:
    """An int (or numpy integer, not a bool) in [low, high], as a Python int; ValueError otherwise."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an int {low}..{high}, got {value!r} ({type(value).__name__})")
    if not low <= value <= high:
        raise ValueError(f"{name} must be {low}..{high}, got {value}")
    return int(value)


class Rules:
    """The ruleset of a game and its flags, validated and immutable.

    ``Rules(ruleset="hg2020", board_reach=12, start_rotation=0, **flags)``: the
    common options, then the ruleset's own flags (``Rules.flags_of(ruleset)``
    lists them with their defaults). Every flag is also an attribute
    (``rules.hut_targets``). Unknown flags and bad values raise ValueError.
    """

    __slots__ = ("_hash", "_values", "board", "reach", "spec")
    spec: Ruleset  # the ruleset definition (tiles, pieces, points, rule functions)
    reach: int  # the board's reach: board_reach, or num_tiles - 1 when unbounded
    board: Board  # its geometry (built once: the engine reads it on every step)

    def __init__(self, ruleset: str = DEFAULT_RULESET, board_reach: int | None = 12, start_rotation: int = 0, **flags):
        spec = get_ruleset(ruleset)
        known = {**COMMON_FLAGS, **spec.flags}
        unknown = sorted(set(flags) - set(known))
        if unknown:
            raise ValueError(
                f"unknown rule flag(s) {unknown} for ruleset {ruleset!r}; known flags: {self.flags_of(ruleset)}"
            )
        if board_reach is not None:  # with T tiles no tile lies more than T - 1 steps from the start tile
            board_reach = check_int("board_reach", board_reach, 1, spec.tiles.num_tiles - 1)
        values: dict[str, Any] = {
            "ruleset": ruleset,
            "board_reach": board_reach,
            "start_rotation": check_int("start_rotation", start_rotation, 0, 3),
        }
        for name, flag in known.items():
            values[name] = flag.check(name, flags.get(name, flag.default))
        object.__setattr__(self, "_values", values)
        object.__setattr__(self, "_hash", hash(tuple(sorted(values.items()))))
        object.__setattr__(self, "spec", spec)  # the ruleset definition (tiles, pieces, points, rule functions)
        # With T tiles no tile can lie more than T - 1 steps from the start tile: None is exactly unbounded.
        reach = spec.tiles.num_tiles - 1 if board_reach is None else board_reach
        object.__setattr__(self, "reach", reach)
        object.__setattr__(self, "board", board_geometry(reach))

    @classmethod
    def from_kwargs(cls, **flags: object) -> Rules:
        """Build from keyword flags (the ruleset among them), naming any unknown flag in the error."""
        return cls(**flags)  # type: ignore[arg-type]

    @staticmethod
    def flags_of(ruleset: str = DEFAULT_RULESET) -> list[str]:
        """Every flag a game of this ruleset takes."""
        return sorted(["ruleset", "board_reach", "start_rotation", *COMMON_FLAGS, *get_ruleset(ruleset).flags])

    def __getattr__(self, name: str) -> Any:
        try:
            return object.__getattribute__(self, "_values")[name]
        except (KeyError, AttributeError):
            raise AttributeError(f"{type(self).__name__} has no flag {name!r}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Rules are immutable: make new ones with Rules(...)")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rules) and self._values == other._values

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return "Rules(" + ", ".join(f"{k}={v!r}" for k, v in self._values.items()) + ")"

    def __reduce__(self):  # picklable for worker processes (tournaments): rebuilt from its flags
        return (_rules_from_dict, (dict(self._values),))

    def as_dict(self) -> dict[str, Any]:
        """Every flag by name, the ruleset included (what records store)."""
        return dict(self._values)


def _rules_from_dict(values: dict) -> Rules:
    return Rules(**values)


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
    # the tables are left out of the repr: Board(reach=12, size=25, num_cells=625, origin=312)
    neighbor: np.ndarray = field(repr=False)  # [cell, dir] neighbouring cell, -1 when off the board
    block: np.ndarray = field(repr=False)  # [cell, 9] cells of the 3x3 block (R2.1), -1 when off the board
    xs: np.ndarray = field(repr=False)  # [cell] x coordinate
    ys: np.ndarray = field(repr=False)  # [cell] y coordinate
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
