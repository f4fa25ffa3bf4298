"""Carcassonne random play at scale (DESIGN.md test layer 3), every flag combination, 2-5 players.

* the shared invariants (tests/invariants.py) after every step, the BFS oracle ``check_areas``
  (fields' border bitsets included) every ``ORACLE_EVERY`` steps and at the end;
* the legal placements (B2.10, V1.4, V1.5) and deployments (B3.10, A1.3, A1.5) against slow
  recomputations from the raw tile catalogue;
* every step's points against an independent scorer (P4, the abbot's return, final scoring with
  farmers) that reads only the raw catalogue, the board and the figures;
* B games stepped together equal the same games stepped one by one.

CPU time (``/usr/bin/time``, a shared 2-core machine): the 208 games with invariants ~40 s, the whole
file ~70 s; every test stays below ~20 s.
"""

from __future__ import annotations

import numpy as np
import pytest

from hg_env.core import engine
from hg_env.core.actions import action_layout
from hg_env.core.rules import Rules
from hg_env.core.ruleset import AREA_PIECE, SPECIAL_PIECE
from hg_env.core.state import OCCUPY, OVER, PLACE, State
from tests.invariants import (
    check_areas,
    check_batch_equals_singles,
    check_frontier,
    check_mask,
    check_pieces,
    check_tiles,
    seed_shares,
)
from tests.oracle import areas, board_of, catalogue, shown_side

RULESET = "carcassonne"
FLAGS = [
    {"abbot": True, "river": False},
    {"abbot": False, "river": False},
    {"abbot": True, "river": True},
    {"abbot": False, "river": True},
]
FLAG_IDS = ["abbot", "plain", "abbot+river", "river"]
ORACLE_EVERY = 6  # the BFS oracle dominates the CPU time: every 6th step, at a different step per game
STEP = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}
RIVER_KINDS = ("river", "river_lake")
BLOCK = [(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]


def random_actions(state: State, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per running game (-1 for finished ones)."""
    mask = engine.legal_action_mask(state)
    actions = np.full(state.batch_size, -1)
    for i in range(state.batch_size):
        check_mask(state, i, mask[i])
        if state.phase[i] != OVER:
            actions[i] = rng.choice(np.flatnonzero(mask[i]))
    return actions


# ---------------------------------------------------------------- raw-catalogue recomputations


def zone_type(tile: int, local: int) -> str:
    return next(z["type"] for z in catalogue(RULESET)[tile]["zones"] if z["zone"] == local)


def legal_placements(state: State, game: int) -> set[tuple[int, int, int]]:
    """B2.10 (R4.1), V1.4, V1.5 by brute force over the board, from the raw catalogue."""
    tile = int(state.tile_to_place[game])
    placed = board_of(state, game)
    reach = state.rules.reach
    river = catalogue(RULESET)[tile]["kind"] in RIVER_KINDS
    out = set()
    for x in range(-reach, reach + 1):
        for y in range(-reach, reach + 1):
            if (x, y) in placed:
                continue
            for rot in range(4):
                if _fits(tile, rot, x, y, placed, river):
                    out.add((x, y, rot))
    return out


def _fits(tile: int, rot: int, x: int, y: int, placed: dict, river: bool) -> bool:
    neighbours, entry = 0, False
    for d, (dx, dy) in STEP.items():
        other = placed.get((x + dx, y + dy))
        if other is None:
            continue
        neighbours += 1
        mine = shown_side(tile, rot, d, RULESET)[0]
        if mine != shown_side(other[0], other[1], (d + 2) % 4, RULESET)[0]:
            return False
        entry |= mine == "river"
    if not neighbours:
        return False
    if not river:
        return True
    if not entry:  # V1.4: only at the open end, where a placed river side waits
        return False
    for d, (dx, dy) in STEP.items():  # V1.5: the river leaves towards no tile
        leaves = shown_side(tile, rot, d, RULESET)[0] == "river" and (x + dx, y + dy) not in placed
        if leaves and any((qx - x) * dx + (qy - y) * dy > 0 for qx, qy in placed):
            return False
    return True


def figures(state: State, game: int) -> dict[tuple[int, int], tuple[int, int]]:
    """{(tile, local zone): (seat, piece)} of every figure on the board."""
    out = {}
    for t in np.flatnonzero(state.occupant_seat[game] >= 0):
        out[(int(t), int(state.occupant_local[game, t]))] = (
            int(state.occupant_seat[game, t]),
            int(state.occupant_kind[game, t]),
        )
    return out


def area_of(found: list[dict]) -> dict[tuple[int, int], dict]:
    """(tile, local zone) -> its area, for the oracle's area list."""
    return {zone: a for a in found for zone in a["zones"]}


def legal_deployments(state: State, game: int) -> tuple[set, set]:
    """B3.10, A1.3, A1.5 by brute force: the (kind, local zone) deployments on the tile just placed,
    and the cells of the own abbot that may be taken back."""
    rules, seat = state.rules, int(state.current[game])
    cell = int(state.last_cell[game])
    tile = int(state.board_tile[game, cell])
    where = area_of(areas(state, game)["area"])
    held = figures(state, game)
    meeples = state.supply[game, seat, AREA_PIECE] > 0
    abbot = rules.abbot and state.supply[game, seat, SPECIAL_PIECE] > 0
    out = set()
    for z in catalogue(RULESET)[tile]["zones"]:
        kind, local = z["type"], z["zone"]
        if kind in ("road", "city", "field") and meeples and not where[(tile, local)]["occupants"].any():
            out.add(("meeple", local))
        if kind == "monastery" and meeples:
            out.add(("meeple", local))
        if kind in ("monastery", "garden") and abbot:
            out.add(("abbot", local))
    placed = board_of(state, game)
    xy = {v[0]: k for k, v in placed.items()}
    recall = set()
    for (t, _local), (owner, piece) in held.items():
        if owner == seat and piece == SPECIAL_PIECE and _block_count(placed, *xy[t]) < 9:
            recall.add(state.board.cell(*xy[t]))
    return out, recall


def _block_count(placed: dict, x: int, y: int) -> int:
    """Tiles in the 3x3 block round (x, y) (B4.5, B5.2.3)."""
    return sum((x + dx, y + dy) in placed for dx, dy in BLOCK)


def check_masks(state: State, game: int) -> None:
    """The engine's place / occupy masks equal the brute-force recomputations."""
    layout = action_layout(state.rules)
    mask = engine.legal_action_mask(state, [game])[0]
    if state.phase[game] == PLACE:
        got = {layout.decode(int(a))[1:] for a in np.flatnonzero(mask[: layout.occupy])}
        assert got == legal_placements(state, game), f"tile {state.tile_to_place[game]}"
    elif state.phase[game] == OCCUPY:
        deploy, recall = legal_deployments(state, game)
        retake, retake_end = layout.segment("retake")
        got = {layout.decode(int(a)) for a in np.flatnonzero(mask[layout.occupy : retake]) + layout.occupy}
        assert got == deploy
        assert set((np.flatnonzero(mask[retake:retake_end])).tolist()) == recall
        assert deploy or recall or not state.rules.auto_skip_forced_actions  # R3.7: skipped when empty


# ---------------------------------------------------------------- independent scorer


class Scorer:
    """Points of one decision, recomputed from the raw catalogue, the board and the figures.

    ``before`` is the game before the decision, ``after`` after it (the board the decision's P4 and a
    final scoring look at). Returns the points per seat and the figures left standing."""

    def __init__(self, before: State, after: State, game: int, action: int) -> None:
        self.after, self.game = after, game
        self.placed = board_of(after, game)
        self.cell_of = {v[0]: k for k, v in self.placed.items()}
        self.found = [a for a in areas(after, game)["area"] if a["type"] in ("road", "city", "field")]
        self.where = area_of(self.found)
        self.points = np.zeros(5, dtype=np.int64)
        self.held = figures(before, game)
        self.action = action
        self.phase = int(before.phase[game])
        self.seat = int(before.current[game])

    def run(self) -> tuple[np.ndarray, dict]:
        if self.phase == PLACE and self.after.phase[self.game] == OCCUPY:
            return self.points, self.held  # the tile is down; its deployment and P4 come next
        layout = action_layout(self.after.rules)
        if self.phase == OCCUPY:
            self._deploy(layout.decode(self.action))
        self._score_turn()
        if self.after.phase[self.game] == OVER:
            self._final()
        return self.points, self.held

    def _last_tile(self) -> tuple[int, int, int]:
        x, y = self.after.board.xy(int(self.after.last_cell[self.game]))
        return self.placed[(x, y)][0], x, y

    def _deploy(self, decision: tuple) -> None:
        tile = self._last_tile()[0]
        if decision[0] in ("meeple", "abbot"):
            self.held[(tile, decision[1])] = (self.seat, AREA_PIECE if decision[0] == "meeple" else SPECIAL_PIECE)
        elif decision[0] == "retake":  # A1.5: the abbot back, 1 + neighbours at once
            at = self.placed[(decision[1], decision[2])][0]
            [key] = [k for k in self.held if k[0] == at]
            assert self.held.pop(key) == (self.seat, SPECIAL_PIECE)
            self.points[self.seat] += _block_count(self.placed, decision[1], decision[2])

    def _majority(self, zones: set, value: int) -> None:
        seats = np.zeros(5, dtype=np.int64)
        for key in [k for k in self.held if k in zones]:
            seats[self.held[key][0]] += 1
        if seats.max() > 0:
            self.points[seats == seats.max()] += value

    def _score_turn(self) -> None:
        """P4: closed roads and cities with a zone on the placed tile; surrounded cloisters round it."""
        tile, x, y = self._last_tile()
        closed = {id(a): a for a in self.found if a["type"] != "field" and not a["open"] and tile in a["tiles"]}
        for a in closed.values():
            self._majority(a["zones"], len(a["tiles"]) * (1 if a["type"] == "road" else 2) + 2 * a["bonus"])
        for a in closed.values():
            for key in [k for k in self.held if k in a["zones"]]:
                del self.held[key]
        for dx, dy in BLOCK:
            at = self.placed.get((x + dx, y + dy))
            if at is None or _block_count(self.placed, x + dx, y + dy) < 9:
                continue
            for key in [k for k in self.held if k[0] == at[0] and zone_type(*k) in ("monastery", "garden")]:
                self.points[self.held.pop(key)[0]] += 9

    def _final(self) -> None:
        """B5.2, F1.4: every figure left scores its feature by majority."""
        closed_cities = {id(a) for a in self.found if a["type"] == "city" and not a["open"]}
        for a in self.found:
            if not any(k in a["zones"] for k in self.held):
                continue
            if a["type"] == "road":
                value = len(a["tiles"])
            elif a["type"] == "city":
                value = len(a["tiles"]) + a["bonus"]
            else:
                cities = {id(self.where[c]) for c in a["borders"]} & closed_cities
                value = 3 * len(cities)
            self._majority(a["zones"], value)
        for (tile, local), (seat, _) in self.held.items():
            if zone_type(tile, local) in ("monastery", "garden"):
                self.points[seat] += _block_count(self.placed, *self.cell_of[tile])


def play_and_score(num_players: int, seeds: list[int], **flags) -> State:
    """Random games where every decision's points equal the independent scorer's."""
    state = engine.new_games(num_players, Rules(ruleset=RULESET, **flags), seeds=seeds, record_events=False)
    rng = np.random.default_rng(seeds[0])
    while (state.phase != OVER).any():
        actions = random_actions(state, rng)
        before = state.copy()
        engine.step(state, actions)
        for i in np.flatnonzero(actions >= 0):
            points, held = Scorer(before, state, i, int(actions[i])).run()
            np.testing.assert_array_equal(state.score[i] - before.score[i], points[:5], err_msg=f"game {i}")
            assert figures(state, i) == held, f"game {i}: figures {figures(state, i)}, expected {held}"
    return state


# ---------------------------------------------------------------- tests


@pytest.mark.parametrize("first, last", seed_shares(5, 13))
@pytest.mark.parametrize("flags", FLAGS, ids=FLAG_IDS)
def test_random_games_keep_invariants(flags: dict, first: int, last: int) -> None:
    """52 games per flag combination (13 each of 2-5 players; 5 each in the default run, the other 8 with
    the slow suites): 208 in all; the oracle on every 6th step."""
    for num_players in (2, 3, 4, 5):
        seeds = list(range(1000 * num_players + first, 1000 * num_players + last))
        state = engine.new_games(num_players, Rules(ruleset=RULESET, **flags), seeds=seeds)
        rng = np.random.default_rng(num_players)
        previous, steps = state.score.copy(), 0
        while (state.phase != OVER).any():
            running = np.flatnonzero(state.phase != OVER)
            engine.step(state, random_actions(state, rng))
            steps += 1
            assert (state.score >= previous).all(), "a score decreased"
            previous = state.score.copy()
            for i in running:
                check_pieces(state, i)
                check_tiles(state, i)
                check_frontier(state, i)
                if (steps + i) % ORACLE_EVERY == 0 or state.phase[i] == OVER:  # and once at the end
                    check_areas(state, i)
        for i in range(state.batch_size):
            check_game_log(state, i, flags)


def check_game_log(state: State, game: int, flags: dict) -> None:
    """A finished game: every land tile placed or discarded, every river tile placed and dealt first
    (V1.2, V1.6), only the page's events, none of the abbot's without it (A1.7), scores the sums of
    the events naming each seat, the winners last (B5.4)."""
    events = state.events[game]
    kinds = {e["type"] for e in events}
    assert kinds <= {
        "ROAD_SCORED",
        "CITY_SCORED",
        "MONASTERY_SCORED",
        "GARDEN_SCORED",
        "ABBOT_RETURNED",
        "FIELD_SCORED",
        "TILE_DISCARDED",
        "WINNERS",
    }
    if not flags["abbot"]:
        assert not kinds & {"GARDEN_SCORED", "ABBOT_RETURNED"}
    points = np.zeros(5, dtype=np.int64)  # the page's event log: a score is the sum of its events
    for e in events:
        if e["type"] != "WINNERS":
            for seat in e.get("scorers", [e["player"]] if "player" in e else []):
                points[seat] += e["points"]
    np.testing.assert_array_equal(points, state.score[game])
    scores = state.score[game, : state.num_players[game]]
    assert events[-1] == {
        "type": "WINNERS",
        "players": np.flatnonzero(scores == scores.max()).tolist(),
        "points": int(scores.max()),
    }
    on_board = state.tile_cell[game] >= 0
    land = np.arange(72)
    assert (on_board[land] | state.discarded[game, land]).all()
    assert on_board[72:].tolist() == [flags["river"]] * 12
    if flags["river"]:
        river = np.arange(72, 84)
        assert not state.discarded[game, river].any()  # V1.6: every river tile fits on a board of reach 12
        order = state.regular_deck[game, :11]
        assert sorted(order[:10].tolist()) == list(range(73, 83)) and order[10] == 83


@pytest.mark.parametrize("flags", FLAGS, ids=FLAG_IDS)
def test_masks_equal_brute_force(flags: dict) -> None:
    """Placements and deployments of 8 games (2-5 players) against the raw-catalogue recomputation, every
    4th decision (and every decision of the river phase)."""
    state = engine.new_games([2, 3, 4, 5] * 2, Rules(ruleset=RULESET, **flags), seeds=list(range(40, 48)))
    rng = np.random.default_rng(1)
    steps = 0
    while (state.phase != OVER).any():
        for i in range(state.batch_size):
            river_phase = flags["river"] and state.tile_cell[i, 83] < 0
            if state.phase[i] != OVER and (steps % 4 == 0 or river_phase):
                check_masks(state, i)
        engine.step(state, random_actions(state, rng))
        steps += 1


@pytest.mark.parametrize("flags", FLAGS, ids=FLAG_IDS)
def test_every_decision_scores_as_the_independent_scorer(flags: dict) -> None:
    """8 games per flag combination (2-5 players): each decision's points and the figures left match."""
    for num_players, seeds in ((2, [7, 8]), (3, [9, 10]), (4, [11, 12]), (5, [13, 14])):
        play_and_score(num_players, seeds, **flags)


def test_every_decision_scores_as_the_independent_scorer_without_auto_skip() -> None:
    """The same with ``auto_skip_forced_actions=False`` (P4 always after an occupy decision)."""
    play_and_score(3, [21, 22, 23], abbot=True, river=True, auto_skip_forced_actions=False)


@pytest.mark.parametrize("flags", FLAGS, ids=FLAG_IDS)
def test_batch_equals_games_stepped_one_by_one(flags: dict) -> None:
    """B games stepped together (2-5 players mixed, each in its own phase) equal the same games alone."""
    rules = Rules(ruleset=RULESET, **flags)
    players = [2, 3, 4, 5, 2, 5]
    seeds = list(range(900, 900 + len(players)))
    check_batch_equals_singles(players, seeds, rules)
