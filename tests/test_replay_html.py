"""The HTML replay viewer (issue #31): ``hgenv replay RECORD --html out.html [--agent SPEC]``, opened in a real
headless Chromium (tests/browser.py): after stepping to move k, the tiles, figures and scores drawn in the page
are the engine's at k (``Game.from_record(record, upto=k)``).
Its screenshot is the README's docs/images/replay.png (make screenshots)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hg_env.agents.base import make_agent
from hg_env.cli import main as cli_main
from hg_env.game import Game
from hg_env.render import describe_event, tile_zones
from hg_env.replay_html import replay_data
from tests.browser import launch, screenshot_path
from tests.test_tiny_ruleset import toy  # noqa: F401  (the fixture that makes the test ruleset importable)


def record_of(ruleset: str, decisions: int, seed: int = 5) -> dict:
    """A game of greedy (seat 0) against random (seat 1), cut after ``decisions`` decisions."""
    game = Game(2, seed=seed, ruleset=ruleset)
    agents = [make_agent("greedy", seed=seed), make_agent("random", seed=seed)]
    while not game.is_over and len(game.history) < decisions:
        game.step(agents[game.current_player].act(None, game.action_mask(), game.copy()))
    return game.to_record(players=["greedy", "random"])


def write_viewer(tmp_path: Path, record: dict, *extra: str) -> Path:
    source, out = tmp_path / "game.json", tmp_path / "game.html"
    source.write_text(json.dumps(record), encoding="utf-8")
    assert cli_main(["replay", str(source), "--html", str(out), *extra]) == 0
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launch() as chromium:
        yield chromium


def open_page(browser: Any, path: Path) -> tuple[Any, list[str]]:
    """The viewer in a new page; the list collects script errors and any request that is not the file itself."""
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"error: {error}"))
    page.on("request", lambda request: request.url.startswith("file:") or problems.append(f"request {request.url}"))
    page.goto(path.as_uri())
    return page, problems


def drawn(page: Any) -> dict:
    """What the page shows: tiles, figures, scores, the step, the status line and the events."""
    return page.evaluate(
        """() => ({
        step: +document.body.dataset.step,
        tiles: [...document.querySelectorAll('#board g.tile')].map(g =>
            [+g.dataset.tile, +g.dataset.x, +g.dataset.y, +g.dataset.rotation]),
        occupants: [...document.querySelectorAll('#board g.occupant')].map(g =>
            [+g.dataset.seat, g.dataset.kind, +g.dataset.x, +g.dataset.y, +g.dataset.zone]),
        scores: [...document.querySelectorAll('#scores .score')].map(td => +td.dataset.score),
        shown_scores: [...document.querySelectorAll('#scores .score')].map(td => +td.textContent),
        status: document.getElementById('status').textContent,
        events: [...document.querySelectorAll('#events li.event')].map(li => li.textContent),
        })"""
    )


def engine_at(record: dict, k: int) -> Game:
    return Game.from_record(record, upto=k)


def check_step(page: Any, record: dict, k: int) -> None:
    shown = drawn(page)
    game = engine_at(record, k)
    assert shown["step"] == k
    assert sorted(map(tuple, shown["tiles"])) == sorted(game.placed_tiles())
    assert sorted(map(tuple, shown["occupants"])) == sorted(game.occupants())
    assert shown["scores"] == shown["shown_scores"] == game.scores
    before = engine_at(record, k - 1) if k else None
    new = game.events[len(before.events) :] if before is not None else []
    assert shown["events"] == [describe_event(e, ["greedy", "random"], game.ruleset) for e in new]


@pytest.mark.parametrize("ruleset", ["hg2020", "hg2002", "carcassonne"])
def test_viewer_steps_to_move_k_and_draws_the_engines_position(browser: Any, tmp_path: Path, ruleset: str) -> None:
    record = record_of(ruleset, 34)
    page, problems = open_page(browser, write_viewer(tmp_path, record))
    k = 23
    page.keyboard.press("End")
    assert drawn(page)["step"] == len(record["decisions"])
    page.click("#first")
    for _ in range(k):
        page.click("#forward")
    check_step(page, record, k)
    page.keyboard.press("ArrowLeft")
    check_step(page, record, k - 1)
    page.eval_on_selector("#slider", "(s, v) => { s.value = v; s.dispatchEvent(new Event('input')); }", 9)
    check_step(page, record, 9)
    # Hovering a placed tile shows the area of the zone under the pointer, its tiles highlighted.
    x, y = engine_at(record, 9).placed_tiles()[0][1:3]
    box = page.locator(f'#board g.tile[data-x="{x}"][data-y="{y}"]').bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.12)
    highlighted = page.eval_on_selector_all(
        "#hover rect.feature-tile", "rs => rs.map(r => [+r.dataset.x, +r.dataset.y])"
    )
    assert [x, y] in highlighted
    assert "worth" in page.text_content("#feature") and "tile" in page.text_content("#feature")
    assert problems == []
    page.close()


def test_viewer_shows_what_the_agent_thought(browser: Any, tmp_path: Path) -> None:
    record = record_of("carcassonne", 40, seed=7)
    page, problems = open_page(browser, write_viewer(tmp_path, record, "--agent", "mcts:sims=24", "--seat", "0"))
    data = page.evaluate("() => JSON.parse(document.getElementById('data').textContent)")
    explained = [k for k, step in enumerate(data["steps"]) if step["explain"]]
    assert explained and all(engine_at(record, k).current_player == 0 for k in explained)  # the seat asked for
    place = [k for k in explained if record["decisions"][k][0] == "place"][-1]  # a board with some tiles
    page.evaluate(f"showStep({place})")
    check_step(page, record, place)
    candidates = page.eval_on_selector_all("#heat rect.candidate", "rs => rs.map(r => [+r.dataset.x, +r.dataset.y])")
    legal = {(x, y) for x, y, _ in engine_at(record, place).legal_placements()}
    assert candidates and {tuple(c) for c in candidates} <= legal
    moves = page.eval_on_selector_all("#agent li.agent-move", "lis => lis.map(li => li.textContent)")
    assert moves and all("visits" in m and "value" in m for m in moves)
    played = record["decisions"][place]
    assert page.locator("#heat rect.played").count() == 1 and f"({played[1]},{played[2]})" in page.text_content("#move")
    box = page.locator("#board g.tile").first.bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.5)
    page.screenshot(path=str(screenshot_path("replay.png", tmp_path)))
    # At a figure decision the zones it weighed are marked on the tile just placed.
    occupy = next(
        k for k in explained if record["decisions"][k][0] != "place" and engine_at(record, k).legal_occupants()
    )
    page.evaluate(f"showStep({occupy})")
    zones = page.eval_on_selector_all("#heat circle.candidate-zone", "cs => cs.map(c => +c.dataset.zone)")
    assert zones and set(zones) <= {z for _, z in engine_at(record, occupy).legal_occupants()}
    assert problems == []
    page.close()


def test_replay_data_follows_the_engine_at_every_step() -> None:
    record = record_of("hg2020", 30, seed=2)
    data = replay_data(record)
    assert len(data["steps"]) == len(record["decisions"]) + 1
    for k, step in enumerate(data["steps"]):
        game = engine_at(record, k)
        assert step["scores"] == game.scores
        tiles = {(t, x, y, r) for t, x, y, r, _ in data["placements"][: step["tiles"]]}
        assert tiles == set(game.placed_tiles())
        assert len(step["areas"]) <= len(data["zone_keys"])
    # An area's tiles hold the zone it was looked up from; its figures are the engine's figures.
    game = engine_at(record, len(record["decisions"]))
    last = data["steps"][-1]
    for key, area in zip(data["zone_keys"], last["areas"]):
        x, y, _ = map(int, key.split(","))
        assert [x, y] in data["areas"][area]["tiles"]
    figures = np.zeros(2, dtype=int)
    for seat, kind, *_ in game.occupants():
        if kind == "pawn":
            figures[seat] += 1
    counted = {i for i in last["areas"]}
    pawns = sum(np.array(data["areas"][i]["figures"]) for i in counted if data["areas"][i]["name"] != "system")
    assert list(pawns) == list(figures)


def test_tournament_index_and_bad_requests(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    games = tmp_path / "games.jsonl"
    lines = []
    for i, seed in enumerate((1, 2)):
        record = record_of("hg2002", 12, seed=seed)
        lines.append(
            {
                "index": i,
                "game": f"t0-d{i}-r0",
                "agents": ["greedy", "random"],
                "scores": record["scores"],
                "winners": [0],
                "record": record,
            }
        )
    games.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    out = tmp_path / "site" / "games.html"
    assert cli_main(["replay", str(games), "--html", str(out)]) == 0
    index = out.read_text(encoding="utf-8")
    for line in lines:
        page = out.with_name(f"games.{line['game']}.html")
        assert f'href="{page.name}"' in index and page.exists()
        assert json.dumps(line["record"]["decisions"], separators=(",", ":")) in page.read_text(encoding="utf-8")
    single = tmp_path / "one.html"
    assert cli_main(["replay", str(games), "--game", "1", "--html", str(single)]) == 0 and single.exists()
    capsys.readouterr()
    for args, message in (
        (["--html", str(tmp_path / "x.gif")], "must end in .html"),
        (["--html", str(tmp_path / "x.html"), "--agent", "nobody"], "unknown agent"),
        (["--html", str(tmp_path / "x.html"), "--game", "1", "--seat", "4"], "seats 0..1"),
        (["--agent", "greedy"], "add --html"),
    ):
        assert cli_main(["replay", str(games), *args]) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists() and not (tmp_path / "x.gif").exists()


def test_tournament_explain_is_drawn_by_the_replay(tmp_path: Path) -> None:
    """``hgenv tournament --explain`` stores what each seat's agent thought in the records (the games play as
    without it); ``hgenv replay --html`` draws those thoughts without recomputing them."""
    from hg_env.arena.tournament import ScheduledGame, play_game

    spec = ScheduledGame(0, "t0-d0-r0", 0, 0, 0, ("random", "mcts:sims=4"), 11, (1, 2), "hg2002")
    plain, explained = play_game(spec), play_game(replace(spec, explain=True))
    assert explained["record"]["decisions"] == plain["record"]["decisions"]
    stored = explained["record"]["meta"]["explanations"]
    assert stored and {e["agent"] for e in stored.values()} == {"random", "mcts:sims=4"}
    # The viewer of its first 40 decisions (a whole game's drawings take seconds).
    stored = {k: e for k, e in stored.items() if int(k) < 40}
    meta = {**explained["record"]["meta"], "explanations": stored}
    explained["record"] = Game.from_record(explained["record"], upto=40).to_record(explained["agents"], meta)
    games = tmp_path / "games.jsonl"
    games.write_text(json.dumps(explained) + "\n", encoding="utf-8")
    out = tmp_path / "g.html"
    assert cli_main(["replay", str(games), "--game", "0", "--html", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    data = json.loads(text.split('<script type="application/json" id="data">')[1].split("</script>")[0])
    shown = {k: step["explain"] for k, step in enumerate(data["steps"]) if step["explain"]}
    assert set(shown) == {int(k) for k in stored}
    for k, entry in shown.items():
        game = engine_at(explained["record"], k)
        assert entry["seat"] == game.current_player
        assert [m["text"] for m in entry["moves"]] == [game.describe(r["action"]) for r in stored[str(k)]["rows"]]


def test_viewer_crosses_out_the_animals_the_hunting_trap_cancels() -> None:
    from hg_env.render import CANCEL_COLOR
    from hg_env.sketch import hex_color

    game, rng = Game(2, seed=28, ruleset="hg2020"), np.random.default_rng(28)
    while not game.state.ruleset_arrays["cancelled"].any():  # random play until the trap cancels an animal
        game.step(int(rng.choice(game.legal_actions())))
    data = replay_data(game.to_record())
    assert data["steps"][0]["marks"] is None and data["steps"][-1]["marks"] is not None
    assert hex_color(CANCEL_COLOR) in data["marks"][data["steps"][-1]["marks"]]


@pytest.mark.parametrize("ruleset", ["hg2020", "hg2002", "carcassonne"])
def test_area_values_are_the_observations(ruleset: str) -> None:
    """The points an area is worth in the viewer equal the observation's ``{type}_value`` channel on its
    tiles (where a tile has one zone of the type, so the channel names that zone's area)."""
    from hg_env.core.observation import observe, observer
    from hg_env.replay_html import features

    game = engine_at(record_of(ruleset, 60, seed=3), 60)
    areas, zmap = features(game)
    spec, reach = game.rules.spec, game.rules.reach
    channels = {name: i for i, name in enumerate(observer(ruleset).channel_names(reach))}
    obs = observe(game.state, np.array([0]), np.array([0]))[0]
    owner: dict[int, str] = {}  # a zone type's area in the viewer: the first observed type holding it
    for name, _, types in spec.observed_areas:
        for t in types:
            owner.setdefault(int(t), name)
    checked = 0
    for tile, x, y, _ in game.placed_tiles():
        kinds = {z: int(spec.tiles.ZONE_TYPE[spec.tiles.TILE_ZONE[tile, z]]) for z in tile_zones(ruleset, tile)}
        for name, _, types in spec.observed_areas:
            zones = [z for z, kind in kinds.items() if kind in types]
            if len(zones) == 1 and owner[kinds[zones[0]]] == name:
                value = areas[zmap[f"{x},{y},{zones[0]}"]]["value"]
                assert obs[channels[f"{name}_value"], y + reach, x + reach] == min(value, 255), (tile, name)
                checked += 1
    assert checked > 20


@pytest.mark.parametrize("ruleset", ["hg2020", "carcassonne"])
def test_zone_values_are_one_computation_for_a_batch_and_one_game(ruleset: str) -> None:
    """``Observer.zone_sums``, read by the observation and the viewer alike, gives each game of a batch what
    it gives the game alone (the one-game path reads views, the batch path gathers)."""
    from hg_env.core.areas import ATTACHED_VALUE
    from hg_env.core.observation import observer
    from hg_env.replay_html import _zone_values

    record = record_of(ruleset, 60, seed=3)
    early, late = engine_at(record, 30), engine_at(record, 60)
    batch = late.state.take(np.array([0, 0, 0]))
    batch.put(np.array([1]), early.state)
    obs = observer(ruleset)
    together = obs.zone_sums(batch, np.array([2, 1]))
    for row, game in enumerate((late, early)):
        alone = obs.zone_sums(game.state, np.array([0]))[0]
        assert np.array_equal(together[row], alone)
        z = game.rules.spec.tiles.num_zones
        values = _zone_values(game)
        assert [values[name].tolist() for name in obs.blocks] == [
            alone[b * z : (b + 1) * z, ATTACHED_VALUE].tolist() for b in range(len(obs.blocks))
        ]
    assert np.array_equal(obs.zone_sums(batch, np.array([1]))[0], together[1])
    assert together[0, :, ATTACHED_VALUE].any()


def test_viewer_of_the_test_ruleset_and_of_a_game_not_begun(toy: str) -> None:  # noqa: F811
    game = Game(2, seed=1, ruleset=toy)
    greedy = make_agent("greedy", seed=1)
    while not game.is_over:
        game.step(greedy.act(None, game.action_mask(), game.copy()))
    record = game.to_record()
    data = replay_data(record, agent="greedy")
    assert len(data["steps"]) == len(record["decisions"]) + 1 and data["steps"][-1]["scores"] == game.scores
    assert any(step["explain"] for step in data["steps"])
    assert any("stash" in (step["move"] or "") for step in data["steps"])  # its own decision, in its words
    empty = replay_data(Game(2, seed=1, ruleset="carcassonne").to_record())
    assert len(empty["steps"]) == 1 and empty["steps"][0]["move"] is None


def test_the_title_names_the_flags_in_force() -> None:
    """A default Carcassonne game has no river, and its viewer's title does not promise one."""
    plain = replay_data(record_of("carcassonne", 4))["title"]
    assert plain == "Carcassonne (base game C3, farmers, abbot)"
    river = Game(2, seed=3, ruleset="carcassonne", river=True)
    assert replay_data(river.to_record())["title"].endswith("abbot, river)")
