// The pages' behaviour: asking for a game and uploading on the home page, and a game's page that
// follows its events and sends the person's clicks. Every name is set as text, never as HTML.
"use strict";
const $ = (id) => document.getElementById(id);

async function send(method, url, body) {
  const options = { method, headers: {} };
  if (body instanceof FormData) {
    options.body = body;
  } else if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const reply = await fetch(url, options);
  const data = await reply.json().catch(() => ({ error: "the server answered " + reply.status }));
  if (!reply.ok) throw new Error(data.error || "the server answered " + reply.status);
  return data;
}

// A form sent by `work` (its answer's follow-up: a new page, a reload); a refusal shown in `errorId`.
function onSubmit(formId, errorId, work) {
  const form = $(formId);
  if (!form) return;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    $(errorId).textContent = "";
    try {
      await work(form.elements, form);
    } catch (error) {
      $(errorId).textContent = error.message;
    }
  });
}

function home() {
  onSubmit("new-game", "new-game-error", async (fields) => {
    const game = await send("POST", "/api/games", { black: fields.black.value, white: fields.white.value });
    location.href = "/games/" + game.id;
  });
  onSubmit("new-tournament", "new-tournament-error", async (fields) => {
    const tournament = await send("POST", "/api/tournaments", {
      name: fields.name.value,
      format: fields.format.value,
      rounds: Number(fields.rounds.value),
      scoring: fields.scoring.value,
    });
    location.href = "/tournaments/" + tournament.id;
  });
  onSubmit("new-check", "new-check-error", async (fields) => {
    // A number names a version; anything else is a strategy or an engine level.
    const opponent = /^[0-9]+$/.test(fields.opponent.value) ? Number(fields.opponent.value) : fields.opponent.value;
    await send("POST", "/api/checks", {
      name: fields.name.value,
      opponent,
      games: Number(fields.games.value),
      measure: fields.measure.value,
      pass: Number(fields.pass.value),
    });
    location.reload();
  });
  onSubmit("ladder-switch", "ladder-error", async (_, form) => {
    await send("PUT", "/api/ladder", { running: form.dataset.running !== "true" });
    location.reload();
  });
  const toggles = [
    ["input.open", (box) => ["/api/students/" + encodeURIComponent(box.dataset.student), { open: box.checked }]],
    ["input.disable-student", (box) => ["/api/students/" + encodeURIComponent(box.dataset.student), { disabled: box.checked }]],
    ["input.disable-version", (box) => ["/api/programs/" + box.dataset.version, { disabled: box.checked }]],
  ];
  for (const [selector, request] of toggles) {
    for (const box of document.querySelectorAll(selector)) {
      box.addEventListener("change", async () => {
        $("class-error").textContent = "";
        try {
          const [path, body] = request(box);
          await send("PUT", path, body);
        } catch (error) {
          box.checked = !box.checked;
          $("class-error").textContent = error.message;
        }
      });
    }
  }
  const upload = $("upload");
  if (upload) {
    // The page reloads to list a new version; an upload started before that waits for its own
    // verdict instead (the reload after it lists both).
    let reload = null;
    upload.addEventListener("submit", async (event) => {
      event.preventDefault();
      clearTimeout(reload);
      const said = $("upload-verdict");
      said.className = "muted";
      said.textContent = "Checking it: a game against random in the sandbox...";
      try {
        const version = await send("POST", "/api/programs", new FormData(upload));
        said.className = version.passed ? "ok" : "error";
        said.textContent = "Version " + version.id + ": " + version.verdict;
        reload = setTimeout(() => location.reload(), 1500);
      } catch (error) {
        said.className = "error";
        said.textContent = error.message;
      }
    });
  }
}

function gamePage(main) {
  const id = main.dataset.game, me = "person:" + main.dataset.me;
  const board = $("board"), cells = [];
  let view = null, sending = false;
  for (let row = 0; row < 8; row++) {
    const label = document.createElement("div");
    label.className = "coord";
    label.textContent = String(row + 1);
    board.appendChild(label);
    for (let col = 0; col < 8; col++) {
      const cell = document.createElement("button");
      cell.type = "button";
      cell.className = "cell";
      cell.dataset.square = "abcdefgh"[col] + (row + 1);
      cell.setAttribute("aria-label", cell.dataset.square);
      cell.addEventListener("click", () => play(cell.dataset.square));
      board.appendChild(cell);
      cells.push(cell);
    }
  }
  board.appendChild(document.createElement("div"));
  for (const letter of "abcdefgh") {
    const label = document.createElement("div");
    label.className = "coord";
    label.textContent = letter;
    board.appendChild(label);
  }

  function mine() {
    return view && view.to_move && view[view.to_move].seat === me;
  }

  async function play(square) {
    if (!mine() || sending || !view.legal.includes(square)) return;
    sending = true;
    $("move-error").textContent = "";
    try {
      show(await send("POST", "/api/games/" + id + "/moves", { square }));
    } catch (error) {
      $("move-error").textContent = error.message;
    } finally {
      sending = false;
    }
  }

  function seconds(value) {
    return value.toFixed(value < 10 ? 2 : 1) + " s";
  }

  // The side to move's clock runs on the page between events: its time so far in this move, by
  // the server's clock (this machine's may differ: the offset is taken from each view).
  let offset = 0;
  setInterval(() => {
    if (!view || !view.to_move || view.clocks.thinking_since == null) return;
    const box = $(view.to_move).querySelector(".thinking");
    const elapsed = (Date.now() - offset - view.clocks.thinking_since) / 1000;
    box.textContent = "this move: " + Math.max(0, elapsed).toFixed(1) + " s";
  }, 100);

  function show(next) {
    // Events and answers may cross: never go back to an older view.
    if (view && (next.moves.length < view.moves.length || (view.result && !next.result))) return;
    view = next;
    offset = Date.now() - view.clocks.at;
    for (const side of ["black", "white"]) $(side).querySelector(".thinking").textContent = "";
    const last = [...view.moves].reverse().find((m) => m.square);
    const legal = mine() ? view.legal : [];
    cells.forEach((cell, k) => {
      const square = cell.dataset.square, disc = view.board[k];
      cell.replaceChildren();
      cell.classList.toggle("last", !!last && last.square === square);
      cell.classList.toggle("legal", legal.includes(square));
      cell.disabled = !legal.includes(square);
      if (disc !== ".") {
        const piece = document.createElement("div");
        piece.className = "disc " + disc;
        cell.appendChild(piece);
      }
    });
    for (const side of ["black", "white"]) {
      const box = $(side), count = [...view.board].filter((c) => c === (side === "black" ? "x" : "o")).length;
      box.classList.toggle("turn", view.to_move === side);
      box.querySelector(".name").textContent = view[side].name;
      box.querySelector(".discs").textContent = count + " discs";
      box.querySelector(".clock").textContent =
        "used " + seconds(view.clocks[side]) + (view[side].clock ? ", " + view[side].clock : "");
    }
    const list = $("moves");
    let number = 0;
    list.replaceChildren(
      ...view.moves.map((m) => {
        const line = document.createElement("div");
        // Numbered as the replay page numbers them: moves, not passes.
        line.textContent = m.square
          ? ++number + ". " + m.square + " (" + m.side + ")" + (m.seconds == null ? "" : ", " + seconds(m.seconds))
          : "pass (" + m.side + ")";
        return line;
      }),
    );
    list.scrollTop = list.scrollHeight;
    let status;
    if (view.result) {
      const r = view.result;
      status = "Over: black " + r.black + ", white " + r.white + ", " + (r.winner === "draw" ? "a draw" : r.winner + " wins");
      if (r.forfeit) status += " (" + r.forfeit.side + " forfeited: " + r.forfeit.reason + ")";
      $("records").hidden = false;
    } else if (view.status === "queued") {
      status = "Waiting for a core: the game starts when one is free.";
    } else if (view.status === "interrupted") {
      status = "Interrupted: the server stopped during this game (not scored).";
    } else if (mine()) {
      status = "Your move: click a marked square.";
    } else if (view.to_move) {
      status = view[view.to_move].name + " (" + view.to_move + ") is thinking...";
    } else {
      status = "";
    }
    $("status").textContent = status;
  }

  const events = new EventSource("/api/games/" + id + "/events");
  for (const kind of ["state", "move", "end"]) {
    events.addEventListener(kind, (event) => {
      show(JSON.parse(event.data));
      if (kind === "end") events.close();
    });
  }
}

const main = document.querySelector("main[data-game]");
if (main) gamePage(main);
else home();
