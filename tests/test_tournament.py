"""Tournament runner: schedule (seatings, paired decks), failures, resume after a kill, rating tables."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from hg_env.agents.base import Agent, register
from hg_env.arena import ratings
from hg_env.arena.tournament import (
    GAMES_FILE,
    TournamentConfig,
    groups,
    play_game,
    play_group,
    read_results,
    run_tournament,
    schedule,
)
from hg_env.cli import main as cli_main
from hg_env.game import Game

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- schedule


def test_every_table_plays_every_deck_from_every_seat() -> None:
    config = TournamentConfig(agents=("a", "b", "c"), players=2, games=5, seed=3)
    games = schedule(config)
    assert config.decks == 3 and len(games) == 3 * 3 * 2  # 5 rounded up to 6 games per table
    assert [g.index for g in games] == list(range(len(games)))
    assert len({g.game_id for g in games}) == len(games)
    tables = Counter(frozenset(g.agents) for g in games)
    assert tables == {frozenset("ab"): 6, frozenset("ac"): 6, frozenset("bc"): 6}
    for table in tables:
        seats = Counter((g.agents.index(a), a) for g in games if frozenset(g.agents) == table for a in table)
        assert set(seats.values()) == {3}  # each agent sits in each seat once per deck
    # Paired decks: one order per deck index, whatever the table or seating.
    by_deck = {}
    for g in games:
        by_deck.setdefault(g.deck, set()).add(g.deck_seed)
    assert all(len(seeds) == 1 for seeds in by_deck.values())
    assert len({next(iter(s)) for s in by_deck.values()}) == 3
    # Deck by deck: every table has played deck 0 before any plays deck 1.
    assert [g.deck for g in games] == sorted(g.deck for g in games)
    assert schedule(config) == games  # reproducible from the seed
    assert schedule(TournamentConfig(("a", "b", "c"), 2, 5, seed=4))[0].deck_seed != games[0].deck_seed


def test_seatings_rotate_for_more_players() -> None:
    games = schedule(TournamentConfig(agents=("a", "b", "c", "d"), players=3, games=3))
    assert len(games) == 4 * 3
    first = [g.agents for g in games if g.table == 0]
    assert first == [("a", "b", "c"), ("c", "a", "b"), ("b", "c", "a")]
    assert len({g.agent_seeds for g in games}) == len(games)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"agents": ("a", "b"), "players": 6}, "--players must be 2..5"),
        ({"agents": ("a", "b"), "players": 1}, "--players must be 2..5"),
        ({"agents": ("a", "b"), "players": 3}, "needs at least 3 agents"),
        ({"agents": ("a", "a"), "players": 2}, "listed twice"),
        ({"agents": ("a", "b"), "games": 0}, "--games must be >= 1"),
        ({"agents": ("a", "b"), "seed": -1}, r"--seed must be 0\.\.9223372036854775807, got -1"),
        ({"agents": ("a", "b"), "seed": 2**63}, "--seed must be 0..9223372036854775807"),
        ({"agents": ("a", "b"), "seed": 1.5}, r"--seed must be an int .* got 1\.5"),
        ({"agents": ("a", "b"), "at_once": 0}, r"--at-once must be an int 1\.\.10000, got 0"),
        ({"agents": ("a", "b"), "at_once": 2.5}, r"--at-once must be an int 1\.\.10000, got 2\.5"),
    ],
)
def test_bad_settings_are_named(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TournamentConfig(**kwargs)


def test_unknown_agent_is_named_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown agent 'grredy'"):
        run_tournament(TournamentConfig(("random", "grredy"), games=2), tmp_path, progress=False)
    assert not (tmp_path / GAMES_FILE).exists()


def test_cli_reports_bad_players(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit, match="--players 3 needs at least 3 agents"):
        cli_main(["tournament", "--agents", "random", "greedy", "--players", "3", "--out", str(tmp_path)])


def test_cli_names_a_negative_seed(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match=r"hgenv tournament: --seed must be 0\.\.9223372036854775807, got -1"):
        cli_main(["tournament", "--agents", "random", "greedy", "--seed", "-1", "--out", str(tmp_path / "t")])
    assert not (tmp_path / "t").exists()


def test_an_out_that_is_a_file_is_named(tmp_path: Path) -> None:
    """--out <an existing file> raised a FileExistsError traceback; the file stays as it was."""
    path = tmp_path / "notes.txt"
    path.write_text("mine")
    with pytest.raises(ValueError, match=r"--out .*notes\.txt is a file, not a folder"):
        run_tournament(TournamentConfig(("random", "greedy"), games=2), path, progress=False)
    for extra in ([], ["--summary-only"]):
        with pytest.raises(SystemExit, match=r"^hgenv tournament: --out .*notes\.txt is a file, not a folder"):
            cli_main(["tournament", "--agents", "random", "greedy", "--games", "2", "--out", str(path), *extra])
    with pytest.raises(ValueError, match=r"--out .*inside: cannot create the folder"):  # a file on the way
        run_tournament(TournamentConfig(("random", "greedy"), games=2), path / "inside", progress=False)
    assert path.read_text() == "mine"


def test_a_policy_of_another_ruleset_or_board_is_refused_before_any_game(tmp_path: Path) -> None:
    """It used to lose every game as an error and exit 0 (hgenv evaluate refused it clearly)."""
    pytest.importorskip("torch")
    from tests.test_model_file import saved_boardnet  # an hg2020 model of board reach 12

    model = tmp_path / "model.zip"
    saved_boardnet(model)
    spec = f"policy:path={model}"
    out = tmp_path / "t"
    with pytest.raises(ValueError, match=r"plays ruleset 'hg2020', but this tournament plays 'carcassonne'"):
        run_tournament(TournamentConfig((spec, "random"), games=2, ruleset="carcassonne"), out, progress=False)
    args = ["tournament", "--agents", spec, "random", "--games", "2", "--out", str(out), "--no-plot"]
    with pytest.raises(SystemExit, match=r"^hgenv tournament: agent .* plays ruleset 'hg2020'") as refused:
        cli_main([*args, "--ruleset", "carcassonne"])
    assert refused.value.code not in (0, None)
    with pytest.raises(SystemExit, match=r"reads boards of shape \(85, 25, 25\), but this tournament's board"):
        cli_main([*args, "--flag", "board_reach=6"])
    assert not out.exists()


def test_a_ray_address_that_is_malformed_or_silent_fails_fast(tmp_path: Path) -> None:
    """--ray 256.0.0.1:1 hung in ray.init for over 60 s; a closed port on this machine did too."""
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    config = TournamentConfig(("random", "greedy"), games=2)
    for address, message in (
        ("256.0.0.1:1", "'256.0.0.1' is not an IP address"),
        ("head", "got 'head': the port must be 1..65535"),
        ("ray://bad_host:10001", "'bad_host' is not a host name"),
        (f"127.0.0.1:{closed}", f"--ray 127.0.0.1:{closed}: no Ray cluster answers there"),
        (f"ray://127.0.0.1:{closed}", "no Ray cluster answers there"),
    ):
        start = time.monotonic()
        with pytest.raises(ValueError, match=message):
            run_tournament(config, tmp_path / "t", progress=False, ray_address=address)
        assert time.monotonic() - start < 15, address
    with pytest.raises(SystemExit, match=r"^hgenv tournament: --ray ADDRESS must be .*got '256\.0\.0\.1:1'"):
        cli_main(["tournament", "--agents", "random", "greedy", "--out", str(tmp_path / "t"), "--ray", "256.0.0.1:1"])
    assert not (tmp_path / "t").exists()


# ---------------------------------------------------------------- failures


@register
class CrashingAgent(Agent):
    """Test agent: raises on its third decision."""

    name = "test-crash"
    calls = 0

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.calls = 0

    def act(self, observation, action_mask, game=None) -> int:
        self.calls += 1
        if self.calls == 3:
            raise RuntimeError("boom")
        return int(np.flatnonzero(action_mask)[0])


@register
class IllegalAgent(Agent):
    """Test agent: always answers with the first illegal action."""

    name = "test-illegal"

    def act(self, observation, action_mask, game=None) -> int:
        return int(np.flatnonzero(~action_mask)[0])


def test_crashing_and_illegal_agents_lose_and_the_tournament_goes_on(tmp_path: Path) -> None:
    config = TournamentConfig(("random", "test-crash", "test-illegal"), players=2, games=2)
    summary = run_tournament(config, tmp_path, progress=False, plot=False)
    results = read_results(tmp_path / GAMES_FILE)
    assert len(results) == 6 and summary.total_games == 6
    for r in results:
        if "random" in r["agents"]:
            loser = 1 - r["agents"].index("random")
            assert r["error"]["seat"] == loser and r["ranks"][loser] == 2 and r["winners"] == [1 - loser]
        assert r["error"]["agent"] in ("test-crash", "test-illegal")
    crash = next(r for r in results if r["error"]["agent"] == "test-crash")
    assert "RuntimeError: boom" in crash["error"]["message"]
    illegal = next(r for r in results if r["error"]["agent"] == "test-illegal")
    assert illegal["error"]["message"].startswith("illegal action")
    errors = {row.agent: row.errors for row in summary.rows}
    assert errors == {"random": 0, "test-crash": 2, "test-illegal": 4}  # illegal fails first against crash
    assert summary.rows[0].agent == "random"


def test_game_records_replay_to_the_final_scores() -> None:
    game_spec = schedule(TournamentConfig(("random", "greedy"), games=2, seed=1))[1]
    result = play_game(game_spec)
    assert result["error"] is None and result["agents"] == ["greedy", "random"]
    replay = Game.from_record(result["record"])
    assert replay.is_over and replay.scores == result["scores"]
    assert result["record"]["players"] == ["greedy", "random"]


# ---------------------------------------------------------------- resume


def _tables(folder: Path) -> tuple[str, str, list]:
    results = sorted(read_results(folder / GAMES_FILE), key=lambda r: r["index"])
    games = [(r["game"], r["scores"], r["ranks"]) for r in results]
    return (folder / "ratings.csv").read_text(), (folder / "winrates.csv").read_text(), games


def test_resume_after_a_kill_gives_the_same_tables(tmp_path: Path) -> None:
    args = ["--agents", "random", "greedy", "--games", "16", "--seed", "2", "--no-plot"]
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    assert cli_main(["tournament", *args, "--out", str(whole)]) == 0

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "hg_env.cli", "tournament", *args, "--out", str(killed)]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    games_file = killed / GAMES_FILE
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if games_file.exists() and games_file.read_text().count("\n") >= 3:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = len(read_results(games_file))
    assert 3 <= done < 16, "the run should have been killed part way"
    with games_file.open("a") as f:
        f.write('{"index": 99, "game": "t0-d')  # a line cut short by the kill

    assert cli_main(["tournament", *args, "--out", str(killed)]) == 0
    assert _tables(killed) == _tables(whole)
    ids = [r["game"] for r in read_results(games_file)]
    assert len(ids) == len(set(ids)) == 16


def test_resume_refuses_other_settings(tmp_path: Path) -> None:
    run_tournament(TournamentConfig(("random", "greedy"), games=2), tmp_path, progress=False, plot=False)
    with pytest.raises(ValueError, match="other settings"):
        run_tournament(TournamentConfig(("random", "greedy"), games=2, seed=5), tmp_path, progress=False)
    # More games on the same settings extends the run, keeping the finished ones.
    run_tournament(TournamentConfig(("random", "greedy"), games=4), tmp_path, progress=False, plot=False)
    assert len(read_results(tmp_path / GAMES_FILE)) == 4


def test_resume_refuses_a_model_file_changed_since_its_games(tmp_path: Path) -> None:
    """config.json pins each agent's model file by SHA-256: a model retrained at the same path is never
    mixed with the games of the one before."""
    pytest.importorskip("torch")
    import shutil

    from hg_env.agents.puct import default_model, ppo_model

    model = tmp_path / "model.zip"
    shutil.copy(ppo_model("hg2020"), model)
    config = TournamentConfig((f"policy:path={model}", "random"), games=2)
    run_tournament(config, tmp_path / "out", progress=False, plot=False)
    pinned = json.loads((tmp_path / "out" / "config.json").read_text())["models"]
    assert list(pinned) == [f"policy:path={model}"] and len(pinned[f"policy:path={model}"]) == 64
    shutil.copy(default_model("hg2020"), model)  # another network at the same path
    with pytest.raises(ValueError, match="played with another model file"):
        run_tournament(config, tmp_path / "out", progress=False, plot=False)
    assert len(read_results(tmp_path / "out" / GAMES_FILE)) == 2  # the games kept


def test_three_player_tournament_with_mcts_writes_every_output(tmp_path: Path) -> None:
    config = TournamentConfig(("random", "greedy", "mcts:sims=2"), players=3, games=3)
    summary = run_tournament(config, tmp_path, progress=False)
    assert summary.total_games == 3
    for name in ("config.json", "games.jsonl", "summary.md", "ratings.csv", "winrates.csv", "ratings.png"):
        assert (tmp_path / name).stat().st_size > 0, name
    assert json.loads((tmp_path / "config.json").read_text())["players"] == 3


# ---------------------------------------------------------------- ratings


def _result(index: int, table: int, deck: int, agents: list[str], scores: list[int], error_seat=None) -> dict:
    ranks = ratings.ranks_from_scores(scores, loser=error_seat)
    error = None if error_seat is None else {"seat": error_seat, "agent": agents[error_seat], "message": "x"}
    return {
        "index": index,
        "game": f"g{index}",
        "table": table,
        "deck": deck,
        "agents": agents,
        "scores": scores,
        "ranks": ranks,
        "error": error,
        "agent_seconds": [1.0] * len(agents),
        "agent_cpu_seconds": [0.5] * len(agents),
    }


def test_ranks_share_ties_and_put_a_failed_seat_last() -> None:
    assert ratings.ranks_from_scores([10, 30, 10]) == [2, 1, 2]
    assert ratings.ranks_from_scores([50, 30, 10], loser=0) == [3, 1, 2]


def test_ratings_on_a_hand_made_result_set() -> None:
    # A beats B 3 times of 4 (one tie), B always beats C, A beats C twice, C's crash loses once.
    results = [
        _result(0, 0, 0, ["A", "B"], [30, 10]),
        _result(1, 0, 0, ["B", "A"], [12, 40]),
        _result(2, 0, 1, ["A", "B"], [20, 20]),
        _result(3, 0, 1, ["B", "A"], [5, 25]),
        _result(4, 1, 0, ["B", "C"], [30, 1]),
        _result(5, 1, 0, ["C", "B"], [2, 31]),
        _result(6, 2, 0, ["A", "C"], [9, 8]),
        _result(7, 2, 0, ["C", "A"], [99, 1], error_seat=0),
    ]
    summary = ratings.summarize(results[::-1], ["C", "B", "A"])  # order of arrival does not matter
    assert [r.agent for r in summary.rows] == ["A", "B", "C"]
    assert summary.rows[0].mu > summary.rows[1].mu > summary.rows[2].mu
    assert all(r.ordinal == pytest.approx(r.mu - 3 * r.sigma) for r in summary.rows)
    a, b, c = (summary.agents.index(x) for x in "ABC")
    assert summary.win_rate[a, b] == pytest.approx(3.5 / 4) and summary.win_rate[b, a] == pytest.approx(0.5 / 4)
    assert summary.win_rate[b, c] == 1.0 and summary.win_rate[a, c] == 1.0
    assert summary.pair_games[a, b] == 4 and summary.pair_games[b, c] == 2
    assert np.isnan(summary.win_rate[a, a]) and summary.pair_games[a, a] == 0
    assert summary.win_low[a, b] <= summary.win_rate[a, b] <= summary.win_high[a, b]
    assert 0.0 <= summary.win_low[a, b] < summary.win_high[a, b] <= 1.0
    row_a = summary.rows[0]
    assert row_a.games == 6 and row_a.wins == 5.5 and row_a.mean_score == pytest.approx(125 / 6)
    assert [r.errors for r in summary.rows] == [0, 0, 1]
    assert summary.seconds["A"] == 1.0 and summary.cpu_seconds["A"] == 0.5
    assert ratings.summarize(results, ["C", "B", "A"]).rows == summary.rows

    csv_lines = ratings.ratings_csv(summary).splitlines()
    assert csv_lines[0].startswith("rank,agent,games,wins,mu,sigma,ordinal")
    assert csv_lines[1].startswith("1,A,6,5.5,")
    assert "A,B,4,0.8750," in ratings.winrates_csv(summary)
    md = ratings.markdown(summary)
    assert "| 1 | `A` | 6 | 5.5 |" in md and "0.875 [" in md


# ---------------------------------------------------------------- games decided together (--at-once)


@register
class BatchSizeAgent(Agent):
    """Test agent: the first legal action; notes how many games each act_batch call decided."""

    name = "test-batch-size"
    sizes: list[int] = []

    def act(self, observation, action_mask, game=None) -> int:
        return int(np.flatnonzero(action_mask)[0])

    def act_batch(self, observations, action_masks, state=None) -> np.ndarray:
        assert state is not None and state.batch_size == len(action_masks)
        BatchSizeAgent.sizes.append(len(action_masks))
        return np.asarray(action_masks).argmax(1)


def test_groups_are_whole_decks_that_stay_when_the_games_grow() -> None:
    small = schedule(TournamentConfig(("a", "b", "c"), games=4, at_once=12))  # 6 games a deck
    assert [[g.deck for g in group] for group in groups(small, 12)] == [[0] * 6 + [1] * 6]
    grown = groups(schedule(TournamentConfig(("a", "b", "c"), games=10, at_once=12)), 12)
    assert grown[0] == groups(small, 12)[0] and [len(g) for g in grown] == [12, 12, 6]
    assert [len(g) for g in groups(small, 4)] == [6, 6]  # at least one deck


def test_games_at_once_replay_and_batch_their_decisions(tmp_path: Path) -> None:
    BatchSizeAgent.sizes = []
    config = TournamentConfig(("greedy", "test-batch-size", "mcts:sims=2"), games=2, seed=3, at_once=12)
    summary = run_tournament(config, tmp_path, progress=False, plot=False)
    results = read_results(tmp_path / GAMES_FILE)
    assert summary.total_games == len(results) == 6 and all(r["error"] is None for r in results)
    assert sorted(r["game"] for r in results) == sorted(g.game_id for g in schedule(config))
    assert 2 <= max(BatchSizeAgent.sizes) <= 4  # one call decides its games of the group (4) where it is to move
    for r in results:
        replay = Game.from_record(r["record"])
        assert replay.is_over and replay.scores == r["scores"] and r["record"]["players"] == r["agents"]
        assert sum(r["agent_decisions"]) == r["decisions"] and min(r["agent_cpu_seconds"]) >= 0
        assert r["group"] == {"first": "t0-d0-r0", "games": 6}  # one deck: 3 tables, 2 seatings
    assert json.loads((tmp_path / "config.json").read_text())["at_once"] == 12
    # --explain in a group: the same games, with what each agent thought at its decisions.
    group = [replace(g, explain=True) for g in groups(schedule(config), 12)[0]]
    explained = {r["game"]: r for r in play_group(group)}
    for r in results:
        assert explained[r["game"]]["record"]["decisions"] == r["record"]["decisions"]
    thoughts = [e for r in explained.values() for e in r["record"]["meta"]["explanations"].values()]
    assert {e["agent"] for e in thoughts} == {"greedy", "mcts:sims=2"}  # the test agent cannot explain


def test_games_at_once_resume_and_run_in_workers_as_they_played(tmp_path: Path) -> None:
    config = TournamentConfig(("random", "greedy"), games=8, seed=5, at_once=4)

    def played(folder: Path) -> dict:
        return {r["game"]: (r["scores"], r["record"]["decisions"]) for r in read_results(folder / GAMES_FILE)}

    run_tournament(config, tmp_path / "whole", progress=False, plot=False)
    run_tournament(config, tmp_path / "cut", progress=False, plot=False, max_games=3)  # stops inside a group
    assert len(played(tmp_path / "cut")) == 3
    run_tournament(config, tmp_path / "cut", progress=False, plot=False)
    run_tournament(config, tmp_path / "workers", workers=2, progress=False, plot=False)
    assert played(tmp_path / "cut") == played(tmp_path / "whole") == played(tmp_path / "workers")
    assert len(played(tmp_path / "whole")) == 8
    ids = [r["game"] for r in read_results(tmp_path / "cut" / GAMES_FILE)]
    assert len(ids) == len(set(ids))  # the replayed group's finished games are not written twice
    with pytest.raises(ValueError, match="at_once: 4 there, 1 now"):
        run_tournament(replace(config, at_once=1), tmp_path / "whole", progress=False)


def test_games_at_once_lose_to_crashes_and_illegal_moves_alone(tmp_path: Path) -> None:
    config = TournamentConfig(("random", "test-crash", "test-illegal"), games=2, at_once=6)
    run_tournament(config, tmp_path, progress=False, plot=False)
    results = read_results(tmp_path / GAMES_FILE)
    assert len(results) == 6
    # Each agent is reset once per group: test-crash raises on its third act, inside one call.
    crash = [r for r in results if r["error"] and r["error"]["agent"] == "test-crash"]
    assert crash and all("RuntimeError: boom" in r["error"]["message"] for r in crash)
    assert all(r["agents"][r["error"]["seat"]] == "test-crash" for r in crash)
    for r in results:
        if "test-illegal" in r["agents"]:
            assert r["error"] is not None
        if r["error"] and r["error"]["agent"] == "test-illegal":
            assert r["error"]["message"].startswith("illegal action")
        if "random" in r["agents"] and r["error"]:
            assert r["winners"] == [r["agents"].index("random")]
    assert not any(r["error"] and r["error"]["agent"] == "random" for r in results)


def test_cli_plays_games_at_once(tmp_path: Path, capsys) -> None:
    out = tmp_path / "t"
    args = ["tournament", "--agents", "random", "greedy", "--games", "4", "--at-once", "4", "--no-plot"]
    assert cli_main([*args, "--out", str(out)]) == 0
    assert "4 at once" in capsys.readouterr().out
    assert len(read_results(out / GAMES_FILE)) == 4
    with pytest.raises(SystemExit, match=r"--at-once must be an int 1\.\.10000, got 0"):
        cli_main([*args[:-3], "--at-once", "0", "--out", str(tmp_path / "u")])
