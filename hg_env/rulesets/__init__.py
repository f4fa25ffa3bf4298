"""The rulesets: one package each, holding what makes that game different (docs/rules/).

* ``hg2020``: Hunters & Gatherers 2020 (menhir tiles, six powers) — the default;
* ``hg2002``: the classic 2002/2014 Hunters & Gatherers (gold nuggets, bonus tiles, shrine, fire);
* ``carcassonne``: base Carcassonne (C3) with farmers, the abbot and the river.

Each package defines ``RULESET`` (a ``hg_env.core.ruleset.Ruleset``); find one with
``hg_env.core.ruleset.get_ruleset(name)``. ``hunters_gatherers`` holds the rule
functions both Hunters & Gatherers editions share.
"""
