"""Game records: a JSON-serialisable account of a game that replays to the identical state.

::

    {
      "format": "hg_env.game_record",  "version": 1,
      "num_players": 2,
      "rules": {...Appendix A flags...},
      "seed": 0 | null,                      # informational: the decks below are authoritative
      "regular_deck": [41, 7, ...],          # draw order, unplaceable tiles included
      "menhir_deck": [88, 80, ...],
      "decisions": [["place", 1, 0, 3], ["pawn", 2], ["none"], ["retake", 0, 1, 4], ...],
      "scores": [31, 21],                    # scores after the last decision (checked on replay)
      "is_over": true,
      "players": ["greedy", "random"],       # optional names, one per seat
      "meta": {...}                          # optional, free-form
    }
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hg_env.core.rules import Rules

if TYPE_CHECKING:
    from hg_env.game import Game

FORMAT = "hg_env.game_record"
VERSION = 1


def make_record(game: Game, players: list[str] | None = None, meta: dict | None = None) -> dict:
    record = {
        "format": FORMAT,
        "version": VERSION,
        "num_players": game.num_players,
        "rules": game.rules.as_dict(),
        "seed": game.seed,
        "regular_deck": list(game._regular_deck),
        "menhir_deck": list(game._menhir_deck),
        "decisions": game.decisions(),
        "scores": game.scores,
        "is_over": game.is_over,
    }
    if players is not None:
        if len(players) != game.num_players:
            raise ValueError(f"players names {players} do not match num_players={game.num_players}")
        record["players"] = list(players)
    if meta:
        record["meta"] = dict(meta)
    return record


def check_record(record: object) -> dict:
    """Validate the shape of a record; ValueError naming the first problem."""
    if not isinstance(record, dict):
        raise ValueError(f"corrupt record: expected a JSON object, got {type(record).__name__}")
    if record.get("format") != FORMAT:
        raise ValueError(f"corrupt record: 'format' must be {FORMAT!r}, got {record.get('format')!r}")
    if record.get("version") != VERSION:
        raise ValueError(f"incompatible record: version {record.get('version')!r}, this hg_env reads version {VERSION}")
    for key, kind in (
        ("num_players", int),
        ("rules", dict),
        ("regular_deck", list),
        ("menhir_deck", list),
        ("decisions", list),
    ):
        if not isinstance(record.get(key), kind):
            raise ValueError(f"corrupt record: {key!r} must be a {kind.__name__}, got {record.get(key)!r}")
    try:
        Rules.from_kwargs(**record["rules"])
    except (TypeError, ValueError) as err:
        raise ValueError(f"corrupt record: bad rules: {err}") from None
    scores = record.get("scores")
    if scores is not None and not (isinstance(scores, list) and all(isinstance(s, int) for s in scores)):
        raise ValueError(f"corrupt record: 'scores' must be a list of ints, got {scores!r}")
    return record
