//! The replay page (`othello replay --html FILE`, and the server's finished games): one
//! self-contained page that steps through each game board by board (buttons, arrow keys, a slider,
//! the move list), with the players' logged values as a graph when there are any. It needs no
//! server and no network: the games are in the page as JSON.

use serde::Serialize;

use othello_core::game::{Game, Turn};
use othello_core::notation::lab_board;

/// A game as the page shows it.
#[derive(Serialize)]
struct PageGame {
    black: String,
    white: String,
    /// `black 40, white 24` and who won.
    result: String,
    plies: Vec<Ply>,
}

/// The position after a turn (the first: the start).
#[derive(Serialize)]
struct Ply {
    /// 64 characters of `x`, `o` and `.`.
    board: String,
    /// `12. d3 (black)`, `pass (white)`, or `start`.
    label: String,
    /// The square just played.
    square: Option<u8>,
    /// The mover's logged value in discs, from black's side (values in other units are left out);
    /// whether it is exact.
    value: Option<i32>,
    exact: bool,
}

/// The page for `games`, each with its players' names.
pub fn page(title: &str, games: &[(String, String, &Game)]) -> String {
    let games: Vec<PageGame> = games
        .iter()
        .map(|(black, white, game)| page_game(black, white, game))
        .collect();
    // Inside a script element `</script` ends it, and `<!--` followed by `<script` makes the parser
    // swallow what follows: no `<`, `>` or `&` is left in the data (JSON escapes mean the same).
    let data = serde_json::to_string(&games)
        .expect("the page's data serializes")
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026");
    TEMPLATE
        .replace("{{title}}", &crate::report::escape(title))
        .replace("{{data}}", &data)
}

fn page_game(black: &str, white: &str, game: &Game) -> PageGame {
    let mut position = game.start();
    let mut plies = vec![Ply {
        board: lab_board::format(position).to_ascii_lowercase(),
        label: "start".to_string(),
        square: None,
        value: None,
        exact: false,
    }];
    let mut number = 0;
    for turn in game.turns() {
        let (label, square, value) = match *turn {
            Turn::Move {
                side, square, stats, ..
            } => {
                number += 1;
                position = position.play(square);
                // Only values in discs share a scale (a seed evaluation's score does not).
                let value = stats.and_then(|s| s.value).filter(|v| v.unit() == "discs").map(|v| {
                    let discs = if side == othello_core::color::Color::Black {
                        v.number()
                    } else {
                        -v.number()
                    };
                    (discs, v.is_exact())
                });
                (
                    format!("{number}. {square} ({side})"),
                    Some(square.index() as u8),
                    value,
                )
            }
            Turn::Pass { side } => {
                position = position.pass();
                (format!("pass ({side})"), None, None)
            }
        };
        plies.push(Ply {
            board: lab_board::format(position).to_ascii_lowercase(),
            label,
            square,
            value: value.map(|(discs, _)| discs),
            exact: value.is_some_and(|(_, exact)| exact),
        });
    }
    let (b, w) = game.position().counts();
    let verdict = if !game.is_over() {
        "unfinished"
    } else if b > w {
        "black wins"
    } else if w > b {
        "white wins"
    } else {
        "a draw"
    };
    PageGame {
        black: black.to_string(),
        white: white.to_string(),
        result: format!("black {b}, white {w}: {verdict}"),
        plies,
    }
}

const TEMPLATE: &str = r##"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{title}}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em;margin:0 0 .6em}
.wrap{display:flex;gap:2em;flex-wrap:wrap;align-items:flex-start}
.controls{margin:.6em 0;display:flex;gap:.4em;align-items:center;flex-wrap:wrap}
button{font-size:1em;padding:.2em .7em}
#moves{position:relative;max-height:600px;overflow-y:auto;border:1px solid #ccc;padding:.3em;min-width:11em;font-size:.9em}
#moves div{cursor:pointer;padding:.05em .3em}#moves div.now{background:#ffd54f}
#label{font-weight:bold;min-width:10em}
.players{color:#555;margin:.2em 0}
</style></head><body>
<h1>{{title}}</h1>
<div class="controls"><label>Game <select id="game"></select></label><span class="players" id="players"></span></div>
<div class="wrap">
<div>
<svg id="board" width="400" height="385" viewBox="0 0 400 385"></svg>
<div class="controls"><button id="first" title="Home">|&lt;</button><button id="prev" title="Left arrow">&lt;</button>
<button id="next" title="Right arrow">&gt;</button><button id="last" title="End">&gt;|</button>
<input id="slider" type="range" min="0" value="0"><span id="label"></span></div>
<div id="counts"></div>
<svg id="graph" width="420" height="220" viewBox="0 0 420 220"></svg>
</div>
<div><div id="moves"></div></div>
</div>
<script type="application/json" id="data">{{data}}</script>
<script>
const games = JSON.parse(document.getElementById("data").textContent);
const NS = "http://www.w3.org/2000/svg";
let g = 0, p = 0;
const $ = id => document.getElementById(id);
function el(name, attrs, parent, text) {
  const e = document.createElementNS(NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  parent.appendChild(e); return e;
}
games.forEach((game, i) => { const o = document.createElement("option"); o.value = i;
  o.textContent = (i + 1) + ": " + game.black + " vs " + game.white; $("game").appendChild(o); });
if (games.length < 2) $("game").parentElement.style.display = "none";
function drawBoard() {
  const svg = $("board"); svg.innerHTML = ""; const ply = games[g].plies[p]; const c = 45, o = 20;
  el("rect", {x: o, y: 0, width: 8 * c, height: 8 * c, fill: "#2e7d32"}, svg);
  for (let i = 0; i <= 8; i++) {
    el("line", {x1: o, y1: i * c, x2: o + 8 * c, y2: i * c, stroke: "#1b4d1e"}, svg);
    el("line", {x1: o + i * c, y1: 0, x2: o + i * c, y2: 8 * c, stroke: "#1b4d1e"}, svg);
  }
  for (let i = 0; i < 8; i++) {
    el("text", {x: o + i * c + c / 2, y: 8 * c + 16, "text-anchor": "middle", fill: "#777"}, svg, "abcdefgh"[i]);
    el("text", {x: 8, y: i * c + c / 2 + 5, "text-anchor": "middle", fill: "#777"}, svg, String(i + 1));
  }
  for (let s = 0; s < 64; s++) {
    const ch = ply.board[s]; if (ch === ".") continue;
    const cx = o + (s % 8) * c + c / 2, cy = Math.floor(s / 8) * c + c / 2;
    el("circle", {cx, cy, r: c * 0.4, fill: ch === "x" ? "#111" : "#fafafa", stroke: "#333"}, svg);
    if (s === ply.square) el("circle", {cx, cy, r: 4, fill: "#e53935"}, svg);
  }
  let b = 0, w = 0; for (const ch of ply.board) { if (ch === "x") b++; if (ch === "o") w++; }
  $("counts").textContent = "black " + b + ", white " + w + (p === games[g].plies.length - 1 ? " (" + games[g].result + ")" : "");
  $("label").textContent = ply.label + (ply.value === null ? "" : ", black " + (ply.value > 0 ? "+" : "") + ply.value + (ply.exact ? " exact" : ""));
  $("slider").value = p;
  document.querySelectorAll("#moves div").forEach((d, i) => d.className = i === p ? "now" : "");
  const now = document.querySelector("#moves div.now"), list = $("moves");
  if (now) list.scrollTop = Math.max(0, now.offsetTop - list.clientHeight / 2);
  drawGraph();
}
function drawGraph() {
  const svg = $("graph"); svg.innerHTML = ""; const plies = games[g].plies;
  const pts = plies.map((q, i) => [i, q.value]).filter(([, v]) => v !== null);
  if (pts.length === 0) { svg.style.display = "none"; return; }
  svg.style.display = "";
  const W = 420, H = 220, L = 36, T = 20, B = 24; const n = Math.max(plies.length - 1, 1);
  const m = Math.max(8, ...pts.map(([, v]) => Math.abs(v)));
  const x = i => L + (W - L - 8) * i / n, y = v => T + (H - T - B) * (1 - (v + m) / (2 * m));
  el("text", {x: L, y: 12, "font-size": 11}, svg, "black's value after each logged move, in discs");
  el("line", {x1: L, y1: y(0), x2: W - 8, y2: y(0), stroke: "#444"}, svg);
  for (const v of [m, -m]) el("text", {x: L - 4, y: y(v) + 4, "text-anchor": "end", "font-size": 11}, svg, (v > 0 ? "+" : "") + v);
  el("polyline", {points: pts.map(([i, v]) => x(i) + "," + y(v)).join(" "), fill: "none", stroke: "#1f5fbf", "stroke-width": 2}, svg);
  for (const [i, v] of pts) if (plies[i].exact) el("circle", {cx: x(i), cy: y(v), r: 2.5, fill: "#2e7d32"}, svg);
  el("line", {x1: x(p), y1: T, x2: x(p), y2: H - B, stroke: "#e53935"}, svg);
}
function chooseGame(i) {
  g = i; p = 0; const game = games[g]; $("game").value = i;
  $("players").textContent = game.black + " (black) vs " + game.white + " (white): " + game.result;
  $("slider").max = game.plies.length - 1;
  const list = $("moves"); list.innerHTML = "";
  game.plies.forEach((q, k) => { const d = document.createElement("div"); d.textContent = q.label;
    d.onclick = () => { p = k; drawBoard(); }; list.appendChild(d); });
  drawBoard();
}
function step(to) { p = Math.max(0, Math.min(games[g].plies.length - 1, to)); drawBoard(); }
$("first").onclick = () => step(0); $("prev").onclick = () => step(p - 1);
$("next").onclick = () => step(p + 1); $("last").onclick = () => step(1e9);
$("slider").oninput = e => step(Number(e.target.value));
$("game").onchange = e => chooseGame(Number(e.target.value));
document.addEventListener("keydown", e => {
  if (e.key === "ArrowLeft") step(p - 1); else if (e.key === "ArrowRight") step(p + 1);
  else if (e.key === "Home") step(0); else if (e.key === "End") step(1e9);
});
const start = new URLSearchParams(location.hash.slice(1));
chooseGame(Math.min(games.length - 1, Number(start.get("game") || 1) - 1));
if (start.get("ply")) step(Number(start.get("ply")));
</script></body></html>
"##;
