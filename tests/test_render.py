"""Text and image rendering (hg_env.render): golden text board, image geometry and colours.

Regenerate the golden files after an intended change with::

    HG_UPDATE_GOLDEN=1 pytest tests/test_render.py
"""

from __future__ import annotations

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
    CANCEL_COLOR,
    PANEL_WIDTH,
    PLAYER_COLORS,
    _content_spots,
    board_bounds,
    board_layout,
    render_ansi,
    render_rgb,
    tile_geometry,
    tile_zones,
    zone_raster,
)

GOLDEN = Path(__file__).parent / "golden"
# Fixed decks, so that the scripted game below never depends on a random generator.
REGULAR_DECK = [
    37, 18, 75, 65, 5, 57, 52, 51, 66, 33, 68, 41, 77, 17, 62, 11, 58, 72, 4, 60, 78, 39, 59, 35, 76, 43,
    3, 23, 15, 29, 70, 14, 47, 61, 7, 12, 74, 45, 32, 13, 63, 64, 0, 67, 26, 9, 50, 34, 20, 38, 44, 54,
    30, 55, 49, 31, 42, 48, 27, 2, 19, 22, 1, 24, 25, 6, 10, 28, 53, 40, 21, 69, 46, 71, 73, 8, 16, 36,
]  # fmt: skip
MENHIR_DECK = [94, 88, 79, 90, 81, 91, 83, 93, 87, 80, 85, 89, 86, 84, 92, 82]

SIDE_TYPE, TILE_ZONE = get_ruleset("hg2020").tiles.SIDE_TYPE, get_ruleset("hg2020").tiles.TILE_ZONE


def scripted_game(decisions: int, num_players: int = 2) -> Game:
    """A deterministic game: fixed decks, a fixed choice rule, occupants whenever possible."""
    game = Game(num_players, regular_deck=REGULAR_DECK, menhir_deck=MENHIR_DECK)
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
    check_golden("ansi_board.txt", render_ansi(game, names=["alice", "bob"]))


def test_ansi_compact_matches_golden(game: Game) -> None:
    check_golden("ansi_board_compact.txt", render_ansi(game, compact=True))


def test_ansi_shows_every_tile_occupant_and_score(game: Game) -> None:
    text = render_ansi(game)
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
        t for t in game.placed_tiles() if any(z.get("animals") for z in tile_zones("hg2020", t[0]).values())
    )
    local, zone = next((z, zone) for z, zone in tile_zones("hg2020", tile).items() if zone.get("animals"))
    trapped = game.copy()
    trapped.state.cancelled[0, TILE_ZONE[tile, local], ANIMALS.index(zone["animals"][0])] = 1
    picture = render_rgb(trapped)
    spot = _content_spots("hg2020", tile, rot, local)["animals"][0]
    cx, cy = board_layout(trapped).point(x, y, spot)
    assert tuple(picture[cy, cx]) == CANCEL_COLOR
    assert "x" in render_ansi(trapped).split("legend:")[0]


def test_every_zone_has_its_occupant_spot_on_itself() -> None:
    for tile in range(95):
        for rot in (0, 3):
            geometry = tile_geometry("hg2020", tile, rot)
            raster = zone_raster("hg2020", tile, rot, 64)
            for local, zone in tile_zones("hg2020", tile).items():
                spot = geometry.occupant_at[local]
                assert ((spot > 0) & (spot < 1)).all()
                if zone["type"] != "lake":  # huts stand on the lake's shore
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
