"""``hgenv serve`` in a real browser: headless Chromium (tests/browser.py) plays a whole two-player Carcassonne
game against ``random`` by clicks only (a legal cell, the rotate and place buttons, a zone of the tile just
placed or a choice button), and the scores the page shows equal the saved record replayed by
``Game.from_record``.
Its screenshot (the page while you place a tile) is the README's docs/images/serve.png (make screenshots)."""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("uvicorn", reason="uvicorn is not installed (pip install -e '.[web]')")

import uvicorn

from hg_env import Game
from hg_env.web.app import create_app
from hg_env.web.server import GameServer
from tests.browser import new_page, screenshot_path

# A point inside a zone's path that the zone itself receives clicks at (a zone is rarely convex: the centre of
# its box may be on the road that crosses it), in the page's coordinates; null if there is none.
POINT_IN_ZONE = """(zone) => {
  const box = zone.getBBox();
  const m = zone.getScreenCTM();
  for (let i = 1; i < 12; i++) for (let j = 1; j < 12; j++) {
    const x = box.x + (box.width * i) / 12, y = box.y + (box.height * j) / 12;
    if (!zone.isPointInFill(new DOMPoint(x, y))) continue;
    const sx = m.a * x + m.c * y + m.e, sy = m.b * x + m.d * y + m.f;
    if (document.elementFromPoint(sx, sy) === zone) return [sx, sy];
  }
  return null;
}"""
SETTLED = "(n) => document.body.dataset.ready === 'true' && document.body.dataset.decisions !== n"
WAITING = "document.body.dataset.yourTurn === 'true' || document.body.dataset.over === 'true'"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, GameServer]]:
    """The app on a free port of 127.0.0.1, uvicorn in a thread; its URL and its GameServer."""
    server = GameServer(tmp_path / "games", opponents=["random"], ruleset="carcassonne", seed=4)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    web = uvicorn.Server(uvicorn.Config(create_app(server), log_level="warning"))
    thread = threading.Thread(target=web.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not web.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/", server
    web.should_exit = True
    thread.join(10)
    sock.close()


def _click_zone(page, zones) -> bool:
    """Click one of the zones (in a random order) at a point it receives; False if none could be."""
    for zone in zones:
        zone.scroll_into_view_if_needed()
        point = zone.evaluate(POINT_IN_ZONE)
        if point is not None:
            page.mouse.click(*point)
            return True
    return False


def test_a_whole_game_by_clicks_ends_with_the_records_scores(served: tuple[str, GameServer], tmp_path: Path) -> None:
    url, server = served
    rng = random.Random(1)
    clicks = {"cell": 0, "rotate": 0, "zone": 0, "button": 0}
    with new_page(width=1400, height=1000) as page:
        page.goto(url + "?delay=0")
        page.wait_for_function(WAITING)
        # A request the server refuses: its error is shown in the page, and the game is unchanged.
        page.evaluate("api('POST', '/api/move', {move: ['place', 40, 40, 0]}).catch(() => null)")
        page.wait_for_selector("#error:not([hidden])")
        assert "does not fit at (40,40)" in page.inner_text("#error")
        assert server.game.history == [] and page.evaluate("document.body.dataset.decisions") == "0"
        shot = False
        while page.evaluate("document.body.dataset.over") != "true":
            decisions = page.evaluate("document.body.dataset.decisions")
            phase = page.evaluate("document.body.dataset.phase")
            if phase == "place":
                cells = page.locator("#board rect.legal-cell").all()
                assert cells, "no legal cell is drawn while the page asks for a placement"
                cell = rng.choice(cells)
                cell.click()
                clicks["cell"] += 1
                rotations = [int(r) for r in cell.get_attribute("data-rotations").split()]
                turns = rng.randrange(len(rotations))
                x, y = int(cell.get_attribute("data-x")), int(cell.get_attribute("data-y"))
                expected = ["place", x, y, rotations[turns]]
                for i in range(turns):
                    page.click("#rotate") if i == 0 else page.keyboard.press("r")  # the button, or the R key
                    clicks["rotate"] += 1
                if not shot and int(decisions) >= 24:  # a board with some tiles, the tile shown where it would go
                    assert page.locator("#board .preview").count() == 1
                    page.screenshot(path=str(screenshot_path("serve.png", tmp_path)))
                    shot = True
                page.click("#place")
            else:
                expected = None
                zones = page.locator("#board path.zone.legal").all()
                rng.shuffle(zones)
                if zones and rng.random() < 0.6 and _click_zone(page, zones):
                    clicks["zone"] += 1
                else:
                    rng.choice(page.locator("#choices button.choice").all()).click()
                    clicks["button"] += 1
            page.wait_for_function(SETTLED, arg=decisions)
            if expected is not None:  # the cell clicked, turned as often as asked
                with server.lock:
                    assert server.game.decisions()[int(decisions)] == expected
            page.wait_for_function(WAITING)
            assert page.locator("#error").is_hidden(), page.inner_text("#error")
        shown = [
            int(s) for s in page.locator("#players td.score").evaluate_all("cells => cells.map(c => c.dataset.score)")
        ]
        drawn = page.locator("#board text.score").evaluate_all("t => t.map(e => [+e.dataset.seat, +e.dataset.score])")
        record_name = page.inner_text("#record")
        status = page.inner_text("#status")
    record = json.loads((server.folder / record_name).read_text(encoding="utf-8"))
    replayed = Game.from_record(record)
    assert record["is_over"] and replayed.is_over and record["players"] == ["you", "random"]
    assert shown == replayed.scores == [score for _, score in sorted(drawn)]
    assert status.startswith("Game over.")
    assert shot and min(clicks.values()) > 0, clicks
