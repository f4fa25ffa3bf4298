"""hg_env: Carcassonne: Hunters & Gatherers (2020) for reinforcement learning."""

from hg_env.core.rules import Rules
from hg_env.game import Game

__version__ = "0.1.0"
__all__ = ["Game", "Rules", "__version__"]
