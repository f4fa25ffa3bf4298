"""SVG boards (issue #31): ``hg_env.svg.board_svg`` draws what the game holds, with the classes and data of
the contract with ``hgenv serve``, from the same sketch as the PNG."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict

import numpy as np
import pytest

from hg_env import aec
from hg_env.game import Game
from hg_env.render import render_rgb, tile_zones
from hg_env.svg import board_svg
from tests.test_tiny_ruleset import toy  # noqa: F401  (the fixture that makes the test ruleset importable)

SVG = "{http://www.w3.org/2000/svg}"
RULESETS = ("hg2020", "hg2002", "carcassonne")


def played(ruleset: str, moves: int, seed: int = 3) -> Game:
    """A game after ``moves`` random decisions (fewer if it ends)."""
    game = Game(2, seed=seed, ruleset=ruleset)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if game.is_over:
            break
        game.step(int(rng.choice(game.legal_actions())))
    return game


def of_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if cls in (e.get("class") or "").split()]


def ints(element: ET.Element, *keys: str) -> tuple[int, ...]:
    return tuple(int(element.get(f"data-{k}")) for k in keys)


def check_board(game: Game) -> ET.Element:
    """The SVG's tiles, occupants, scores, tile to place and legend equal the game's."""
    root = ET.fromstring(board_svg(game, legal_cells=True))
    assert root.tag == f"{SVG}svg"
    tiles = {ints(g, "tile", "x", "y", "rotation") for g in of_class(root, "tile")}
    assert tiles == set(game.placed_tiles()) and len(of_class(root, "tile")) == len(game.placed_tiles())
    occupants = [
        (int(g.get("data-seat")), g.get("data-kind"), *ints(g, "x", "y", "zone")) for g in of_class(root, "occupant")
    ]
    assert sorted(occupants) == sorted(game.occupants())
    scores = {int(t.get("data-seat")): int(t.get("data-score")) for t in of_class(root, "score")}
    assert scores == dict(enumerate(game.scores))
    assert all(t.tag == f"{SVG}text" for t in of_class(root, "score"))
    next_tile = of_class(root, "next-tile")
    if game.phase == "place" and game.tile_to_place is not None:
        assert [int(g.get("data-tile")) for g in next_tile] == [game.tile_to_place]
    else:
        assert next_tile == []
    assert len(of_class(root, "legend")) == 1
    rotations: dict[tuple[int, int], list[int]] = defaultdict(list)
    for x, y, r in game.legal_placements():
        rotations[(x, y)].append(r)
    cells = {ints(r, "x", "y"): sorted(map(int, r.get("data-rotations").split())) for r in of_class(root, "legal-cell")}
    assert cells == {cell: sorted(rots) for cell, rots in rotations.items()}
    for tile, x, y, _ in game.placed_tiles():  # every tile's zones are paths of that tile, numbered as the catalogue
        zones = [p for p in of_class(root, "zone") if ints(p, "x", "y") == (x, y)]
        assert zones and {int(p.get("data-zone")) for p in zones} <= set(tile_zones(game.ruleset, tile))
    text = ET.tostring(root, encoding="unicode")
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "<image" not in text  # standalone
    return root


@pytest.mark.parametrize("ruleset", ["hg2020", "hg2002", "carcassonne"])
def test_svg_board_holds_the_games_tiles_occupants_and_scores(ruleset: str) -> None:
    for moves in (0, 7, 40):
        check_board(played(ruleset, moves))


def test_svg_board_of_the_test_ruleset(toy: str) -> None:  # noqa: F811
    check_board(played(toy, 25))


def test_svg_and_png_are_one_sketch() -> None:
    """Every string the PNG sets is in the SVG, in the same order (both come from ``render.sketch_picture``)."""
    game = played("carcassonne", 30)
    texts: list[str] = []
    render_rgb(game, names=["greedy", "mcts"], texts=texts)
    root = ET.fromstring(board_svg(game, names=["greedy", "mcts"]))
    assert [t.text for t in root.iter(f"{SVG}text")] == texts


def test_zones_of_makes_one_tiles_zones_selectable() -> None:
    game = played("hg2020", 9)
    tile, x, y, _ = game.placed_tiles()[-1]
    root = ET.fromstring(board_svg(game, zones_of=(x, y)))
    selectable = of_class(root, "selectable")
    assert selectable and all(ints(p, "x", "y") == (x, y) for p in selectable)
    assert {int(p.get("data-zone")) for p in selectable} <= set(tile_zones("hg2020", tile))
    assert len(of_class(root, "zone")) > len(selectable)
    assert of_class(ET.fromstring(board_svg(game)), "selectable") == []


def test_candidates_draw_a_heat_overlay() -> None:
    game = played("hg2002", 4)
    moves = game.legal_placements()[:3]
    candidates = [
        {"x": x, "y": y, "rotation": r, "weight": w, "label": f"p={w}"} for (x, y, r), w in zip(moves, (1.0, 0.5, 0.1))
    ]
    rects = of_class(ET.fromstring(board_svg(game, candidates=candidates)), "candidate")
    assert [(*ints(r, "x", "y", "rotation"), float(r.get("data-weight"))) for r in rects] == [
        (x, y, r, w) for (x, y, r), w in zip(moves, (1.0, 0.5, 0.1))
    ]
    assert [r.find(f"{SVG}title").text for r in rects] == ["p=1.0", "p=0.5", "p=0.1"]


def test_render_svg_in_game_notebook_and_env() -> None:
    game = played("carcassonne", 5)
    assert game.render("svg") == board_svg(game) == game._repr_svg_()
    env = aec.env(ruleset="hg2002", render_mode="svg")
    env.reset(seed=1)
    assert "svg" in env.metadata["render_modes"]
    assert ET.fromstring(env.render()).tag == f"{SVG}svg"
    from hg_env.single_agent import SingleAgentEnv

    single = SingleAgentEnv(ruleset="carcassonne", render_mode="svg")
    single.reset(seed=2)
    assert ET.fromstring(single.render()).tag == f"{SVG}svg" and "svg" in single.metadata["render_modes"]
    with pytest.raises(ValueError, match="'svg'"):
        game.render("vector")


def test_the_drawing_names_no_terrain_and_takes_its_colours_from_the_rulesets() -> None:
    """#29: render.py reads each zone type's shape and colours from its ruleset's presentation (``Terrain``);
    no zone type of any ruleset is spelled in it, and a tile's shapes use only its ruleset's terrain colours."""
    import ast
    from pathlib import Path

    import hg_env.render as render
    from hg_env.presentation import presentation

    names = {zone.type for rs in RULESETS for t in render._catalogue_tiles(rs) for zone in tile_zones(rs, t).values()}
    constants = {n.value for n in ast.walk(ast.parse(Path(render.__file__).read_text())) if isinstance(n, ast.Constant)}
    assert names and not names & constants
    well = (150, 100, 60)  # the crossing's well: a drawing detail, not a terrain
    for rs in RULESETS:
        looks = presentation(rs).terrains.values()
        colours = {c for look in looks for c in (look.fill, look.edge, look.pool) if c is not None} | {well}
        for tile in list(render._catalogue_tiles(rs))[:30]:
            used = {c for m in render.tile_art(rs, tile, 1, 40).shapes for c in (m.fill, m.outline) if c is not None}
            assert used <= colours, (rs, tile, used - colours)


def test_svg_in_chromium_draws_the_board(tmp_path) -> None:
    """A browser draws the SVG: its tiles and figures are laid out where the board puts them (each tile's
    box one tile wide, cells in board order).
    Its screenshot is the README's docs/images/board_svg.png (make screenshots)."""

    from tests.browser import new_page, screenshot_path

    game = played("carcassonne", 46, seed=11)
    path = tmp_path / "board.svg"
    path.write_text(board_svg(game, names=["random", "random"]), encoding="utf-8")
    with new_page(1300, 900) as page:
        page.goto(path.as_uri())
        boxes = page.eval_on_selector_all(
            "g.tile",
            "gs => gs.map(g => { const b = g.getBBox(); return [+g.dataset.x, +g.dataset.y, b.x, b.y, b.width]; })",
        )
        assert len(boxes) == len(game.placed_tiles())
        x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        left = min(b[2] for b in boxes if b[0] == x0)
        top = min(b[3] for b in boxes if b[1] == y0)
        for x, y, bx, by, width in boxes:
            assert width == pytest.approx(80, abs=1)
            assert (bx - left, by - top) == pytest.approx(((x - x0) * 80, (y - y0) * 80), abs=1)
        assert page.locator("g.occupant").count() == len(game.occupants())
        page.screenshot(path=str(screenshot_path("board_svg.png", tmp_path)))
