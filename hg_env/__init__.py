"""hg_env: the Carcassonne family (Hunters & Gatherers 2020 and 2002, base Carcassonne) for reinforcement learning.

* ``hg_env.Game``: one game, for scripts, notebooks, tests and replays.
* ``hg_env.env()`` / ``hg_env.raw_env``: the PettingZoo AEC environments (``hunters_gatherers_v0``,
  ``hunters_gatherers_classic_v0``, ``carcassonne_v0``: ``ruleset="hg2020" | "hg2002" | "carcassonne"``).
* ``hg_env.SingleAgentEnv``: a ``gymnasium.Env`` for one learner against fixed opponents.
* ``hg_env.evaluate(agent, opponents=[...], games=200)``: win rates against fixed agents, seats swapped
  on paired decks (hg_env.arena.evaluate; imported on first use, torch only for a torch model).
* ``hg_env.core``: the batch-first numpy rules engine behind them; ``hg_env.rulesets``: what each game adds.
* ``hg_env.register_ruleset(folder_or_module)``: add a ruleset kept elsewhere (an installed package may
  declare one under the entry point group ``hg_env.rulesets`` instead).
"""

from hg_env.aec import env, raw_env
from hg_env.core.actions import ActionLayout, action_layout
from hg_env.core.observation import channel_names, channel_scale, observe
from hg_env.core.rules import Rules
from hg_env.core.ruleset import DEFAULT_RULESET, RULESETS, register_ruleset
from hg_env.game import Game
from hg_env.single_agent import SingleAgentEnv

__version__ = "0.1.0"


def encode(decision: tuple, board_reach: int = 12, ruleset: str = DEFAULT_RULESET) -> int:
    """Flat action of a decision: ``("place", x, y, rot)``, ``("pawn", zone)``, ``("hut", zone)``,
    ``("retake", x, y)``, ``("pit", k)`` or ``("none",)`` (Carcassonne: ``("meeple", zone)``, ``("abbot", zone)``)."""
    return action_layout(board_reach, ruleset).encode(decision)


def decode(action: int, board_reach: int = 12, ruleset: str = DEFAULT_RULESET) -> tuple:
    """Decision tuple of a flat action (the inverse of ``encode``)."""
    return action_layout(board_reach, ruleset).decode(action)


def describe(action: int, tile: int | None = None, board_reach: int = 12, ruleset: str = DEFAULT_RULESET) -> str:
    """Readable move, e.g. ``place 41 at (1,0) r0`` or ``pawn on zone 2``."""
    return action_layout(board_reach, ruleset).describe(action, tile)


def __getattr__(name: str):
    """``hg_env.evaluate``, imported on first use (it is not needed to play)."""
    if name == "evaluate":
        from hg_env.arena.evaluate import evaluate_agent

        return evaluate_agent
    raise AttributeError(f"module 'hg_env' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), "evaluate"])  # tab completion shows the lazy attribute too


def _register() -> None:
    """Make the environments findable by name in PettingZoo's and Gymnasium's registries.

    Gymnasium 1.x has no entry-point plugins: its registry knows these ids once hg_env is
    imported. ``gymnasium.make("hg_env:hg_env/HuntersGatherers-v0")`` (also
    ``hg_env/HuntersGatherersClassic-v0`` and ``hg_env/Carcassonne-v0``) imports it first."""
    import gymnasium
    import pettingzoo

    from hg_env.core.ruleset import get_ruleset, rulesets
    from hg_env.presentation import presentation

    for ruleset in rulesets():  # what each ruleset's folder declares: its env name and presentation
        shown = presentation(ruleset)
        aec_name, version = get_ruleset(ruleset).env_name.rsplit("_v", 1)
        if shown.factory and hasattr(pettingzoo, "register"):  # PettingZoo >= 1.27
            pettingzoo.register("aec", id=f"hg_env/{aec_name}-v{version}", entry_point=f"hg_env.aec:{shown.factory}")
        if shown.gym_name and f"hg_env/{shown.gym_name}-v{version}" not in gymnasium.registry:
            gymnasium.register(
                id=f"hg_env/{shown.gym_name}-v{version}",
                entry_point="hg_env.single_agent:SingleAgentEnv",
                kwargs={"ruleset": ruleset},
            )


_register()

__all__ = [
    "RULESETS",
    "ActionLayout",
    "Game",
    "Rules",
    "SingleAgentEnv",
    "__version__",
    "channel_names",
    "channel_scale",
    "decode",
    "describe",
    "encode",
    "env",
    "evaluate",
    "observe",
    "raw_env",
    "register_ruleset",
]
