"""Phases: the decision a game waits for (R3.7), as the code ``State.phase`` holds.

The universal turn has two, ``PLACE`` and ``OCCUPY``; ``OVER``: final scores are in. A ruleset's declared
decision may have a phase of its own (``Decision.phase``, named by ``Decision.phase_name``) with a code
of its choosing beside these (1: between place and occupy, 3: after occupy, before the end, 5 and up):
the codes order the observation's phase fields (``phase_*``), and ``Ruleset.phases`` names every phase
of a ruleset.
"""

PLACE, OCCUPY, OVER = 0, 2, 4
SHARED_PHASES = {PLACE: "place", OCCUPY: "occupy", OVER: "over"}
