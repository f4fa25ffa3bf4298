"""The PettingZoo AEC environment, its observation tensor, rewards and the Gymnasium adapter."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test  # imported quietly first by conftest.py

import hg_env
from hg_env.aec import rank_rewards
from hg_env.core.observation import AREA_FEATURES, channel_names, decode_board, observer
from tests.invariants import seed_shares
from tests.oracle import areas

AREA_TYPES = [name for name, _, _ in observer("hg2020").area_types]
INFO_FIELDS = observer("hg2020").info_fields


def legal_from_api(game: hg_env.Game) -> set[int]:
    """The legal moves as the scripting API lists them, encoded as flat actions."""
    layout = game.layout
    if game.phase == "place":
        return {layout.encode(("place", x, y, r)) for x, y, r in game.legal_placements()}
    if game.phase == "occupy":
        return {layout.encode(o) for o in game.legal_occupants()} | {layout.none}
    if game.phase == "retake":
        return {layout.encode(("retake", x, y)) for x, y, _ in game.legal_choices("retake")} | {layout.none}
    return set()


def play_random(env, seed: int, check=None) -> dict[str, float]:
    """Play one game with uniformly random legal moves; returns the summed rewards per agent."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if check is not None and not (terminated or truncated):
            check(env, agent, obs)
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    return totals


# The warnings PettingZoo's api_test gives every env whose observation is the action-mask Dict (the env
# card, "Warnings"): it exempts only its own masked games, by name. Matched by message; anything else fails.
API_TEST_WARNINGS = {
    "Observation is not a NumPy array": "every observe: ours is Dict(observation, action_mask), as chess's",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete": (
        "the same check on the space, twice"
    ),
}


@pytest.mark.parametrize(
    ("ruleset", "num_players", "flags"),
    [
        ("hg2020", 2, {}),
        ("hg2020", 4, {}),
        ("hg2002", 3, {}),
        ("carcassonne", 2, {}),
        ("carcassonne", 3, {"river": True}),
    ],
)
def test_pettingzoo_api_test_warns_only_its_documented_warnings(ruleset: str, num_players: int, flags: dict) -> None:
    """api_test passes for every ruleset, and nothing warns but PettingZoo's two documented checks (ours once
    warned "ignoring unknown reset option(s) ['options']" at the {"options": 1} api_test passes)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(hg_env.env(num_players=num_players, ruleset=ruleset, **flags), num_cycles=300)
    unexpected = [f"{w.filename}:{w.lineno}: {w.message}" for w in caught if str(w.message) not in API_TEST_WARNINGS]
    assert not unexpected, unexpected
    assert {str(w.message) for w in caught} == set(API_TEST_WARNINGS)  # the list is exact, not stale


def test_reset_options_that_are_not_decks_are_left_alone_and_deck_typos_refused() -> None:
    """The env card, "Reset options": keys that are not ours pass silently; a deck this ruleset lacks or a
    misspelt deck name is a ValueError, and the env keeps its game."""
    env = hg_env.raw_env(ruleset="hg2002")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=0, options={"options": 1, "render_fps": 4, 7: None})
    game = env.game
    for key in ("menhir_deck", "regular_decks", "reguler_deck", "deck", "bonusDeck"):
        with pytest.raises(
            ValueError, match=rf"^reset option\(s\) \['{key}'\] name no deck of ruleset 'hg2002'; its deck"
        ):
            env.reset(seed=1, options={key: [3]})
        assert env.game is game


def test_pettingzoo_seed_test() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: hg_env.env(num_players=3), num_cycles=200)


@pytest.mark.parametrize(("first", "last"), seed_shares(24, 100))
def test_masks_equal_the_scripting_api_for_100_games(first: int, last: int) -> None:
    """At every step the acting agent's mask is exactly the API's legal moves; others get zeros."""
    steps = 0

    def check(env, agent, obs) -> None:
        nonlocal steps
        game = env.unwrapped.game
        assert env.unwrapped.agent_name_mapping[agent] == game.current_player
        assert set(np.flatnonzero(obs["action_mask"]).tolist()) == legal_from_api(game)
        other = env.possible_agents[(game.current_player + 1) % game.num_players]
        assert not env.observe(other)["action_mask"].any()
        steps += 1

    for i in range(first, last):
        play_random(hg_env.env(num_players=2 + i % 4), seed=1000 + i, check=check)
    assert steps > (last - first) * 60


def test_observation_round_trip_and_area_planes_match_the_oracle() -> None:
    """Tiles, rotations, occupants and info decode back; area planes equal a BFS over the board."""
    names = {name: i for i, name in enumerate(channel_names())}
    checked = 0

    def check(env, agent, obs) -> None:
        nonlocal checked
        game = env.unwrapped.game
        seat, n = game.current_player, game.num_players
        tensor = obs["observation"]
        assert tensor.dtype == np.uint8 and tensor.shape == (len(names), 25, 25)
        assert env.observation_space(agent)["observation"].contains(tensor)
        decoded = decode_board(tensor)
        assert decoded["tiles"] == sorted(game.placed_tiles())
        expected = sorted(((p - seat) % n, kind, x, y, z) for p, kind, x, y, z in game.occupants())
        assert decoded["occupants"] == expected
        info = decoded["info"]
        for k in range(n):
            absolute = (seat + k) % n
            assert info[f"score_lo_p{k}"] + 256 * info[f"score_hi_p{k}"] == game.scores[absolute]
            assert (info[f"pawns_p{k}"], info[f"huts_p{k}"]) == game.supply(absolute)
        assert info[f"phase_{game.phase}"] == 1 and info["acting_p0"] == 1
        if game.tile_to_place is not None:
            assert info[f"to_place_t{game.tile_to_place}"] == 1
        assert sum(info[f"unseen_t{t}"] for t in range(95)) == sum(game.deck_sizes)
        if checked % 7 == 0:  # the oracle is slow: every 7th observation
            _check_area_planes(game, seat, tensor, names)
        checked += 1

    for i in range(6):
        play_random(hg_env.env(num_players=2 + i % 4), seed=2000 + i, check=check)
    assert checked > 300


def _check_area_planes(game: hg_env.Game, seat: int, tensor: np.ndarray, names: dict) -> None:
    reach, n = game.rules.reach, game.num_players
    expected: dict[tuple[int, str], np.ndarray] = {}  # (tile, type) -> feature maxima
    for partition, found in areas(game.state, 0).items():
        for area in found:
            kind = "system" if partition == "system" else area["type"]
            if kind == "forest":
                value = 2 * len(area["tiles"]) + 3 * area["bonus"]
            elif kind == "river":
                value = len(area["tiles"]) + area["fish"]
            elif kind == "meadow":
                m, a, d, t = area["animals"]
                fire = any(z == (85, 0) for z in area["zones"])
                value = 3 * m + 2 * a + d - (0 if fire else min(d, t))
            else:
                raft = any(z == (91, 8) for z in area["zones"])
                value = area["fish"] + (area["lakes"] if raft else 0)
            occupants = [area["occupants"][(seat + k) % n] if k < n else 0 for k in range(5)]
            features = np.minimum([area["open"], len(area["tiles"]), value, *occupants], 255)
            for tile in {t for t, _ in area["zones"]}:
                key = (tile, kind)
                expected[key] = np.maximum(expected.get(key, 0), features)
    for tile, x, y, _ in game.placed_tiles():
        for kind in AREA_TYPES:
            got = [tensor[names[f"{kind}_{f}"], y + reach, x + reach] for f in AREA_FEATURES]
            assert list(expected.get((tile, kind), np.zeros(8, dtype=int))) == got, (tile, kind)


def test_channel_names_and_info_layout() -> None:
    names = hg_env.channel_names()
    assert len(names) == len(set(names)) == hg_env.raw_env().observation_space("player_0")["observation"].shape[0]
    assert len(INFO_FIELDS) <= 625  # one info plane on the default board
    assert hg_env.channel_scale().shape == (len(names),)
    small = hg_env.raw_env(board_reach=1)  # 3x3 board: the info vector spans several planes
    assert small.observation_space("player_0")["observation"].shape == (len(hg_env.channel_names(reach=1)), 3, 3)


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_win_rewards_are_rank_values(num_players: int) -> None:
    env = hg_env.env(num_players=num_players)
    totals = play_random(env, seed=7)
    scores = env.unwrapped.game.scores
    assert [totals[a] for a in env.possible_agents] == pytest.approx(rank_rewards(scores))
    assert sum(totals.values()) == pytest.approx(0.0)


def test_rank_rewards_rules() -> None:
    assert rank_rewards([30, 20]) == [1.0, -1.0]
    assert rank_rewards([25, 25]) == [0.0, 0.0]  # shared victory (R8.2.4): the tie splits
    assert rank_rewards([10, 40, 20]) == [-1.0, 1.0, 0.0]
    assert rank_rewards([40, 40, 20]) == [0.5, 0.5, -1.0]


@pytest.mark.parametrize("mode", ["score", "score_diff"])
def test_dense_rewards_sum_to_the_final_scores(mode: str) -> None:
    env = hg_env.env(num_players=3, reward=mode)
    totals = play_random(env, seed=11)
    scores = np.array(env.unwrapped.game.scores, dtype=float)
    expected = scores if mode == "score" else scores - (scores.sum() - scores) / 2
    assert [totals[a] for a in env.possible_agents] == pytest.approx(expected.tolist())


def test_extra_turn_keeps_the_same_agent() -> None:
    """R3.3: after a menhir forest closes, the same agent places the menhir tile."""
    for seed in range(40):
        env = hg_env.raw_env(num_players=2)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not env.game.is_over:
            before, extra_before = env.agent_selection, env.game.extra_turn
            env.step(int(rng.choice(np.flatnonzero(env.observe(before)["action_mask"]))))
            if env.game.extra_turn and not extra_before:
                assert env.agent_selection == before
                return
    pytest.fail("no extra turn in 40 games")


def test_reset_options_reproduce_a_deck_order() -> None:
    env = hg_env.raw_env(num_players=2)
    env.reset(seed=0, options={"regular_deck": [7, 3, 12], "menhir_deck": [88]})
    assert env.game.tile_to_place == 7 and env.game.deck_sizes == (2, 1)


def test_bad_arguments_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match="unknown rule flag"):
        hg_env.env(num_players=2, board_size=5)
    with pytest.raises(ValueError, match="num_players"):
        hg_env.env(num_players=6)
    with pytest.raises(ValueError, match="reward"):
        hg_env.env(reward="points")
    with pytest.raises(ValueError, match="render_mode"):
        hg_env.env(render_mode="human")
    with pytest.raises(ValueError, match="board_reach"):
        hg_env.env(board_reach=0)
    env = hg_env.raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action"):
        env.step(env.layout.none)  # "none" is not a placement
    with pytest.raises(ValueError, match="regular_deck"):
        env.reset(options={"regular_deck": [80]})  # a menhir tile


def test_wrapped_env_terminates_on_an_illegal_move() -> None:
    env = hg_env.env(num_players=2)
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(env.unwrapped.layout.none)
    assert all(env.terminations.values())
    assert env.rewards[env.possible_agents[0]] == -1


def test_action_helpers() -> None:
    a = hg_env.encode(("place", 1, 0, 0))
    assert hg_env.decode(a) == ("place", 1, 0, 0)
    assert hg_env.describe(a, tile=41) == "place 41 at (1,0) r0"
    assert hg_env.describe(hg_env.encode(("pawn", 2))) == "pawn on zone 2"
    with pytest.raises(ValueError, match="off the board"):
        hg_env.encode(("place", 13, 0, 0))


def test_registries() -> None:
    if hasattr(pettingzoo, "make"):
        env = pettingzoo.make("aec", "hg_env/hunters_gatherers-v0", num_players=3)
        env.reset(seed=0)
        assert env.possible_agents == ["player_0", "player_1", "player_2"]
    single = gymnasium.make("hg_env/HuntersGatherers-v0", num_players=2)
    obs, _info = single.reset(seed=0)
    assert obs.shape == single.observation_space.shape


# SB3's check_env takes any uint8 [C, H, W] Box for an image and warns about what its CnnPolicy would need
# (bounds 0..255, channels first, 36x36 pixels): the board tensor is not an image and is not meant for
# CnnPolicy (hg_env.single_agent says which networks suit it).
IMAGE_WARNINGS = ("is an image", "Treating image space as channels-last", "minimal resolution for an image")


def test_single_agent_env_passes_sb3_check_env() -> None:
    """check_env passes; its only warnings are the image ones above and ours, once, for the unmasked actions
    its NaN check samples on purpose (the episodes they end are what illegal_action="lose" promises)."""
    from stable_baselines3.common.env_checker import check_env

    env = hg_env.SingleAgentEnv(num_players=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=True)
    messages = [str(w.message) for w in caught if not any(text in str(w.message) for text in IMAGE_WARNINGS)]
    assert len(messages) == 1 and "illegal action" in messages[0], messages
    assert env.observation_space == env.aec.observation_space("player_0")["observation"]
    assert repr(env.observation_space) == "Box(0, channel_high('hg2020', 12), (85, 25, 25), uint8)"


def test_cnn_policy_refuses_the_board_tensor_in_a_few_lines() -> None:
    """SB3's NatureCNN (CnnPolicy) is for images: its error names our space in one short line, not its bounds."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    with pytest.raises(AssertionError, match=r"NatureCNN only with images not with Box\(0, channel_high") as err:
        sb3_contrib.MaskablePPO("CnnPolicy", hg_env.SingleAgentEnv())
    assert len(str(err.value)) < 800


@pytest.mark.parametrize(
    ("env_id", "ruleset"),
    [
        ("hg_env/HuntersGatherers-v0", "hg2020"),
        ("hg_env/HuntersGatherersClassic-v0", "hg2002"),
        ("hg_env/Carcassonne-v0", "carcassonne"),
    ],
)
def test_gymnasium_make_imports_hg_env_by_its_module_prefix(env_id: str, ruleset: str, tmp_path) -> None:
    """Gymnasium 1.x has no entry-point plugins: a fresh interpreter knows our ids only through the
    "hg_env:" prefix, which imports hg_env (registering them); the masks come through the wrappers."""
    import subprocess
    import sys

    code = f"""
import gymnasium, numpy as np
try:
    gymnasium.make("{env_id}")
except gymnasium.error.Error as err:
    print("without the prefix:", type(err).__name__)
env = gymnasium.make("hg_env:{env_id}")
obs, info = env.reset(seed=0)
mask = env.get_wrapper_attr("action_masks")()
obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
print(env.unwrapped.game.rules.ruleset, obs.shape == env.observation_space.shape, mask.dtype)
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["without the prefix: NamespaceNotFound", f"{ruleset} True bool"]


def test_maskable_ppo_gets_the_masks_through_gymnasium_wrappers(monkeypatch) -> None:
    """MaskablePPO on a gymnasium.make env reads action_masks through the wrappers (get_wrapper_attr):
    every learner action is legal, so no episode ends on an illegal move."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from hg_env.agents.features import BoardCNN

    calls = []
    action_masks = hg_env.SingleAgentEnv.action_masks
    monkeypatch.setattr(hg_env.SingleAgentEnv, "action_masks", lambda self: calls.append(1) or action_masks(self))
    env = gymnasium.make("hg_env:hg_env/HuntersGatherers-v0")
    kwargs = dict(features_extractor_class=BoardCNN, features_extractor_kwargs=dict(channels=8), net_arch=[16])
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=16, n_epochs=1, policy_kwargs=kwargs)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", ".*illegal action")  # gymnasium colours the message
        model.learn(64)
    assert model.num_timesteps >= 64 and len(calls) >= 64


@pytest.mark.parametrize("ruleset", hg_env.RULESETS)
def test_board_cnn_scales_each_rulesets_channels(ruleset) -> None:
    """BoardCNN names the ruleset from the tensor's depth (or takes it) and scales its channels."""
    pytest.importorskip("torch")
    from hg_env.agents.features import BoardCNN

    space = hg_env.SingleAgentEnv(ruleset=ruleset, board_reach=3).observation_space
    cnn = BoardCNN(space, channels=4)
    assert cnn.scale.flatten().tolist() == pytest.approx(hg_env.channel_scale(ruleset, 3).tolist())
    assert BoardCNN(space, channels=4, ruleset=ruleset).scale.shape == cnn.scale.shape
    other = next(r for r in hg_env.RULESETS if r != ruleset)
    with pytest.raises(ValueError, match=f"not ruleset '{other}'"):
        BoardCNN(space, ruleset=other)


def test_single_agent_env_plays_whole_games_against_callables() -> None:
    calls = []

    def first_legal(observation, mask) -> int:
        calls.append(observation.shape)
        return int(np.flatnonzero(mask)[0])

    env = hg_env.SingleAgentEnv(opponents=[first_legal, first_legal], seat=1, num_players=3, reward="score")
    env.reset(seed=3)
    total, terminated = 0.0, False
    rng = np.random.default_rng(0)
    while not terminated:
        assert env.game.current_player == 1
        _obs, reward, terminated, _truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        total += reward
    assert total == info["scores"][1] and calls
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    strict = hg_env.SingleAgentEnv(illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action"):
        strict.step(strict.action_space.n - 1)


def test_maskable_ppo_smoke() -> None:
    """sb3-contrib's MaskablePPO trains a few hundred steps on the adapter."""
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = hg_env.SingleAgentEnv(num_players=2, reward="score_diff")
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, verbose=0, policy_kwargs={"net_arch": [32]}
    )
    model.learn(total_timesteps=256)
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]
