"""hg_env.figures: the README's numbers from commands. The long figures are measured by the lead
(make readme-figures); here the mechanism runs on canned command outputs and on one cheap real figure."""

from __future__ import annotations

import csv
import itertools
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from hg_env import figures
from hg_env.figures import FIGURES, Run

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _scratch_in_tmp_path(tmp_path: Path, monkeypatch) -> None:
    """The figures' scratch folders (tempfile.mkdtemp) go under the test's tmp_path, not /tmp."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


TEXT = """# Title
Inline: <!-- figure:state-memory -->old<!-- /figure -->, kept: <!-- figure:bench -->old table<!-- /figure -->.

<!-- figure:strength -->
| old | table |
<!-- /figure -->

<!-- machine -->an old machine
"""


def test_write_replaces_inline_and_block_markers_and_the_machine_line() -> None:
    out = figures.write(TEXT, {"state-memory": "1 byte", "strength": "| new |\n|---|\n"}, "this machine")
    assert "Inline: <!-- figure:state-memory -->1 byte<!-- /figure -->," in out
    assert "<!-- figure:bench -->old table<!-- /figure -->" in out  # not measured: unchanged
    assert "<!-- figure:strength -->\n| new |\n|---|\n<!-- /figure -->" in out
    assert out.endswith("<!-- machine -->this machine\n")
    with pytest.raises(ValueError, match="inline"):
        figures.write(TEXT, {"state-memory": "two\nlines"}, "m")
    with pytest.raises(ValueError, match=r"no marker for \['throughput'\]"):
        figures.write(TEXT, {"throughput": "1 step/s"}, "m")


def test_the_machine_line_names_partial_runs_and_keeps_the_oldest_machine() -> None:
    here, there = "Intel(R) Xeon(R), 2 cores; 2026-11-29", "AMD EPYC, 2 cores; 2026-11-30"  # as machine() ends
    assert figures.machine_line(TEXT, list(FIGURES), here) == here
    assert figures.machine_line(figures.write(TEXT, {}, here), ["bench"], here) == here
    once = figures.machine_line(TEXT, ["bench"], here)
    assert once == f"{here} (bench); earlier figures: an old machine"
    same = figures.machine_line(figures.write(TEXT, {}, once), ["strength", "bench"], here)
    assert same == f"{here} (bench, strength); earlier figures: an old machine"
    elsewhere = figures.machine_line(figures.write(TEXT, {}, same), ["strength"], there)
    assert elsewhere == f"{there} (strength); {here} (bench); earlier figures: an old machine"
    emptied = figures.machine_line(figures.write(TEXT, {}, elsewhere), ["bench"], there)
    assert emptied == f"{there} (strength, bench); earlier figures: an old machine"
    rest = [name for name in FIGURES if name != "strength"]
    first = figures.write(TEXT, {}, figures.machine_line(TEXT, rest, here))
    assert figures.machine_line(first, ["strength"], here) == here  # two partial runs, one machine: every figure
    split = figures.machine_line(first, ["strength"], there)
    assert split == f"{there} (strength); {here} ({', '.join(rest)})"  # every figure, on two machines
    assert "cores" in figures.machine() and "Python" in figures.machine() and "numpy" in figures.machine()


def test_check_markers_finds_unknown_missing_doubled_and_unclosed_markers() -> None:
    problems = figures.check_markers(TEXT + "<!-- figure:nothing -->x<!-- /figure --> <!-- figure:bench -->")
    assert "marker figure:nothing is produced by no figure" in problems
    assert "figure output throughput has no marker" in problems
    assert "a <!-- figure:NAME --> marker has no <!-- /figure --> after it" in problems
    assert "no line starts with <!-- machine -->" in figures.check_markers("")


SB3_EXAMPLE = {
    "parameters": 1234,
    "threads": 1,
    "steps": 4096,
    "learn_s": 40.96,
    "evaluate_s": 12.0,
    "opponent": "greedy",
    "games": 200,
    "win_rate": 0.5,
    "ci_low": 0.43,
    "ci_high": 0.57,
}


class FakeRunner:
    """Canned outputs for the commands figures run; writes the files a command would."""

    def __init__(self) -> None:
        self.commands: list[list[str]] = []

    def __call__(self, argv, cwd=None) -> Run:
        argv = [str(a) for a in argv]
        self.commands.append(argv)
        if argv[:2] == ["git", "clone"]:
            Path(argv[-1]).mkdir(parents=True)
        if argv == ["make", "run"]:
            final = {
                s: {"win_rate": r, "ci_low": r - 0.1, "ci_high": r, "games": 100}
                for s, r in [("random", 1.0), ("greedy", 0.6)]
            }
            (Path(cwd) / "runs" / "quick").mkdir(parents=True)
            (Path(cwd) / "runs" / "quick" / "final_eval.json").write_text(json.dumps(final))
        if argv[0] == "env" and argv[-2] == sys.executable:  # the README's MaskablePPO block in its timing harness
            assert "--unset=OMP_WAIT_POLICY" in argv  # a plain script: OpenMP's own defaults
            return Run(json.dumps(SB3_EXAMPLE), "", 70.0, 60.0)
        if argv[1:4] == ["-m", "hg_env.arena.distributed", "--bench"]:
            rows = [
                {"games": 80, "wall_s": w, "cpu_s": 20.0, "games_per_s": 80 / w, "load_before": 0.5}
                for w in (20.0, 25.0, 12.5)
            ]
            for row in rows[1:]:
                row["same_results_as_single_process"] = True
            return Run(json.dumps(rows), "", 60.0, 60.0)
        if "rllib_throughput.toml" in argv[-1]:
            stderr = "RLlib PPO: 16384 steps in 100 s = 164 steps/s (sampling and learning; ...), 150 CPU s (...)"
            return Run("", stderr, 120.0, 160.0)
        command = argv[3] if argv[:3] == list(figures.HGENV) else argv[0]
        if command == "bench" and "--compare" in argv and "train" in argv:
            row = {"new_steps_per_s": 800.0, "old_steps_per_s": 500.0, "ratio": 1.6, "new_steps_per_cpu_s": 600.0}
            row |= {"old_steps_per_cpu_s": 400.0, "cpu_ratio": 1.5, "round_ratios": [1.5, 1.7]}
            return Run(json.dumps({"revision": argv[-1], "modes": {"plain": row, "lookahead": row}}), "", 60.0, 60.0)
        if command == "bench" and "--threads" in argv:
            rate = 1000.0 * int(argv[-1])
            rows = [{"lookahead": la, "steps_per_s": rate / (1 + la)} for la in (False, True)]
            return Run(json.dumps(rows), "", 30.0, 30.0)
        if command == "bench" and "--compare" in argv:
            rows = {
                b: {"new_per_cpu_s": 2000.0 * r, "old_per_cpu_s": 1000.0, "ratio": r}
                for b, r in [("1", 2.0), ("aec", 1.5)]
            }
            return Run(json.dumps({"revision": argv[-1], "batches": rows}), "", 20.0, 20.0)
        if command == "bench" and argv[4] == "agents":
            specs = argv[argv.index("--agents") + 1 : argv.index("--seed")]
            rows = [
                {"spec": spec, "cpu_s_per_decision": 0.5 * (k + 1), "wall_s_per_decision": 0.6}
                for k, spec in enumerate(specs)
            ]
            at_once = int(argv[argv.index("--at-once") + 1])
            return Run(json.dumps({"games": 16, "at_once": at_once, "decisions": 2000, "agents": rows}), "", 9.0, 9.0)
        if command == "bench" and argv[4] == "core":
            batches = {str(b): {"decisions_per_cpu_s": 6000.4 * b, "games_per_cpu_s": 1.0} for b in (1, 64)}
            return Run(json.dumps({"ruleset": argv[-1], "batches": batches, "bytes_per_game": 2048}), "", 5.0, 5.0)
        if command == "bench":
            rates = {"hunters_gatherers_v0": 3000.0, "chess_v6": 1500.0, "connect_four_v3": 18000.0}
            return Run(json.dumps({"env": "hunters_gatherers_v0", "steps_per_s": rates}), "", 30.0, 30.0)
        if command == "tournament":
            self._tournament(argv)
        if command == "ladder" and argv[4:5] == ["pairs"]:
            pairs = [
                {"a": "puct", "b": "mcts", "games": 200, "win_rate": 0.6, "low": 0.53, "high": 0.66},
                {"a": "mcts", "b": "ppo", "games": 100, "win_rate": 0.7, "low": 0.6, "high": 0.78},
            ]
            for pair in pairs:
                pair |= {"scores": [150.0, 140.0], "cpu_per_move": [0.2, 0.1]}
            return Run("\n".join(map(json.dumps, pairs)), "", 1.0, 1.0)
        if command == "ladder" and "--agent" in argv:  # a placement: writes ladder.md to --out
            out = Path(argv[argv.index("--out") + 1])
            out.mkdir(parents=True, exist_ok=True)
            table = "| player | rating |\n|---|---:|\n| **agent** | 1300 |\n"
            (out / "ladder.md").write_text(
                f"## Ladder hg2020: agent\n\nRating 1300, 95% interval [1200, 1400].\n\n{table}"
            )
            return Run("", "", 1.0, 1.0)
        if command == "train" and "--seed" in argv:  # quick-seeds: a final evaluation per seed
            seed = int(argv[argv.index("--seed") + 1])
            run_dir = Path(argv[argv.index("--config") + 1]).parent / argv[argv.index("--name") + 1]
            run_dir.mkdir(parents=True)
            final = {
                s: {"win_rate": r, "games": 100} for s, r in [("random", 1.0 - seed / 100), ("greedy", 0.6 + seed / 50)]
            }
            (run_dir / "final_eval.json").write_text(json.dumps(final))
        if command == "train":
            return Run("", "PPO: 65536 steps in 50.0 s = 1310.7 steps/s (including learning ...)", 60.0, 100.0)
        if command == "evaluate":
            lines = [
                {
                    "opponent": s,
                    "games": 200,
                    "win_rate": 0.75,
                    "ci_low": 0.69,
                    "ci_high": 0.8,
                    "mean_score": 180.0,
                    "mean_opponent_score": 150.0,
                    "cpu_per_move": 0.25,
                    "opponent_cpu_per_move": 0.002,
                }
                for s in itertools.takewhile(lambda a: not a.startswith("--"), argv[argv.index("--opponents") + 1 :])
            ]
            return Run("\n".join(map(json.dumps, lines)), "", 30.0, 30.0)
        return Run("", "", 120.0, 240.0)

    @staticmethod
    def _tournament(argv: list[str]) -> None:
        out = Path(argv[argv.index("--out") + 1])
        out.mkdir(parents=True, exist_ok=True)  # as hgenv tournament makes it
        a, b = argv[argv.index("--agents") + 1 : argv.index("--players")]
        with (out / "winrates.csv").open("w") as f:
            w = csv.writer(f)
            w.writerow(["agent", "opponent", "games", "win_rate", "ci_low", "ci_high"])
            w.writerows([[a, b, 200, 0.8, 0.74, 0.85], [b, a, 200, 0.2, 0.15, 0.26]])
        with (out / "ratings.csv").open("w") as f:
            w = csv.writer(f)
            w.writerow(["rank", "agent", "games", "wins", "mu", "sigma", "ordinal", "mean_score"])
            w.writerows([[1, a, 200, 160, 30, 2, 24, 170.25], [2, b, 200, 40, 20, 2, 14, 130.5]])
        game = {"agents": [a, b], "agent_cpu_seconds": [2.0, 0.5], "agent_decisions": [40, 50]}
        game |= {"ranks": [1, 2], "scores": [160, 120]}
        other = {**game, "agents": [b, a], "agent_cpu_seconds": [0.5, 4.0], "ranks": [1, 1], "scores": [130, 130]}
        (out / "games.jsonl").write_text(json.dumps(game) + "\n" + json.dumps(other) + "\n")
        (out / "summary.md").write_text("## Tournament\n\n| a table |\n")


def test_every_figure_measures_from_its_commands_outputs(monkeypatch, tmp_path: Path) -> None:
    """Each figure (the long ones included) turns its commands' outputs into the texts of its markers."""
    monkeypatch.chdir(ROOT)  # configs/ and README.md, as make readme-figures runs
    monkeypatch.setattr(figures, "SEARCH_GREEDY_OUT", tmp_path / "puct-greedy")
    monkeypatch.setattr(figures, "SEARCH_LADDER_OUT", tmp_path / "puct-ladder")
    monkeypatch.setattr(figures, "CARCASSONNE_LADDER_OUT", tmp_path / "puct-carcassonne")
    evaluations = {("puct", "mcts"): tmp_path / "a.jsonl", ("puct:sims=480", "greedy"): tmp_path / "b.jsonl"}
    evaluations[("puct:sims=480", "mcts")] = tmp_path / "not-yet.jsonl"
    evaluations[("puct:sims=480", "mcts:sims=16")] = tmp_path / "header-alone.jsonl"
    for record in list(evaluations.values())[:2]:
        record.write_text('{"evaluation": 1}\n{"decks": [0, 10]}\n')
    evaluations[("puct:sims=480", "mcts:sims=16")].write_text('{"evaluation": 1}\n')
    monkeypatch.setattr(figures, "CARCASSONNE_EVALUATIONS", evaluations)
    runner = FakeRunner()
    values = figures.run_figures(list(FIGURES), runner=runner, log=lambda line: None)
    assert set(values) == {m for f in FIGURES.values() for m in f.outputs()}
    assert (
        values["make"]
        == "`make setup` 2.0 min, `make run` 2.0 min (4.0 min of CPU), then `make test` 2.0 min (4.0 min of CPU)"
    )
    assert (
        values["quickstart-eval"]
        == "100.0% [90.0, 100.0] vs random and 60.0% [50.0, 60.0] vs greedy (its final evaluation, 100 games each)"
    )
    assert "| `carcassonne` | 6,000 | 384,026 | 3,000 | 1,500 / 18,000 | 2.00x |" in values["bench"]
    assert values["speedup"] == (
        "B = 1 2.00x (4,000 vs 1,000 per CPU-second), AEC env steps 1.50x (3,000 vs 1,000 per CPU-second)"
    )
    assert values["train-speedup"].startswith(
        "plain 1.60x (800 vs 500 steps/s; 600 vs 400 per CPU-second, 1.50x; rounds 1.50x, 1.70x); lookahead 1.60x"
    )
    assert values["train-threads"] == (
        "idle: plain 1,000 and 2,000 steps/s (2.00x), lookahead 500 and 1,000 steps/s (2.00x); "
        "beside one busy process: plain 1,000 and 2,000 steps/s (2.00x), lookahead 500 and 1,000 steps/s (2.00x)"
    )
    assert values["state-memory"].startswith("2,048 bytes per game (2.0 KiB) in hg2020, ")
    assert values["tournament-example"] == "```text\n## Tournament\n\n| a table |\n```"
    assert values["tournament-example-time"] == "120 s"
    assert "| `mcts` vs `greedy` | 80.0% [74.0, 85.0] | 170.2 – 130.5 | 3.00 (mcts) |" in values["strength"]
    assert values["greedy-0.75-vs-greedy"] == "20.0% [15.0, 26.0]"  # the second agent listed
    strength = values["search-strength"].splitlines()
    assert strength[2].startswith("| `puct` vs `mcts` | 200 | 60.0% [53.0, 66.0] | 150.0 – 140.0 | 0.200 – 0.100 |")
    assert strength[3].startswith("| `puct` vs `greedy` | 2 | 75.0% [")  # a win and a tie
    assert "| 145.0 – 125.0 | 0.067 – 0.011 |" in strength[3]  # per move: (2 + 4) / 90 and 1 / 90
    for row, opponent in zip(strength[4:6], figures.SEARCH_EVALUATIONS):
        assert row.startswith(f"| `{figures.SEARCH_AT_ONCE_SPEC}` vs `{opponent}` | 200 | 75.0% [69.0, 80.0] |")
        assert "| 180.0 – 150.0 | 0.250 – 0.002 |" in row and str(figures.SEARCH_EVALUATIONS[opponent]) in row
    assert strength[6].startswith("| `ppo` vs `mcts` | 100 | 30.0% [22.0, 40.0] | 140.0 – 150.0 | 0.100 – 0.200 |")
    assert (
        values["search-ladder"]
        == "Rating 1300, 95% interval [1200, 1400].\n\n| player | rating |\n|---|---:|\n| **agent** | 1300 |"
    )
    assert values["search-ladder-carcassonne"] == values["search-ladder"]
    placements = [argv for argv in runner.commands if "ladder" in argv and "--agent" in argv]
    assert [argv[argv.index("--agent") + 1] for argv in placements] == [figures.SEARCH_AT_ONCE_SPEC, "puct"]
    assert all("--at-once" in argv for argv in placements)
    assert placements[1][placements[1].index("--ruleset") + 1] == "carcassonne"
    assert placements[1][placements[1].index("--out") + 1] == str(tmp_path / "puct-carcassonne")
    carcassonne = values["search-strength-carcassonne"].splitlines()
    stored = dict(list(evaluations.items())[:2])
    assert len(carcassonne) == 2 + 2  # the records without games (none, or the header alone) are left out
    for row, ((spec, opponent), record) in zip(carcassonne[2:], stored.items()):
        assert row.startswith(f"| `{spec}` vs `{opponent}` | 200 | 75.0% [69.0, 80.0] | 180.0 – 150.0 |")
        assert f"`{record}`" in row
    reads = [argv for argv in runner.commands if "--summary-only" in argv]  # reads the records, plays nothing
    assert [(argv[argv.index("--agent") + 1], argv[argv.index("--opponents") + 1]) for argv in reads] == list(stored)
    assert all(argv[argv.index("--ruleset") + 1] == "carcassonne" for argv in reads)
    cost = values["search-at-once-cost"].splitlines()
    assert "(2,000 decisions, 16 games 16 at once)" in cost[0]
    assert cost[2:] == [
        f"| `{figures.SEARCH_AT_ONCE_SPEC}` | 0.500 | 0.600 | 0.50 |",
        "| `mcts` | 1.000 | 0.600 | 1.00 |",
        "| `puct` | 1.500 | 0.600 | 1.50 |",
    ]
    throughput = "1,311 steps/s (100 CPU s for the whole run, start-up included)"
    assert values["throughput"] == values["throughput-lookahead"] == throughput
    assert values["default-train"] == "1,311 steps/s (1.0 min in all, 0.8 min of PPO, 1.7 min of CPU)"
    assert values["default-vs-greedy-0.75"] == "75.0% [69.0, 80.0]; 180 – 150"
    assert values["sb3-example"].startswith(
        "1,234 parameters; beside one busy process, on 1 torch thread, `learn` took 41 CPU seconds for 4,096"
    )
    assert "the whole script 60 CPU seconds (70 s)" in values["sb3-example"]
    assert values["quick-seeds"] == (
        "over seeds 0–4, 100 games each: vs random 96.0–100.0% (mean 98.0%; by seed 100.0, 99.0, 98.0, 97.0, "
        "96.0); vs greedy 60.0–68.0% (mean 64.0%; by seed 60.0, 62.0, 64.0, 66.0, 68.0)"
    )
    quick = FakeRunner()
    figures.measure_quick_seeds(quick)
    assert [argv[argv.index("--seed") + 1] for argv in quick.commands] == ["0", "1", "2", "3", "4"]
    assert values["ray-tournament"].startswith(
        "80 games of `random` vs `greedy`: one process 4.00 games/s (20 s, 20 CPU s); Ray with 1 CPU 3.20 games/s"
    )
    assert (
        "Ray with 2 CPUs 6.40 games/s (12 s, 20 CPU s), 2.00x the 1-CPU rate; the same games"
        in values["ray-tournament"]
    )
    assert values["rllib-throughput"].startswith("164 steps/s (16,384 self-play steps in 100 s, 150 CPU s")
    trains = [argv for argv in runner.commands if "train" in argv and "--config" in argv]
    lookahead = Path(trains[1][-1]).read_text()
    assert "lookahead = true" in lookahead and "runs" not in lookahead.split("out_dir")[1].splitlines()[0]


def test_percent_rounds_each_rate_from_its_exact_value() -> None:
    """174.5 of 200 is 0.8725, a hair above in floats: 87.3%, as ``hgenv evaluate`` prints 0.873 (100 times it
    in floats is 87.2499...)."""
    assert figures.percent(174.5 / 200, 0.819, 0.912) == "87.3% [81.9, 91.2]"
    assert figures.percent(1.0, 0.9812, 1.0) == "100.0% [98.1, 100.0]"


def test_seed_spread_gives_the_range_mean_and_every_seed() -> None:
    assert figures.seed_spread("greedy", [64.0, 71.5, 58.0]) == (
        "vs greedy 58.0–71.5% (mean 64.5%; by seed 64.0, 71.5, 58.0)"
    )
    assert figures.seed_spread("random", [100.0, 100.0]) == "vs random 100.0–100.0% (mean 100.0%; by seed 100.0, 100.0)"


def test_hgenv_train_seed_overrides_run_seed_and_is_checked_as_it(monkeypatch, capsys) -> None:
    """quick-seeds trains with ``hgenv train --seed S``: the value reaches run.seed, a bad one is refused."""
    pytest.importorskip("sb3_contrib")
    from hg_env import cli
    from hg_env.train import train

    seen = []
    monkeypatch.setattr(train, "train", lambda config, **kwargs: seen.append(config.run.seed) or Path("runs/x"))
    config = str(ROOT / "configs" / "quick.toml")
    assert cli.main(["train", "--config", config, "--seed", "7"]) == 0
    assert seen == [7]
    with pytest.raises(SystemExit) as exit_:
        cli.main(["train", "--config", config, "--seed", "-1"])
    assert exit_.value.code == 2 and seen == [7]
    assert "run.seed must be 0..4294967295, got -1" in capsys.readouterr().err


def test_a_failed_figure_leaves_the_ones_measured_before_it_in_the_file(tmp_path: Path, monkeypatch) -> None:
    """Each figure is written as soon as it is measured: a run that fails an hour in keeps the others."""
    monkeypatch.chdir(ROOT)
    readme = tmp_path / "README.md"
    readme.write_text(TEXT)
    canned = FakeRunner()

    def runner(argv, cwd=None) -> Run:
        if "tournament" in [str(a) for a in argv]:
            raise figures.FigureError("hgenv tournament failed")
        return canned(argv, cwd)

    def measured(done: list[str], texts: dict[str, str]) -> None:
        figures.write_into(readme, done, texts)

    with pytest.raises(figures.FigureError):
        figures.run_figures(["state-memory", "tournament-example"], runner, lambda line: None, measured)
    text = readme.read_text()
    assert "<!-- figure:state-memory -->2,048 bytes per game (2.0 KiB) in hg2020, " in text
    assert "(state-memory); earlier figures: an old machine" in text
    assert "<!-- figure:bench -->old table<!-- /figure -->" in text


def test_a_cheap_figure_for_real_into_a_readme(tmp_path: Path) -> None:
    """python -m hg_env.figures --run state-memory --write FILE: measured, written, the machine named."""
    readme = tmp_path / "README.md"
    readme.write_text(TEXT)
    done = subprocess.run(
        [sys.executable, "-m", "hg_env.figures", "--run", "state-memory", "--write", str(readme)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    text = readme.read_text()
    assert "<!-- figure:state-memory -->" in text and " bytes per game (" in text and "in carcassonne" in text
    assert "<!-- machine -->" in text and "(state-memory); earlier figures: an old machine" in text
    assert "<!-- figure:bench -->old table<!-- /figure -->" in text


def test_list_and_refusals(tmp_path: Path, capsys) -> None:
    assert figures.main(["--list"]) == 0
    listed = capsys.readouterr().out
    assert all(f"`{name}`" in listed and FIGURES[name].command in listed for name in FIGURES)
    assert figures.main(["--run", "nothing"]) == 2
    bare = tmp_path / "bare.md"
    bare.write_text("no markers\n")
    assert figures.main(["--run", "state-memory", "--write", str(bare)]) == 2  # refused before measuring
    assert "markers missing for ['state-memory']" in capsys.readouterr().err


def test_the_bench_table_reads_what_bench_core_prints_today() -> None:
    """The bench figure's parser against real `hgenv bench core --json` output (a short run), so that a
    change of its JSON breaks this test rather than make readme-figures an hour in."""
    core = json.loads(figures.run_command([*figures.HGENV, "bench", "core", "--json", "--seconds", "0.02"]).stdout)
    env = {
        "env": "hunters_gatherers_v0",
        "steps_per_s": {"hunters_gatherers_v0": 2.0, "chess_v6": 1.0, "connect_four_v3": 4.0},
    }
    header, _, row = figures.bench_table([core], [env]).splitlines()
    assert header.count("|") == row.count("|") and row.startswith("| `hg2020` |") and row.endswith("| 2.00x |")


def test_rllib_quick_trains_and_evaluates_both_paths_with_every_seed(monkeypatch) -> None:
    """rllib-quick: each config trained per seed, each final model through `hgenv evaluate`; RLlib's CPU
    is the one its run prints (its Ray processes are not the command's children), SB3's the command's."""
    monkeypatch.chdir(ROOT)

    class Runner(FakeRunner):
        def __call__(self, argv, cwd=None) -> Run:
            argv = [str(a) for a in argv]
            run = super().__call__(argv, cwd)
            if "train" in argv and "rllib_quick" in argv[argv.index("--name") + 1]:
                return Run("", "RLlib run: 143 CPU s in all (this process and its Ray instance: ...)", 300.0, 20.0)
            if "evaluate" in argv:  # vs greedy: 70% + the seed, from the model's run folder
                seed = int(argv[argv.index("--model") + 1].split("-seed")[1].split("/")[0])
                lines = [json.loads(line) for line in run.stdout.splitlines()]
                for line in lines:
                    line["win_rate"] = 1.0 if line["opponent"] == "random" else 0.7 + seed / 100
                return Run("\n".join(map(json.dumps, lines)), "", 30.0, 30.0)
            return run

    runner = Runner()
    text = figures.measure_rllib_quick(runner)["rllib-quick"]
    assert text == (
        "over seeds 0, 1, 2, 100 games per opponent: RLlib self-play `configs/rllib_quick.toml`: vs random "
        "100.0–100.0% (mean 100.0%; by seed 100.0, 100.0, 100.0); vs greedy 70.0–72.0% (mean 71.0%; by seed "
        "70.0, 71.0, 72.0); 143–143 CPU s a run; SB3 (the quickstart's config) `configs/quick.toml`: vs random "
        "100.0–100.0% (mean 100.0%; by seed 100.0, 100.0, 100.0); vs greedy 70.0–72.0% (mean 71.0%; by seed "
        "70.0, 71.0, 72.0); 100–100 CPU s a run"
    )
    trains = [a for a in runner.commands if "train" in a]
    assert [(Path(a[a.index("--config") + 1]).name, a[a.index("--seed") + 1]) for a in trains] == [
        (f"{config}.toml", seed) for config in ("rllib_quick", "quick") for seed in ("0", "1", "2")
    ]
    evaluations = [a for a in runner.commands if "evaluate" in a]
    assert all(a[a.index("--games") + 1] == "100" and "--opponents" in a for a in evaluations)
    assert [Path(a[a.index("--model") + 1]).parent.name for a in evaluations] == [
        a[a.index("--name") + 1] for a in trains
    ]


def test_carcassonne_strength_says_how_much_of_an_unfinished_record_it_read(monkeypatch, tmp_path: Path) -> None:
    """An evaluation record still growing is shown as "N of 200" games, not as a finished evaluation."""
    summary = {"opponent": "mcts", "games": 160, "win_rate": 0.5, "ci_low": 0.42, "ci_high": 0.58}
    summary |= {"mean_score": 88.0, "mean_opponent_score": 85.0, "cpu_per_move": 0.18, "opponent_cpu_per_move": 0.58}

    def runner(argv: list[str]) -> Run:
        assert "--summary-only" in argv
        return Run("evaluating ...\n" + json.dumps(summary), "", 1.0, 1.0)

    record = tmp_path / "record.jsonl"
    record.write_text('{"evaluation": 1}\n{"decks": [0, 10]}\n')
    monkeypatch.setattr(figures, "CARCASSONNE_EVALUATIONS", {("puct", "mcts"): record})
    rows = figures.measure_carcassonne_strength(runner)["search-strength-carcassonne"].splitlines()[2:]
    assert [row.split(" | ")[1:3] for row in rows] == [["160 of 200", "50.0% [42.0, 58.0]"]]
