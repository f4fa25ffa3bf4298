"""Everything that pits agents against each other: evaluation against fixed opponents (``evaluate``),
rated tournaments (``tournament``, ``ratings``), their games as Ray tasks (``distributed``) and the
ladder (``ladder``: ``hg_env.arena.ladder(agent, ruleset=...)`` places an agent on a fixed scale).

Nothing heavy is imported here (numpy only): ``hg_env.evaluate`` imports ``hg_env.arena.evaluate`` on first use.
The function ``ladder`` hides its module's name: import the module's other names with
``from hg_env.arena.ladder import ...``."""

from hg_env.arena.ladder import ladder

__all__ = ["ladder"]
