"""Rule scenarios as data (DESIGN.md test layer 1): a deck order + plays -> expected scores/events.

A scenario fixes the exact tile order (``Game(regular_deck=..., menhir_deck=...)``)
and lists one ``Play`` per tile placed: where it goes, which occupant (if any)
the placer puts on it, and the shaman's retake. ``run`` replays it through the
public ``hg_env.Game`` API and checks, at every play, that the expected seat is
the one placing and that the decisions asked for are offered. ``check`` also
compares the scores and events with the expected ones.

Example (the start tile's forest closed by two forest ends, 3 tiles = 6, R6.2)::

    Scenario(
        regular=[37, 36],
        menhir=[],
        plays=[play(1, 0, 3, pawn=0, by=0), play(0, 1, 2, by=1)],
        scores=[6, 0],
    )
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hg_env import Game

Occupant = tuple[str, int]  # (occupant kind: "pawn" | "hut" | "meeple" | "abbot", local zone)


@dataclass(frozen=True)
class Play:
    """One tile placed at (x, y) with a rotation, and the decisions of that same turn."""

    x: int
    y: int
    rotation: int
    occupant: Occupant | None = None  # placed in T4; None = place nothing (or nothing is offered)
    retake: tuple[int, int, int] | None = None  # shaman (R7.1): own pawn (x, y, local zone) to take back
    by: int | None = None  # the seat expected to place this tile (R1.7, R3.3); None = not checked
    recall: tuple[int, int] | None = None  # Carcassonne (A1.5): take the own abbot back from (x, y) instead


def play(
    x: int,
    y: int,
    rotation: int,
    pawn: int | None = None,
    hut: int | None = None,
    retake: tuple[int, int, int] | None = None,
    by: int | None = None,
    meeple: int | None = None,
    abbot: int | None = None,
    recall: tuple[int, int] | None = None,
) -> Play:
    """Shorthand: ``play(1, 0, 3, pawn=0, by=0)`` places at (1, 0) r3 and a pawn on local zone 0
    (Carcassonne: ``meeple=``, ``abbot=``, or ``recall=(x, y)`` to take the abbot back)."""
    chosen = {k: v for k, v in dict(pawn=pawn, hut=hut, meeple=meeple, abbot=abbot).items() if v is not None}
    if len(chosen) + (recall is not None) > 1:
        raise ValueError("a play places at most one occupant (R5.2)")
    occupant = next(iter(chosen.items()), None)
    return Play(x, y, rotation, occupant, retake, by, recall)


@dataclass
class Scenario:
    """A deck order, the plays, and what the rules say must come out."""

    regular: list[int]
    plays: list[Play]
    menhir: list[int] = field(default_factory=list)  # the extra deck: menhir tiles (hg2020), bonus tiles (hg2002)
    players: int = 2
    ruleset: str = "hg2020"
    flags: dict = field(default_factory=dict)
    scores: list[int] | None = None  # expected scores after the last play
    events: list[dict] = field(default_factory=list)  # expected events, in order (partial match, see below)
    over: bool | None = None  # expected game-over flag after the last play


def new_game(sc: Scenario) -> Game:
    from hg_env.core.ruleset import get_ruleset

    extra = get_ruleset(sc.ruleset).extra_deck
    decks = {f"{extra}_deck": sc.menhir} if extra else {}
    return Game(sc.players, seed=0, regular_deck=sc.regular, ruleset=sc.ruleset, **decks, **sc.flags)


def apply_play(game: Game, p: Play, step: int = 0) -> None:
    """Place the tile and take the decisions of its turn; AssertionError if the game disagrees."""
    where = f"play {step} {p}"
    assert game.phase == "place", f"{where}: the game is in phase {game.phase!r}, not 'place'"
    if p.by is not None:
        assert game.current_player == p.by, f"{where}: seat {game.current_player} is placing, expected {p.by}"
    game.place(p.x, p.y, p.rotation)
    if game.phase == "retake":
        if p.retake is None:
            game.decide("retake", None)
        else:
            game.decide("retake", *p.retake)
    else:
        assert p.retake is None, f"{where}: no shaman retake was offered (phase {game.phase!r})"
    if game.phase == "occupy":
        if p.recall is not None:
            game.decide("retake", *p.recall)
        elif p.occupant is None:
            game.occupy(None)
        else:
            game.occupy(*p.occupant)
    else:
        assert p.occupant is None and p.recall is None, (
            f"{where}: no occupant decision was offered (phase {game.phase!r})"
        )


def run(sc: Scenario, upto: int | None = None) -> Game:
    """Replay the first ``upto`` plays (all by default) and return the game."""
    game = new_game(sc)
    for i, p in enumerate(sc.plays[:upto]):
        apply_play(game, p, i)
    return game


def event_matches(event: dict, expected: dict) -> bool:
    """True if every key of ``expected`` is in ``event`` with an equal value."""
    return all(key in event and event[key] == value for key, value in expected.items())


def scoring_events(game: Game) -> list[dict]:
    """The game's events without the bookkeeping ones (discards)."""
    return [e for e in game.events if e["type"] != "TILE_DISCARDED"]


def find_events(game: Game, kind: str) -> list[dict]:
    return [e for e in game.events if e["type"] == kind]


def check(sc: Scenario) -> Game:
    """Run the scenario and assert its expected scores, events and end state."""
    game = run(sc)
    if sc.scores is not None:
        assert game.scores == sc.scores, f"scores {game.scores}, expected {sc.scores}; events {game.events}"
    if sc.over is not None:
        assert game.is_over == sc.over, f"is_over {game.is_over}, expected {sc.over}"
    if sc.events:
        actual = scoring_events(game)
        assert len(actual) == len(sc.events), f"events {actual}\nexpected {sc.events}"
        for got, want in zip(actual, sc.events):
            assert event_matches(got, want), f"event {got} does not match {want}\nall events: {actual}"
    return game
