"""Array helpers the hot paths share."""

from __future__ import annotations

import numpy as np


def nonzero(mask: np.ndarray) -> tuple[np.ndarray, ...]:
    """The indices of the true entries of an N-d array, in the row-major order ``mask.nonzero()``
    gives. numpy's N-d ``nonzero`` costs about ten times the flat one on large arrays, so those go
    the flat way; small ones keep numpy's, whose fixed cost is lower."""
    if mask.ndim < 2 or mask.size <= 512:
        return mask.nonzero()
    return np.unravel_index(np.flatnonzero(mask), mask.shape)
