"""Human play in the terminal (hg_env.play, ``hgenv play``): move parsing and scripted sessions."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from hg_env import Game
from hg_env.cli import main
from hg_env.play import Session, describe_move, list_moves, parse_move
from tests.test_render import scripted_game


@pytest.fixture
def placing() -> Game:
    game = scripted_game(6)
    assert game.phase == "place"
    return game


@pytest.fixture
def occupying() -> Game:
    game = scripted_game(6)
    game.step(game.legal_actions()[0])
    assert game.phase == "occupy"
    return game


# ---------------------------------------------------------------- parsing


def test_move_numbers_follow_the_listing(placing: Game) -> None:
    actions = placing.legal_actions()
    listing = list_moves(placing)
    assert f"{len(actions)})" in listing
    assert parse_move(placing, "1") == actions[0]
    assert parse_move(placing, f" {len(actions)} ") == actions[-1]
    with pytest.raises(ValueError, match=f"choose 1..{len(actions)}"):
        parse_move(placing, str(len(actions) + 1))


def test_placement_notation(placing: Game) -> None:
    x, y, r = placing.legal_placements()[0]
    tile = placing.tile_to_place
    expected = placing.layout.encode(("place", x, y, r))
    for text in (f"{tile} {x} {y} r{r}", f"{x} {y} r{r}", f"{x} {y} {r}", f"place {tile} at ({x},{y}) r{r}"):
        assert parse_move(placing, text) == expected, text


def test_placement_mistakes_are_explained(placing: Game) -> None:
    x, y, r = placing.legal_placements()[0]
    other = (placing.tile_to_place + 1) % 95
    with pytest.raises(ValueError, match=f"you are placing tile {placing.tile_to_place}, not tile {other}"):
        parse_move(placing, f"{other} {x} {y} r{r}")
    with pytest.raises(ValueError, match=r"rotation is r0\.\.r3"):
        parse_move(placing, f"{x} {y} r7")
    with pytest.raises(ValueError, match=r"does not fit at \(9,9\); it fits at"):
        parse_move(placing, "9 9 r0")
    with pytest.raises(ValueError, match="first place tile"):
        parse_move(placing, "pawn 0")
    with pytest.raises(ValueError, match="not a move"):
        parse_move(placing, "hello")
    with pytest.raises(ValueError, match="type a move number"):
        parse_move(placing, "   ")
    wrong = [rot for rot in range(4) if (x, y, rot) not in placing.legal_placements()]
    if wrong:
        with pytest.raises(ValueError, match=rf"fits at \({x},{y}\) only with"):
            parse_move(placing, f"{x} {y} r{wrong[0]}")


def test_occupant_notation(occupying: Game) -> None:
    kind, zone = occupying.legal_occupants()[0]
    assert parse_move(occupying, f"{kind} {zone}") == occupying.layout.encode((kind, zone))
    assert parse_move(occupying, "none") == occupying.layout.none
    assert describe_move(occupying, occupying.layout.none) == "none: place nothing"
    assert f"{kind} {zone}: " in describe_move(occupying, occupying.layout.encode((kind, zone)))
    with pytest.raises(ValueError, match="you can choose"):
        parse_move(occupying, "hut 9")
    with pytest.raises(ValueError, match="not placing a tile now"):
        parse_move(occupying, "0 1 r0")


# ---------------------------------------------------------------- sessions


def answers(*first: str, then: str = "1") -> Iterator[str]:
    """Scripted input: the given lines, then ``then`` for ever."""
    yield from first
    while True:
        yield then


def reader(lines: Iterator[str], prompts: list[str]):
    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(lines)

    return read


def test_full_game_against_random_saves_a_replayable_record(tmp_path: Path) -> None:
    out = io.StringIO()
    record_path = tmp_path / "games" / "g.json"
    session = Session(["random"], seed=5, record_path=record_path, out=out)
    prompts: list[str] = []
    assert session.run(reader(answers("what", "999", "board", "moves", "help"), prompts)) == 0
    text = out.getvalue()
    assert session.game.is_over
    assert "? 'what' is not a move" in text and "there is no move 999" in text and "Commands:" in text
    assert "P1 (random): place tile" in text, "the opponent's moves are shown"
    assert " +" in text, "scoring is reported"
    assert "Game over. Scores:" in text
    assert f"Game record saved to {record_path}" in text
    record = json.loads(record_path.read_text())
    assert record["players"] == ["you", "random"] and record["is_over"]
    assert Game.from_record(record).scores == session.game.scores
    assert len(prompts) >= len(record["decisions"]) // 2


def test_quit_mid_game_keeps_the_record(tmp_path: Path) -> None:
    out = io.StringIO()
    image = tmp_path / "live" / "board.png"
    session = Session(["random"], seed=1, seat=1, record_path=tmp_path / "q.json", image_path=image, out=out)
    assert session.run(reader(answers("1", "quit"), [])) == 0
    assert image.exists() and not list(image.parent.glob("*.partial.png"))
    record = json.loads((tmp_path / "q.json").read_text())
    assert not record["is_over"] and record["decisions"]
    assert Game.from_record(record).history == session.game.history
    assert "saved after" in out.getvalue()


def test_cli_reads_moves_from_stdin_and_saves_on_eof(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("bogus\n1\n1\n"))
    record = tmp_path / "eof.json"
    code = main(["play", "--opponents", "random", "--seed", "3", "--record", str(record), "--color", "never"])
    text = capsys.readouterr().out
    assert code == 1
    assert "? 'bogus' is not a move" in text
    assert "Input ended." in text and "saved after" in text and str(record) in text
    assert len(json.loads(record.read_text())["decisions"]) >= 2


def test_cli_rejects_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["play", "--opponents", "nobody", "--record", str(tmp_path / "x.json")]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err
    assert main(["play", "--players", "3", "--opponents", "random", "random", "random"]) == 2
    assert "need 1 or 2 opponent specs" in capsys.readouterr().err
    assert main(["play", "--seat", "4", "--opponents", "random"]) == 2
    assert "--seat must be 0..1" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_greedy_opponent_when_available(tmp_path: Path) -> None:
    pytest.importorskip("hg_env.agents.greedy")
    out = io.StringIO()
    session = Session(["greedy"], num_players=3, seed=2, record_path=tmp_path / "g.json", out=out)
    assert session.run(reader(answers("1", "1", "1", "quit"), [])) == 0
    assert "P1 (greedy):" in out.getvalue() and "P2 (greedy):" in out.getvalue()


def test_ctrl_c_saves_the_record(tmp_path: Path) -> None:
    def interrupt(prompt: str) -> str:
        raise KeyboardInterrupt

    out = io.StringIO()
    session = Session(["random"], seed=4, record_path=tmp_path / "c.json", out=out)
    assert session.run(interrupt) == 130
    assert "Interrupted." in out.getvalue() and str(tmp_path / "c.json") in out.getvalue()
    assert json.loads((tmp_path / "c.json").read_text())["decisions"] == []


def test_narrow_terminals_get_the_compact_board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "20")
    out = io.StringIO()
    session = Session(["random"], seed=4, record_path=tmp_path / "n.json", out=out)
    assert session.run(reader(answers("quit"), [])) == 0
    assert "61p1# tile 61 with a pawn of P1" in out.getvalue()
