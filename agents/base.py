"""The agent protocol, and agents made from command-line spec strings.

An agent maps (observation, action mask) to a flat action (hg_env.core.actions).
Agents that search may also read the game through the ``game`` hook: an
``hg_env.Game`` they may copy and simulate on, but must not mutate, and whose
hidden information (deck order) they must not look at.

Agents that can decide many games at once override ``act_batch``, which gets
the batched core ``State`` as its hook (one row per game).

Spec strings: ``name`` or ``name:key=value,key=value``, e.g. ``random``,
``greedy``, ``mcts:sims=200``, ``policy:path=runs/quick/final_model.zip``.
Keys are the keyword arguments of the agent's constructor.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from hg_env.core.state import State
    from hg_env.game import Game


class Agent:
    """Base class. Subclasses set ``name`` and implement ``act``."""

    name: str = "agent"
    #: True if ``act`` reads the observation tensor; callers may pass None otherwise.
    uses_observation: bool = False
    #: What each constructor option (``seed`` aside) means, one line each: ``hgenv agents`` prints it
    #: beside the option's type and default. ``register`` refuses a line for an option that does not exist.
    option_docs: dict[str, str] = {}

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.spec = self.name

    def reset(self, seed: int | None = None) -> None:
        """Called before each game; reseeds the agent's generator when a seed is given."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: np.ndarray, game: Game | None = None) -> int:
        raise NotImplementedError

    def model_file(self, ruleset: str) -> str | None:
        """The model file whose network plays ``ruleset`` for this agent (None: no network, or one only in
        memory): records of its games pin it by SHA-256, so a changed model never mixes with its old games."""
        return None

    def act_batch(self, observations: Any, action_masks: np.ndarray, state: State | None = None) -> np.ndarray:
        """One action per row of ``action_masks`` ([B, A] bool); -1 for rows with no legal action."""
        out = np.full(len(action_masks), -1, dtype=np.int64)
        for i, mask in enumerate(action_masks):
            if mask.any():
                obs = None if observations is None else observations[i]
                out[i] = self.act(obs, mask, None)
        return out

    def explain(self, game: Game, top: int = 8) -> list[dict]:
        """What the agent thinks of the decision at ``game`` (which it does not change): its ``top`` legal
        moves, best first, each ``{"action": int, "weight": 0..1 (how strongly it favours the move), ...}``
        with what it measured: ``p`` (a policy's probability), ``visits`` and ``value`` (a search),
        ``gain`` (greedy's estimated gain). ``hgenv replay --agent`` draws them. An agent that cannot say
        raises NotImplementedError."""
        raise NotImplementedError(f"the {self.name} agent cannot explain its moves")

    def __call__(self, observation: Any, action_mask: np.ndarray) -> int:
        """Agents are callables from (observation, mask) to action (SingleAgentEnv opponents)."""
        return self.act(observation, action_mask)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"


def ranked(
    actions: np.ndarray, scores: np.ndarray, weights: np.ndarray, top: int, **measures: np.ndarray
) -> list[dict]:
    """``Agent.explain``'s answer: the ``top`` actions by ``scores`` (ties: the lower action first), each with
    its ``weight`` and the named ``measures`` (arrays aligned with ``actions``) as plain numbers."""
    order = np.lexsort((np.asarray(actions), -np.asarray(scores, dtype=float)))[:top]
    out = []
    for i in order:
        row = {"action": int(actions[i]), "weight": round(float(weights[i]), 4)}
        row |= {name: round(float(values[i]), 4) for name, values in measures.items()}
        out.append(row)
    return out


class RandomAgent(Agent):
    """Uniform over the legal actions, seeded."""

    name = "random"

    def explain(self, game: Game, top: int = 8) -> list[dict]:
        """Every legal move is equally likely: ``p`` = 1 / the number of legal moves."""
        legal = np.asarray(game.legal_actions())
        p = np.full(len(legal), 1.0 / max(len(legal), 1))
        return ranked(legal, p, p * len(legal), top, p=p)

    def act(self, observation: Any, action_mask: np.ndarray, game: Game | None = None) -> int:
        return int(self.rng.choice(np.flatnonzero(action_mask)))

    def act_batch(self, observations: Any, action_masks: np.ndarray, state: State | None = None) -> np.ndarray:
        from hg_env.core.actions import sample_uniform

        return sample_uniform(action_masks, self.rng)


class FunctionAgent(Agent):
    """A function ``(observation, action_mask) -> action`` as an agent (not a spec: built in code).

    It is called once per decision with the deciding seat's board tensor and legal mask; in a
    batch (``act_batch``), once per game."""

    name = "function"
    uses_observation = True

    def __init__(self, function: Callable[[Any, np.ndarray], Any], seed: int | None = None) -> None:
        super().__init__(seed)
        if not callable(function):
            raise ValueError(f"FunctionAgent needs a callable (observation, action_mask) -> action, got {function!r}")
        self.function = function
        self.spec = getattr(function, "__name__", type(function).__name__)

    def act(self, observation: Any, action_mask: np.ndarray, game: Game | None = None) -> int:
        return int(self.function(observation, action_mask))


REGISTRY: dict[str, type[Agent]] = {"random": RandomAgent}


def register(cls: type[Agent]) -> type[Agent]:
    """Class decorator: make an agent available to ``make_agent`` under ``cls.name``.

    TypeError when ``cls.option_docs`` describes an option its constructor does not take (a renamed
    option whose description was left behind)."""
    stray = sorted(set(cls.option_docs) - {name for name, _ in agent_options(cls)})
    if stray:
        raise TypeError(f"agent {cls.name!r}: option_docs describes {stray}, which {cls.__name__}() does not take")
    REGISTRY[cls.name] = cls
    return cls


def agent_options(cls: type[Agent]) -> list[tuple[str, inspect.Parameter]]:
    """The options a spec may set: the constructor's keyword arguments but ``seed``, in order."""
    parameters = inspect.signature(cls.__init__).parameters
    return [(name, p) for name, p in parameters.items() if name not in ("self", "seed")]


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"mcts:sims=200,c=1.4"`` -> ``("mcts", {"sims": "200", "c": "1.4"})``."""
    name, _, rest = spec.partition(":")
    kwargs: dict[str, str] = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ValueError(f"bad agent spec {spec!r}: expected key=value, got {item!r}")
        kwargs[key.strip()] = value.strip()
    return name.strip(), kwargs


def _convert(value: str, default: Any, annotation: Any) -> Any:
    kind = type(default) if default not in (None, inspect.Parameter.empty) else None
    text = str(annotation)
    if kind is bool or text.startswith("bool"):
        if value.lower() in ("1", "true", "yes"):
            return True
        if value.lower() in ("0", "false", "no"):
            return False
        raise ValueError(f"expected true/false, got {value!r}")
    if kind is int or text.startswith("int"):
        return int(value)
    if kind is float or text.startswith("float"):
        return float(value)
    return value


def _spec_options(spec: str) -> tuple[type[Agent], dict[str, Any]]:
    """The agent class a spec names and the options it sets, converted; ValueError naming an unknown agent or key."""
    _load_builtin_agents()
    name, raw = parse_spec(spec)
    if name not in REGISTRY:
        raise ValueError(f"unknown agent {name!r} in spec {spec!r}; known agents: {sorted(REGISTRY)}")
    cls = REGISTRY[name]
    params = dict(agent_options(cls))
    kwargs: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in params:
            raise ValueError(f"agent {name!r} has no option {key!r}; options: {sorted(params)}")
        try:
            kwargs[key] = _convert(value, params[key].default, params[key].annotation)
        except ValueError as err:
            raise ValueError(f"agent spec {spec!r}: option {key!r}: {err}") from None
    return cls, kwargs


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build an agent from a spec string; ValueError naming an unknown agent or key."""
    cls, kwargs = _spec_options(spec)
    agent = cls(seed=seed, **kwargs)
    agent.spec = spec
    return agent


def resolved_options(spec: str) -> dict[str, Any]:
    """What the agent of a spec plays with: ``{"agent": name, option: value, ...}``, every option the spec
    sets and every other at its default (the constructor's), as JSON values. ``path`` is left out: a model
    file is known by its contents (the ladder pins its SHA-256), not by where it lies.

    ``resolved_options("mcts:sims=16")["sims"] == 16``; ValueError naming an unknown agent or key."""
    cls, kwargs = _spec_options(spec)
    options: dict[str, Any] = {"agent": cls.name}
    for key, parameter in agent_options(cls):
        if key == "path":
            continue
        value = kwargs.get(key, parameter.default)
        if value is inspect.Parameter.empty:
            raise ValueError(f"agent spec {spec!r} leaves out {key!r}, which {cls.__name__}() needs")
        if isinstance(value, float) and not math.isfinite(value):
            value = repr(value)  # "inf": JSON has no infinity
        elif not isinstance(value, (bool, int, float, str, type(None))):
            raise TypeError(f"{cls.__name__}() option {key!r} defaults to {value!r}, which is no JSON value")
        options[key] = value
    return options


def _load_builtin_agents() -> None:
    """Import the agent modules so their @register decorators run."""
    import importlib

    for module in ("hg_env.agents.greedy", "hg_env.agents.mcts", "hg_env.agents.policy", "hg_env.agents.puct"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as err:
            if err.name != module:  # a missing dependency inside an agent module is a real error
                raise
