"""``hgenv serve`` (hg_env.web): the JSON API through Starlette's TestClient, every bad request answered with a
JSON error that changes nothing, records saved after every move and resumed, files only inside the games folder."""

from __future__ import annotations

import json
import random
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="starlette is not installed (pip install -e '.[web]')")
pytest.importorskip("httpx", reason="httpx (Starlette's TestClient) is not installed (pip install -e '.[dev]')")

with warnings.catch_warnings():  # Starlette 1.x asks for httpx2 in its TestClient; httpx still drives it
    warnings.filterwarnings("ignore", "Using `httpx`")
    from starlette.testclient import TestClient

from hg_env import Game
from hg_env.cli import main
from hg_env.web.app import create_app
from hg_env.web.server import GameServer


@pytest.fixture
def server(tmp_path: Path) -> GameServer:
    return GameServer(tmp_path / "games", opponents=["random"], ruleset="carcassonne", seed=5)


@pytest.fixture
def client(server: GameServer) -> Iterator[TestClient]:
    with TestClient(create_app(server)) as c:
        yield c


def _saved(server: GameServer) -> dict:
    return json.loads(server.session.record_path.read_text(encoding="utf-8"))


def _snapshot(server: GameServer) -> tuple:
    """What a refused request must leave alone: the game, its saved record and the folder's files."""
    files = {p.name: p.read_bytes() for p in sorted(server.folder.iterdir())}
    return server.game.to_record(players=server.session.names), len(server.log.lines), files


def _place_first(client: TestClient) -> dict:
    state = client.get("/api/state").json()
    x, y, r = state["placements"][0]
    answer = client.post("/api/move", json={"move": ["place", x, y, r]})
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_a_new_game_is_saved_at_once_and_its_state_names_the_choices(server: GameServer, client: TestClient) -> None:
    state = client.get("/api/state").json()
    assert state["ruleset"] == "carcassonne" and state["your_turn"] and state["phase"] == "place"
    assert [p["name"] for p in state["players"]] == ["P0 (you)", "P1 (random)"]
    assert state["players"][0]["supply"] == {"meeple": 7, "abbot": 1} and state["occupant_kinds"] == ["meeple", "abbot"]
    assert state["tiles_left"] == {"regular": server.game.deck_sizes[0]} and state["tile_to_place"] is not None
    assert sorted(map(tuple, state["placements"])) == sorted(server.game.legal_placements())
    assert state["moves"] == [] and state["record"] == server.session.record_path.name
    assert server.session.record_path.parent == server.folder
    record = _saved(server)
    assert record["decisions"] == [] and record["meta"] == {"mode": "serve", "human_seat": 0}


def test_moves_and_agent_moves_are_saved_after_each_one(server: GameServer, client: TestClient) -> None:
    state = _place_first(client)
    assert state["phase"] == "occupy" and state["your_turn"] and state["placements"] == []
    assert {tuple(m["move"]) for m in state["moves"]} == {
        *((k, z) for k, z in server.game.legal_occupants()),
        *(tuple(server.game.layout.decode(a)) for a in server.game.legal_actions()),
    }
    assert all(m["text"] for m in state["moves"]) and ["none"] in [m["move"] for m in state["moves"]]
    assert len(_saved(server)["decisions"]) == 1
    state = client.post("/api/move", json={"move": ["none"]}).json()
    assert not state["your_turn"] and state["current"] == 1 and len(_saved(server)["decisions"]) == 2
    while not state["your_turn"]:
        state = client.post("/api/agent").json()
        assert _saved(server)["decisions"] == server.game.decisions()
    assert state["log"][-2].startswith("P1 (random): ") or state["log"][-1].startswith("P1 (random): ")
    assert any(line.startswith("P0 (you): place tile") for line in state["log"])
    # A flat action works too.
    action = server.game.layout.encode(("place", *state["placements"][-1]))
    assert client.post("/api/move", json={"action": action}).json()["phase"] == "occupy"


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (b"{not json", 400, "malformed JSON"),
        (b"\xff\xfe", 400, "not UTF-8"),
        (b"[1, 2]", 400, "a move is a JSON object"),
        (b'"place"', 400, "a move is a JSON object"),
        (b"{}", 400, "exactly one field"),
        (b'{"move": ["none"], "action": 3}', 400, "exactly one field"),
        (b'{"mvoe": ["none"]}', 400, "exactly one field"),
        (b'{"move": "place 0 1 0"}', 400, '"move" is a list'),
        (b'{"move": []}', 400, '"move" is a list'),
        (b'{"move": [3, 0, 1]}', 400, '"move" is a list'),
        (b'{"move": ["jump", 0, 1]}', 400, "unknown move kind 'jump'"),
        (b'{"move": ["tile", 0, 1, 0]}', 400, "unknown move kind 'tile'"),
        (b'{"move": ["place", "0", 1, 0]}', 400, "at most 3 ints"),
        (b'{"move": ["place", 0.0, 1, 0]}', 400, "at most 3 ints"),
        (b'{"move": ["place", true, 1, 0]}', 400, "at most 3 ints"),
        (b'{"move": ["place", 0, 1, 0, 0]}', 400, "at most 3 ints"),
        (b'{"move": ["place", 0, 1]}', 400, 'a placement is ["place", x, y, rotation]'),
        (b'{"move": ["place", 0, 1, 7]}', 409, "rotation is r0..r3"),
        (b'{"move": ["place", 40, 40, 0]}', 409, "does not fit at (40,40)"),
        (b'{"move": ["place", 9999999999, 0, 0]}', 409, "does not fit"),
        (b'{"move": ["none", 1]}', 400, '"none" takes no numbers'),
        (b'{"move": ["none"]}', 409, "'none' is not a choice now: place the tile first"),
        (b'{"move": ["meeple", 0]}', 409, "first place tile"),
        (b'{"move": ["retake", 0, 0]}', 409, "no abbot to take back at (0,0)"),
        (b'{"action": "3"}', 400, "an action must be an int"),
        (b'{"action": 1.0}', 400, "an action must be an int"),
        (b'{"action": -1}', 400, "outside the action space"),
        (b'{"action": 99999999}', 400, "outside the action space"),
        (b'{"action": 0}', 409, "action 0 is not legal now (place tile"),
        (b'{"move": ' + b"[" * 5000 + b"]" * 5000 + b"}", 400, "nested too deeply"),
        (b'{"move": ["none"], "pad": "' + b"x" * 20000 + b'"}', 413, "at most 16384"),
    ],
)
def test_bad_moves_get_a_json_error_and_change_nothing(
    server: GameServer, client: TestClient, body: bytes, status: int, message: str
) -> None:
    before = _snapshot(server)
    answer = client.post("/api/move", content=body, headers={"Content-Type": "application/json"})
    assert answer.status_code == status, answer.text
    assert message in answer.json()["error"], answer.json()
    assert _snapshot(server) == before


def test_wrong_phase_and_wrong_turn_change_nothing(server: GameServer, client: TestClient) -> None:
    state = _place_first(client)
    assert state["phase"] == "occupy"
    refused = [
        ("/api/move", {"move": ["place", 0, 1, 0]}, "you are not placing a tile now"),
        ("/api/move", {"move": ["meeple", 99]}, "'meeple 99' is not possible on this tile; you can choose:"),
        ("/api/agent", {}, "it is your turn, not an agent's"),
        ("/api/agent", {"go": 1}, "takes no fields"),
    ]
    for path, body, message in refused:
        before = _snapshot(server)
        answer = client.post(path, json=body)
        assert answer.status_code in (400, 409) and message in answer.json()["error"], (path, body, answer.json())
        assert _snapshot(server) == before
    client.post("/api/move", json={"move": ["none"]})
    before = _snapshot(server)
    answer = client.post("/api/move", json={"move": ["none"]})
    assert answer.status_code == 409 and answer.json()["error"] == "it is P1 (random)'s turn, not yours"
    assert _snapshot(server) == before


@pytest.mark.parametrize(
    "name",
    [
        "../secret.json",
        "/etc/passwd",
        "..",
        "a/b.json",
        ".hidden.json",
        "x.txt",
        "x.json/..",
        "..\\x.json",
        "",
        "é.json",
    ],
)
def test_record_names_outside_the_folder_are_refused(
    server: GameServer, client: TestClient, tmp_path: Path, name: str
) -> None:
    (tmp_path / "secret.json").write_text(json.dumps(server.game.to_record(players=["you", "random"])))
    before = _snapshot(server)
    for answer in (
        client.post("/api/resume", json={"name": name}),
        client.get("/api/records/" + name.replace("/", "%2F")),
    ):
        assert answer.status_code in (400, 404), (name, answer.text)
        assert answer.json()["error"], name
        assert "secret" not in json.dumps(answer.json().get("players", "")), name
    assert _snapshot(server) == before


def test_a_link_out_of_the_folder_is_not_followed(server: GameServer, client: TestClient, tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(Game(2, seed=1, ruleset="carcassonne").to_record(players=["you", "random"])))
    (server.folder / "link.json").symlink_to(outside)
    before = _snapshot(server)
    for answer in (client.post("/api/resume", json={"name": "link.json"}), client.get("/api/records/link.json")):
        assert answer.status_code == 403 and "not inside the games folder" in answer.json()["error"]
    assert "link.json" not in [g["name"] for g in client.get("/api/games").json()["games"]]
    assert _snapshot(server) == before


def test_other_bad_requests(server: GameServer, client: TestClient) -> None:
    before = _snapshot(server)
    for method, path, body, status, message in [
        ("post", "/api/resume", {"name": 3}, 400, "a record name is a string"),
        ("post", "/api/resume", {"name": "nope.json"}, 404, "no record 'nope.json'"),
        ("post", "/api/resume", {"file": "x.json"}, 400, 'resume takes {"name": "RECORD.json"}'),
        ("post", "/api/new", {"seed": -1}, 400, "seed"),
        ("post", "/api/new", {"seed": "1"}, 400, "seed"),
        ("post", "/api/new", {"players": 3}, 400, 'a new game takes {} or {"seed": N}'),
        ("get", "/api/records/nope.json", None, 404, "no record 'nope.json'"),
        ("get", "/api/move", None, 405, "GET /api/move: Method Not Allowed"),
        ("get", "/static/../server.py", None, 404, "Not Found"),
        ("get", "/nothing", None, 404, "GET /nothing: Not Found"),
    ]:
        answer = getattr(client, method)(path, **({} if body is None else {"json": body}))
        assert answer.status_code == status and message in answer.json()["error"], (path, body, answer.text)
        assert _snapshot(server) == before


def test_a_finished_game_refuses_moves_and_resume(server: GameServer, client: TestClient) -> None:
    game = Game(2, seed=2, ruleset="carcassonne", regular_deck=[1, 2, 3, 4])
    rng = random.Random(0)
    while not game.is_over:
        game.step(rng.choice(game.legal_actions()))
    (server.folder / "done.json").write_text(json.dumps(game.to_record(players=["you", "random"])))
    before = _snapshot(server)
    answer = client.post("/api/resume", json={"name": "done.json"})
    assert answer.status_code == 409 and "done.json is a finished game" in answer.json()["error"]
    assert str(server.folder) not in answer.json()["error"]
    assert _snapshot(server) == before
    server.session.game = game  # the current game ends: nothing more is accepted
    for path, body in [("/api/move", {"move": ["none"]}), ("/api/agent", {})]:
        answer = client.post(path, json=body)
        assert answer.status_code == 409 and "the game is over" in answer.json()["error"]


def test_resume_continues_the_saved_game(server: GameServer, client: TestClient, tmp_path: Path) -> None:
    state = _place_first(client)
    state = client.post("/api/move", json={"move": state["moves"][0]["move"]}).json()
    while not state["your_turn"]:
        state = client.post("/api/agent").json()
    name, history = state["record"], list(server.game.history)
    again = GameServer(server.folder, opponents=["greedy"], resume=name)
    assert again.game.history == history and again.session.names == ["you", "random"]
    assert again.session.record_path == server.session.record_path
    # and through the API, from another game
    client.post("/api/new", json={"seed": 9})
    assert client.get("/api/state").json()["record"] != name
    resumed = client.post("/api/resume", json={"name": name}).json()
    assert resumed["record"] == name and resumed["decisions"] == len(history) and resumed["your_turn"]
    listed = {g["name"]: g for g in client.get("/api/games").json()["games"]}
    assert set(listed) == {p.name for p in server.folder.glob("*.json")} and len(listed) == 2
    assert listed[name]["decisions"] == len(history) and listed[name]["players"] == ["you", "random"]
    assert client.get(f"/api/records/{name}").json()["decisions"] == Game.from_record(_saved(server)).decisions()


def _play_to_the_end(client: TestClient, choose) -> dict:
    state = client.get("/api/state").json()
    while not state["over"]:
        if not state["your_turn"]:
            answer = client.post("/api/agent")
        elif state["phase"] == "place":
            answer = client.post("/api/move", json={"move": ["place", *choose(state["placements"])]})
        else:
            answer = client.post("/api/move", json={"move": choose([m["move"] for m in state["moves"]])})
        assert answer.status_code == 200, answer.text
        state = answer.json()
    return state


def test_a_whole_game_with_the_abbot_recalled_replays_from_its_record(tmp_path: Path) -> None:
    """Carcassonne's abbot recall is a declared decision of the occupy phase: offered among the moves."""
    server = GameServer(tmp_path, opponents=["random"], ruleset="carcassonne", seed=11)
    rng = random.Random(3)

    def choose(options: list) -> list:
        for kind in ("retake", "abbot"):  # the abbot out as often as possible, and back
            mine = [o for o in options if o[0] == kind]
            if mine:
                return mine[0]
        return rng.choice(options)

    with TestClient(create_app(server)) as client:
        state = _play_to_the_end(client, choose)
    record = _saved(server)
    assert any(entry[0] == "retake" for entry in record["decisions"]), "the abbot was never recalled"
    assert record["is_over"] and Game.from_record(record).scores == [p["score"] for p in state["players"]]
    assert "Game over. Scores:" in state["log"][-1]


def test_a_whole_hg2020_game_replays_from_its_record_and_hgenv_replay_draws_it(tmp_path: Path) -> None:
    server = GameServer(tmp_path, opponents=["random"], seed=2, rule_flags={"pit_trap_deer_choice": "player_choice"})
    rng = random.Random(2)
    with TestClient(create_app(server)) as client:
        state = _play_to_the_end(client, rng.choice)
    record = _saved(server)
    assert record["is_over"] and Game.from_record(record).scores == [p["score"] for p in state["players"]]
    assert main(["replay", str(server.session.record_path), "--out", str(tmp_path / "end.png")]) == 0
    assert (tmp_path / "end.png").stat().st_size > 0


def _resumed_at(tmp_path: Path, game: Game, seat: int) -> tuple[GameServer, TestClient, dict]:
    """A scripted position, saved as a game of ``hgenv serve`` with the human in ``seat``, resumed by the API."""
    players = ["random"] * game.num_players
    players[seat] = "you"
    server = GameServer(tmp_path, opponents=["random"], seed=1)
    record = game.to_record(players=players, meta={"mode": "serve", "human_seat": seat})
    (tmp_path / "scripted.json").write_text(json.dumps(record))
    client = TestClient(create_app(server))
    answer = client.post("/api/resume", json={"name": "scripted.json"})
    assert answer.status_code == 200, answer.text
    return server, client, answer.json()


def test_the_shaman_retake_is_offered_and_checked(tmp_path: Path) -> None:
    """hg2020's retake (a declared decision with its own phase, naming a figure by its cell) comes as moves."""
    from tests.test_rules_sections import shaman_game

    server, client, state = _resumed_at(tmp_path, shaman_game(), seat=0)
    assert state["phase"] == "retake" and state["your_turn"] and state["prompt"]
    assert sorted(m["move"] for m in state["moves"]) == [["none"], ["retake", 0, 1]]
    before = _snapshot(server)
    answer = client.post("/api/move", json={"move": ["retake", 1, 0]})
    assert answer.status_code == 409 and answer.json()["error"] == "you have no pawn to take back at (1,0)"
    assert _snapshot(server) == before
    state = client.post("/api/move", json={"move": ["retake", 0, 1]}).json()
    assert state["phase"] == "occupy" and _saved(server)["decisions"][-1] == ["retake", 0, 1, 0]


def test_the_pit_trap_choice_is_offered_and_ends_the_game(tmp_path: Path) -> None:
    """hg2020's pit-trap choice (a count, asked at the end of the game) comes as moves."""
    from tests.scenario import run
    from tests.test_rule_flags import with_flags
    from tests.test_rules_sections import PIT_TRAP_FAR_DEER

    game = run(with_flags(PIT_TRAP_FAR_DEER, pit_trap_deer_choice="player_choice"))
    server, client, state = _resumed_at(tmp_path, game, seat=1)
    assert state["phase"] == "pit_trap" and state["your_turn"]
    assert [m["move"] for m in state["moves"]] == [["pit", 0], ["pit", 1]]
    before = _snapshot(server)
    answer = client.post("/api/move", json={"move": ["pit", 2]})
    assert (
        answer.status_code == 409 and answer.json()["error"] == "'pit 2' is not a choice; you can choose: pit 0, pit 1"
    )
    assert _snapshot(server) == before
    state = client.post("/api/move", json={"move": ["pit", 1]}).json()
    assert state["over"] and [p["score"] for p in state["players"]] == [0, 5]
    assert Game.from_record(_saved(server)).scores == [0, 5]


def test_the_page_is_served_from_the_package_without_a_cdn(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    for path, kind in [("/static/app.js", "text/javascript"), ("/static/style.css", "text/css")]:
        answer = client.get(path)
        assert answer.status_code == 200 and answer.headers["content-type"].startswith(kind)
        assert path in page.text
        text = answer.text.replace("http://www.w3.org/2000/svg", "")  # the SVG namespace is a name, not a fetch
        assert "http:" not in text and "https:" not in text and "//cdn" not in text, path
    assert "http:" not in page.text and "https:" not in page.text


def test_cli_refuses_bad_settings_before_serving(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    games = tmp_path / "games"
    for argv, message in [
        (["--resume", "../x.json"], "bad record name '../x.json'"),
        (["--resume", "missing.json"], "no record 'missing.json'"),
        (["--port", "70000"], "--port must be 1..65535"),
        (["--agents", "nobody"], "unknown agent 'nobody'"),
        (["--ruleset", "carcassonne", "--flag", "nope=1"], "nope"),
    ]:
        assert main(["serve", "--games", str(games), *argv]) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("hgenv serve: ") and message in err and err.count("\n") == 1, (argv, err)


def test_cli_serves_the_game_it_was_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    served = []
    monkeypatch.setattr("hg_env.web.app.serve", lambda server, host, port: served.append((server, host, port)))
    games = tmp_path / "games"
    argv = ["serve", "--games", str(games), "--ruleset", "hg2002", "--agents", "random", "greedy", "--players", "3"]
    assert main([*argv, "--seed", "7", "--port", "8123"]) == 0
    (server, host, port), *_ = served
    assert (host, port) == ("127.0.0.1", 8123) and server.folder == games.resolve()
    assert server.game.ruleset == "hg2002" and server.game.seed == 7
    assert server.session.names == ["you", "random", "greedy"]
    name = server.session.record_path.name
    assert "http://127.0.0.1:8123/" in capsys.readouterr().err and (games / name).is_file()
    assert main(["serve", "--games", str(games), "--resume", name, "--host", "::1"]) == 0
    resumed, host, _ = served[1]
    assert host == "::1" and resumed.session.record_path.name == name and resumed.game.num_players == 3
    assert "http://[::1]:8000/" in capsys.readouterr().err
