"""The batched self-play env (hg_env.vector) and its SB3 adapter (hg_env.train.vec_env)."""

from __future__ import annotations

import numpy as np
import pytest

import hg_env
from hg_env.agents.base import Agent
from hg_env.core.actions import sample_uniform
from hg_env.vector import VectorEnv


class FirstLegal(Agent):
    """A deterministic opponent: the first legal action."""

    name = "first_legal"

    def act(self, observation, action_mask, game=None) -> int:
        return int(np.flatnonzero(action_mask)[0])

    def act_batch(self, observations, action_masks, state=None) -> np.ndarray:
        return np.argmax(action_masks, axis=1)


def single_game_mirror(venv: VectorEnv, i: int, reward: str) -> hg_env.raw_env:
    """A single-game AEC env holding the same deck order as game i of the vector env."""
    s = venv.state
    env = hg_env.raw_env(num_players=venv.num_players, reward=reward)
    env.reset(
        options={
            "regular_deck": s.regular_deck[i, : s.regular_len[i]].tolist(),
            "menhir_deck": s.extra_deck[i, : s.extra_len[i]].tolist(),
        }
    )
    return env


def play_opponents(env: hg_env.raw_env, seat: int, opponent: Agent) -> None:
    while not env.game.is_over and env.game.current_player != seat:
        env.step(opponent.act(None, env.game.action_mask()))


@pytest.mark.parametrize("reward", ["win", "score_diff", "score"])
def test_vector_env_equals_single_games(reward: str) -> None:
    """Same decks and actions: same observations, rewards and dones as one game at a time."""
    opponent = FirstLegal()
    venv = VectorEnv(5, num_players=2, reward=reward, seed=3, opponents=[opponent])
    obs = venv.reset()
    mirrors = {}

    def start(i: int) -> None:
        mirrors[i] = single_game_mirror(venv, i, reward)
        play_opponents(mirrors[i], int(venv.seats[i]), opponent)

    for i in range(venv.num_envs):
        start(i)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(160):  # each env's game ends about twice: restarted games are checked too
        for i, env in mirrors.items():
            agent = env.possible_agents[venv.seats[i]]
            np.testing.assert_array_equal(obs[i], env.observe(agent)["observation"])
            np.testing.assert_array_equal(venv.action_masks()[i], env.observe(agent)["action_mask"].astype(bool))
        actions = sample_uniform(venv.action_masks(), rng)
        obs, rewards, dones, infos = venv.step(actions)
        for i, env in mirrors.items():
            agent = (
                env.possible_agents[venv.seats[i]] if not dones[i] else env.possible_agents[infos[i]["learner_seat"]]
            )
            env.step(int(actions[i]))
            play_opponents(env, env.agent_name_mapping[agent], opponent)
            assert rewards[i] == pytest.approx(env._cumulative_rewards[agent])
            assert dones[i] == env.game.is_over
            if dones[i]:
                assert infos[i]["final_scores"] == env.game.scores
                np.testing.assert_array_equal(infos[i]["terminal_observation"], env.observe(agent)["observation"])
                finished += 1
        for i in np.flatnonzero(dones):
            start(i)
    assert finished >= 2 * venv.num_envs


def test_vector_env_seats_opponents_and_errors() -> None:
    class Counting(FirstLegal):
        calls = 0

        def act_batch(self, observations, action_masks, state=None):
            Counting.calls += 1
            assert state is not None and state.batch_size == len(action_masks)
            return super().act_batch(observations, action_masks, state)

    venv = VectorEnv(16, num_players=3, seed=0, opponents=[None, Counting()], opponent_weights=[1, 3])
    venv.reset()
    assert set(venv.seats.tolist()) <= {0, 1, 2} and len(set(venv.seats.tolist())) > 1
    assert (venv.state.current == venv.seats).all()  # every game waits for its learner
    for _ in range(30):
        venv.step(sample_uniform(venv.action_masks(), venv.rng))
    assert Counting.calls > 0
    with pytest.raises(ValueError, match="illegal action"):
        venv.step(np.full(16, venv.layout.none))
    with pytest.raises(ValueError, match="opponent weights"):
        VectorEnv(2, opponents=[None], opponent_weights=[0])
    with pytest.raises(ValueError, match="act_batch"):
        VectorEnv(2, opponents=["greedy"])  # spec strings are resolved by hg_env.train.vec_env
    with pytest.raises(ValueError, match="unknown rule flag"):
        VectorEnv(2, bord_reach=3)


def test_sb3_vec_env_adapter_with_maskable_ppo() -> None:
    pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    from hg_env.train.vec_env import HGVecEnv

    venv = HGVecEnv(4, seed=0, opponents=["random", "greedy"], opponent_weights=[3, 1], reward="score_diff")
    obs = venv.reset()
    assert obs.shape == (4, *venv.observation_space.shape) and venv.observation_space.contains(obs[0])
    masks = get_action_masks(venv)
    assert masks.shape == (4, venv.action_space.n) and masks.any(1).all()
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, policy_kwargs={"net_arch": [16]}
    )
    model.learn(total_timesteps=128)
    action, _ = model.predict(venv.reset(), action_masks=get_action_masks(venv))
    assert get_action_masks(venv)[np.arange(4), action].all()


def test_lookahead_observations_add_the_search_and_change_no_game() -> None:
    """lookahead=True adds per-action gains and estimates; boards, games and rewards stay the same."""
    from hg_env.agents.greedy import greedy_actions
    from hg_env.core import search

    plain = VectorEnv(6, num_players=2, reward="score_diff", seed=4, opponents=[FirstLegal()])
    rich = VectorEnv(6, num_players=2, reward="score_diff", seed=4, opponents=[FirstLegal()], lookahead=True)
    obs_plain, obs = plain.reset(), rich.reset()
    rng = np.random.default_rng(0)
    for _ in range(120):
        np.testing.assert_array_equal(obs["board"], obs_plain)
        masks = rich.action_masks()
        gains, estimates = obs["lookahead"], obs["estimate"]
        assert gains.shape == (6, 2, rich.layout.size) and gains.dtype == np.float32
        assert not gains[~np.broadcast_to(masks[:, None], gains.shape)].any()  # only legal actions have gains
        # The estimates are the learner's and its opponent's estimated final scores.
        est = search.estimated_final_scores(rich.state)
        np.testing.assert_allclose(estimates[:, 0], est[np.arange(6), rich.seats], rtol=1e-6)
        np.testing.assert_allclose(estimates[:, 1], est[np.arange(6), 1 - rich.seats], rtol=1e-6)
        # Row 0 is greedy's valuation: on the same re-deal, greedy's move has the largest own gain.
        seed = int(rng.integers(1 << 30))
        gains, _ = search.lookahead_features(rich.state, np.random.default_rng(seed))
        choice = greedy_actions(rich.state, np.random.default_rng(seed))
        own = np.where(masks, gains[:, 0], -np.inf)
        np.testing.assert_allclose(own[np.arange(6), choice], own.max(1), rtol=1e-6)
        actions = sample_uniform(masks, rng)
        obs_plain, r_plain, d_plain, _ = plain.step(actions)
        obs, r, d, infos = rich.step(actions)
        np.testing.assert_array_equal(r, r_plain)
        np.testing.assert_array_equal(d, d_plain)
        for i in np.flatnonzero(d):
            terminal = infos[i]["terminal_observation"]
            assert set(terminal) == {"board", "lookahead", "estimate"} and not terminal["lookahead"].any()
            assert terminal["estimate"][0] == infos[i]["final_scores"][infos[i]["learner_seat"]]
