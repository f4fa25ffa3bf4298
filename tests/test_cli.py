"""The command line's own conveniences: --version, defaults in every --help, `hgenv agents`."""

from __future__ import annotations

import argparse
import inspect
import json
import re
from pathlib import Path

import pytest

import hg_env
from hg_env.agents.base import REGISTRY, Agent, _load_builtin_agents, agent_options, register
from hg_env.cli import build_parser, main
from hg_env.core.rules import Rules
from hg_env.core.ruleset import RULESETS
from hg_env.rule_flags import game_title, parse_flags

ROOT = Path(__file__).resolve().parents[1]


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_version(capsys) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"hgenv (hg_env) {hg_env.__version__}"


@pytest.mark.parametrize("command", sorted(_subcommands()))
def test_every_option_with_a_default_shows_it_in_help(command: str) -> None:
    parser = _subcommands()[command]
    text = " ".join(parser.format_help().split())  # argparse wraps lines
    formatter = parser._get_formatter()
    for action in parser._actions:
        if action.default in (None, argparse.SUPPRESS) or action.default is False:
            continue
        shown = " ".join(formatter._expand_help(action).split())
        assert "default" in shown and shown in text, f"hgenv {command} {action.option_strings}: no default in --help"


def test_agents_lists_every_agent_with_its_options_defaults_and_doc(capsys) -> None:
    assert main(["agents"]) == 0
    blocks: dict[str, list[str]] = {}  # agent name -> its lines (its doc line, then one per option)
    for line in capsys.readouterr().out.splitlines()[2:]:
        if line and not line.startswith(" "):
            blocks[line.split()[0]] = [line]
        elif line:
            blocks[list(blocks)[-1]].append(line)
    _load_builtin_agents()
    assert {"random", "greedy", "mcts", "policy"} <= set(blocks) == set(REGISTRY)  # tests may register more
    for name in ("random", "greedy", "mcts", "policy"):
        cls = REGISTRY[name]
        doc, *options = blocks[name]
        assert inspect.getdoc(cls).split(".")[0].removesuffix(" (module docstring)") in doc  # the one-line doc
        expected = [p for p in inspect.signature(cls.__init__).parameters.values() if p.name not in ("self", "seed")]
        if not expected:
            assert options == ["    (no options)"]
            continue
        for option, row in zip(expected, options, strict=True):
            assert row.split()[0] == option.name
            assert (repr(option.default) if option.default != "" else "(required)") in row
            assert row.endswith(cls.option_docs[option.name]), row  # its meaning, from the agent's own docs


def test_every_option_of_the_built_in_agents_has_its_meaning() -> None:
    """``mcts`` says what c, widen, scale, batch, deals... mean: each agent documents all its options."""
    _load_builtin_agents()
    for name in ("random", "greedy", "mcts", "policy"):
        cls = REGISTRY[name]
        assert set(cls.option_docs) == {option for option, _ in agent_options(cls)}, name
        assert all(doc.strip() and "\n" not in doc for doc in cls.option_docs.values()), name
    assert {"c", "widen", "scale", "batch", "deals"} <= set(REGISTRY["mcts"].option_docs)


def test_register_refuses_a_description_of_an_option_that_does_not_exist() -> None:
    class Renamed(Agent):
        name = "test-renamed-option"
        option_docs = {"speed": "how fast"}  # the constructor's option is "sims"

        def __init__(self, seed: int | None = None, sims: int = 1) -> None:
            super().__init__(seed)

    with pytest.raises(TypeError, match=r"option_docs describes \['speed'\]"):
        register(Renamed)
    assert "test-renamed-option" not in REGISTRY


def test_help_describes_the_carcassonne_family(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "Carcassonne family" in text
    for ruleset in RULESETS:
        assert f"{ruleset} (" in text, ruleset


# ---------------------------------------------------------------- --flag NAME=VALUE (hg_env.rule_flags)


def test_flags_are_parsed_into_the_types_of_the_rulesets_flags() -> None:
    assert parse_flags("carcassonne", []) == {}
    assert parse_flags("carcassonne", ["river=true", "abbot = 0", "board_reach=none", "start_rotation=2"]) == {
        "river": True,
        "abbot": False,
        "board_reach": None,
        "start_rotation": 2,
    }
    assert parse_flags("hg2020", ["hut_targets=all_water_zones"]) == {"hut_targets": "all_water_zones"}
    assert parse_flags("hg2002", ["auto_skip_forced_actions=off"]) == {"auto_skip_forced_actions": False}


@pytest.mark.parametrize(
    ("ruleset", "items", "message"),
    [
        ("carcassonne", ["river=true", "river=false"], "river is given twice"),
        ("carcassonne", ["ruleset=hg2020"], "the ruleset is chosen with --ruleset"),
        ("carcassonne", ["=true"], "expected NAME=VALUE"),
        ("carcassonne", ["board_reach=far"], "expected an int or none, got 'far'"),
        ("carcassonne", ["start_rotation=4"], "start_rotation must be 0..3, got 4"),
        ("hg2002", ["pit_trap_deer_choice=maximize"], "hg2002 has no rule flag 'pit_trap_deer_choice'"),
    ],
)
def test_bad_flags_are_refused_naming_the_problem(ruleset: str, items: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_flags(ruleset, items)


@pytest.mark.parametrize(
    ("ruleset", "flags", "title"),
    [
        ("carcassonne", {}, "Carcassonne (base game C3, farmers, abbot)"),
        ("carcassonne", {"river": True}, "Carcassonne (base game C3, farmers, abbot, river)"),
        ("carcassonne", {"abbot": False}, "Carcassonne (base game C3, farmers)"),
        ("hg2020", {}, "Hunters & Gatherers (2020)"),
        (
            "hg2020",
            {"wildfire_affects_hunting_trap": True},
            "Hunters & Gatherers (2020, wildfire_affects_hunting_trap)",
        ),
        ("hg2002", {"extra_turn_after_last_tile": False}, "(classic 2002/2014, no extra_turn_after_last_tile)"),
        ("hg2002", {"hut_targets": "all_water_zones"}, "(classic 2002/2014, hut_targets=all_water_zones)"),
    ],
)
def test_game_titles_name_the_flags_in_force(ruleset: str, flags: dict, title: str) -> None:
    assert game_title(Rules(ruleset=ruleset, **flags)).endswith(title)


@pytest.mark.parametrize("command", ["demo", "play"])
def test_commands_that_make_games_take_rule_flags(command: str) -> None:
    args = _subcommands()[command].parse_args(["--flag", "river=true", "--flag", "abbot=false"])
    assert args.flags == ["river=true", "abbot=false"]


# ---------------------------------------------------------------- hgenv quickstart's last lines


def test_quickstart_ends_with_the_evaluation_the_readme_quotes(tmp_path) -> None:
    """make run's last line is the trained agent's final evaluation, labelled, in the README's words
    (figure quickstart-eval), after one line per opponent; not the rating tournament's table."""
    pytest.importorskip("sb3_contrib")
    from hg_env.figures import MARKER, quickstart_eval
    from hg_env.train.quickstart import final_evaluation

    result = {"games": 100, "wins": 64.0, "ci_low": 0.542, "ci_high": 0.727, "mean_score": 101.5}
    final = {
        "random": {**result, "opponent": "random", "win_rate": 1.0, "ci_low": 0.963, "ci_high": 1.0},
        "greedy": {**result, "opponent": "greedy", "win_rate": 0.64, "mean_opponent_score": 95.25},
    }
    final["random"]["mean_opponent_score"] = 40.0
    (tmp_path / "final_eval.json").write_text(json.dumps(final))
    lines = final_evaluation(tmp_path)
    assert lines[0] == f"Evaluation of the trained agent ({tmp_path / 'final_eval.json'}, seats swapped):"
    assert lines[1] == "  vs random: won 100.0% [96.3, 100.0] of 100 games, mean score 101.5 vs 40.0"
    assert lines[2] == "  vs greedy: won 64.0% [54.2, 72.7] of 100 games, mean score 101.5 vs 95.2"
    assert lines[-1] == f"quickstart evaluation: {quickstart_eval(final)}"
    published = dict(MARKER.findall((ROOT / "README.md").read_text(encoding="utf-8")))["quickstart-eval"]
    shape = r"\d+\.\d% \[\d+\.\d, \d+\.\d\] vs (random|greedy)"  # the figure's words, whatever its numbers
    assert re.sub(shape, "X", quickstart_eval(final)) == re.sub(shape, "X", published)
    assert final_evaluation(tmp_path / "elsewhere")[-1].startswith("Evaluation of the trained agent: none (")


def test_tournament_plays_with_the_rule_flags_and_resumes_only_with_them(tmp_path: Path, capsys) -> None:
    out = tmp_path / "t"
    command = ["tournament", "--agents", "random", "greedy", "--games", "2", "--no-plot", "--out", str(out)]
    assert main([*command, "--ruleset", "carcassonne", "--flag", "river=true"]) == 0
    games = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert len(games) == 2 and all(g["record"]["rules"]["river"] is True for g in games)
    assert json.loads((out / "config.json").read_text())["flags"] == {"river": True}
    capsys.readouterr()
    with pytest.raises(SystemExit, match=r"other settings \(flags: \{'river': True\} there, \{\} now\)"):
        main([*command, "--ruleset", "carcassonne"])
    with pytest.raises(SystemExit, match="carcassonne has no rule flag 'rivers'"):
        main([*command, "--ruleset", "carcassonne", "--flag", "rivers=true"])


def test_evaluate_plays_with_the_rule_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from hg_env.agents.model_file import export_sb3
    from hg_env.arena import evaluate as evaluation
    from hg_env.single_agent import SingleAgentEnv
    from hg_env.train.policy import HGPolicy

    small = dict(channels=8, layers=1, hidden=16, ruleset="carcassonne")
    model = sb3_contrib.MaskablePPO(HGPolicy, SingleAgentEnv(ruleset="carcassonne"), policy_kwargs=small)
    path = str(tmp_path / "carcassonne.zip")
    export_sb3(model, path, ruleset="carcassonne")
    played, real = [], evaluation.evaluate
    monkeypatch.setattr(
        evaluation, "evaluate", lambda *args, **kwargs: played.append(kwargs["rules"]) or real(*args, **kwargs)
    )
    command = ["evaluate", "--model", path, "--games", "2", "--opponents", "random", "--json"]
    assert main([*command, "--flag", "river=true", "--flag", "abbot=false"]) == 0
    assert [(rules.river, rules.abbot, rules.board_reach) for rules in played] == [(True, False, 12)]
    with pytest.raises(SystemExit) as refused:
        main([*command, "--flag", "board_reach=6"])
    assert refused.value.code == 2
    assert "--flag board_reach: " in capsys.readouterr().err and len(played) == 1


def test_a_reader_that_leaves_early_gets_no_traceback() -> None:
    """`hgenv demo | head -1`: the closed pipe ends the command quietly (exit 141, as a Unix tool), no traceback."""
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from hg_env.cli import main; sys.exit(main())", "demo", "--seed", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout.readline().startswith(b"Hunters & Gatherers")
    proc.stdout.close()  # the reader leaves
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141
    assert "Traceback" not in err and "BrokenPipe" not in err, err
