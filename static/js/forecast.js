// Conditional moves on the match page (templates/games/_forecast.html): a line is clicked on a board of
// its own, which the server draws for the position after the line so far, with the legal moves of the
// seat to move there in the form the page's #legal-moves has. The player clicks their opponent's move,
// then their reply, and so on; "Add line" puts the line in the form's field and sends the form, which
// also works typed by hand and without this script. The server checks the line again when it is sent.
//
// The box is not one of the page's live parts: when the match changes under it (the board is drawn
// anew by static/js/live.js), the box is fetched again from the page.
(function () {
  "use strict";
  const box = document.getElementById("forecast");
  if (!box || !window.fetch) return;
  const SELF = document.currentScript ? document.currentScript.src : "";

  // --- following the match ---------------------------------------------------------------------------
  const liveBoard = document.getElementById("live-board");
  if (liveBoard && window.MutationObserver) {
    const observer = new MutationObserver(async () => {
      observer.disconnect();
      try {
        const response = await fetch(window.location.pathname, { credentials: "same-origin", cache: "no-store" });
        if (!response.ok) return;
        const page = new DOMParser().parseFromString(await response.text(), "text/html");
        const fresh = page.getElementById("forecast");
        const current = document.getElementById("forecast");
        if (!current) return;
        if (!fresh) { current.remove(); return; }
        current.replaceWith(document.importNode(fresh, true));
        // The new box's own script runs again for its buttons.
        const script = document.createElement("script");
        script.src = SELF;
        script.onload = () => script.remove();
        document.body.appendChild(script);
      } catch (error) {
        // The next change of the board tries again.
      }
    });
    observer.observe(liveBoard, { childList: true });
  }

  // --- planning a line on the board ------------------------------------------------------------------
  const planner = document.getElementById("forecast-planner");
  const form = document.getElementById("forecast-form");
  if (!planner || !form) return;
  const input = form.querySelector("input[name=line]");
  const work = document.getElementById("forecast-work");
  const board = document.getElementById("forecast-board");
  const prompt = document.getElementById("forecast-prompt");
  const soFar = document.getElementById("forecast-so-far");
  const addLine = document.getElementById("forecast-add-line");
  const opponent = planner.dataset.opponent;
  planner.hidden = false;

  let line = []; // the moves chosen so far, in notation
  let moves = []; // the legal moves of the seat to move after them: {path, text, preview?}
  let clicks = [];
  let request = 0;

  function describe() {
    if (!line.length) return "";
    const parts = [];
    for (let i = 0; i < line.length; i += 2) {
      let part = "if " + opponent + " plays " + line[i];
      if (i + 1 < line.length) part += ", you reply " + line[i + 1];
      parts.push(part);
    }
    const text = parts.join(", then ");
    return "Line so far: " + text.charAt(0).toUpperCase() + text.slice(1) + ".";
  }

  async function show() {
    const asked = ++request;
    addLine.disabled = true;
    prompt.textContent = "Loading the board…";
    const url = planner.dataset.url + "?" + new URLSearchParams({ line: line.join(" ") }).toString();
    let data;
    try {
      const response = await fetch(url, { credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json" } });
      data = await response.json();
      if (!response.ok) throw new Error(data.detail || "The board could not be loaded.");
    } catch (error) {
      if (asked !== request) return;
      prompt.textContent = error.message || "The board could not be loaded; try again.";
      return;
    }
    if (asked !== request) return;
    line = data.line;
    moves = data.moves;
    clicks = [];
    board.innerHTML = data.svg; // drawn by the server from the game's view, escaped there
    const svg = board.querySelector("svg");
    if (svg && svg.getAttribute("role") === "img") svg.setAttribute("role", "group");
    soFar.textContent = describe();
    prompt.textContent = data.prompt;
    addLine.disabled = !(line.length >= 2 && line.length % 2 === 0);
    refresh();
  }

  function matching() {
    return moves.filter((m) => clicks.every((c, i) => m.path[i] === c));
  }

  function refresh() {
    const candidates = matching();
    const next = new Set(candidates.filter((m) => m.path.length > clicks.length).map((m) => m.path[clicks.length]));
    board.querySelectorAll("[data-target]").forEach((el) => {
      const offered = next.has(el.dataset.target);
      el.classList.toggle("choosable", offered);
      el.classList.toggle("chosen", clicks.includes(el.dataset.target));
      el.setAttribute("tabindex", offered ? "0" : "-1");
      el.setAttribute("role", "button");
      if (offered) el.removeAttribute("aria-disabled"); else el.setAttribute("aria-disabled", "true");
    });
    const complete = candidates.find((m) => m.path.length === clicks.length);
    if (window.wallsitePending) window.wallsitePending.draw(board, clicks, candidates, complete);
    // A move is taken as soon as the clicks make one that no longer move begins with.
    if (complete && !candidates.some((m) => m.path.length > clicks.length)) {
      line.push(complete.text);
      show();
    }
  }

  function choose(target) {
    if (!matching().some((m) => m.path[clicks.length] === target)) return;
    clicks.push(target);
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
      event.preventDefault();
      clicks = [];
      refresh();
    }
  });

  const plan = document.getElementById("forecast-plan");
  plan.addEventListener("click", () => {
    line = [];
    work.hidden = false;
    plan.style.display = "none";
    show();
  });
  document.getElementById("forecast-undo").addEventListener("click", () => {
    if (clicks.length) { clicks = []; refresh(); return; }
    line.pop();
    show();
  });
  document.getElementById("forecast-cancel").addEventListener("click", () => {
    request++;
    line = [];
    moves = [];
    clicks = [];
    work.hidden = true;
    plan.style.display = "";
    board.replaceChildren();
  });
  addLine.addEventListener("click", () => {
    input.value = line.join(" ");
    form.requestSubmit ? form.requestSubmit() : form.submit();
  });
})();
