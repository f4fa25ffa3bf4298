"""Progress bars (hg_env.progress): redrawn on a terminal, plain lines on a file or pipe."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

pytest.importorskip("tqdm")

from tqdm import tqdm

from hg_env.progress import PlainProgress, progress_bar

ROOT = Path(__file__).resolve().parents[1]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_written_to_a_file_has_no_redraws_and_stays_small() -> None:
    """100,000 updates, postfixes and messages in between: the start line, the messages and the final
    line, each ending in a newline; no carriage return (the issue: one 50 KB line in a log file)."""
    out = io.StringIO()
    bar = progress_bar(total=100_000, desc="train", unit="step", file=out, dynamic_ncols=True)
    assert isinstance(bar, PlainProgress)
    for i in range(100_000):
        bar.update(1)
        if i % 25_000 == 0:
            bar.set_postfix_str(f"win vs greedy 0.{i // 25_000}")
            tqdm.write(f"step {i}: evaluated", file=out)
    bar.close()
    text = out.getvalue()
    assert "\r" not in text and "\x1b" not in text
    lines = text.splitlines()
    assert lines[0].startswith("train:   0%") and lines[-1].startswith("train: 100%")
    assert "100000/100000" in lines[-1] and "win vs greedy 0.3" in lines[-1]
    assert [line for line in lines if line.startswith("step")] == [
        f"step {i}: evaluated" for i in range(0, 100_000, 25_000)
    ]
    assert len(lines) == 6 and len(text) < 1_000 and text.endswith("\n")


def test_a_long_run_to_a_file_writes_a_line_per_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [0.0]
    monkeypatch.setattr("hg_env.progress.time.monotonic", lambda: clock[0])
    out = io.StringIO()
    bar = progress_bar(total=100, desc="games", file=out, interval=30.0)
    for _ in range(100):
        clock[0] += 3.0  # 3 s per game: 300 s in all
        bar.refresh()  # tqdm asks for a display on every update once mininterval has passed
        bar.update(1)
    bar.close()
    lines = out.getvalue().splitlines()
    assert 10 <= len(lines) <= 12 and lines[-1].startswith("games: 100%")  # one line per 30 s, and the final
    assert "\r" not in out.getvalue()


def test_a_bar_on_a_terminal_is_redrawn_in_place() -> None:
    out = Terminal()
    bar = progress_bar(total=3, desc="x", file=out, mininterval=0)
    assert type(bar) is tqdm
    for _ in range(3):
        bar.update(1)
    bar.close()
    assert "\r" in out.getvalue()


def test_a_disabled_bar_writes_nothing() -> None:
    out = io.StringIO()
    bar = progress_bar(total=3, file=out, disable=True)
    bar.update(3)
    bar.close()
    assert out.getvalue() == ""


def test_a_tournament_logged_to_a_file_has_no_redraws(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from hg_env.arena.tournament import TournamentConfig, run_tournament

    run_tournament(TournamentConfig(("random", "greedy"), players=2, games=2), tmp_path, progress=True, plot=False)
    err = capsys.readouterr().err
    assert "tournament:" in err and "\r" not in err
    assert err.splitlines()[-1].startswith("tournament: 100%")


def test_every_progress_bar_comes_from_the_helper() -> None:
    """tournament, train, imitation, RLlib: no tqdm bar is built but by hg_env.progress."""
    made = []
    for folder in ("hg_env", "train", "agents"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name != "progress.py" and re.search(r"\btqdm\(", path.read_text(encoding="utf-8")):
                made.append(str(path.relative_to(ROOT)))
    assert made == []


def test_the_imitation_bar_ends_at_its_total(capsys) -> None:
    """A chunk of games overshoots the decisions asked for; the bar counts up to its total, never past it."""
    pytest.importorskip("torch")
    from hg_env.agents.network import BoardNet
    from hg_env.core.rules import Rules
    from hg_env.train.config import ImitationConfig
    from hg_env.train.imitation import imitate_greedy

    config = ImitationConfig(decisions=10, games=2, passes=1, batch_size=64)
    net = BoardNet(board_reach=4, channels=4, layers=1, hidden=8)
    imitate_greedy(
        net, config, num_players=2, rules=Rules(board_reach=4), reward="win", reward_scale=1.0, gamma=1.0, seed=0
    )
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "10/10" in last, last
