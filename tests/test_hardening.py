"""Bad input gets one clear ValueError naming the problem, and nothing changes (hardening).

Each test is named after the defect it guards against. The fuzz tests at the end throw hundreds of
seeded random malformed records, actions and forbidden decks at the API per run and check that every one
is refused with a ValueError and leaves the game exactly as it was."""

from __future__ import annotations

import copy
import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import hg_env
from hg_env import Game, Rules
from hg_env.cli import main
from hg_env.core import engine
from tests.test_given_decks import RIVER_RULE
from tests.test_rules_sections import shaman_game

# ---------------------------------------------------------------- large boards


@pytest.mark.parametrize("reach", [44, None])
def test_retake_masks_overflow_on_large_boards(reach: int | None) -> None:
    """The shaman's retake actions are computed in wide integers: at reach 44 and unbounded the mask holds
    exactly the retakes of the own pawns, and no placement is marked legal in the retake phase."""
    game = shaman_game_at(reach)
    assert game.phase == "retake"
    mask = game.action_mask()
    layout = game.layout
    expected = {layout.encode(("retake", x, y)) for x, y, _ in game.legal_choices("retake")} | {layout.none}
    assert set(np.flatnonzero(mask).tolist()) == expected
    assert layout.segment("retake")[1] > 2**15  # the indices really exceed int16
    x, y, z = game.legal_choices("retake")[0]
    game.decide("retake", x, y, z)
    assert game.phase == "occupy"


def shaman_game_at(reach: int | None) -> Game:
    """The shaman scenario of the rules tests on a board of another reach (positions are the same)."""
    plain = shaman_game()
    record = plain.to_record()
    record = {**record, "rules": {**record["rules"], "board_reach": reach}, "scores": None, "is_over": None}
    return Game.from_record(record)


@pytest.mark.parametrize("reach", [44, None])
def test_every_phase_masks_match_the_legal_moves_on_large_boards(reach: int | None) -> None:
    """Place, occupy and retake masks equal the scripting API's legal moves at reach 44 and unbounded."""
    rng = np.random.default_rng(7)
    for seed, ruleset in ((1, "hg2020"), (2, "hg2002"), (3, "carcassonne")):
        game = Game(3, seed=seed, ruleset=ruleset, board_reach=reach)
        layout = game.layout
        for _ in range(120):
            if game.is_over:
                break
            legal = set(game.legal_actions())
            expected = {layout.encode(("place", *p)) for p in game.legal_placements()}
            expected |= {layout.encode(o) for o in game.legal_occupants()}
            for decision in game.rules.spec.decisions:  # the figures a declared decision takes back
                if decision.operand == "cell":
                    expected |= {layout.encode((decision.name, x, y)) for x, y, _ in game.legal_choices(decision.name)}
            if game.phase in ("occupy", "retake"):
                expected.add(layout.none)
            assert legal == expected, (ruleset, game.phase)
            game.step(int(rng.choice(sorted(legal))))


# ---------------------------------------------------------------- actions


@pytest.mark.parametrize("action", [1150.5, "1245", 1245.7, True, None, [3], np.float64(2.0)])
def test_actions_that_are_not_ints_are_refused_not_truncated(action) -> None:
    game = Game(2, seed=0)
    before = copy.deepcopy(game.state.arrays())
    with pytest.raises(ValueError, match="action must be an int"):
        game.step(action)
    _assert_same(before, game.state.arrays())
    env = hg_env.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError):
        env.step(action)


def test_numpy_integer_actions_are_accepted() -> None:
    game = Game(2, seed=0)
    action = game.legal_actions()[0]
    game.copy().step(np.int64(action))
    game.copy().step(np.array(action))
    game.step(action)


# ---------------------------------------------------------------- counts, seeds, numpy scalars


@pytest.mark.parametrize("players", [258, -254, 1, 6, 2.0, True, "2"])
def test_player_counts_are_checked_before_any_narrowing_cast(players) -> None:
    with pytest.raises(ValueError, match="num_players"):
        Game(players)
    with pytest.raises(ValueError, match="num_players"):
        hg_env.raw_env(num_players=players)


def test_a_record_claiming_258_players_is_refused() -> None:
    record = Game(2, seed=0).to_record()
    for bad in (258, 10**30, -254):
        with pytest.raises(ValueError, match="'num_players'"):
            Game.from_record({**record, "num_players": bad})


@pytest.mark.parametrize("seed", [-1, 2**63, 1.5, "abc"])
def test_bad_seeds_name_the_argument(seed) -> None:
    with pytest.raises(ValueError, match="seed"):
        Game(2, seed=seed)


def test_numpy_scalars_are_normalised_so_records_serialise() -> None:
    game = Game(np.int64(3), seed=np.int64(5), start_rotation=np.int64(1), board_reach=np.int32(6))
    record = json.loads(json.dumps(game.to_record()))
    assert record["seed"] == 5 and record["rules"]["start_rotation"] == 1 and record["num_players"] == 3
    assert Game.from_record(record).scores == game.scores


@pytest.mark.parametrize(("flag", "value"), [("start_rotation", 1.0), ("board_reach", 1000000), ("board_reach", 12.0)])
def test_rules_refuse_floats_and_huge_boards(flag: str, value) -> None:
    with pytest.raises(ValueError, match=flag):
        Rules(**{flag: value})


# ---------------------------------------------------------------- the AEC env leaves nothing changed


def test_an_illegal_move_keeps_the_agents_pending_reward() -> None:
    env = hg_env.raw_env(reward="score_diff")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    while not any(env._cumulative_rewards.values()):  # play until someone holds an unclaimed reward
        observation = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    agent = env.agent_selection
    pending = dict(env._cumulative_rewards)
    illegal = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="illegal action"):
        env.step(illegal)
    assert env._cumulative_rewards == pending and env.agent_selection == agent


def test_a_failed_reset_does_not_advance_the_generator() -> None:
    def first_tiles(env) -> list[int]:
        return env.game.state.regular_deck[0, :5].tolist()

    plain = hg_env.raw_env()
    plain.reset(seed=11)
    plain.reset()
    failed = hg_env.raw_env()
    failed.reset(seed=11)
    with pytest.raises(ValueError, match="regular_deck"):
        failed.reset(options={"regular_deck": "not a deck"})
    failed.reset()
    assert first_tiles(failed) == first_tiles(plain)


def test_calls_before_reset_name_the_fix() -> None:
    env = hg_env.raw_env()
    for call in (lambda: env.step(0), lambda: env.observe("player_0"), lambda: env.last(), env.state):
        with pytest.raises(RuntimeError, match="reset"):
            call()
    with pytest.raises(ValueError, match="options must be a dict"):
        env.reset(options="abc")


# ---------------------------------------------------------------- records


def _finished_record() -> dict:
    game = Game(2, seed=4)
    rng = np.random.default_rng(4)
    while not game.is_over:
        game.step(int(rng.choice(game.legal_actions())))
    return game.to_record()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"seed": "abc"}, "'seed'"),
        ({"num_players": 10**30}, "'num_players'"),
        ({"rules": {"start_rotation": 1.0}}, "start_rotation"),
        ({"rules": {"board_reach": 10**6}}, "board_reach"),
        ({"decisions": [[["place"], 0, 1, 0]]}, "'decisions'"),
        ({"players": ["only one"]}, "'players'"),
        ({"is_over": False}, "'is_over'"),
        ({"ruleset": "chess"}, "'ruleset'"),
        ({"ruleset": "hg2002"}, "rules.ruleset"),
        ({"meta": [1]}, "'meta'"),
    ],
)
def test_malformed_records_give_one_value_error_naming_the_field(change: dict, field: str) -> None:
    record = _finished_record()
    if "rules" in change:
        change = {"rules": {**record["rules"], **change["rules"]}}
    with pytest.raises(ValueError, match=field):
        Game.from_record({**record, **change})


def test_replay_upto_must_lie_in_the_record() -> None:
    record = _finished_record()
    for upto in (-1, len(record["decisions"]) + 1, 1.5):
        with pytest.raises(ValueError, match="upto"):
            Game.from_record(record, upto=upto)


def test_hgenv_replay_ends_bad_records_with_one_line(tmp_path: Path, capsys) -> None:
    record = _finished_record()
    cases = {
        "seed.json": json.dumps({**record, "seed": "abc"}),
        "nested.json": "[" * 100_000 + "]" * 100_000,
        "kind.json": json.dumps({**record, "decisions": [[["place"], 1]]}),
        "reach.json": json.dumps({**record, "rules": {**record["rules"], "board_reach": 10**6}}),
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        assert main(["replay", str(path), "--out", str(tmp_path / "x.png")]) == 2, name
        err = capsys.readouterr().err.strip()
        assert err.startswith("hgenv replay: ") and "\n" not in err, (name, err)
        assert not (tmp_path / "x.png").exists()


def test_hgenv_replay_game_id_with_a_slash_and_no_out(tmp_path: Path, capsys) -> None:
    results = tmp_path / "games.jsonl"
    results.write_text(json.dumps({"game": "t0-d0-r0", "index": 0, "record": _finished_record()}) + "\n")
    assert main(["replay", str(results), "--game", "a/b"]) == 2
    assert "has no game a/b" in capsys.readouterr().err


def test_every_command_ends_bad_input_with_one_line_and_status_2() -> None:
    """No traceback: one line ``hgenv <cmd>: ...`` on stderr, exit status 2 (subprocesses, as a user runs it)."""
    for args in (
        ["demo", "--seed", "-1"],
        ["play", "--seed", "-5", "--players", "2"],
        ["bench", "core", "--seconds", "-1"],
        ["bench", "core", "--compare", "HEAD", "--rounds", "0"],
        ["bench", "train", "--threads", "0"],
        ["bench", "train", "--steps", "0"],
        ["bench", "env", "--compare", "HEAD"],
    ):
        done = subprocess.run([sys.executable, "-m", "hg_env.cli", *args], capture_output=True, text=True, input="")
        assert done.returncode == 2, (args, done.stderr)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"hgenv {args[0]}: "), (args, done.stderr)


# ---------------------------------------------------------------- arguments that are not what they seem


def test_a_ruleset_that_is_not_a_string_is_named() -> None:
    """Game(ruleset=['hg2020']) used to raise TypeError: unhashable type: 'list'."""
    for ruleset in (["hg2020"], {"hg2020": 1}, 2020, None):
        with pytest.raises(ValueError, match=r"ruleset must be one of \('hg2020', 'hg2002', 'carcassonne'\), got"):
            Game(2, ruleset=ruleset)


@pytest.mark.parametrize(("x", "y"), [("a", 0), (0.5, 0), (0, 1.0), (True, 0), (0, None)])
def test_tile_at_names_a_coordinate_that_is_not_an_int(x, y) -> None:
    """tile_at('a', 0) raised TypeError, tile_at(0.5, 0) IndexError, tile_at(True, 0) read (1, 0)."""
    game = Game(2, seed=0)
    name = "x" if not isinstance(y, (float, type(None))) else "y"
    with pytest.raises(ValueError, match=rf"^tile_at\({x!r}, {y!r}\): {name} must be an int, got "):
        game.tile_at(x, y)
    assert game.tile_at(np.int64(0), np.int32(0)) is not None  # numpy integers are ints


def test_moves_given_as_floats_name_the_call_not_an_encoded_action() -> None:
    """place(1.0, ...) and retake(float(x), y, z) matched a legal move, became a float action and were
    refused as an encoded action the caller never passed; now the call and the argument are named."""
    game = Game(2, seed=0)
    x, y, r = game.legal_placements()[0]
    before = copy.deepcopy(game.state.arrays())
    with pytest.raises(ValueError, match=rf"^place\({float(x)!r}, {y}, {r}\): x must be an int, got {float(x)!r}"):
        game.place(float(x), y, r)
    with pytest.raises(ValueError, match=r"rotation must be an int, got True \(bool\)"):
        game.place(x, y, True)
    _assert_same(before, game.state.arrays())
    game.place(x, y, r)
    kind, zone = game.legal_occupants()[0]
    with pytest.raises(ValueError, match=rf"^occupy\({kind!r}, {float(zone)!r}\): local_zone must be an int"):
        game.occupy(kind, float(zone))
    shaman = shaman_game()
    assert shaman.phase == "retake"
    x, y, z = shaman.legal_choices("retake")[0]
    before = copy.deepcopy(shaman.state.arrays())
    for args, name in (((float(x), y, z), "x"), ((x, y, float(z)), "local_zone"), ((x, "1", z), "y")):
        with pytest.raises(ValueError, match=rf"^decide\('retake', .*\): {name} must be an int") as err:
            shaman.decide("retake", *args)
        assert "action" not in str(err.value)
    _assert_same(before, shaman.state.arrays())
    shaman.decide("retake", x, y)  # local_zone may be left out
    assert shaman.phase == "occupy"


def test_replay_fps_is_checked_for_every_output(tmp_path: Path, capsys) -> None:
    """--fps nan gave "cannot convert float NaN to integer", and a PNG output let any value pass."""
    path = tmp_path / "game.json"
    path.write_text(json.dumps(_finished_record()))
    for fps in ("nan", "inf", "0", "-1", "1000"):
        for out in ("x.gif", "x.png"):
            assert main(["replay", str(path), "--out", str(tmp_path / out), "--fps", fps]) == 2
            err = capsys.readouterr().err.strip()
            assert err.startswith("hgenv replay: fps must be a number 0.01..100") and "\n" not in err, err
            assert not (tmp_path / out).exists()
    assert main(["replay", str(path), "--out", str(tmp_path / "x.png"), "--fps", "0.5", "--upto", "3"]) == 0


def test_a_checkpoint_of_random_bytes_is_not_called_a_checkpoint(tmp_path: Path) -> None:
    """Random bytes were described as "a checkpoint with extra content" (holds more than tensors)."""
    pytest.importorskip("torch")
    from hg_env.train.checkpoint import CheckpointError, read_checkpoint

    path = tmp_path / "step_0000000256.pt"
    rng = np.random.default_rng(30)
    for data in (rng.bytes(4096), b"hello, world", bytes(100)):
        path.write_bytes(data)
        with pytest.raises(CheckpointError, match=r"step_0000000256\.pt is not a checkpoint: not a torch.save file"):
            read_checkpoint(path, ())


def test_a_checkpoint_is_read_in_bounded_memory_and_refused_when_damaged(tmp_path: Path, monkeypatch) -> None:
    """A legacy pickle (it allocates the sizes it declares), a compressed record, a flipped bit, a file past
    the size cap: each named, for PPO's and for expert iteration's checkpoints alike."""
    torch = pytest.importorskip("torch")
    import io
    import pickle
    import zipfile

    from hg_env.train import checkpoint
    from hg_env.train.checkpoint import CHECKPOINT_FORMAT, CheckpointError, read_checkpoint
    from hg_env.train.expert import read_expert_checkpoint

    path = tmp_path / "step_0000000256.pt"
    good = io.BytesIO()
    torch.save({"format": CHECKPOINT_FORMAT, "weights": torch.arange(64.0)}, good)
    path.write_bytes(good.getvalue())
    assert torch.equal(read_checkpoint(path, ("weights",))["weights"], torch.arange(64.0))
    path.write_bytes(pickle.dumps({"format": CHECKPOINT_FORMAT}))
    for read in (lambda p: read_checkpoint(p, ()), read_expert_checkpoint):
        with pytest.raises(CheckpointError, match=r"step_0000000256\.pt is a pickle, not torch.save's zip format"):
            read(path)
    packed = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(good.getvalue())) as src, zipfile.ZipFile(packed, "w") as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info), compress_type=zipfile.ZIP_DEFLATED)
    path.write_bytes(packed.getvalue())
    with pytest.raises(CheckpointError, match=r"corrupt or truncated .*holds compressed record"):
        read_expert_checkpoint(path)
    data = bytearray(good.getvalue())
    at = data.index(np.arange(64, dtype=np.float32).tobytes())  # the tensor's record, stored as is
    data[at + 10] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=r"corrupt or truncated .*fails its CRC check"):
        read_checkpoint(path, ())
    monkeypatch.setattr(checkpoint, "MAX_CHECKPOINT_BYTES", len(data) - 1)
    with pytest.raises(CheckpointError, match=rf"is {len(data)} bytes, more than the {len(data) - 1} .* not read"):
        read_expert_checkpoint(path)


# ---------------------------------------------------------------- fuzz

JUNK = [None, True, -1, 2**70, 1.5, float("nan"), "x", "", [], [1, "a"], {}, {"a": 1}, [[[]]], -(2**63)]


def _mutations(record: dict, rng: np.random.Generator, count: int):
    """Seeded random damage to a valid record: a field replaced by junk, deleted, or a decision mangled."""
    keys = list(record)
    for _ in range(count):
        bad = copy.deepcopy(record)
        roll = rng.random()
        if roll < 0.4:
            bad[keys[rng.integers(len(keys))]] = JUNK[rng.integers(len(JUNK))]
        elif roll < 0.55:
            del bad[keys[rng.integers(len(keys))]]
        elif roll < 0.75:
            flag = list(bad["rules"])[rng.integers(len(bad["rules"]))]
            bad["rules"][flag] = JUNK[rng.integers(len(JUNK))]
        else:
            i = int(rng.integers(len(bad["decisions"])))
            entry = list(bad["decisions"][i])
            j = int(rng.integers(len(entry)))
            entry[j] = JUNK[rng.integers(len(JUNK))]
            bad["decisions"][i] = entry
        yield bad


@pytest.mark.parametrize("ruleset", ["hg2020", "hg2002", "carcassonne"])
def test_fuzz_malformed_records_are_refused_with_value_errors(ruleset: str) -> None:
    """200 seeded random damaged records per ruleset: each replays identically (the damage was harmless)
    or raises ValueError; nothing else ever escapes."""
    game = Game(3, seed=9, ruleset=ruleset)
    rng = np.random.default_rng(9)
    for _ in range(40):
        game.step(int(rng.choice(game.legal_actions())))
    record = game.to_record()
    refused = 0
    for bad in _mutations(record, rng, 200):
        try:
            replayed = Game.from_record(bad)
        except ValueError:
            refused += 1
            continue
        assert replayed.scores == game.scores and replayed.decisions() == game.decisions()
    assert refused >= 150


@pytest.mark.parametrize("ruleset", ["hg2020", "hg2002", "carcassonne"])
def test_fuzz_bad_actions_leave_the_game_unchanged(ruleset: str) -> None:
    """300 seeded random bad actions per ruleset (illegal ints, out of range, wrong types, during every
    phase) raise ValueError and leave every array of the game unchanged."""
    game = Game(2, seed=5, ruleset=ruleset)
    rng = np.random.default_rng(5)
    size = game.layout.size
    tried = 0
    while tried < 300 and not game.is_over:
        before = copy.deepcopy(game.state.arrays())
        legal = set(game.legal_actions())
        for bad in (int(rng.integers(-size, 2 * size)), JUNK[rng.integers(len(JUNK))], float(rng.integers(size))):
            if isinstance(bad, int) and not isinstance(bad, bool) and bad in legal:
                continue
            with pytest.raises(ValueError):
                game.step(bad)
            tried += 1
        _assert_same(before, game.state.arrays())
        game.step(int(rng.choice(sorted(legal))))
    assert tried >= 150


@pytest.mark.parametrize("ruleset", ["hg2020", "hg2002", "carcassonne"])
def test_fuzz_bad_arguments_to_the_scripting_api_name_the_call(ruleset: str) -> None:
    """300 seeded bad calls per ruleset of place / occupy / retake / tile_at with one argument replaced by junk
    (floats of legal values, bools, strings, None, containers, out-of-range ints) raise one ValueError
    that starts with the call itself, and leave every array of the game unchanged."""
    rng = np.random.default_rng(7)
    game, tried = Game(2, seed=7, ruleset=ruleset), 0
    while tried < 300:
        if game.is_over:
            game = Game(2, seed=int(rng.integers(2**31)), ruleset=ruleset)
        before = copy.deepcopy(game.state.arrays())
        phase = game.phase
        if phase == "place":
            call, legal = game.place, [tuple(m) for m in game.legal_placements()]
        elif phase == "occupy":
            call, legal = game.occupy, list(game.legal_occupants())
        elif phase == "retake":
            call, legal = functools.partial(game.decide, "retake"), list(game.legal_choices("retake"))
        else:
            call, legal = None, []
        for _ in range(3):
            if call is None or not legal or rng.random() < 0.25:
                junk = JUNK[rng.integers(len(JUNK))]
                if isinstance(junk, int) and not isinstance(junk, bool):
                    continue  # an int is a real coordinate: tile_at answers it
                args = [0, 0]
                args[int(rng.integers(2))] = junk
                with pytest.raises(ValueError, match=rf"^tile_at\({re.escape(repr(args[0]))}, "):
                    game.tile_at(*args)
            else:
                args = list(legal[rng.integers(len(legal))])
                at = int(rng.integers(1 if phase == "occupy" else 0, len(args)))  # occupy: the zone
                args[at] = float(args[at]) if rng.random() < 0.4 else JUNK[rng.integers(len(JUNK))]
                if tuple(args) in legal or (phase == "retake" and at == 2 and args[2] is None):
                    continue  # still a legal move (an int that happens to be legal, retake's zone left out)
                name = "decide" if isinstance(call, functools.partial) else call.__name__
                with pytest.raises(ValueError, match=rf"^{name}\(") as err:
                    call(*args)
                assert "\n" not in str(err.value) and "an action must be" not in str(err.value), str(err.value)
            tried += 1
        _assert_same(before, game.state.arrays())
        game.step(int(rng.choice(game.legal_actions())))


def test_the_batched_core_refuses_an_illegal_batch_whole() -> None:
    """engine.step with one illegal action in a batch changes none of the games."""
    state = engine.new_games(2, Rules(), seeds=[0, 1, 2])
    actions = np.array([np.flatnonzero(m)[0] for m in engine.legal_action_mask(state)])
    actions[1] = 0 if actions[1] != 0 else 1  # not legal in game 1
    before = copy.deepcopy(state.arrays())
    if engine.check_actions(state, actions).all():
        pytest.skip("the chosen action happened to be legal")
    with pytest.raises(ValueError, match="game 1"):
        engine.step(state, actions)
    _assert_same(before, state.arrays())


def _assert_same(before: dict, after: dict) -> None:
    for name, array in before.items():
        np.testing.assert_array_equal(array, after[name], err_msg=name)


# ---------------------------------------------------------------- fuzz: forbidden decks (tests/test_given_decks.py)


def _forbidden(ruleset: str, river: bool, rng: np.random.Generator) -> tuple[dict, str]:
    """A deck with one defect the rules forbid, and the text its error must hold."""
    rules = Rules(ruleset=ruleset, **({"river": river} if ruleset == "carcassonne" else {}))
    spec = rules.spec
    dealt = Game(2, seed=int(rng.integers(2**31)), **rules.as_dict()).state
    regular = dealt.regular_deck[0, : dealt.regular_len[0]].tolist()
    extra = dealt.extra_deck[0, : dealt.extra_len[0]].tolist()
    extra_key = f"{spec.extra_deck}_deck" if spec.extra_deck else None
    size = int(rng.integers(1, len(regular) + 1))
    deck = regular[:size]
    start = int(dealt.board_tile[0, rules.board.origin])
    others = [t for t in range(spec.tiles.num_tiles) if t not in regular and t != start]  # extra tiles, the river
    kinds = ["repeat", "start", *(["extra"] if extra_key else []), *(["other"] if others else []), *(["order"] * river)]
    roll = str(rng.choice(kinds))
    if roll == "repeat":  # a tile twice
        deck = [*deck, deck[int(rng.integers(len(deck)))]]
        return {"regular_deck": deck}, "more than once"
    if roll == "start":  # the start tile, or a tile id the ruleset does not have
        deck = [*deck, int(rng.choice([start, spec.tiles.num_tiles, 127]))]
        rng.shuffle(deck)
        return {"regular_deck": deck}, "that are not regular tiles of this game"
    if roll == "extra":  # a regular tile in the extra deck
        return {extra_key: [*extra[:3], deck[0]]}, f"that are not {spec.extra_deck} tiles of this game"
    if roll == "other":  # an extra (or, without the river, a river) tile in the regular deck
        deck.insert(int(rng.integers(len(deck) + 1)), int(rng.choice(others)))
        return {"regular_deck": deck}, "that are not regular tiles of this game"
    # "order", the river: a land tile or the lake moved above a river tile (V1.2, V1.3)
    river_tiles, land = [t for t in regular if t in range(72, 83)], [t for t in regular if t < 72]
    moved = int(rng.choice(land)) if rng.random() < 0.5 else 83
    before = int(rng.integers(len(river_tiles)))  # above this river tile
    deck = [*river_tiles[:before], moved, *river_tiles[before:], *([] if moved == 83 else [83])]
    rest = [t for t in land if t != moved]
    return {"regular_deck": deck + rest[: int(rng.integers(len(rest)))]}, RIVER_RULE


@pytest.mark.parametrize(
    ("ruleset", "river"), [("hg2020", False), ("hg2002", False), ("carcassonne", False), ("carcassonne", True)]
)
def test_fuzz_forbidden_decks_are_refused_with_one_line(ruleset: str, river: bool) -> None:
    """100 seeded decks per ruleset, each with one defect the rules forbid (a repeat, the start tile, a tile
    of the other deck or of no deck, with the river a land tile or the lake above a river tile): Game and
    the env's reset options refuse each with one line holding the rule, and the env keeps its game."""
    rng = np.random.default_rng(2026)
    flags = {"river": river} if ruleset == "carcassonne" else {}
    env = hg_env.raw_env(ruleset=ruleset, **flags)
    env.reset(seed=1)
    game = env.game
    for _ in range(100):
        decks, message = _forbidden(ruleset, river, rng)
        for where in ("Game", "reset options"):
            with pytest.raises(ValueError, match=message) as refused:
                if where == "Game":
                    Game(2, ruleset=ruleset, **flags, **decks)
                else:
                    env.reset(options=decks)
            assert "\n" not in str(refused.value), (where, decks)
        assert env.game is game
