"""Progress bars for every long hgenv command (tournaments, training, imitation, RLlib): one helper.

On a terminal a bar is tqdm's, redrawn in place. On anything else (a log file, a pipe, CI) redrawing
with carriage returns would make one line of tens of kilobytes, so the bar writes plain lines instead:
one when it starts, then at most one every ``PLAIN_INTERVAL_S`` seconds, and its final state when it
closes. Needs tqdm (the ``[train]`` extra).
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from tqdm import tqdm

PLAIN_INTERVAL_S = 30.0  # seconds between two lines of a bar written to a file


def progress_bar(*, file: TextIO | None = None, interval: float = PLAIN_INTERVAL_S, **kwargs: Any) -> tqdm:
    """A tqdm bar (``total``, ``desc``, ``unit``, ``disable``... as tqdm takes them) on ``file``
    (default: stderr): tqdm's own on a terminal, a ``PlainProgress`` writing a line at most every
    ``interval`` seconds on anything else."""
    stream = sys.stderr if file is None else file
    if _is_terminal(stream):
        return tqdm(file=stream, **kwargs)
    kwargs.pop("dynamic_ncols", None)  # no terminal to measure
    kwargs.pop("mininterval", None)
    return PlainProgress(file=stream, interval=interval, **kwargs)


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class PlainProgress(tqdm):
    """A tqdm bar that never redraws: each display is a new line ending in a newline, no carriage
    return; at most one every ``interval`` seconds, the final one (at close) always, an unchanged
    one never."""

    def __init__(self, *args: Any, interval: float = PLAIN_INTERVAL_S, **kwargs: Any) -> None:
        self._interval = interval
        self._line_at = -float("inf")
        self._last_line: str | None = None
        # tqdm formats a line only every mininterval seconds of updates: no work for lines never written.
        super().__init__(*args, mininterval=interval, **kwargs)

    def display(self, msg: str | None = None, pos: int | None = None) -> bool:
        closing = self.disable  # close() disables the bar before its last display
        if msg is not None and not closing:  # tqdm clearing its line: nothing was drawn over, nothing to erase
            return True
        now = time.monotonic()
        if not closing and now - self._line_at < self._interval:
            return True
        line = self.__str__().rstrip()
        if line != self._last_line:
            self.fp.write(line + "\n")
            self.fp.flush()
            self._line_at, self._last_line = now, line
        return not closing  # False: close() then writes no "\r" after it

    def clear(self, nolock: bool = False) -> None:
        """Nothing to erase: lines already written stay (tqdm.write calls this around a message)."""

    def close(self) -> None:
        # As a bar that is not left: tqdm's close() then asks display() to clear it (the final line is
        # written there) instead of ending a redrawn line with its own newline.
        self.leave = False
        super().close()
