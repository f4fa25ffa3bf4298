"""hg_env.tables.render_table: the one renderer of tournament, evaluation and README tables."""

from __future__ import annotations

import csv
import io

import pytest

from hg_env.tables import render_table


def test_markdown_aligns_escapes_and_ends_with_a_newline() -> None:
    text = render_table(["agent", "win rate"], [["`a|b`", 0.5], ["c", "1.000 [0.981, 1.000]"]], align="lr")
    assert text == ("| agent | win rate |\n|---|---:|\n| `a\\|b` | 0.5 |\n| c | 1.000 [0.981, 1.000] |\n")


def test_csv_round_trips_through_the_csv_module() -> None:
    rows = [["greedy", 200, "0.9811"], ["x, y", 3, ""]]
    text = render_table(["agent", "games", "ci_low"], rows, style="csv")
    assert list(csv.reader(io.StringIO(text))) == [["agent", "games", "ci_low"]] + [[str(c) for c in r] for r in rows]


def test_bad_tables_are_refused() -> None:
    with pytest.raises(ValueError, match="2 cells for 3 columns"):
        render_table(["a", "b", "c"], [[1, 2]])
    with pytest.raises(ValueError, match="align"):
        render_table(["a", "b"], [], align="lc")
    with pytest.raises(ValueError, match="style"):
        render_table(["a"], [], style="html")
