"""Text and image rendering (hg_env.render): golden text board, image geometry and colours.

Regenerate the golden files after an intended change with::

    HG_UPDATE_GOLDEN=1 pytest tests/test_render.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hg_env import Game
from hg_env.core.ruleset import get_ruleset
from hg_env.core.tiles import ANIMALS
from hg_env.render import (
    ANSI_WIDTH,
    CANCEL_COLOR,
    PANEL_WIDTH,
    PLAYER_COLORS,
    TABLE_COLOR,
    _content_spots,
    _tile_block,
    _wrap,
    ansi_board,
    ansi_board_width,
    board_bounds,
    board_layout,
    describe_event,
    render_ansi,
    render_rgb,
    side_zones,
    tile_geometry,
    tile_zones,
    zone_raster,
    zone_summary,
)
from hg_env.rulesets.carcassonne.presentation import COAT_COLOR
from hg_env.rulesets.hg2002.presentation import GOLD_COLOR

GOLDEN = Path(__file__).parent / "golden"
# Fixed decks, so that the scripted game below never depends on a random generator.
REGULAR_DECK = [
    37, 18, 75, 65, 5, 57, 52, 51, 66, 33, 68, 41, 77, 17, 62, 11, 58, 72, 4, 60, 78, 39, 59, 35, 76, 43,
    3, 23, 15, 29, 70, 14, 47, 61, 7, 12, 74, 45, 32, 13, 63, 64, 0, 67, 26, 9, 50, 34, 20, 38, 44, 54,
    30, 55, 49, 31, 42, 48, 27, 2, 19, 22, 1, 24, 25, 6, 10, 28, 53, 40, 21, 69, 46, 71, 73, 8, 16, 36,
]  # fmt: skip
MENHIR_DECK = [94, 88, 79, 90, 81, 91, 83, 93, 87, 80, 85, 89, 86, 84, 92, 82]
HG2002_DECK = [
    19, 48, 7, 72, 62, 10, 63, 75, 36, 34, 74, 45, 12, 22, 16, 27, 42, 30, 25, 33, 5, 53, 38, 8, 39, 71,
    61, 51, 37, 29, 6, 52, 59, 2, 76, 47, 44, 58, 15, 66, 57, 4, 68, 46, 70, 18, 24, 9, 23, 77, 65, 13,
    55, 69, 28, 40, 43, 67, 32, 1, 73, 35, 31, 26, 3, 64, 41, 20, 60, 78, 50, 21, 56, 54, 14, 49, 11, 17,
]  # fmt: skip
BONUS_DECK = [89, 87, 81, 82, 86, 83, 85, 84, 79, 90, 88, 80]  # the shrine and the fire first
# The river's tiles (the lake 83 last), then the land tiles (with river=True the start tile 0 is one of them).
CARCASSONNE_RIVER_DECK = [
    76, 79, 73, 80, 77, 74, 75, 82, 78, 81, 83, 36, 62, 49, 58, 29, 42, 41, 55, 21, 47, 61, 52, 18, 3, 24,
    37, 48, 60, 54, 30, 26, 10, 28, 67, 15, 69, 2, 20, 63, 45, 68, 46, 35, 31, 13, 23, 39, 51, 19, 32, 12,
    65, 0, 6, 8, 11, 44, 14, 56, 1, 5, 25, 40, 34, 64, 53, 4, 16, 59, 7, 50, 43, 66, 17, 57, 22, 27, 33, 71,
    70, 9, 38,
]  # fmt: skip
DECKS = {
    "hg2020": {"regular_deck": REGULAR_DECK, "menhir_deck": MENHIR_DECK},
    "hg2002": {"regular_deck": HG2002_DECK, "bonus_deck": BONUS_DECK},
    "carcassonne": {"regular_deck": CARCASSONNE_RIVER_DECK, "river": True},
}

SIDE_TYPE, TILE_ZONE = get_ruleset("hg2020").tiles.SIDE_TYPE, get_ruleset("hg2020").tiles.TILE_ZONE


def random_game(ruleset: str, seed: int, **flags: object) -> Game:
    """A finished two-player game of uniformly random moves (the sprawling boards: the widest text boards)."""
    game = Game(2, seed=seed, ruleset=ruleset, **flags)
    rng = np.random.default_rng(seed)
    while not game.is_over:
        actions = game.legal_actions()
        game.step(actions[rng.integers(len(actions))])
    return game


def scripted_game(decisions: int, num_players: int = 2, ruleset: str = "hg2020") -> Game:
    """A deterministic game: fixed decks, a fixed choice rule, occupants whenever possible."""
    game = Game(num_players, ruleset=ruleset, **DECKS[ruleset])
    for i in range(decisions):
        if game.is_over:
            break
        actions = game.legal_actions()
        if game.phase == "occupy" and len(actions) > 1:
            game.step(actions[i % (len(actions) - 1)])  # never "none", the last action
        else:
            game.step(actions[(i * 37) % len(actions)])
    return game


@pytest.fixture(scope="module")
def game() -> Game:
    return scripted_game(45)


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("HG_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing golden file {path}; run with HG_UPDATE_GOLDEN=1 to create it"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from the golden file"


# ---------------------------------------------------------------- text


def test_ansi_matches_golden(game: Game) -> None:
    check_golden("ansi_board.txt", render_ansi(game, names=["alice", "bob"], compact=False))


def test_ansi_compact_matches_golden(game: Game) -> None:
    check_golden("ansi_board_compact.txt", render_ansi(game, compact=True))


def test_ansi_shows_every_tile_occupant_and_score(game: Game) -> None:
    text = render_ansi(game, compact=False)
    board = text.split("legend:")[0]
    for tile, *_ in game.placed_tiles():
        assert f"{tile:<2}" in board
    for seat, kind, *_ in game.occupants():
        assert f"{kind[0]}{seat}@" in board
    assert board.count("@") == len(game.occupants())
    for seat, score in enumerate(game.scores):
        assert f"P{seat}: {score} points" in text
    assert f"to place tile {game.tile_to_place}" in text or game.phase != "place"


def test_ansi_is_plain_text_unless_coloured(game: Game) -> None:
    assert "\x1b[" not in render_ansi(game)
    assert "\x1b[31m" in render_ansi(game, color=True)


def test_game_render_modes(game: Game) -> None:
    assert game.render() == render_ansi(game)
    picture = game.render("rgb_array")
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    with pytest.raises(ValueError, match="render mode"):
        game.render("human")


# ---------------------------------------------------------------- image


def test_image_size_follows_the_cropped_board(game: Game) -> None:
    picture = render_rgb(game, tile_px=48)
    xmin, xmax, ymin, ymax = board_bounds(game)
    layout = board_layout(game, tile_px=48)
    width = layout.left + (xmax - xmin + 1) * 48 + 8 + PANEL_WIDTH
    height = max(layout.top + (ymax - ymin + 1) * 48 + 8, 600)
    assert picture.shape == (height, width, 3) and picture.dtype == np.uint8


def test_occupants_are_drawn_in_their_players_colours(game: Game) -> None:
    assert len({seat for seat, *_ in game.occupants()}) == 2, "the scripted game should show both players"
    picture = render_rgb(game)
    layout = board_layout(game)
    for seat, _, x, y, local in game.occupants():
        px, py = layout.occupant_pixel(game, x, y, local)
        assert tuple(picture[py, px]) == PLAYER_COLORS[seat]


def test_image_differs_only_where_one_tile_changes(game: Game) -> None:
    last = game.rules.board.xy(int(game.state.last_cell[0]))
    _, x, y, rot = next(
        (t, x, y, r)
        for t, x, y, r in game.placed_tiles()
        if (x, y) != last and (SIDE_TYPE[t, r] != SIDE_TYPE[t, (r + 1) % 4]).any()
    )
    turned = game.copy()
    turned.state.board_rot[0, game.rules.board.cell(x, y)] = (rot + 1) % 4
    before, after = render_rgb(game), render_rgb(turned)
    changed = np.argwhere((before != after).any(axis=2))
    assert len(changed), "turning a tile must change the picture"
    ox, oy = board_layout(game).cell_origin(x, y)
    px = board_layout(game).tile_px
    (top, left), (bottom, right) = changed.min(axis=0), changed.max(axis=0)
    assert ox - 2 <= left and right <= ox + px + 1 and oy - 2 <= top and bottom <= oy + px + 1


def test_cancelled_animals_are_crossed_out(game: Game) -> None:
    tile, x, y, rot = next(
        t for t in game.placed_tiles() if any(z.animals for z in tile_zones("hg2020", t[0]).values())
    )
    local, zone = next((z, zone) for z, zone in tile_zones("hg2020", tile).items() if zone.animals)
    trapped = game.copy()
    trapped.state.cancelled[0, TILE_ZONE[tile, local], ANIMALS.index(zone.animals[0])] = 1
    picture = render_rgb(trapped)
    spot = _content_spots("hg2020", tile, rot, local)["animals"][0]
    cx, cy = board_layout(trapped).point(x, y, spot)
    assert tuple(picture[cy, cx]) == CANCEL_COLOR
    assert "x" in render_ansi(trapped, compact=False).split("legend:")[0]


def test_every_zone_has_its_occupant_spot_on_itself() -> None:
    for tile in range(95):
        for rot in (0, 3):
            geometry = tile_geometry("hg2020", tile, rot)
            raster = zone_raster("hg2020", tile, rot, 64)
            for local, zone in tile_zones("hg2020", tile).items():
                spot = geometry.occupant_at[local]
                assert ((spot > 0) & (spot < 1)).all()
                if zone.type != "lake":  # huts stand on the lake's shore
                    col, row = (spot * 64).astype(int)
                    assert raster[row, col] == local, f"tile {tile} r{rot} zone {local}"


def test_core_imports_without_pillow_and_names_the_extra() -> None:
    code = (
        "import sys; sys.modules['PIL'] = None\n"
        "import hg_env\n"
        "from hg_env.render import render_ansi, render_rgb\n"
        "game = hg_env.Game(2, seed=0)\n"
        "assert 'legend' in render_ansi(game)\n"
        "try:\n"
        "    render_rgb(game)\n"
        "except ImportError as err:\n"
        "    print(err)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "hg-env[render]" in result.stdout


# ---------------------------------------------------------------- the other rulesets: hg2002, carcassonne


@pytest.fixture(scope="module", params=["hg2002", "carcassonne"])
def other(request: pytest.FixtureRequest) -> Game:
    """40 decisions of a scripted classic game (a bonus tile with the shrine on the board) or a Carcassonne
    game with the river (knights, highwaymen, farmers, monks and an abbot on the board)."""
    return scripted_game(40, ruleset=request.param)


def test_other_rulesets_ansi_match_golden(other: Game) -> None:
    check_golden(f"ansi_board_{other.ruleset}.txt", render_ansi(other, names=["alice", "bob"], compact=False))


def test_carcassonne_compact_ansi_matches_golden() -> None:
    check_golden(
        "ansi_board_carcassonne_compact.txt", render_ansi(scripted_game(40, ruleset="carcassonne"), compact=True)
    )


def test_hg2002_text_names_gold_bonus_tiles_and_the_shrine() -> None:
    game = scripted_game(40, ruleset="hg2002")
    text = render_ansi(game, compact=False)
    board, legend = text.split("legend:")
    assert "$" in board and "Sr" in board and "Vo" in board, "gold, the shrine (bonus tile 89), the volcano"
    assert "$ gold nugget" in legend and "Sr shrine" in legend and "Fi fire" in legend
    assert "bonus tiles left" in text and "menhir" not in text
    assert "^ menhir" not in text


def test_carcassonne_text_board_and_status() -> None:
    game = scripted_game(40, ruleset="carcassonne")
    text = render_ansi(game, compact=False)
    board, legend = text.split("legend:")
    for seat, kind, *_ in game.occupants():
        assert f"{kind[0]}{seat}@" in board
    assert board.count("@") == len(game.occupants())
    assert "a1@M" in board or "a1@G" in board, "the abbot of P1 stands on a monastery or garden"
    assert "=" in board and "C" in board and "~" in board, "roads, cities and the river"
    assert "= road" in legend and "C city" in legend and "S coat of arms" in legend
    assert "supply 0 meeples, 1 abbot" in text
    assert "P1 may take back their abbot from (-4,4)" in text, "no figure left, only the abbot's return"


@pytest.mark.parametrize("ruleset", ["hg2020", "hg2002", "carcassonne"])
def test_the_zones_of_a_tile_read_apart(ruleset: str) -> None:
    """The occupy listing tells two meadows / fields of one tile apart (sides, half sides, lakes' rivers)."""
    for tile in range(get_ruleset(ruleset).tiles.num_tiles):
        texts = [zone_summary(ruleset, tile, z, 1) for z in tile_zones(ruleset, tile)]
        assert len(set(texts)) == len(texts), (tile, texts)
    assert zone_summary("carcassonne", 74, 1, 0) == "field (En, Wn) next to city 0"
    assert zone_summary("carcassonne", 74, 3, 0) == "field (Es, Ws) next to city 4"
    assert zone_summary("hg2002", 0, 2, 0) == "meadow (Ws)"


def test_other_occupants_in_their_players_colours(other: Game) -> None:
    assert len({seat for seat, *_ in other.occupants()}) == 2
    picture = render_rgb(other)
    layout = board_layout(other)
    for seat, _, x, y, local in other.occupants():
        px, py = layout.occupant_pixel(other, x, y, local)
        assert tuple(picture[py, px]) == PLAYER_COLORS[seat]


def test_farmers_lie_knights_stand_and_the_abbot_wears_a_hood() -> None:
    game = scripted_game(40, ruleset="carcassonne")
    picture = render_rgb(game, tile_px=160)
    layout = board_layout(game, tile_px=160)
    half = 160 * 0.3 / 2  # a figure's half size (render._figure_size)

    def color(cx: int, cy: int, dx: float, dy: float) -> tuple:
        return tuple(picture[round(cy + dy * half), round(cx + dx * half)])

    seen = set()
    for seat, kind, x, y, local in game.occupants():
        cx, cy = layout.occupant_pixel(game, x, y, local)
        zone = tile_zones("carcassonne", game.tile_at(x, y)[0])[local].type
        player = PLAYER_COLORS[seat]
        if kind == "abbot":
            assert color(cx, cy, 0, -0.66) == (240, 205, 170), "the abbot's face under its hood"
            seen.add("abbot")
        elif zone == "field":  # the head to the east, the legs apart to the west
            assert color(cx, cy, 0.7, 0) == player and color(cx, cy, -0.8, 0) != player
            seen.add("farmer")
        else:  # the head up, the legs apart below
            assert color(cx, cy, 0, -0.7) == player and color(cx, cy, 0, 0.8) != player
            seen.add("standing")
    assert seen == {"abbot", "farmer", "standing"}


def test_other_image_differs_only_where_one_tile_changes(other: Game) -> None:
    sides = other.rules.spec.tiles.SIDE_TYPE
    last = other.rules.board.xy(int(other.state.last_cell[0]))
    _, x, y, rot = next(
        (t, x, y, r)
        for t, x, y, r in other.placed_tiles()
        if (x, y) != last and (sides[t, r] != sides[t, (r + 1) % 4]).any()
    )
    turned = other.copy()
    turned.state.board_rot[0, other.rules.board.cell(x, y)] = (rot + 1) % 4
    changed = np.argwhere((render_rgb(other) != render_rgb(turned)).any(axis=2))
    assert len(changed), "turning a tile must change the picture"
    layout = board_layout(other)
    ox, oy = layout.cell_origin(x, y)
    (top, left), (bottom, right) = changed.min(axis=0), changed.max(axis=0)
    assert ox - 2 <= left and right <= ox + layout.tile_px + 1 and oy - 2 <= top and bottom <= oy + layout.tile_px + 1


@pytest.mark.parametrize(
    ("ruleset", "key", "color"), [("hg2002", "gold", GOLD_COLOR), ("carcassonne", "coat", COAT_COLOR)]
)
def test_gold_and_coats_of_arms_are_drawn(ruleset: str, key: str, color: tuple) -> None:
    """Every placed tile with gold nuggets (coats of arms) shows the gold (the blue shield) on its cell."""
    game = scripted_game(40, ruleset=ruleset)
    picture = render_rgb(game)
    layout = board_layout(game)
    marked = [
        (x, y) for t, x, y, _ in game.placed_tiles() if any(key in z.glyphs for z in tile_zones(ruleset, t).values())
    ]
    assert marked, f"the scripted {ruleset} game should show {key}"
    for x, y in marked:
        ox, oy = layout.cell_origin(x, y)
        cell = picture[oy : oy + layout.tile_px, ox : ox + layout.tile_px]
        assert (cell == color).all(axis=2).any(), (x, y)


@pytest.mark.parametrize("ruleset", ["hg2002", "carcassonne"])
def test_every_zone_of_other_rulesets_has_its_occupant_spot_on_itself(ruleset: str) -> None:
    for tile in range(get_ruleset(ruleset).tiles.num_tiles):
        rot = tile % 4  # one rotation a tile, each rotation on a quarter of the tiles (the time)
        geometry = tile_geometry(ruleset, tile, rot)
        raster = zone_raster(ruleset, tile, rot, 64)
        for local, zone in tile_zones(ruleset, tile).items():
            if ruleset == "carcassonne" and zone.type == "river":  # nobody stands on it (V1.8)
                assert local not in geometry.occupant_at
                continue
            spot = geometry.occupant_at[local]
            assert ((spot > 0) & (spot < 1)).all()
            if zone.type != "lake":
                col, row = (spot * 64).astype(int)
                assert raster[row, col] == local, f"{ruleset} tile {tile} r{rot} zone {local}"


def test_caches_are_per_ruleset() -> None:
    """The same tile id is another tile in each ruleset; nothing leaks from one to the other."""
    assert tile_zones("hg2020", 0) != tile_zones("carcassonne", 0)
    assert "city" in zone_summary("carcassonne", 0, 0) and "city" not in zone_summary("hg2020", 0, 0)
    hg = zone_raster("hg2020", 0, 0, 32)
    carcassonne = zone_raster("carcassonne", 0, 0, 32)
    assert not np.array_equal(hg, carcassonne)
    assert np.array_equal(zone_raster("hg2020", 0, 0, 32), hg)


@pytest.mark.parametrize(
    ("event", "sentence"),
    [
        (
            {"type": "BONUS_EXTRA_TURN", "player": 1, "tileIds": [0, 6]},
            "P1 closed a forest with gold: a bonus tile turn",
        ),
        (
            {"type": "CITY_SCORED", "coats": 1, "scorers": [0, 1], "points": 8, "tileCount": 3, "tileIds": [1, 2, 3]},
            "P0 & P1 +8: completed city of 3 tiles, 1 coat of arms",
        ),
        (
            {"type": "CITY_SCORED", "coats": 2, "scorers": [0], "points": 3, "tileCount": 1, "complete": False},
            "P0 +3: unfinished city of 1 tile, 2 coats of arms",
        ),
        ({"type": "ROAD_SCORED", "scorers": [1], "points": 3, "tileCount": 3}, "P1 +3: completed road of 3 tiles"),
        (
            {"type": "MONASTERY_SCORED", "scorers": [0], "points": 9, "neighbours": 8, "complete": True, "tile": 1},
            "P0 +9: completed monastery",
        ),
        (
            {"type": "GARDEN_SCORED", "scorers": [1], "points": 4, "neighbours": 3, "complete": np.False_},
            "P1 +4: unfinished garden with 3 neighbours",
        ),
        (
            {"type": "ABBOT_RETURNED", "player": 0, "points": 3, "feature": "garden", "neighbours": 2},
            "P0 took the abbot back from a garden: +3 (2 neighbours)",
        ),
        (
            {"type": "FIELD_SCORED", "scorers": [0], "points": 6, "cities": 2},
            "P0 +6: farmers of a field next to 2 completed cities",
        ),
    ],
)
def test_event_sentences(event: dict, sentence: str) -> None:
    assert describe_event(event) == sentence


def test_carcassonne_events_are_json_data() -> None:
    game = scripted_game(400, ruleset="carcassonne")
    assert game.is_over and any(e["type"] in ("MONASTERY_SCORED", "GARDEN_SCORED") for e in game.events)
    json.dumps(game.events)


# ---------------------------------------------------------------- issue 30: text board size and topology


def topology(ruleset: str, tile: int, rotation: int) -> tuple:
    """What a placed tile's features are and how they connect: each zone's kind with the side slots it
    touches as placed (direction, slot, slots on that side), and for a lake the rivers that feed it."""
    zones = tile_zones(ruleset, tile)
    slots: dict[int, list] = {z: [] for z in zones}
    for d in range(4):
        on_side = side_zones(ruleset, tile, rotation, d)
        for i, z in enumerate(on_side):
            slots[z].append((d, i, len(on_side)))
    sided = {z: (zones[z].type, tuple(slots[z])) for z in zones}
    return tuple(sorted((*sided[z], tuple(sorted(sided[r] for r in zone.rivers))) for z, zone in zones.items()))


def drawing(ruleset: str, tile: int, rotation: int) -> str:
    """The full text block of a placed tile without its id (which alone would tell any two tiles apart)."""
    rows = _tile_block(None, ruleset, tile, rotation)
    assert rows[1][1:3] == f"{tile:<2}"
    rows[1] = rows[1][0] + "  " + rows[1][3:]
    return "\n".join(rows)


@pytest.mark.parametrize("ruleset", ["hg2020", "hg2002", "carcassonne"])
def test_tiles_of_different_topology_draw_apart(ruleset: str) -> None:
    seen: dict[str, tuple] = {}
    for tile in range(get_ruleset(ruleset).tiles.num_tiles):
        for rotation in range(4):
            key = topology(ruleset, tile, rotation)
            first = seen.setdefault(drawing(ruleset, tile, rotation), (key, tile, rotation))
            assert first[0] == key, f"{ruleset}: tile {tile} r{rotation} draws like tile {first[1]} r{first[2]}"


def test_a_city_through_a_tile_never_reads_like_two_city_caps() -> None:
    """Carcassonne tile 18: one city from side to side; tile 19: two city caps on opposite sides."""

    def city_signs(tile: int, rotation: int) -> list[str]:
        rows = _tile_block(None, "carcassonne", tile, rotation)
        sides = [rows[0][1:-1], rows[-1][1:-1], "".join(r[0] for r in rows[1:-1]), "".join(r[-1] for r in rows[1:-1])]
        return sorted(side[0] for side in sides if side[0] in "Cc")

    for rotation in range(4):
        assert city_signs(18, rotation) == ["C", "C"], "the sides of one city share its sign"
        assert city_signs(19, rotation) == ["C", "c"], "a second city on the tile takes the next sign"
        for other in range(4):
            assert drawing("carcassonne", 18, rotation) != drawing("carcassonne", 19, other)


@pytest.mark.parametrize("ruleset", ["hg2020", "hg2002", "carcassonne"])
def test_compact_text_of_a_finished_game_fits_100_by_40(ruleset: str) -> None:
    for seed in range(4):
        game = random_game(ruleset, seed)
        full = render_ansi(game, compact=False).splitlines()
        compact = render_ansi(game, compact=True, names=["alice", "bob"]).splitlines()
        assert max(map(len, compact)) <= 100 and len(compact) <= 40, (seed, max(map(len, compact)), len(compact))
        assert max(map(len, full)) > 100, "a finished game's full board is the one that does not fit"
        assert game.render("ansi") == render_ansi(game, compact=True), "the default chooses the compact board"
        board = ansi_board(game, compact=True)
        for seat, kind, *_ in game.occupants():
            assert f"{kind[0]}{seat}" in board
        assert max(map(len, board.splitlines())) == ansi_board_width(game, compact=True)


def test_the_default_text_board_is_full_while_it_fits(game: Game) -> None:
    early = scripted_game(6)
    assert ansi_board_width(early) <= ANSI_WIDTH
    assert render_ansi(early) == render_ansi(early, compact=False)
    assert "y\\x" in render_ansi(early, width=20), "narrower than the full board: compact"


# ---------------------------------------------------------------- issue 30: the picture's text


def test_picture_sets_whole_event_sentences_with_spaces() -> None:
    game = random_game("carcassonne", 0)
    names = ["policy", "greedy"]
    texts: list[str] = []
    render_rgb(game, names=names, texts=texts)
    assert not any("…" in t for t in texts), "nothing is cut"
    laid_out = " ".join(texts)
    events = [e for e in game.events if e["type"] != "TILE_DISCARDED"][-5:]
    assert len(events) == 5
    for event in events:
        assert describe_event(event) in laid_out, describe_event(event)
    assert "P0 (policy): " in laid_out and " tiles" in laid_out


def test_wrapped_lines_fit_and_keep_every_word() -> None:
    text = "P1 (greedy) +6: unfinished monastery with 5 neighbours and policy:path=runs/quick/final_model.zip"
    lines = _wrap(text, 13, 150, indent=10)
    assert len(lines) > 2 and "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert " ".join(lines[:2]) in text


@pytest.mark.parametrize("ruleset", ["hg2020", "hg2002", "carcassonne"])
def test_picture_key_explains_the_zone_numbers_of_the_tile_just_placed(ruleset: str) -> None:
    game = scripted_game(1, ruleset=ruleset)  # the first tile placed, awaiting a figure
    assert game.phase == "occupy" and game.legal_occupants()
    texts: list[str] = []
    render_rgb(game, texts=texts)
    zone = min(z for _, z in game.legal_occupants())
    assert str(zone) in texts, "the number drawn on the tile"
    assert any(t.startswith(f"zone {zone} of the tile just placed") for t in texts)
    texts = []
    render_rgb(game, show_zone_numbers=False, texts=texts)
    assert not any("of the tile just placed" in t for t in texts), "no numbers drawn, none explained"


@pytest.mark.parametrize("ruleset", ["hg2020", "hg2002"])
def test_hunters_and_gatherers_key_names_pawns_and_huts(ruleset: str) -> None:
    texts: list[str] = []
    render_rgb(Game(2, seed=0, ruleset=ruleset), texts=texts)
    laid_out = " ".join(texts)
    assert "pawn: a hunter on a meadow, a gatherer on a forest, a fisher on a river" in laid_out
    assert "hut on a river or lake" in laid_out and "the tile placed last" in laid_out


def test_picture_names_each_seat(game: Game) -> None:
    texts: list[str] = []
    render_rgb(game, names=["policy", "greedy"], texts=texts)
    assert f"P0 (policy): {game.scores[0]}" in texts and f"P1 (greedy): {game.scores[1]}" in texts


def test_quickstart_final_board_names_the_agents_by_seat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hg_env import render
    from hg_env.arena import tournament
    from hg_env.train import quickstart

    game = random_game("hg2020", 0)
    policy = "policy:path=runs/quick/final_model.zip"
    result = {"agents": ["greedy", policy], "scores": game.scores, "index": 0, "game": 0, "record": game.to_record()}
    monkeypatch.setattr(tournament, "read_results", lambda path: [result])  # one game, greedy in seat 0
    drawn: list[str] = []
    real = render.render_rgb
    monkeypatch.setattr(render, "render_rgb", lambda *a, **k: real(*a, **k, texts=drawn))
    assert quickstart.draw_final_board(tmp_path, policy).is_file()
    assert f"P0 (greedy): {game.scores[0]}" in drawn and f"P1 (policy): {game.scores[1]}" in drawn


def test_a_crowded_panel_shows_fewer_whole_events_and_keeps_the_size() -> None:
    """Long names and events on a small board: the picture keeps its least height (a replay's frames keep one
    size) and shows the latest events whole, as many as fit."""
    game = scripted_game(60, ruleset="carcassonne")
    names = ["policy:path=runs/quick/final_model.zip", "mcts:c=1.4,widen=8,batch=16,deals=4"]
    texts: list[str] = []
    picture = render_rgb(game, bounds=(0, 0, 0, 0), names=names, texts=texts)
    assert picture.shape[0] == 600
    layout = board_layout(game, bounds=(0, 0, 0, 0))
    below = picture[layout.top + layout.tile_px + 8 :, : layout.left + layout.tile_px + 8]
    assert (below == TABLE_COLOR).all(), "nothing of the positions left out is drawn (figures included)"
    laid_out = " ".join(texts)
    assert describe_event([e for e in game.events if e["type"] != "TILE_DISCARDED"][-1]) in laid_out
    assert not any("…" in t for t in texts)
