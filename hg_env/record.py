"""Game records: a JSON-serialisable account of a game that replays to the identical state.

::

    {
      "format": "hg_env.game_record",  "version": 2,
      "ruleset": "hg2020",                   # the game; a record never replays under another
      "num_players": 2,
      "rules": {"ruleset": "hg2020", ...every flag...},
      "seed": 0 | null,                      # informational: the decks below are authoritative
      "regular_deck": [41, 7, ...],          # draw order, unplaceable tiles included
      "menhir_deck": [88, 80, ...],          # the extra deck, named by the ruleset: menhir_deck (hg2020),
                                             # bonus_deck (hg2002), none (carcassonne)
      "decisions": [["place", 1, 0, 3], ["pawn", 2], ["none"], ["retake", 0, 1, 4], ...],
      "scores": [31, 21],                    # scores after the last decision (checked on replay)
      "is_over": true,                       # checked on replay
      "players": ["greedy", "random"],       # optional names, one per seat
      "meta": {...}                          # optional, free-form
    }

Version 1 records (before rulesets) are Hunters & Gatherers 2020 games and still replay.
A record is data: reading one only checks and replays it.
"""

from __future__ import annotations

from typing import Any

from hg_env.core.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from hg_env.core.ruleset import DEFAULT_RULESET, get_ruleset, rulesets

FORMAT = "hg_env.game_record"
VERSION = 2
MAX_SEED = 2**63 - 1


def make_record(
    rules: Rules,
    num_players: int,
    seed: int | None,
    decks: dict[str, list[int]],
    decisions: list[list],
    scores: list[int],
    is_over: bool,
    players: list[str] | None = None,
    meta: dict | None = None,
) -> dict:
    """The record of a game from its parts (``Game.to_record`` passes its own): ``decks`` holds the
    ``regular_deck`` and, in a ruleset with one, the extra deck (``menhir_deck``, ``bonus_deck``)."""
    record: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "ruleset": rules.spec.name,
        "num_players": num_players,
        "rules": rules.as_dict(),
        "seed": seed,
        **{name: list(deck) for name, deck in decks.items()},
        "decisions": decisions,
        "scores": scores,
        "is_over": is_over,
    }
    if players is not None:
        if not isinstance(players, (list, tuple)) or len(players) != num_players:
            raise ValueError(f"players names {players!r} do not match num_players={num_players}")
        record["players"] = [str(p) for p in players]
    if meta:
        record["meta"] = dict(meta)
    return record


def _int(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _ints(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)


def check_record(record: object) -> dict:
    """Validate a record; ValueError naming the first bad field. Returns the record's fields with
    ``ruleset``, ``extra_name`` (menhir / bonus / None) and ``extra_deck`` filled in."""
    if not isinstance(record, dict):
        raise ValueError(f"corrupt record: expected a JSON object, got {type(record).__name__}")
    if record.get("format") != FORMAT:
        raise ValueError(f"corrupt record: 'format' must be {FORMAT!r}, got {record.get('format')!r}")
    version = record.get("version")
    if version not in (1, VERSION):
        raise ValueError(f"incompatible record: version {version!r}, this hg_env reads versions 1 and {VERSION}")
    rules = record.get("rules")
    if not isinstance(rules, dict):
        raise ValueError(f"corrupt record: 'rules' must be an object, got {rules!r}")
    ruleset = record.get("ruleset", DEFAULT_RULESET) if version == VERSION else DEFAULT_RULESET
    if ruleset not in rulesets():  # called: a test may add a ruleset after this module loads
        raise ValueError(f"corrupt record: 'ruleset' must be one of {rulesets()}, got {ruleset!r}")
    if rules.get("ruleset", ruleset) != ruleset:
        raise ValueError(f"corrupt record: 'rules.ruleset' {rules.get('ruleset')!r} differs from 'ruleset' {ruleset!r}")
    if not _int(record.get("num_players"), MIN_PLAYERS, MAX_PLAYERS):
        got = _short(record.get("num_players"))
        raise ValueError(f"corrupt record: 'num_players' must be an int {MIN_PLAYERS}..{MAX_PLAYERS}, got {got}")
    seed = record.get("seed")
    if seed is not None and not _int(seed, 0, MAX_SEED):
        raise ValueError(f"corrupt record: 'seed' must be null or an int 0..2**63-1, got {seed!r}")
    try:
        Rules(**{**rules, "ruleset": ruleset})
    except (TypeError, ValueError) as err:
        raise ValueError(f"corrupt record: bad 'rules': {err}") from None
    extra = get_ruleset(ruleset).extra_deck
    deck_keys = ["regular_deck"] + ([f"{extra}_deck"] if extra else [])
    for key in deck_keys:
        if not _ints(record.get(key)):
            raise ValueError(f"corrupt record: {key!r} must be a list of tile ids, got {record.get(key)!r}")
    others = {f"{get_ruleset(name).extra_deck}_deck" for name in rulesets() if get_ruleset(name).extra_deck}
    for key in sorted(others - set(deck_keys)):
        if key in record:
            has = f"a {extra} deck ({extra}_deck)" if extra else "no extra deck"
            raise ValueError(f"corrupt record: {key!r} given, but a {ruleset} game has {has}")
    decisions = record.get("decisions")
    if not isinstance(decisions, list) or not all(
        isinstance(d, list) and d and isinstance(d[0], str) for d in decisions
    ):
        bad = (
            decisions
            if not isinstance(decisions, list)
            else next(d for d in decisions if not (isinstance(d, list) and d and isinstance(d[0], str)))
        )
        raise ValueError(
            f"corrupt record: 'decisions' must be a list of non-empty lists [kind, args...], got {_short(bad)}"
        )
    n = record["num_players"]
    scores = record.get("scores")
    if scores is not None and not (_ints(scores) and len(scores) == n):
        raise ValueError(f"corrupt record: 'scores' must be null or a list of {n} ints, got {_short(scores)}")
    if record.get("is_over") is not None and not isinstance(record.get("is_over"), bool):
        raise ValueError(f"corrupt record: 'is_over' must be true or false, got {record.get('is_over')!r}")
    players = record.get("players")
    if players is not None and not (
        isinstance(players, list) and len(players) == n and all(isinstance(p, str) for p in players)
    ):
        raise ValueError(f"corrupt record: 'players' must be a list of {n} names, got {_short(players)}")
    if record.get("meta") is not None and not isinstance(record.get("meta"), dict):
        raise ValueError(f"corrupt record: 'meta' must be an object, got {_short(record.get('meta'))}")
    return {
        **record,
        "ruleset": ruleset,
        "rules": {**rules, "ruleset": ruleset},
        "seed": seed,
        "extra_name": extra,
        "extra_deck": record.get(f"{extra}_deck") if extra else None,
    }


def _short(value: Any, limit: int = 80) -> str:
    try:
        text = repr(value)
    except RecursionError:
        return f"a {type(value).__name__} nested too deeply"
    return text if len(text) <= limit else text[: limit - 3] + "..."
