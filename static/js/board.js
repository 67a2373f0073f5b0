// Clicking a move on the server-drawn board. The page lists every legal move with the ids of the
// board elements to click for it (its path); after each click only the next elements of moves that
// begin with the clicks so far are offered. The rules stay on the server: this only fills in the
// notation field, and the server judges the move when the form is sent.
//
// The keyboard does what the mouse does: every target is a button, the offered ones are in the Tab
// order (Tab and Shift+Tab go through them, the arrow keys go to the nearest one in that direction),
// Enter or Space chooses, Escape starts again; once a move is complete the focus goes to Play.
(function () {
  "use strict";
  const data = document.getElementById("legal-moves");
  const board = document.getElementById("board");
  const form = document.getElementById("move-form");
  if (!data || !board || !form) return;
  const moves = JSON.parse(data.textContent);
  const input = form.querySelector("input[name=move]");
  const hint = document.getElementById("move-hint");
  const submit = document.getElementById("move-submit");
  let clicks = [];

  // A picture with controls inside is no longer a plain image (its children would be hidden from
  // assistive technology): it becomes a labelled group of buttons.
  const svg = board.querySelector("svg");
  if (svg && svg.getAttribute("role") === "img") svg.setAttribute("role", "group");

  // Marks drawn over everything else: a neighbour drawn later would hide half of a square's own
  // outline. Offered squares get a dashed frame, chosen ones a solid one and the focused target a thick
  // ring, so none of it rests on telling colours apart.
  const NS = "http://www.w3.org/2000/svg";
  const marks = svg ? svg.appendChild(document.createElementNS(NS, "g")) : null;
  if (marks) {
    marks.setAttribute("class", "board-marks");
    marks.setAttribute("pointer-events", "none");
    marks.setAttribute("aria-hidden", "true");
  }

  function frame(el, cls, inset) {
    // The element's box in the picture's own coordinates, whatever groups and transforms it sits in.
    const b = el.getBBox();
    const m = svg.getScreenCTM().inverse().multiply(el.getScreenCTM());
    const xs = [], ys = [];
    [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]].forEach(([x, y]) => {
      const p = svg.createSVGPoint();
      p.x = x; p.y = y;
      const q = p.matrixTransform(m);
      xs.push(q.x); ys.push(q.y);
    });
    const r = marks.appendChild(document.createElementNS(NS, "rect"));
    const x = Math.min(...xs) + inset, y = Math.min(...ys) + inset;
    r.setAttribute("x", x);
    r.setAttribute("y", y);
    r.setAttribute("width", Math.max(Math.max(...xs) - inset - x, 1));
    r.setAttribute("height", Math.max(Math.max(...ys) - inset - y, 1));
    r.setAttribute("class", cls);
  }

  function drawMarks() {
    if (!marks || !svg.getScreenCTM()) return;
    marks.replaceChildren();
    board.querySelectorAll(".square.choosable, .square.chosen").forEach((el) => {
      frame(el, el.classList.contains("chosen") ? "mark-chosen" : "mark-offered", 3);
    });
    const focused = document.activeElement;
    // Only a target on the picture gets a frame (an action button beside it is HTML, with its own ring).
    if (focused && focused.dataset && focused.dataset.target && svg.contains(focused)) {
      frame(focused, "mark-focus-halo", -1);
      frame(focused, "mark-focus", -1);
    }
  }
  board.addEventListener("focusin", drawMarks);
  board.addEventListener("focusout", () => setTimeout(drawMarks, 0));

  function matching() {
    return moves.filter((m) => clicks.every((c, i) => m.path[i] === c));
  }

  function targets() {
    return board.querySelectorAll("[data-target]");
  }

  function offeredTargets() {
    return [...board.querySelectorAll("[data-target].choosable")];
  }

  function refresh() {
    const candidates = matching();
    const next = new Set(candidates.filter((m) => m.path.length > clicks.length).map((m) => m.path[clicks.length]));
    const chosen = new Set(clicks);
    targets().forEach((el) => {
      const id = el.dataset.target;
      const offered = next.has(id);
      el.classList.toggle("choosable", offered);
      el.classList.toggle("chosen", chosen.has(id));
      el.setAttribute("tabindex", offered ? "0" : "-1");
      el.setAttribute("role", "button");
      if (offered) el.removeAttribute("aria-disabled"); else el.setAttribute("aria-disabled", "true");
      if (chosen.has(id)) el.setAttribute("aria-pressed", "true"); else el.removeAttribute("aria-pressed");
      if (!el.hasAttribute("aria-label") && !el.hasAttribute("aria-labelledby")) el.setAttribute("aria-label", id);
    });
    drawMarks();
    const complete = candidates.find((m) => m.path.length === clicks.length);
    if (complete) {
      input.value = complete.text;
      hint.textContent = "Ready: " + complete.text + ". Press Play to send it, or Clear to start again.";
      submit.focus();
    } else if (clicks.length) {
      input.value = "";
      const last = board.querySelector('[data-target="' + CSS.escape(clicks[clicks.length - 1]) + '"]');
      const name = last ? last.getAttribute("aria-label") || clicks[clicks.length - 1] : clicks[clicks.length - 1];
      hint.textContent = "Chosen: " + name + ". Go on: pick one of the highlighted places (Tab to reach them).";
    } else {
      hint.textContent = "Click on the board to make your move (or Tab to a highlighted place and press Enter), or type it.";
    }
    // The move so far, drawn on the board before it is sent (static/js/pending-move.js); last, so that
    // the move field and the hint are right whatever the drawing does.
    if (window.wallsitePending) window.wallsitePending.draw(board, clicks, candidates, complete);
  }

  function choose(id) {
    const candidates = matching();
    if (!candidates.some((m) => m.path[clicks.length] === id)) return;
    clicks.push(id);
    refresh();
  }

  function centre(el) {
    const box = el.getBoundingClientRect();
    return [box.left + box.width / 2, box.top + box.height / 2];
  }

  // The offered target nearest to ``from`` in the arrow's direction (straight ahead counts most).
  function nearest(from, key) {
    const [fx, fy] = centre(from);
    const [dx, dy] = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[key];
    let best = null;
    let bestScore = Infinity;
    offeredTargets().forEach((el) => {
      if (el === from) return;
      const [x, y] = centre(el);
      const ahead = (x - fx) * dx + (y - fy) * dy;
      if (ahead <= 1) return;
      const aside = Math.abs((x - fx) * dy) + Math.abs((y - fy) * dx);
      const score = ahead + 2 * aside;
      if (score < bestScore) { best = el; bestScore = score; }
    });
    return best;
  }

  board.addEventListener("click", (event) => {
    const el = event.target.closest("[data-target]");
    if (el && el.classList.contains("choosable")) choose(el.dataset.target);
  });
  board.addEventListener("keydown", (event) => {
    const el = event.target.closest("[data-target]");
    if (!el) return;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      if (el.classList.contains("choosable")) choose(el.dataset.target);
    } else if (event.key === "Escape") {
      event.preventDefault();
      clear();
      const first = offeredTargets()[0];
      if (first) first.focus();
    } else if (event.key.startsWith("Arrow")) {
      const to = nearest(el, event.key);
      if (to) { event.preventDefault(); to.focus(); }
    }
  });
  function clear() {
    clicks = [];
    input.value = "";
    refresh();
  }
  document.getElementById("move-clear").addEventListener("click", clear);
  input.addEventListener("input", () => { clicks = []; refresh(); input.focus(); });
  refresh();

  // For static/js/live.js, which draws the board anew when the match changes: the clicks made so far,
  // whether a new list of legal moves differs from this one, and making the clicks again on the new board.
  const moveKey = (list) => JSON.stringify(list.map((m) => [m.path, m.text]));
  window.wallsiteBoard = {
    selection: () => clicks.slice(),
    legalMovesChanged: (list) => moveKey(list) !== moveKey(moves),
    restore(chosen) {
      clicks = [];
      chosen.forEach((id) => { if (matching().some((m) => m.path[clicks.length] === id)) clicks.push(id); });
      refresh();
    },
  };
})();
