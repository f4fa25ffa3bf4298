"""Replays (hg_env.replay, ``hgenv replay``): frames per decision, GIF and PNG files, bad records."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from PIL import Image

from hg_env.cli import main
from hg_env.game import Game
from hg_env.replay import load_record, positions, replay_frames, save_replay
from tests.test_render import scripted_game

DECISIONS = 12


@pytest.fixture(scope="module")
def record() -> dict:
    return scripted_game(DECISIONS).to_record(players=["alice", "bob"])


@pytest.fixture
def record_file(tmp_path: Path, record: dict) -> Path:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    return path


def test_one_frame_per_decision_all_the_same_size(record: dict) -> None:
    frames = list(replay_frames(record, tile_px=32))
    assert len(frames) == DECISIONS == len(record["decisions"])
    assert len({f.shape for f in frames}) == 1
    assert all((a != b).any() for a, b in itertools.pairwise(frames)), "every decision changes the picture"


def test_positions_follow_the_record(record: dict) -> None:
    seen = [len(game.history) for game in positions(record)]
    assert seen == list(range(1, DECISIONS + 1))


def test_gif_has_a_frame_per_decision(tmp_path: Path, record: dict) -> None:
    out = tmp_path / "game.gif"
    assert save_replay(record, out, tile_px=32) == DECISIONS
    with Image.open(out) as gif:
        assert gif.n_frames == DECISIONS


def test_cli_writes_png_of_final_position(record_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "pictures" / "board.png"
    assert main(["replay", str(record_file), "--out", str(out), "--tile-px", "40"]) == 0
    assert "wrote" in capsys.readouterr().out
    with Image.open(out) as png:
        assert png.mode == "RGB" and png.width > 300


def test_cli_gif_upto(record_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "start.gif"
    assert main(["replay", str(record_file), "--out", str(out), "--upto", "3", "--tile-px", "32"]) == 0
    with Image.open(out) as gif:
        assert gif.n_frames == 3


def _corrupt(record: dict, change: str) -> object:
    bad = json.loads(json.dumps(record))
    if change == "version":
        bad["version"] = 99
    elif change == "format":
        bad["format"] = "something else"
    elif change == "decision":
        bad["decisions"][1] = ["place", 12, 12, 0]
    elif change == "scores":
        bad["scores"] = [99, 99]
    elif change == "list":
        bad = [bad]
    return bad


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("version", "incompatible record: version 99"),
        ("format", "corrupt record: 'format'"),
        ("decision", "corrupt record: decision 1"),
        ("scores", "corrupt record: replay gives scores"),
        ("list", "corrupt record: expected a JSON object"),
    ],
)
def test_bad_records_give_clear_errors(
    tmp_path: Path, record: dict, change: str, message: str, capsys: pytest.CaptureFixture
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_corrupt(record, change)))
    with pytest.raises(ValueError, match=message):
        load_record(path)
    assert main(["replay", str(path), "--out", str(tmp_path / "x.gif")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.gif").exists()


def test_unreadable_files_and_outputs(tmp_path: Path, record_file: Path, capsys: pytest.CaptureFixture) -> None:
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    assert main(["replay", str(garbage), "--out", str(tmp_path / "x.png")]) == 2
    assert "is not a JSON game record" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.json")]) == 2
    assert "no such record file" in capsys.readouterr().err
    assert main(["replay", str(record_file), "--out", str(tmp_path / "x.jpg")]) == 2
    assert "must end in .gif" in capsys.readouterr().err


def test_replay_picks_a_game_from_tournament_results(tmp_path: Path) -> None:
    """``hgenv replay games.jsonl --game ID`` reads one game of a tournament's results."""
    games = []
    for i, seed in enumerate((5, 6)):
        game = Game(2, seed=seed)
        while not game.is_over and len(game.history) < 12:
            game.step(game.legal_actions()[0])
        games.append({"index": i, "game": f"t0-d{i}-r0", "record": game.to_record()})
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(g) + "\n" for g in games), encoding="utf-8")
    assert load_record(path, "t0-d1-r0") == games[1]["record"]
    assert load_record(path, "0") == games[0]["record"]
    with pytest.raises(ValueError, match="pick one with --game"):
        load_record(path)
    with pytest.raises(ValueError, match="no game t9"):
        load_record(path, "t9")


def test_replay_reads_the_complete_games_when_a_kill_cut_the_last_line(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """A tournament killed while writing games.jsonl leaves half a line: the games before it replay."""
    games = []
    for i, seed in enumerate((5, 6)):
        game = Game(2, seed=seed)
        while not game.is_over and len(game.history) < 12:
            game.step(game.legal_actions()[0])
        games.append({"index": i, "game": f"t0-d{i}-r0", "record": game.to_record()})
    path = tmp_path / "games.jsonl"
    text = json.dumps(games[0]) + "\n" + json.dumps(games[1])
    path.write_text(text[: len(text) - 40], encoding="utf-8")  # the second line cut short
    assert main(["replay", str(path), "--game", "t0-d0-r0", "--out", str(tmp_path / "board.png")]) == 0
    err = capsys.readouterr().err
    assert "the last line is incomplete" in err and (tmp_path / "board.png").is_file()
    with pytest.raises(ValueError, match="no game t0-d1-r0"):
        load_record(path, "t0-d1-r0")
    path.write_text("{oops\n" + json.dumps(games[0]) + "\n", encoding="utf-8")  # damage elsewhere stays an error
    with pytest.raises(ValueError, match=r"games\.jsonl: line 1 is not valid JSON"):
        load_record(path, "0")
