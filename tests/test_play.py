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
    assert session.run(reader(answers("full", "quit"), [])) == 0
    compact, full = out.getvalue().split("Where tile", 1)  # the board, the moves, then what 'full' printed
    assert "p1# pawn of P1 on a forest" in compact and "y=0" not in compact
    assert "y=0" in full and "p1@# pawn of P1 on a forest" in full, "'full' shows the full board anyway"


# ---------------------------------------------------------------- the other rulesets, --resume, demo


def test_hg2002_session_to_the_end(tmp_path: Path) -> None:
    out = io.StringIO()
    session = Session(["random"], seed=6, record_path=tmp_path / "k.json", out=out, ruleset="hg2002")
    assert session.run(reader(answers("help", "pawn 99"), [])) == 0
    text = out.getvalue()
    assert text.startswith("Hunters & Gatherers (classic 2002/2014), 2 players")
    assert "pawn 2        a pawn on zone 2" in text and "retake" not in text.split("Commands:")[0].split("Moves:")[1]
    assert "$ gold nugget" in text and "bonus tiles left" in text and "menhir" not in text
    assert "? first place tile 26; then you may put a pawn or a hut on it" in text
    assert "Game over. Scores:" in text
    record = json.loads((tmp_path / "k.json").read_text())
    assert record["ruleset"] == "hg2002" and record["is_over"]
    assert Game.from_record(record).scores == session.game.scores


def test_carcassonne_session_with_meeples_farmers_and_the_abbot(tmp_path: Path) -> None:
    out = io.StringIO()
    session = Session(["random"], seed=3, record_path=tmp_path / "c.json", out=out, ruleset="carcassonne")
    assert session.run(reader(answers("help", "pawn 1"), [])) == 0
    text = out.getvalue()
    assert text.startswith("Carcassonne (base game C3")
    assert "meeple 2      a meeple on zone 2" in text and "abbot 8" in text and "retake 1 -2" in text
    assert "? 'pawn 1' is not a move" in text, "Carcassonne has no pawns"
    assert "a meeple as a farmer on the field (" in text and "a meeple as a knight on the city (" in text
    assert "supply 7 meeples, 1 abbot" in text and "C city" in text
    assert "winner:" in text and "Game over. Scores:" in text
    record = json.loads((tmp_path / "c.json").read_text())
    assert record["ruleset"] == "carcassonne" and record["is_over"]
    kinds = {decision[0] for decision in record["decisions"]}
    assert {"place", "meeple", "none"} <= kinds and "pawn" not in kinds
    assert Game.from_record(record).scores == session.game.scores


def carcassonne_occupy() -> Game:
    """A Carcassonne position where P1 may put a meeple or take the abbot back (render tests' scripted game)."""
    game = scripted_game(40, ruleset="carcassonne")
    assert game.phase == "occupy"
    return game


def test_carcassonne_notation() -> None:
    game = scripted_game(36, ruleset="carcassonne")
    while game.phase != "occupy" or not game.legal_occupants():
        game.step(game.legal_actions()[0])
    kind, zone = game.legal_occupants()[0]
    assert parse_move(game, f"{kind} {zone}") == game.layout.encode((kind, zone))
    assert describe_move(game, game.layout.encode((kind, zone))) == "abbot 8: your abbot on the garden"
    with pytest.raises(ValueError, match="not a move"):
        parse_move(game, f"pawn {zone}")
    with pytest.raises(ValueError, match="you can choose"):
        parse_move(game, "abbot 3")
    returning = carcassonne_occupy()
    x, y, _ = returning.legal_choices("retake")[0]
    action = parse_move(returning, f"retake {x} {y}")
    assert action == returning.layout.encode(("retake", x, y))
    assert describe_move(returning, action).startswith(
        f"retake {x} {y}: take your abbot back from the garden at (-4,4), scoring 4 now"
    )
    with pytest.raises(ValueError, match=r"no abbot to take back at \(0,0\)"):
        parse_move(returning, "retake 0 0")


def test_resume_continues_a_saved_game_to_the_end(tmp_path: Path) -> None:
    path = tmp_path / "games" / "r.json"
    first = Session(["random"], seed=8, seat=1, record_path=path, out=io.StringIO(), ruleset="carcassonne")
    assert first.run(reader(answers("1", "1", "1", "quit"), [])) == 0
    saved = json.loads(path.read_text())
    assert not saved["is_over"]
    out = io.StringIO()
    session = Session.resume(path, out=out)
    assert session.seat == 1 and session.names == ["random", "you"] and session.game.ruleset == "carcassonne"
    assert session.game.history == first.game.history
    assert session.run(reader(answers(), [])) == 0
    assert f"resumed after {len(saved['decisions'])} decisions" in out.getvalue()
    record = json.loads(path.read_text())
    assert record["is_over"] and record["decisions"][: len(saved["decisions"])] == saved["decisions"]
    assert record["players"] == ["random", "you"] and record["meta"]["human_seat"] == 1
    assert Game.from_record(record).scores == session.game.scores


def test_cli_resume_refuses_finished_corrupt_and_foreign_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    finished = scripted_game(400, ruleset="hg2002")
    assert finished.is_over
    (tmp_path / "done.json").write_text(json.dumps(finished.to_record(players=["you", "random"])))
    corrupt = finished.to_record(players=["you", "random"])
    corrupt["decisions"][3] = ["place", 99, 99, 0]
    (tmp_path / "bad.json").write_text(json.dumps(corrupt))
    unfinished = scripted_game(10, ruleset="hg2002")
    (tmp_path / "tour.json").write_text(json.dumps(unfinished.to_record(players=["greedy", "random"])))
    (tmp_path / "bob.json").write_text(json.dumps(unfinished.to_record(players=["you", "bob"])))
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    for name, message in [
        ("done.json", "is a finished game"),
        ("bad.json", "corrupt record: decision 3"),
        ("tour.json", "names no human seat"),
        ("bob.json", "must be agent specs: unknown agent 'bob'"),
        ("missing.json", "no such record file"),
    ]:
        before = (tmp_path / name).read_text() if (tmp_path / name).exists() else None
        assert main(["play", "--resume", str(tmp_path / name)]) == 2, name
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
        assert ((tmp_path / name).read_text() if before is not None else None) == before


def test_demo_prints_sentences(capsys: pytest.CaptureFixture) -> None:
    assert main(["demo", "--ruleset", "carcassonne", "--seed", "1"]) == 0
    text = capsys.readouterr().out
    assert "completed city of 2 tiles" in text and "took the abbot back from a" in text
    assert "unfinished monastery with" in text and "winner: P0 with" in text
    assert "scorers=" not in text and "_SCORED" not in text


# ---------------------------------------------------------------- rule flags (hgenv demo/play --flag)


def test_titles_name_the_flags_in_force(capsys: pytest.CaptureFixture) -> None:
    """The river is off by default: the title says so; --flag river=true turns it on, and the title too."""
    assert main(["demo", "--ruleset", "carcassonne", "--seed", "1"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("Carcassonne (base game C3, farmers, abbot): ") and "river" not in first
    assert main(["demo", "--ruleset", "carcassonne", "--seed", "1", "--flag", "river=true", "--flag", "abbot=no"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("Carcassonne (base game C3, farmers, river): ")


def test_play_makes_its_game_with_the_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    record = tmp_path / "river.json"
    command = ["play", "--ruleset", "carcassonne", "--flag", "river=true", "--opponents", "random"]
    assert main([*command, "--seed", "2", "--record", str(record), "--color", "never"]) == 0
    assert "Carcassonne (base game C3, farmers, abbot, river), 2 players" in capsys.readouterr().out
    assert Game.from_record(json.loads(record.read_text())).rules.river is True
    session = Session(["random"], seed=2, ruleset="carcassonne", rule_flags={"river": False}, out=io.StringIO())
    assert session.game.rules.river is False


@pytest.mark.parametrize(
    ("command", "message"),
    [
        (["demo", "--ruleset", "carcassonne", "--flag", "rivers=true"], "carcassonne has no rule flag 'rivers'"),
        (["demo", "--flag", "river=true"], "hg2020 has no rule flag 'river'"),
        (["demo", "--ruleset", "carcassonne", "--flag", "river=maybe"], "river is true or false, got 'maybe'"),
        (["demo", "--ruleset", "carcassonne", "--flag", "river"], "expected NAME=VALUE"),
        (["play", "--ruleset", "carcassonne", "--flag", "board_reach=0"], "board_reach must be 1..83, got 0"),
        (["play", "--flag", "hut_targets=everywhere"], "hut_targets must be one of"),
        (["play", "--resume", "x.json", "--flag", "river=true"], "--flag cannot change a resumed game"),
    ],
)
def test_bad_flags_end_with_one_line_and_nothing_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, command: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)  # play would save games/<time>.json here
    assert main(command) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.err.count("\n") == 1, captured.err
    assert captured.out == "" and list(tmp_path.iterdir()) == []
