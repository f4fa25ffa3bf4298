"""The one table renderer: a header and rows of cells as a GitHub Markdown table or as CSV.

Tournament tables (hg_env.arena.ratings), evaluation tables (hg_env.arena.evaluate) and the
README's figures (hg_env.figures) all go through ``render_table``; callers format their
cells (numbers to text) and choose the columns, the renderer only lays them out.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

STYLES = ("markdown", "csv")


def render_table(
    header: Sequence[str], rows: Iterable[Sequence[object]], style: str = "markdown", align: str | None = None
) -> str:
    """The table as text, one line per row and a final newline.

    ``style``: ``"markdown"`` (a GitHub table; ``align`` gives one letter per column,
    ``l`` or ``r``, default all ``l``) or ``"csv"`` (``align`` is ignored).
    Cells are written with ``str``; ValueError if a row does not have one cell per column."""
    if style not in STYLES:
        raise ValueError(f"style must be one of {STYLES}, got {style!r}")
    rows = [list(row) for row in rows]
    for row in rows:
        if len(row) != len(header):
            raise ValueError(f"a row has {len(row)} cells for {len(header)} columns: {row!r}")
    if style == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        return out.getvalue()
    align = align or "l" * len(header)
    if len(align) != len(header) or set(align) - {"l", "r"}:
        raise ValueError(f"align needs one letter l or r per column ({len(header)}), got {align!r}")
    lines = [_markdown_row(header), "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"]
    lines += [_markdown_row(row) for row in rows]
    return "\n".join(lines) + "\n"


def _markdown_row(cells: Sequence[object]) -> str:
    return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |"
