// Clicking a move on the server-drawn board. The page lists every legal move with the ids of the
// board elements to click for it (its path); after each click only the next elements of moves that
// begin with the clicks so far are offered. The rules stay on the server: this only fills in the
// notation field, and the server judges the move when the form is sent.
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

  function matching() {
    return moves.filter((m) => clicks.every((c, i) => m.path[i] === c));
  }

  function targets() {
    return board.querySelectorAll("[data-target]");
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
      if (offered) el.setAttribute("role", "button"); else el.removeAttribute("role");
    });
    const complete = candidates.find((m) => m.path.length === clicks.length);
    if (complete) {
      input.value = complete.text;
      hint.textContent = "Ready: " + complete.text + ". Press Play to send it, or Clear to start again.";
      submit.focus();
    } else if (clicks.length) {
      input.value = "";
      hint.textContent = "Go on: pick one of the highlighted places.";
    } else {
      hint.textContent = "Click on the board to make your move, or type it.";
    }
  }

  function choose(id) {
    const candidates = matching();
    if (!candidates.some((m) => m.path[clicks.length] === id)) return;
    clicks.push(id);
    refresh();
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
      clear();
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
})();
