"""The Starlette app and uvicorn runner of ``hgenv serve`` (the [web] extra).

Routes (JSON answers; an error is ``{"error": "one line"}`` with a 4xx status, and changes nothing):

    GET  /                      the page (static/index.html, its app.js and style.css: package data, no CDN)
    GET  /api/state             the game as the page draws it (GameServer.state)
    GET  /api/board.svg         the board picture (hg_env.svg.board_svg), legal cells / zones while you choose
    POST /api/move              your move: {"move": ["place", x, y, r]} | {"move": ["meeple", zone]} | ...
                                | {"action": N} (a flat action)
    POST /api/agent             one move of the agent whose turn it is
    POST /api/new               a new game with the server's settings; {"seed": N} optional
    POST /api/resume            {"name": "RECORD.json"}: continue an unfinished game of the games folder
    GET  /api/games             the records in the games folder
    GET  /api/records/NAME      one saved record (hgenv replay reads it)
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from hg_env.game import check_seed
from hg_env.web.server import GameServer, RequestError

MAX_BODY = 16_384  # bytes: a move is a few dozen
STATIC = {  # the only files the page serves, from the package
    "/": ("index.html", "text/html; charset=utf-8"),
    "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/static/style.css": ("style.css", "text/css; charset=utf-8"),
}


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> Any:
    """The request's JSON body (an empty body reads as {}); RequestError for anything else."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:  # refused before it is read
        raise RequestError(f"the request body is {declared} bytes; at most {MAX_BODY}", 413)
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise RequestError(f"the request body is {len(raw)} bytes; at most {MAX_BODY}", 413)
    if not raw.strip():
        return {}
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise RequestError("the request body is not UTF-8 text") from None
    except json.JSONDecodeError as err:
        raise RequestError(f"malformed JSON: {err}") from None
    except RecursionError:
        raise RequestError("malformed JSON: nested too deeply") from None


def create_app(server: GameServer) -> Starlette:
    """The app serving ``server``'s game (see the module docstring for the routes)."""

    def locked(work: Callable[[], Any]) -> Awaitable[Any]:
        """Run game work in a worker thread (an agent may think for seconds), one request at a time."""

        def run() -> Any:
            with server.lock:
                return work()

        return run_in_threadpool(run)

    async def then_state(act: Callable[[], object]) -> Response:
        """Do ``act`` and answer the state it leaves, under one hold of the lock."""

        def work() -> dict:
            act()
            return server.state()

        return JSONResponse(await locked(work))

    async def state(request: Request) -> Response:
        return JSONResponse(await locked(server.state))

    async def board(request: Request) -> Response:
        return Response(await locked(server.board_svg), media_type="image/svg+xml")

    async def move(request: Request) -> Response:
        body = await _body(request)
        return await then_state(lambda: server.human_move(body))

    async def agent(request: Request) -> Response:
        body = await _body(request)
        if body != {}:
            raise RequestError("POST /api/agent takes no fields")
        return await then_state(server.agent_move)

    async def new(request: Request) -> Response:
        body = await _body(request)
        if not isinstance(body, dict) or set(body) - {"seed"}:
            raise RequestError('a new game takes {} or {"seed": N}')
        try:
            seed = check_seed(body.get("seed"))
        except ValueError as err:
            raise RequestError(str(err)) from None
        return await then_state(lambda: server.new_game(seed))

    async def resume(request: Request) -> Response:
        body = await _body(request)
        if not isinstance(body, dict) or set(body) != {"name"}:
            raise RequestError('resume takes {"name": "RECORD.json"}')
        return await then_state(lambda: server.resume(body["name"]))

    async def games(request: Request) -> Response:
        return JSONResponse({"games": await locked(server.games)})

    async def record(request: Request) -> Response:
        name = request.path_params["name"]
        return JSONResponse(await locked(lambda: server.record(name)))

    async def static(request: Request) -> Response:
        name, media_type = STATIC[request.url.path]
        text = resources.files("hg_env.web.static").joinpath(name).read_text(encoding="utf-8")
        return Response(text, media_type=media_type, headers={"Cache-Control": "no-cache"})

    async def request_error(request: Request, err: Exception) -> Response:
        assert isinstance(err, RequestError)
        return _error(str(err), err.status)

    async def http_error(request: Request, err: Exception) -> Response:
        assert isinstance(err, HTTPException)
        return _error(f"{request.method} {request.url.path}: {err.detail}", err.status_code)

    routes = [Route(path, static) for path in STATIC]
    routes += [
        Route("/api/state", state),
        Route("/api/board.svg", board),
        Route("/api/move", move, methods=["POST"]),
        Route("/api/agent", agent, methods=["POST"]),
        Route("/api/new", new, methods=["POST"]),
        Route("/api/resume", resume, methods=["POST"]),
        Route("/api/games", games),
        Route("/api/records/{name:path}", record),  # :path so that "a/../b" reaches the name check
    ]
    return Starlette(routes=routes, exception_handlers={RequestError: request_error, HTTPException: http_error})


def serve(server: GameServer, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve until Ctrl-C."""
    import uvicorn

    uvicorn.run(create_app(server), host=host, port=port, log_level="warning")
