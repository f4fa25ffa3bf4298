"""Seats at a table: how many players a game of the family takes.

A leaf module (no imports) so that every layer (areas' per-seat accumulators,
rules, state, observation) can size its seat axis without importing another.
"""

MIN_PLAYERS, MAX_PLAYERS = 2, 5
