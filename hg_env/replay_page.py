"""The replay viewer's page (``hg_env.replay_html``): HTML, CSS and plain JavaScript, no network.

``__TITLE__``, ``__SYMBOLS__`` (the tiles' SVG symbols) and ``__DATA__`` (the JSON of
``replay_html.replay_data``) are filled in when a replay is written.
"""
# ruff: noqa: E501  (the page's HTML and JavaScript keep their own line lengths)

PAGE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>__TITLE__</title>
<style>
body { font-family: Aileron, "DejaVu Sans", Arial, sans-serif; margin: 0; background: #eee8da; color: #1e1e1e; }
header { padding: 8px 14px; font-size: 18px; font-weight: bold; }
#controls { display: flex; gap: 6px; align-items: center; padding: 0 14px 8px; }
#controls button { font-size: 15px; min-width: 38px; }
#slider { flex: 1; max-width: 720px; }
#main { display: flex; gap: 12px; padding: 0 14px 14px; align-items: flex-start; }
#left { flex: 1; min-width: 0; }
#board { width: 100%; height: auto; max-height: 86vh; background: #eee8da; }
#side { width: 330px; flex: none; background: #faf7f0; border: 1px solid #d6cebc; padding: 10px; font-size: 13px; }
#side h3 { font-size: 13px; margin: 10px 0 4px; }
#scores td { padding: 1px 6px; font-size: 15px; }
.swatch { display: inline-block; width: 14px; height: 14px; border: 1px solid #1e1e1e; vertical-align: middle; }
#events li, #agent li { margin: 2px 0; }
#agent .bar { display: inline-block; height: 8px; background: #ff28a0; vertical-align: middle; margin-right: 4px; }
#agent li.played { font-weight: bold; }
#feature { min-height: 3.5em; background: #fff; border: 1px solid #d6cebc; padding: 4px; }
.candidate { pointer-events: none; }
.feature-tile { fill: #fff05a; fill-opacity: .45; pointer-events: none; }
.open-edge { stroke: #d00000; stroke-width: 6; stroke-linecap: round; pointer-events: none; }
</style>
</head>
<body>
<header id="title">__TITLE__</header>
<div id="controls">
  <button id="first" title="start (Home)">|&#x25C0;</button>
  <button id="back" title="step back (Left)">&#x25C0;</button>
  <button id="play" title="play / pause (Space)">play</button>
  <button id="forward" title="step forward (Right)">&#x25B6;</button>
  <button id="last" title="end (End)">&#x25B6;|</button>
  <input id="slider" type="range" min="0" value="0">
  <span id="counter"></span>
</div>
<div id="main">
  <div id="left">
    <svg id="board" xmlns="http://www.w3.org/2000/svg">
      <defs>__SYMBOLS__</defs>
      <g id="grid"></g><g id="tiles"></g><g id="marks"></g><g id="lastmark"></g><g id="heat"></g>
      <g id="occupants"></g><g id="hover"></g>
    </svg>
  </div>
  <div id="side">
    <table id="scores"></table>
    <div id="status"></div>
    <div id="next"></div>
    <h3>Move played here</h3><div id="move"></div>
    <h3>What happened</h3><ul id="events"></ul>
    <div id="agent"></div>
    <h3>Feature under the pointer</h3><div id="feature">Point at a forest, meadow, river, city, road ...</div>
    <h3>Scores over time</h3><svg id="chart" xmlns="http://www.w3.org/2000/svg" width="300" height="120"></svg>
    <h3>Key</h3><svg id="legend" xmlns="http://www.w3.org/2000/svg" width="300"></svg>
  </div>
</div>
<script type="application/json" id="data">__DATA__</script>
<script>
"use strict";
const D = JSON.parse(document.getElementById("data").textContent);
const B = D.board, NS = "http://www.w3.org/2000/svg", N = D.steps.length - 1;
const SIDES = [[0, 0, 1, 0], [1, 0, 1, 1], [0, 1, 1, 1], [0, 0, 0, 1]];  // N E S W as unit-square lines
let k = 0, timer = null, shown = null, placedAt = {};
const ZONE_INDEX = Object.fromEntries(D.zone_keys.map((key, i) => [key, i]));
const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]));
const origin = (x, y) => [B.left + (x - B.bounds[0]) * B.px, B.top + (y - B.bounds[2]) * B.px];
const shows = (x, y) => x >= B.bounds[0] && x <= B.bounds[1] && y >= B.bounds[2] && y <= B.bounds[3];

function drawGrid() {
  const board = $("board");
  board.setAttribute("viewBox", `0 0 ${B.width} ${B.height}`);
  board.setAttribute("width", B.width);
  board.setAttribute("height", B.height);
  let out = "";
  for (let x = B.bounds[0]; x <= B.bounds[1]; x++) {
    const [ox] = origin(x, B.bounds[2]);
    out += `<text x="${ox + B.px / 2}" y="${B.top / 2}" font-size="11" text-anchor="middle" dominant-baseline="central" fill="#5a503c">x=${x}</text>`;
  }
  for (let y = B.bounds[2]; y <= B.bounds[3]; y++) {
    const [, oy] = origin(B.bounds[0], y);
    out += `<text x="${B.left / 2}" y="${oy + B.px / 2}" font-size="11" text-anchor="middle" dominant-baseline="central" fill="#5a503c">${y}</text>`;
    for (let x = B.bounds[0]; x <= B.bounds[1]; x++) {
      const [ox] = origin(x, y);
      out += `<rect x="${ox}" y="${oy}" width="${B.px}" height="${B.px}" fill="none" stroke="#d6cebc"/>`;
    }
  }
  $("grid").innerHTML = out;
}

function drawScores() {
  $("scores").innerHTML = D.names.map((name, s) =>
    `<tr><td><span class="swatch" style="background:${D.colors[s]}"></span></td><td>${esc(name)}</td>` +
    `<td class="score" data-seat="${s}" data-score="0">0</td></tr>`).join("");
}

function drawChart() {
  const w = 300, h = 120, pad = 22;
  const top = Math.max(1, ...D.steps.map((s) => Math.max(...s.scores)));
  const X = (i) => pad + (w - pad - 6) * (N ? i / N : 0), Y = (v) => h - 16 - (h - 26) * v / top;
  let out = `<line x1="${pad}" y1="${Y(0)}" x2="${w - 6}" y2="${Y(0)}" stroke="#999"/>`;
  out += `<text x="${pad - 3}" y="${Y(top)}" font-size="10" text-anchor="end" dominant-baseline="central">${top}</text>`;
  out += `<text x="${pad - 3}" y="${Y(0)}" font-size="10" text-anchor="end" dominant-baseline="central">0</text>`;
  out += `<text x="${w - 6}" y="${h - 4}" font-size="10" text-anchor="end">decision ${N}</text>`;
  D.names.forEach((_, s) => {
    const pts = D.steps.map((st, i) => `${X(i).toFixed(1)},${Y(st.scores[s]).toFixed(1)}`).join(" ");
    out += `<polyline class="score-line" data-seat="${s}" points="${pts}" fill="none" stroke="${D.colors[s]}" stroke-width="2"/>`;
  });
  out += `<line id="cursor" y1="4" y2="${h - 16}" stroke="#1e1e1e" stroke-dasharray="3 2"/>`;
  $("chart").innerHTML = out;
  $("chart").dataset.x0 = pad;
}

function moveCursor() {
  const w = 300, pad = 22, x = pad + (w - pad - 6) * (N ? k / N : 0);
  const c = $("cursor");
  c.setAttribute("x1", x); c.setAttribute("x2", x);
}

function useTile(key, ox, oy, size) {
  return `<use href="#${key}" x="${ox}" y="${oy}" width="${size}" height="${size}"/>`;
}

function measureText(m) {
  return Object.entries(m).map(([key, v]) => key === "gain" ? `gain ${v >= 0 ? "+" : ""}${v.toFixed(2)}` :
    key === "p" ? `p ${(100 * v).toFixed(1)}%` : key === "value" ? `value ${v.toFixed(3)}` : `${key} ${v}`).join(", ");
}

function show(step) {
  k = Math.max(0, Math.min(N, step));
  const s = D.steps[k];
  shown = s;
  placedAt = {};
  let tiles = "";
  for (const [tile, x, y, r, key] of D.placements.slice(0, s.tiles)) {
    placedAt[`${x},${y}`] = key;
    const [ox, oy] = origin(x, y);
    tiles += `<g class="tile" data-x="${x}" data-y="${y}" data-tile="${tile}" data-rotation="${r}">${useTile(key, ox, oy, B.px)}</g>`;
  }
  $("tiles").innerHTML = tiles;
  $("occupants").innerHTML = s.occupants.map((key) => D.figures[key]).join("");
  $("marks").innerHTML = s.marks === null ? "" : D.marks[s.marks];
  let mark = "";
  if (s.last && shows(...s.last)) {
    const [ox, oy] = origin(...s.last);
    mark = `<rect x="${ox - 1}" y="${oy - 1}" width="${B.px + 2}" height="${B.px + 2}" fill="none" stroke="#ff8000" stroke-width="4"/>`;
  }
  $("lastmark").innerHTML = mark;
  drawHeat(s);
  document.querySelectorAll("#scores .score").forEach((td) => {
    const v = s.scores[+td.dataset.seat];
    td.dataset.score = v; td.textContent = v;
  });
  $("status").textContent = s.status;
  $("next").innerHTML = s.next ? `<svg width="72" height="72" viewBox="0 0 ${B.px} ${B.px}" class="next-tile" data-tile="${s.next.slice(1).split("r")[0]}">${useTile(s.next, 0, 0, B.px)}</svg>` : "";
  $("move").textContent = s.move || "(the end)";
  $("events").innerHTML = s.events.length ? s.events.map((e) => `<li class="event">${esc(e)}</li>`).join("") : "<li>(no scoring)</li>";
  drawAgent(s);
  $("slider").value = k;
  $("counter").textContent = `step ${k} / ${N}`;
  document.body.dataset.step = k;
  moveCursor();
  $("hover").innerHTML = "";
}

function drawHeat(s) {
  let out = "";
  const e = s.explain;
  if (e) {
    const best = {};
    for (const m of e.moves) {
      if (m.x === undefined) continue;
      const key = `${m.x},${m.y}`;
      if (!best[key] || best[key].weight < m.weight) best[key] = m;
    }
    for (const m of Object.values(best)) {
      if (!shows(m.x, m.y)) continue;
      const [ox, oy] = origin(m.x, m.y);
      out += `<rect class="candidate" data-x="${m.x}" data-y="${m.y}" data-rotation="${m.rotation}" data-weight="${m.weight}" ` +
        `x="${ox + 3}" y="${oy + 3}" width="${B.px - 6}" height="${B.px - 6}" fill="#ff28a0" fill-opacity="${(0.12 + 0.6 * m.weight).toFixed(3)}" stroke="#ff28a0" stroke-width="2"/>` +
        `<text x="${ox + B.px / 2}" y="${oy + B.px / 2}" font-size="13" font-weight="bold" text-anchor="middle" dominant-baseline="central" fill="#fff" stroke="#5a0030" stroke-width="3" paint-order="stroke" pointer-events="none">r${m.rotation} ${measureText(m.measures).split(",")[0].replace(/^[a-z]+ /, "")}</text>`;
    }
  }
  for (const m of e ? e.moves : []) {  // figure choices: the zone's spot, tinted by its weight
    if (!m.at) continue;
    const r = B.px * 0.11;
    out += `<circle class="candidate-zone" data-zone="${m.zone}" data-weight="${m.weight}" cx="${m.at[0]}" cy="${m.at[1]}" r="${r}" fill="#ff28a0" fill-opacity="${(0.25 + 0.6 * m.weight).toFixed(3)}" stroke="#5a0030" stroke-width="2"/>` +
      `<text x="${m.at[0]}" y="${m.at[1]}" font-size="${Math.round(r * 1.2)}" font-weight="bold" text-anchor="middle" dominant-baseline="central" fill="#fff" pointer-events="none">${m.zone}</text>`;
  }
  const played = D.record.decisions[k];
  if (played && played[0] === "place" && shows(played[1], played[2])) {
    const [ox, oy] = origin(played[1], played[2]);
    out += `<rect class="played" x="${ox + 1}" y="${oy + 1}" width="${B.px - 2}" height="${B.px - 2}" fill="none" stroke="#1e1e1e" stroke-width="3" stroke-dasharray="8 5"/>`;
  }
  $("heat").innerHTML = out;
}

function drawAgent(s) {
  const e = s.explain;
  if (!D.agent) { $("agent").innerHTML = ""; return; }
  if (!e) { $("agent").innerHTML = `<h3>What ${esc(D.agent)} thought</h3><div>(not its decision, or a forced one)</div>`; return; }
  const played = (s.move || "").split(": ").slice(1).join(": ");
  const rows = e.moves.map((m) => `<li class="agent-move${m.text === played ? " played" : ""}" data-weight="${m.weight}">` +
    `<span class="bar" style="width:${Math.round(40 * m.weight)}px"></span>${esc(m.text)} <small>(${esc(measureText(m.measures))})</small>` +
    `${m.text === played ? " &larr; played" : ""}</li>`).join("");
  $("agent").innerHTML = `<h3>What ${esc(e.agent)} thought as ${esc(D.names[e.seat])}</h3><ol>${rows}</ol>`;
}

function hover(evt) {
  const board = $("board"), pt = board.createSVGPoint();
  pt.x = evt.clientX; pt.y = evt.clientY;
  const p = pt.matrixTransform(board.getScreenCTM().inverse());
  const fx = (p.x - B.left) / B.px, fy = (p.y - B.top) / B.px;
  const x = B.bounds[0] + Math.floor(fx), y = B.bounds[2] + Math.floor(fy);
  const key = placedAt[`${x},${y}`];
  const out = $("hover");
  if (!key) { out.innerHTML = ""; return; }
  const gx = Math.floor((fx - Math.floor(fx)) * B.grid), gy = Math.floor((fy - Math.floor(fy)) * B.grid);
  const zone = D.rasters[key][gy * B.grid + gx];
  const at = zone === "." ? undefined : ZONE_INDEX[`${x},${y},${zone.charCodeAt(0) - 48}`];
  const f = at === undefined ? undefined : D.areas[shown.areas[at]];
  if (!f) { out.innerHTML = ""; $("feature").textContent = "(no area here)"; return; }
  let marks = "";
  for (const [tx, ty] of f.tiles) {
    if (!shows(tx, ty)) continue;
    const [ox, oy] = origin(tx, ty);
    marks += `<rect class="feature-tile" data-x="${tx}" data-y="${ty}" x="${ox}" y="${oy}" width="${B.px}" height="${B.px}"/>`;
  }
  for (const [ex, ey, d] of f.edges) {
    if (!shows(ex, ey)) continue;
    const [ox, oy] = origin(ex, ey), [a, b, c, e] = SIDES[d];
    marks += `<line class="open-edge" x1="${ox + a * B.px}" y1="${oy + b * B.px}" x2="${ox + c * B.px}" y2="${oy + e * B.px}"/>`;
  }
  out.innerHTML = marks;
  const figures = f.figures.map((n, s) => n ? `${D.names[s]} &times;${n}` : "").filter(Boolean).join(", ") || "none";
  const state = f.edges.length ? `${f.edges.length} open side${f.edges.length === 1 ? "" : "s"}` : "closed";
  $("feature").innerHTML = `<b>${esc(f.name)}</b>: ${f.tiles.length} tile${f.tiles.length === 1 ? "" : "s"}, ${state}<br>` +
    `figures: ${figures}<br>worth ${f.value} point${f.value === 1 ? "" : "s"} now`;
}

function play() {
  if (timer) { clearInterval(timer); timer = null; $("play").textContent = "play"; return; }
  if (k >= N) show(0);
  $("play").textContent = "pause";
  timer = setInterval(() => { if (k >= N) play(); else show(k + 1); }, 700);
}

drawGrid();
drawScores();
drawChart();
$("legend").innerHTML = D.legend.svg;
$("legend").setAttribute("height", D.legend.height);
$("slider").max = N;
$("slider").addEventListener("input", (e) => show(+e.target.value));
$("first").onclick = () => show(0);
$("back").onclick = () => show(k - 1);
$("forward").onclick = () => show(k + 1);
$("last").onclick = () => show(N);
$("play").onclick = play;
$("board").addEventListener("mousemove", hover);
$("board").addEventListener("mouseleave", () => { $("hover").innerHTML = ""; });
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT" && e.target.type !== "range") return;
  if (e.key === "ArrowRight") show(k + 1);
  else if (e.key === "ArrowLeft") show(k - 1);
  else if (e.key === "Home") show(0);
  else if (e.key === "End") show(N);
  else if (e.key === " ") { e.preventDefault(); play(); }
  else return;
});
window.showStep = show;  // for scripts and tests: showStep(k)
show(0);
</script>
</body>
</html>
"""
