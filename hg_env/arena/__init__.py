"""Everything that pits agents against each other: evaluation against fixed opponents (``evaluate``),
rated tournaments (``tournament``, ``ratings``) and their games as Ray tasks (``distributed``).

Nothing heavy is imported here: ``hg_env.evaluate`` imports ``hg_env.arena.evaluate`` on first use."""
