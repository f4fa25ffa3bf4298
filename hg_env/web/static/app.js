// hgenv serve: the page. Draws GET /api/state and /api/board.svg, sends your clicks as moves
// (POST /api/move), and asks the server for the agents' moves one at a time (POST /api/agent) so you
// can watch them. Every error the server answers is shown in #error; the game is then unchanged.
"use strict";

const $ = (selector) => document.querySelector(selector);
const params = new URLSearchParams(location.search);
let state = null;
let selected = null; // the legal cell you clicked: {x, y, rotations: [..], index}
let agentTimer = null;
let busy = false;

if (params.has("delay")) $("#delay").value = params.get("delay");

class ApiError extends Error {}

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (err) {
    showError(`the server does not answer (${err.message}); is hgenv serve still running?`);
    throw new ApiError(err.message);
  }
  const isJson = (response.headers.get("Content-Type") || "").includes("json");
  const data = isJson ? await response.json() : await response.text();
  if (!response.ok) {
    const message = isJson && data.error ? data.error : `${response.status} ${response.statusText}`;
    showError(message);
    throw new ApiError(message);
  }
  return data;
}

function showError(message) {
  const box = $("#error");
  box.textContent = message;
  box.hidden = false;
}

function clearError() {
  $("#error").hidden = true;
  $("#error").textContent = "";
}

// ------------------------------------------------------------------ drawing

async function refresh(newState) {
  state = newState || (await api("GET", "/api/state"));
  const svg = await api("GET", "/api/board.svg");
  selected = null;
  drawBoard(svg);
  drawPanel();
  const body = document.body.dataset;
  body.ready = "true";
  body.phase = state.phase;
  body.yourTurn = String(state.your_turn);
  body.over = String(state.over);
  body.decisions = String(state.decisions);
  scheduleAgents();
}

function drawBoard(svgText) {
  const board = $("#board");
  board.innerHTML = svgText;
  if (!state.your_turn) return;
  for (const cell of board.querySelectorAll(".legal-cell")) {
    cell.addEventListener("click", () => clickCell(cell));
  }
  const occupantKinds = new Set(state.occupant_kinds);
  for (const zone of board.querySelectorAll(".zone.selectable")) {
    const z = Number(zone.dataset.zone);
    if (state.moves.some((m) => occupantKinds.has(m.move[0]) && m.move[1] === z)) zone.classList.add("legal");
    zone.addEventListener("click", (event) => {
      event.stopPropagation();
      clickZone(z);
    });
  }
  // A declared decision that names a figure by its cell (the abbot's recall, the shaman's retake).
  for (const figure of board.querySelectorAll(".occupant")) {
    const x = Number(figure.dataset.x);
    const y = Number(figure.dataset.y);
    const moves = state.moves.filter((m) => m.move.length === 3 && m.move[1] === x && m.move[2] === y);
    if (!moves.length) continue;
    figure.classList.add("recallable");
    figure.addEventListener("click", (event) => {
      event.stopPropagation();
      moves.length === 1 ? sendMove(moves[0].move) : offer(moves, `choose for the figure at (${x},${y}):`, true);
    });
  }
}

function drawPanel() {
  $("#title").textContent = state.title;
  $("#record").textContent = state.record;
  $("#download").href = `/api/records/${encodeURIComponent(state.record)}`;
  $("#download").download = state.record;
  const status = $("#status");
  status.className = state.over ? "over" : state.your_turn ? "yours" : "";
  if (state.over) {
    const names = state.winners.map((s) => state.players[s].name).join(", ");
    status.textContent = `Game over. Winner(s): ${names}.`;
  } else if (state.your_turn) {
    status.textContent = `Your turn: ${state.prompt}.` + (state.phase === "place" ? " Click a green cell." : "");
  } else {
    status.textContent = `${state.players[state.current].name} is thinking…`;
  }
  const placing = state.your_turn && state.phase === "place";
  $("#place-controls").hidden = !placing;
  $("#place").disabled = true;
  $("#selection").textContent = placing ? `tile ${state.tile_to_place}` : "";
  offer(state.moves, state.moves.length ? "or choose:" : "");

  const rows = state.players.map((p) => {
    const supply = Object.entries(p.supply).map(([kind, n]) => `${n} ${kind}${n === 1 ? "" : "s"}`).join(", ");
    const tr = document.createElement("tr");
    tr.dataset.seat = p.seat;
    if (p.seat === state.current) tr.className = "current";
    tr.innerHTML = `<td><span class="swatch"></span></td><td class="name"></td><td class="score"></td><td class="supply"></td>`;
    tr.querySelector(".swatch").style.background = p.color;
    tr.querySelector(".name").textContent = p.name;
    tr.querySelector(".score").textContent = p.score;
    tr.querySelector(".score").dataset.score = p.score;
    tr.querySelector(".supply").textContent = supply;
    return tr;
  });
  $("#players tbody").replaceChildren(...rows);
  const left = Object.entries(state.tiles_left).map(([deck, n]) => `${n} ${deck}`).join(", ");
  $("#tiles-left").textContent = `Tiles left: ${left}` + (state.tile_to_place === null ? "" : `; tile to place: ${state.tile_to_place}`);

  const log = $("#log");
  log.replaceChildren(
    ...state.log.map((line) => {
      const li = document.createElement("li");
      li.textContent = line.trim();
      if (/^\s/.test(line)) li.className = "event";
      return li;
    })
  );
  log.scrollTop = log.scrollHeight;
}

// Buttons for moves that are not placements: occupants, "none", declared decisions (retake, pit trap, ...).
function offer(moves, heading, back = false) {
  const box = $("#choices");
  const items = [];
  if (heading) {
    const p = document.createElement("div");
    p.textContent = heading;
    items.push(p);
  }
  for (const m of moves) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "choice";
    button.dataset.move = JSON.stringify(m.move);
    button.textContent = m.text;
    button.addEventListener("click", () => sendMove(m.move));
    items.push(button);
  }
  if (back) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "← all choices";
    button.addEventListener("click", () => offer(state.moves, "or choose:"));
    items.push(button);
  }
  box.replaceChildren(...items);
}

// ------------------------------------------------------------------ your moves

function clickCell(cell) {
  const x = Number(cell.dataset.x);
  const y = Number(cell.dataset.y);
  if (selected && selected.x === x && selected.y === y) {
    placeSelected(); // a second click on the chosen cell places the tile
    return;
  }
  let rotations = (cell.dataset.rotations || "").split(/\s+/).filter(Boolean).map(Number);
  if (!rotations.length) rotations = state.placements.filter((p) => p[0] === x && p[1] === y).map((p) => p[2]);
  for (const other of document.querySelectorAll(".legal-cell.selected")) other.classList.remove("selected");
  cell.classList.add("selected");
  selected = { x, y, rotations, index: 0, cell };
  showSelection();
}

function rotate() {
  if (!selected) {
    showError("click a green cell first; then rotate the tile there");
    return;
  }
  selected.index = (selected.index + 1) % selected.rotations.length;
  showSelection();
}

function showSelection() {
  const r = selected.rotations[selected.index];
  const others = selected.rotations.length > 1 ? ` (${selected.rotations.length} ways fit: R rotates)` : "";
  $("#selection").textContent = `tile ${state.tile_to_place} at (${selected.x},${selected.y}) r${r}${others}`;
  $("#place").disabled = false;
  $("#rotate").disabled = selected.rotations.length < 2;
  drawPreview(selected.cell, r);
}

// The tile to place, drawn turned by r quarter turns clockwise over the chosen cell.
function drawPreview(cell, r) {
  for (const old of document.querySelectorAll("#board .preview")) old.remove();
  const tile = document.querySelector("#board .next-tile");
  if (!tile || typeof tile.getBBox !== "function") return;
  const art = tile.firstElementChild; // the tile's artwork, placed in the panel by its own transform
  if (!art) return;
  const box = art.getBBox(); // in the artwork's own units, before its transform
  const cx = Number(cell.getAttribute("x")) + Number(cell.getAttribute("width")) / 2;
  const cy = Number(cell.getAttribute("y")) + Number(cell.getAttribute("height")) / 2;
  if (!box.width || !Number.isFinite(cx) || !Number.isFinite(cy)) return;
  const scale = Number(cell.getAttribute("width")) / box.width;
  const copy = art.cloneNode(true);
  copy.removeAttribute("transform");
  const group = document.createElementNS("http://www.w3.org/2000/svg", "g");
  group.setAttribute("class", "preview");
  group.setAttribute(
    "transform",
    `translate(${cx} ${cy}) rotate(${90 * r}) scale(${scale}) translate(${-(box.x + box.width / 2)} ${-(box.y + box.height / 2)})`
  );
  group.appendChild(copy);
  cell.parentNode.appendChild(group);
}

function placeSelected() {
  if (!selected) {
    showError("click a green cell to choose where the tile goes");
    return;
  }
  sendMove(["place", selected.x, selected.y, selected.rotations[selected.index]]);
}

function clickZone(z) {
  const kinds = new Set(state.occupant_kinds);
  const here = state.moves.filter((m) => kinds.has(m.move[0]) && m.move[1] === z);
  if (here.length === 1) sendMove(here[0].move);
  else if (here.length > 1) offer(here, `zone ${z}: which figure?`, true);
  else showError(`no figure may go on zone ${z} of this tile; the choices are listed on the right`);
}

async function sendMove(move) {
  if (busy) return;
  busy = true;
  clearError();
  try {
    await refresh(await api("POST", "/api/move", { move }));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
  } finally {
    busy = false;
  }
}

// ------------------------------------------------------------------ the agents' moves

function scheduleAgents() {
  clearTimeout(agentTimer);
  if (!state || state.over || state.your_turn) return;
  agentTimer = setTimeout(agentStep, Number($("#delay").value));
}

async function agentStep() {
  if (busy) return scheduleAgents();
  busy = true;
  try {
    await refresh(await api("POST", "/api/agent"));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    setTimeout(() => refresh().catch(() => {}), 2000); // show the game as it is, and go on
  } finally {
    busy = false;
  }
}

// ------------------------------------------------------------------ games

async function newGame() {
  if (state && !state.over && !confirm("Start a new game? This one stays saved and can be resumed.")) return;
  clearError();
  try {
    await refresh(await api("POST", "/api/new", {}));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
  }
}

async function showGames() {
  let data;
  try {
    data = await api("GET", "/api/games");
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return;
  }
  const rows = data.games.map((g) => {
    const tr = document.createElement("tr");
    const name = document.createElement("td");
    name.textContent = g.name;
    const what = document.createElement("td");
    what.textContent = g.error || `${g.ruleset}, ${(g.players || []).join(" vs ")}, ${g.decisions} decisions, scores ${JSON.stringify(g.scores)}`;
    const action = document.createElement("td");
    if (!g.error && !g.over && g.name !== state.record) {
      const button = document.createElement("button");
      button.textContent = "Resume";
      button.addEventListener("click", async () => {
        $("#games-dialog").close();
        clearError();
        try {
          await refresh(await api("POST", "/api/resume", { name: g.name }));
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
        }
      });
      action.appendChild(button);
    } else if (g.over) {
      action.textContent = "finished";
    }
    tr.append(name, what, action);
    return tr;
  });
  $("#games tbody").replaceChildren(...rows);
  $("#games-dialog").showModal();
}

$("#rotate").addEventListener("click", rotate);
$("#place").addEventListener("click", placeSelected);
$("#new-game").addEventListener("click", newGame);
$("#show-games").addEventListener("click", showGames);
$("#delay").addEventListener("change", scheduleAgents);
document.addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
  if (!state || !state.your_turn || state.phase !== "place") return;
  if (event.key === "r" || event.key === "R") rotate();
  else if (event.key === "Enter") placeSelected();
  else if (event.key === "Escape" && selected) refresh(state);
});

refresh().catch((err) => {
  if (!(err instanceof ApiError)) showError(String(err));
});
