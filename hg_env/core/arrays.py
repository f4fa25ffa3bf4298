"""Array helpers the hot paths share."""

from __future__ import annotations

import threading

import numpy as np


def sorted_unique(keys: np.ndarray) -> np.ndarray:
    """``np.unique`` of a 1-d integer array, by sorting (many times faster on large int64 keys)."""
    keys = np.sort(keys)
    return keys[np.r_[True, keys[1:] != keys[:-1]]] if len(keys) else keys


def nonzero(mask: np.ndarray) -> tuple[np.ndarray, ...]:
    """The indices of the true entries of an N-d array, in the row-major order ``mask.nonzero()``
    gives. numpy's N-d ``nonzero`` costs about ten times the flat one on large arrays, so those go
    the flat way; small ones keep numpy's, whose fixed cost is lower."""
    if mask.ndim < 2 or mask.size <= 512:
        return mask.nonzero()
    return np.unravel_index(np.flatnonzero(mask), mask.shape)


_SCRATCH = threading.local()  # per thread: a stamp array that only grows (its pages stay mapped)


def occurs_once(keys: np.ndarray, bound: int) -> np.ndarray:
    """[n] bool: ``keys[i]`` (ints in [0, bound)) occurs once in ``keys``. Positions are stamped into a
    scratch array by key, read back, and keys whose stamp another position overwrote are stamped
    -1: a few O(n) scatters instead of a sort, right whichever duplicate write numpy keeps."""
    stamp = getattr(_SCRATCH, "stamp", None)
    if stamp is None or len(stamp) < bound:
        stamp = _SCRATCH.stamp = np.empty(bound, dtype=np.int64)
    position = np.arange(len(keys))
    stamp[keys] = position
    stamp[keys[stamp[keys] != position]] = -1
    return stamp[keys] == position


def put_rows(array: np.ndarray, rows: np.ndarray, values: np.ndarray) -> None:
    """``array[rows] = values`` for a C-contiguous 2-d array, each row written as one opaque item: numpy
    copies a short row per index several times slower than one item (``take(rows, axis=0)`` reads fast)."""
    item = np.dtype((np.void, array.shape[1] * array.itemsize))
    array.view(item).reshape(-1)[rows] = np.ascontiguousarray(values, dtype=array.dtype).view(item).reshape(-1)
