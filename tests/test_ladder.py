"""The ladder (hg_env.arena.ladder, hg_env.arena.bradley_terry): the rating fit on synthetic games, resumable
builds and placements that never play a game twice, stale rungs, and ``hgenv ladder`` end to end.

The games here use tiny reference files built in the test (cheap rungs, a few games), never the stored ones."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from hg_env.agents.base import resolved_options
from hg_env.arena import bradley_terry as bt
from hg_env.arena.ladder import (
    AGENT,
    Reference,
    build,
    choose_rung,
    fit_budget,
    game_key,
    ladder,
    options_digest,
    options_path,
    pairing,
    plan,
    points,
    read_options,
    reference_pairs,
    reference_table,
    rungs,
)
from hg_env.cli import main
from hg_env.core.ruleset import RULESETS

ROOT = Path(__file__).resolve().parents[1]
ANCHORS = {"random": 0.0, "greedy": 1000.0}
CHEAP = ["random", "greedy", "greedy:opponents=0.75"]


def _draw(truth: dict[str, float], games: dict[tuple[str, str], int], rng) -> list[bt.Pairing]:
    """Synthetic games: wins drawn from the Bradley–Terry model of ``truth``."""
    return [bt.Pairing(a, b, n, float(rng.binomial(n, bt.expected(truth[a], truth[b])))) for (a, b), n in games.items()]


def test_the_fit_recovers_known_strengths_with_a_one_sided_pairing() -> None:
    truth = {"random": 0.0, "greedy": 1000.0, "a": 1300.0, "b": 1700.0, "c": 2500.0}
    games = {("random", "greedy"): 200, ("greedy", "a"): 400, ("a", "b"): 400, ("b", "c"): 400, ("greedy", "c"): 100}
    pairings = _draw(truth, games, np.random.default_rng(0))
    assert next(p for p in pairings if p.b == "c" and p.a == "greedy").points == 0  # c won every game: one-sided
    fit = bt.fit(pairings, ANCHORS)
    for name in ("a", "b", "c"):
        low, high = fit.interval(name)
        assert low <= truth[name] <= high, (name, fit.ratings[name], low, high)
        assert high - low < 400
    assert fit.ratings["random"] == 0 and fit.ratings["greedy"] == 1000 and fit.sd["greedy"] == 0


def test_a_player_that_won_every_game_gets_a_finite_rating() -> None:
    fit = bt.fit([bt.Pairing("greedy", "x", 40, 0.0)], ANCHORS)
    low, high = fit.interval("x")
    assert 1500 < fit.ratings["x"] < 4000 and np.isfinite(high) and low > 1000


def test_ties_count_half() -> None:
    even = bt.fit([bt.Pairing("greedy", "x", 100, 50.0)], ANCHORS)
    assert even.ratings["x"] == pytest.approx(1000, abs=5)  # the prior's pull (mean 500) is a few Elo


def test_intervals_cover_the_truth_95_percent_of_the_time() -> None:
    truth = {"random": 0.0, "greedy": 1000.0, "a": 700.0, "b": 1300.0}
    games = {("random", "a"): 60, ("a", "greedy"): 60, ("greedy", "b"): 60, ("a", "b"): 40}
    rng = np.random.default_rng(1)
    hits = np.zeros(2)
    draws = 400
    for _ in range(draws):
        fit = bt.fit(_draw(truth, games, rng), ANCHORS)
        for k, name in enumerate(("a", "b")):
            low, high = fit.interval(name)
            hits[k] += low <= truth[name] <= high
    coverage = hits / draws
    assert ((coverage > 0.91) & (coverage < 0.985)).all(), coverage


def test_bad_pairings_are_refused() -> None:
    with pytest.raises(ValueError, match="points"):
        bt.fit([bt.Pairing("greedy", "x", 4, 5.0)], ANCHORS)


def test_choose_rung_starts_at_greedy_then_brackets_the_estimate_within_the_budget() -> None:
    ratings = {"random": 0.0, "greedy": 1000.0, "g75": 1100.0, "mcts": 1800.0}
    cost = {"random": 0.125, "greedy": 0.125, "g75": 0.25, "mcts": 20.0}
    assert choose_rung(500.0, ratings, {}, cost, 60.0) == ("greedy", 240)
    played = {"greedy": 20, "g75": 20}
    assert choose_rung(1500.0, ratings, played, cost, 60.0) == ("mcts", 1)  # the nearest above, fewer games
    assert choose_rung(1500.0, ratings, played, cost, 30.0) == ("g75", 60)  # mcts's deck costs 40 s
    assert choose_rung(1500.0, ratings, played, cost, 0.1) is None
    top = {"random": 0.0, "greedy": 1000.0, "g75": 1100.0}  # above every rung: its two nearest in turn
    assert choose_rung(1300.0, top, {"greedy": 20, "g75": 40}, cost, 60.0) == ("greedy", 240)
    assert choose_rung(1300.0, top, {"greedy": 40, "g75": 40}, cost, 60.0) == ("greedy", 240)  # a tie: cheaper
    assert choose_rung(1300.0, top, {"greedy": 60, "g75": 40}, cost, 60.0) == ("g75", 120)


def test_the_plan_pairs_neighbours_and_skips() -> None:
    names = [r.name for r in rungs("hg2020")]
    pairs = plan(rungs("hg2020"), 200)
    assert [(a, b) for a, b, _ in pairs[: len(names) - 1]] == list(itertools.pairwise(names))
    assert {n for a, b, n in pairs} == {200, 100} and len(pairs) == 2 * len(names) - 3


def _build(path: Path, ruleset: str = "hg2020", **kwargs) -> Reference:
    return build(ruleset, games_per_pair=4, reference=path, only=CHEAP, log=lambda *_: None, **kwargs)


@pytest.fixture(scope="module")
def references(tmp_path_factory) -> dict[str, Path]:
    """A tiny reference file per ruleset: the cheap rungs, 4 games per neighbouring pair."""
    folder = tmp_path_factory.mktemp("reference")
    for ruleset in RULESETS:
        _build(folder / f"{ruleset}.jsonl", ruleset)
    return {ruleset: folder / f"{ruleset}.jsonl" for ruleset in RULESETS}


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_build_resumes_and_never_plays_a_game_twice(tmp_path: Path, references) -> None:
    path = tmp_path / "hg2020.jsonl"
    _build(path, max_games=3)
    assert len(_lines(path)) == 3
    with path.open("a") as f:
        f.write('{"seats": ["random", "gr')  # a kill in the middle of a line: that game is played again
    _build(path)
    lines = _lines(path)
    assert len(lines) == 4 + 4 + 2 and len({game_key(line) for line in lines}) == len(lines)
    _build(path)
    assert _lines(path) == lines  # complete: nothing played
    timing = ("cpu", "cpu_seconds")
    same = [
        [{k: v for k, v in line.items() if k not in timing} for line in f]
        for f in (lines, _lines(references["hg2020"]))
    ]
    assert same[0] == same[1]  # the same games as the build in one go


def test_a_placement_resumes_and_never_plays_a_game_twice(tmp_path: Path, references) -> None:
    kwargs = dict(ruleset="hg2020", reference=references["hg2020"], out=tmp_path, batch=4)
    first = ladder("greedy:opponents=0.5", games=6, **kwargs)
    assert first.games == 6 and (tmp_path / "ladder.md").exists()
    again = ladder("greedy:opponents=0.5", games=6, **kwargs)
    assert again.games == 6 and len(_lines(tmp_path / "games.jsonl")) == 6  # nothing played
    more = ladder("greedy:opponents=0.5", games=10, **kwargs)
    lines = _lines(tmp_path / "games.jsonl")
    assert more.games == 10 and len(lines) == 10 and len({game_key(line) for line in lines}) == 10
    assert json.loads((tmp_path / "ladder.json").read_text())["games"] == 10
    with pytest.raises(ValueError, match="another ladder run"):
        ladder("greedy", games=6, **kwargs)


def test_a_placement_plays_its_batches_at_once(tmp_path: Path, references) -> None:
    """--at-once: a batch's games in groups played together, the agent deciding its games in one call."""
    from tests.test_tournament import BatchSizeAgent

    BatchSizeAgent.sizes = []
    kwargs = dict(ruleset="hg2020", reference=references["hg2020"], out=tmp_path, batch=4, at_once=6)
    result = ladder("test-batch-size", games=6, **kwargs)
    lines = _lines(tmp_path / "games.jsonl")
    assert result.games == len(lines) == 6 and len({game_key(line) for line in lines}) == 6
    assert max(BatchSizeAgent.sizes) >= 2  # it decided several games in one call
    assert json.loads((tmp_path / "config.json").read_text())["at_once"] == 6
    with pytest.raises(ValueError, match="at_once: 6 there, 1 now"):
        ladder("test-batch-size", games=6, **{**kwargs, "at_once": 1})
    with pytest.raises(ValueError, match=r"at_once must be an integer 1\.\.10000, got 0"):
        ladder("greedy", games=6, at_once=0)


def test_a_placement_takes_agent_objects_like_evaluate(references) -> None:
    from hg_env.agents.base import make_agent

    result = ladder(make_agent("greedy"), ruleset="hg2020", games=4, batch=4, reference=references["hg2020"])
    assert result.agent == "agent" and result.games == 4
    assert {row["name"] for row in result.rows} >= {"agent", "random", "greedy"}
    assert result.rows[0]["rating"] >= result.rows[-1]["rating"]
    with pytest.raises(ValueError, match="Ray"):
        ladder(make_agent("greedy"), ray_address="")


def test_a_rung_with_a_new_model_or_engine_is_stale(tmp_path: Path, monkeypatch, references) -> None:
    module = sys.modules["hg_env.arena.ladder"]  # the module: hg_env.arena.ladder is its function
    monkeypatch.setattr(module, "ppo_model", lambda ruleset: tmp_path / f"ppo_{ruleset}.zip")
    model = tmp_path / "ppo_hg2020.zip"
    model.write_bytes(b"first model")
    first = module.file_sha256(model)
    path = tmp_path / "hg2020.jsonl"
    lines = _lines(references["hg2020"])
    ppo, pins = [], Reference.load("hg2020", references["hg2020"]).pins
    for line in lines[:4]:  # games of ppo, as a build with this model file would have written them
        seats = ["ppo" if s == "greedy:opponents=0.75" else s for s in line["seats"]]
        ppo.append(
            {**line, **pins.stamp(seats), "seats": seats, "sha256": [first if s == "ppo" else None for s in seats]}
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines + ppo))
    assert Reference.load("hg2020", path).stale == {} and "ppo" in Reference.load("hg2020", path).rated()
    said: list[str] = []  # this model file is no model: its rung is named and not played, the others place the agent
    assert ladder("greedy:opponents=0.5", reference=path, games=2, log=said.append).games == 2
    assert said[0].startswith("  not played: rung ppo (policy:path=")
    model.write_bytes((ROOT / "hg_env/arena/models/ppo_hg2020.zip").read_bytes())  # a real one, as build checks
    ref = Reference.load("hg2020", path)
    assert set(ref.stale) == {"ppo"} and "ppo" not in ref.rated()
    assert all("ppo" not in line["seats"] for line in ref.current)
    assert "Stale rungs" in reference_table("hg2020", path) and "`ppo` (" in reference_table("hg2020", path)
    said.clear()
    build(
        "hg2020",
        games_per_pair=4,
        reference=path,
        only_stale=True,
        max_games=0,
        log=said.append,
        only=[*CHEAP, "ppo"],
    )
    assert said[0].startswith("ladder build hg2020: 2 pairings, 6 games to play (this run plays 0)")
    assert "`ppo`" in said[1]
    assert "`random` vs `greedy` |" not in said[1]
    monkeypatch.setattr(module, "engine_fingerprint", lambda ruleset: "another engine")
    assert set(Reference.load("hg2020", path).stale) == {"random", "greedy", "greedy:opponents=0.75", "ppo"}


def _with_options(monkeypatch, change) -> None:
    """Rungs and placed agents resolve their options as today, then ``change(spec, options)``."""
    monkeypatch.setattr(
        sys.modules["hg_env.arena.ladder"], "resolved_options", lambda s: change(s, resolved_options(s))
    )


def test_a_rung_whose_options_changed_is_stale_and_one_with_an_added_or_dropped_option_is_not(
    tmp_path: Path, monkeypatch, references
) -> None:
    """The games pin each agent's options (``resolved_options``, by digest; the options file keeps what a digest
    stands for): a changed value makes the rung stale, an option added since (or dropped) does not."""
    path, sidecar = tmp_path / "hg2020.jsonl", tmp_path / "hg2020.options.json"
    path.write_text(references["hg2020"].read_text())
    sidecar.write_text(options_path(references["hg2020"]).read_text())
    games_of = lambda name: sum(name in line["seats"] for line in _lines(path))  # noqa: E731
    greedy = lambda change: lambda spec, o: change(o) if spec == "greedy" else o  # noqa: E731
    assert Reference.load("hg2020", path).stale == {}

    for tolerated in ({"new_option": 1}.__or__, lambda o: {k: v for k, v in o.items() if k != "opponents"}):
        _with_options(monkeypatch, greedy(tolerated))
        ref = Reference.load("hg2020", path)
        assert ref.stale == {} and sum("greedy" in line["seats"] for line in ref.current) == games_of("greedy")

    _with_options(monkeypatch, greedy(lambda o: {**o, "opponents": 0.5}))
    ref = Reference.load("hg2020", path)
    assert ref.stale == {"greedy": games_of("greedy")} and all("greedy" not in line["seats"] for line in ref.current)
    assert "their options changed" in reference_table("hg2020", path)
    legacy = tmp_path / "legacy.jsonl"  # lines from before options were pinned: taken to have today's
    legacy.write_text(
        "".join(json.dumps({k: v for k, v in line.items() if k != "options"}) + "\n" for line in _lines(path))
    )
    assert Reference.load("hg2020", legacy).stale == {}

    sidecar.unlink()  # what a digest stood for is lost: only today's digest still counts
    _with_options(monkeypatch, greedy({"new_option": 1}.__or__))
    assert Reference.load("hg2020", path).stale == {"greedy": games_of("greedy")}
    monkeypatch.undo()
    assert Reference.load("hg2020", path).stale == {}
    sidecar.write_text('{"7acd10bca15b": ')
    with pytest.raises(ValueError, match=r"hg2020\.options\.json is damaged"):
        Reference.load("hg2020", path)


def test_an_option_added_since_is_written_down_so_a_later_change_of_its_default_is_stale(
    tmp_path: Path, monkeypatch, references
) -> None:
    path = tmp_path / "hg2020.jsonl"
    path.write_text(references["hg2020"].read_text())
    options_path(path).write_text(options_path(references["hg2020"]).read_text())
    add = lambda value: lambda spec, o: {**o, "new_option": value} if spec == "greedy" else o  # noqa: E731
    _with_options(monkeypatch, add(0))
    assert Reference.load("hg2020", path).stale == {}
    _build(path)  # nothing to play; it writes down that greedy's games had new_option=0
    old = options_digest(resolved_options("greedy"))
    assert read_options(options_path(path))[old] == {**resolved_options("greedy"), "new_option": 0}
    _with_options(monkeypatch, add(1))  # then its default changes: greedy's games were not played that way
    assert "greedy" in Reference.load("hg2020", path).stale


def test_the_shipped_reference_games_were_played_with_todays_agent_options() -> None:
    """A changed default of a rung's agent must come with its games played again (``hgenv ladder build
    --only-stale``): every stored game's options agree with today's rungs (the engine and models aside)."""
    for ruleset in RULESETS:
        ref = Reference.load(ruleset)
        pins = ref.pins
        for line in ref.lines:
            as_today = {**line, "fingerprint": pins.fingerprint, "sha256": [pins.models[n] for n in line["seats"]]}
            assert pins.broken(as_today) == [], (ruleset, line["seats"], line["options"])
        assert set(pins.known) == {digest for line in ref.lines for digest in line["options"]}


def test_a_placement_never_mixes_games_of_other_agent_options(tmp_path: Path, monkeypatch, references) -> None:
    """The same spec whose defaults changed is another agent: its old games are left out and played again."""
    kwargs = dict(ruleset="hg2020", reference=references["hg2020"], out=tmp_path, batch=4, games=4)
    assert ladder("greedy:opponents=0.5", **kwargs).games == 4
    mine = options_digest(resolved_options("greedy:opponents=0.5"))
    assert [line["options"][line["seats"].index(AGENT)] for line in _lines(tmp_path / "games.jsonl")] == [mine] * 4
    assert read_options(tmp_path / "games.options.json")[mine] == resolved_options("greedy:opponents=0.5")
    _with_options(monkeypatch, lambda spec, o: {**o, "opponents": 0.25} if spec == "greedy:opponents=0.5" else o)
    said: list[str] = []
    again = ladder("greedy:opponents=0.5", log=said.append, **kwargs)
    assert again.games == 4 and len(_lines(tmp_path / "games.jsonl")) == 8
    assert "4 games in" in said[0] and "agent options" in said[0] and again.stale == {}


def test_a_pairing_played_again_with_fewer_games_supersedes_its_old_games(tmp_path: Path, references) -> None:
    lines = _lines(references["hg2020"])
    pair = ("greedy", "random")
    old = [{**line, "fingerprint": "an older engine"} for line in lines if pairing(line) == pair]
    again = [line for line in lines if pairing(line) == pair and line["deck"] == 0]  # a cut build: deck 0 only
    rest = [line for line in lines if pairing(line) != pair]
    path = tmp_path / "hg2020.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in rest + old))
    assert Reference.load("hg2020", path).stale == {"greedy": len(old), "random": len(old)}
    path.write_text("".join(json.dumps(line) + "\n" for line in rest + old + again))
    ref = Reference.load("hg2020", path)
    assert ref.stale == {} and {"random", "greedy"} <= set(ref.rated())  # the old deck-1 games never count again
    assert sorted(game_key(line) for line in ref.current if pairing(line) == pair) == sorted(map(game_key, again))
    assert all(line.get("fingerprint") != "an older engine" for line in ref.current)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_hgenv_ladder_places_an_agent_within_a_tiny_budget(ruleset, tmp_path: Path, capsys, references) -> None:
    argv = ["ladder", "--agent", "greedy:opponents=0.5", "--ruleset", ruleset, "--budget", "0.02"]
    assert main([*argv, "--games", "8", "--reference", str(references[ruleset]), "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert f"## Ladder {ruleset}: greedy:opponents=0.5" in printed and "95% interval" in printed
    assert "| **greedy:opponents=0.5** |" in printed and "| `greedy` | 1000 | anchor |" in printed
    lines = _lines(tmp_path / "games.jsonl")
    assert 2 <= len(lines) <= 8 and all(AGENT in line["seats"] for line in lines)
    assert sum(line["cpu_seconds"] for line in lines) < 0.02 * 60 + 5  # the budget, and one deck past it at most


def test_hgenv_ladder_refuses_bad_input_in_one_line(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["ladder", "--agent", "nosuchagent", "--budget", "1"])
    assert "hgenv ladder:" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["ladder", "--agent", "greedy", "--budget", "0"])
    assert "budget must be a positive number" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # a policy of another ruleset would lose every game: refused first
        main(["ladder", "--agent", f"policy:path={ROOT}/hg_env/arena/models/ppo_hg2002.zip", "--out", "/nonexistent"])
    assert "the agent plays hg2002 (its model file), not hg2020: use --ruleset hg2002" in capsys.readouterr().err


def test_the_ladder_figure_reads_each_rulesets_stored_table() -> None:
    from hg_env import figures

    values = figures.FIGURES["ladder"].measure(figures.run_command)
    assert set(values) == {f"ladder-{ruleset}" for ruleset in RULESETS}
    for text in values.values():
        assert text.startswith("| rung | rating | 95% interval |") and "| `greedy` | 1000 | anchor |" in text


def test_a_placement_never_mixes_games_of_another_engine(tmp_path: Path, monkeypatch, references) -> None:
    kwargs = dict(ruleset="hg2020", reference=references["hg2020"], out=tmp_path, batch=4, games=4)
    assert ladder("greedy:opponents=0.5", **kwargs).games == 4
    monkeypatch.setattr(sys.modules["hg_env.arena.ladder"], "engine_fingerprint", lambda ruleset: "another engine")
    said: list[str] = []
    again = ladder("greedy:opponents=0.5", log=said.append, **kwargs)
    assert again.games == 4 and len(_lines(tmp_path / "games.jsonl")) == 8  # the old 4 left out, 4 played anew
    assert "4 games in" in said[0] and set(again.stale) == set(CHEAP)
    assert "Stale rungs" in again.markdown()


def test_a_placement_pins_the_model_file_its_agent_plays(tmp_path: Path, references) -> None:
    """The placed agent's model file (``Agent.model_file``: a spec's ``path=``, or the shipped network ``puct``
    plays when it names none) is pinned by SHA-256: once it changes, the games played with it are left out."""
    from hg_env.agents.base import make_agent
    from hg_env.agents.greedy import GreedyAgent
    from hg_env.agents.puct import default_model
    from hg_env.arena.ladder import file_sha256, model_pin

    model = tmp_path / "model.zip"
    model.write_bytes(b"first")

    class Modelled(GreedyAgent):
        def model_file(self, ruleset: str) -> str:
            return str(model)

    kwargs = dict(ruleset="hg2020", reference=references["hg2020"], out=tmp_path / "out", batch=4, games=4)
    assert ladder(Modelled(seed=0), **kwargs).games == 4
    lines = _lines(tmp_path / "out" / "games.jsonl")
    assert {line["sha256"][line["seats"].index(AGENT)] for line in lines} == {file_sha256(model)}
    model.write_bytes(b"the second")
    said: list[str] = []
    assert ladder(Modelled(seed=0), log=said.append, **kwargs).games == 4
    assert "4 games in" in said[0] and len(_lines(tmp_path / "out" / "games.jsonl")) == 8
    assert model_pin(make_agent("puct"), "hg2020") == file_sha256(default_model("hg2020")) is not None
    assert model_pin(make_agent("greedy"), "hg2020") is None


def test_a_build_plan_fits_its_cpu_budget_by_cutting_the_costly_pairings(tmp_path: Path) -> None:
    cost = {"a": 0.1, "b": 0.1, "m": 20.0}
    pairs = [("a", "b", 200), ("b", "m", 200), ("a", "m", 100)]
    price = lambda a, b: cost[a] + cost[b]  # noqa: E731
    assert fit_budget(pairs, price, 1e9) == pairs
    cut = fit_budget(pairs, price, 3600)  # the cheap pairing's 40 s, then 3,560 s for 300 games at 20.1 s
    assert cut[0] == ("a", "b", 200) and cut[1][2] == 2 * int(200 * 3560 / (300 * 20.1) / 2) and cut[2][2] < 100
    assert sum(n * price(a, b) for a, b, n in cut) <= 3600
    assert fit_budget(pairs, price, 10)[1:] == [("b", "m", 20), ("a", "m", 20)]  # never under 20 games
    skips_first = fit_budget(pairs, price, 3600, skips=[("a", "m")])  # the neighbours keep more
    assert skips_first[2] == ("a", "m", 20) and skips_first[1][2] == 2 * int(200 * 3560 / (220 * 20.1) / 2)
    assert fit_budget(pairs, price, 5000, skips=[("a", "m")]) == [*pairs[:2], ("a", "m", 46)]  # the skip alone
    said: list[str] = []
    build(
        "hg2020",
        reference=tmp_path / "r.jsonl",
        cpu_hours=0.5,
        max_games=0,
        log=said.append,
        only=["greedy", "mcts:sims=16", "mcts"],
    )
    assert said[0].startswith("cut to fit --cpu-hours 0.5: `mcts:sims=16` vs `mcts` ")
    with pytest.raises(ValueError, match="cpu-hours"):
        build("hg2020", reference=tmp_path / "r.jsonl", cpu_hours=0)


def test_the_default_plan_separates_adjacent_rungs_within_about_50_elo() -> None:
    """200 games per neighbouring pair (100 per skip), on ratings like the measured ones (greedy:opponents=0.75
    70% against greedy, mcts 78%): the 95% interval of each adjacent difference is about ±50 Elo (37 to 51 here;
    the widest, mcts:sims=16 to mcts, is 175 Elo apart: 73% to 27%)."""
    from hg_env.arena.ladder import ANCHORS as anchors
    from hg_env.arena.ladder import DEFAULT_GAMES_PER_PAIR

    truth = {"random": 0.0, "greedy": 1000.0, "greedy:opponents=0.75": 1150.0, "ppo": 1100.0}
    truth |= {"mcts:sims=16": 1050.0, "mcts": 1225.0, "puct": 1350.0}
    pairs = plan(rungs("hg2020"), DEFAULT_GAMES_PER_PAIR)
    rng = np.random.default_rng(2)
    names = list(truth)
    fits = []
    for _ in range(400):
        drawn = [bt.Pairing(a, b, n, float(rng.binomial(n, bt.expected(truth[a], truth[b])))) for a, b, n in pairs]
        fit = bt.fit(drawn, anchors)
        fits.append([fit.ratings[n] for n in names])
    ratings = np.array(fits)
    for k in range(1, len(names) - 1):  # greedy -> greedy:opponents=0.75 -> ppo -> mcts:sims=16 -> mcts -> puct
        half = 1.96 * np.std(ratings[:, k + 1] - ratings[:, k])
        assert half <= 52, (names[k], names[k + 1], half)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_build_of_every_rung_then_a_placement(ruleset, tmp_path: Path) -> None:
    """Every rung of the ruleset (the shipped ppo model, both mcts) plays: 2 games per pair, then a placement."""
    ref = build(ruleset, games_per_pair=2, reference=tmp_path / "r.jsonl", log=lambda *_: None)
    assert set(ref.rated()) == {r.name for r in rungs(ruleset)} and not ref.stale
    assert all(line["error"] is None for line in ref.lines)
    result = ladder("greedy:opponents=0.5", ruleset=ruleset, games=4, batch=4, reference=tmp_path / "r.jsonl")
    assert result.games == 4 and len(result.rows) == len(rungs(ruleset)) + 1


def test_reading_a_reference_file_never_rewrites_it(tmp_path: Path, references) -> None:
    """A placement or a table reads the file a build may be appending to: a cut last line stays as it is."""
    path = tmp_path / "hg2020.jsonl"
    text = references["hg2020"].read_text() + '{"seats": ["random", "gr'
    path.write_text(text)
    assert len(Reference.load("hg2020", path).lines) == len(text.splitlines()) - 1
    reference_table("hg2020", path)
    ladder("greedy:opponents=0.5", ruleset="hg2020", games=2, reference=path)
    assert path.read_text() == text


def test_hg2020_has_the_search_rung_last_with_the_shipped_search_network() -> None:
    """``puct`` (guided by the shipped search network, puct_hg2020.zip) is hg2020's last rung, pinned to that
    file; the ``ppo`` rung keeps the PPO model; the other rulesets stop at mcts."""
    from hg_env.agents.base import make_agent
    from hg_env.arena.ladder import SEARCH_RUNG, rung_names

    models = ROOT / "hg_env/arena/models"
    top, ppo = rungs("hg2020")[-1], rungs("hg2020")[3]
    assert top.name == SEARCH_RUNG and top.model.resolve() == models / "puct_hg2020.zip" and top.sha256
    assert top.spec == f"puct:path={top.model}"
    assert ppo.name == "ppo" and ppo.model.resolve() == models / "ppo_hg2020.zip"
    assert make_agent(top.spec).name == "puct"
    assert [r.name for r in rungs("hg2002")] == list(rung_names("hg2002")) and SEARCH_RUNG not in rung_names("hg2002")
    with pytest.raises(ValueError, match="unknown rung"):
        build("carcassonne", only=[SEARCH_RUNG], reference="unused.jsonl", log=lambda *_: None)


def test_the_pairs_table_counts_each_stored_pairing(references, capsys) -> None:
    """``hgenv ladder pairs``: one row per pairing, the higher rung first, its points over the games."""
    path = references["hg2020"]
    lines = _lines(path)
    text = reference_pairs("hg2020", path)
    rows = [row for row in text.splitlines() if row.startswith("| `")]
    assert len(rows) == len({tuple(sorted(line["seats"])) for line in lines}) == 3
    mine = [line for line in lines if set(line["seats"]) == {"greedy", "random"}]
    rate = 100 * sum(points(line, "greedy") for line in mine) / len(mine)
    assert f"| `greedy` vs `random` | {len(mine)} | {rate:.1f}% [" in text
    assert reference_pairs("hg2020", path, rung="random").count("| `") == 2
    with pytest.raises(ValueError, match="unknown rung 'nope'"):
        reference_pairs("hg2020", path, rung="nope")
    assert main(["ladder", "pairs", "--ruleset", "hg2020", "--reference", str(path), "--rung", "greedy"]) == 0
    assert "`greedy:opponents=0.75` vs `greedy`" in capsys.readouterr().out
    assert main(["ladder", "pairs", "--ruleset", "hg2020", "--reference", str(path), "--json"]) == 0
    stored = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    pair = next(p for p in stored if (p["a"], p["b"]) == ("greedy", "random"))
    assert pair["games"] == len(mine) and pair["win_rate"] == pytest.approx(rate / 100)
    assert pair["low"] <= pair["win_rate"] <= pair["high"] and len(pair["cpu_per_move"]) == 2
