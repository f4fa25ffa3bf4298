"""hg_env: Carcassonne: Hunters & Gatherers (2020) for reinforcement learning.

* ``hg_env.Game``: one game, for scripts, notebooks, tests and replays.
* ``hg_env.env()`` / ``hg_env.raw_env``: the PettingZoo AEC environment ``hunters_gatherers_v0``.
* ``hg_env.SingleAgentEnv``: a ``gymnasium.Env`` for one learner against fixed opponents.
* ``hg_env.core``: the batch-first numpy rules engine behind them.
"""

from hg_env.aec import env, raw_env
from hg_env.core.actions import ActionLayout, action_layout
from hg_env.core.observation import channel_names, channel_scale, observe
from hg_env.core.rules import Rules
from hg_env.game import Game
from hg_env.single_agent import SingleAgentEnv

__version__ = "0.1.0"


def encode(decision: tuple, board_reach: int = 12) -> int:
    """Flat action of a decision: ``("place", x, y, rot)``, ``("pawn", zone)``, ``("hut", zone)``,
    ``("retake", x, y)``, ``("pit", k)`` or ``("none",)``."""
    return action_layout(board_reach).encode(decision)


def decode(action: int, board_reach: int = 12) -> tuple:
    """Decision tuple of a flat action (the inverse of ``encode``)."""
    return action_layout(board_reach).decode(action)


def describe(action: int, tile: int | None = None, board_reach: int = 12) -> str:
    """Readable move, e.g. ``place 41 at (1,0) r0`` or ``pawn on zone 2``."""
    return action_layout(board_reach).describe(action, tile)


def _register() -> None:
    """Make the environments findable by name in PettingZoo's and Gymnasium's registries."""
    import gymnasium
    import pettingzoo

    if hasattr(pettingzoo, "register"):  # PettingZoo >= 1.27
        pettingzoo.register("aec", id="hg_env/hunters_gatherers-v0", entry_point="hg_env.aec:env")
    if "hg_env/HuntersGatherers-v0" not in gymnasium.registry:
        gymnasium.register(id="hg_env/HuntersGatherers-v0", entry_point="hg_env.single_agent:SingleAgentEnv")


_register()

__all__ = [
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
    "observe",
    "raw_env",
]
