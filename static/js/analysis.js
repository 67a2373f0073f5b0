// Post-game analysis on the replay page: the progress bar follows the computer's work (a small poll of
// the analysis's JSON figures, reloading the page once it is done), and at a marked move the computer's
// choice is drawn on the board before the move the way a move being chosen is drawn (pending-move.js).
// Without this script the page still says everything: a reload shows the progress, the choice is in words.
(function () {
  "use strict";
  const POLL_MS = 1500;

  function suggestion() {
    const board = document.querySelector("[data-suggestion]");
    const data = document.getElementById("analysis-suggestion-choice");
    if (!board || !data || !window.wallsitePending) return;
    const choice = JSON.parse(data.textContent);
    window.wallsitePending.draw(board, choice.path, [choice], choice);
  }

  function progress() {
    const box = document.querySelector("[data-testid=analysis-progress][data-url]");
    if (!box) return;
    const bar = box.querySelector("progress");
    const text = box.querySelector("[data-analysis-text]");
    const label = box.querySelector("label");
    async function poll() {
      let figures;
      try {
        const answer = await fetch(box.dataset.url, { headers: { Accept: "application/json" }, cache: "no-store" });
        if (!answer.ok) throw new Error(String(answer.status));
        figures = await answer.json();
      } catch (error) {
        setTimeout(poll, POLL_MS * 4); // the server is busy or away: ask again later
        return;
      }
      if (figures.status === "done" || figures.status === "failed") {
        window.location.reload();
        return;
      }
      if (figures.total) {
        bar.max = figures.total;
        bar.value = figures.done;
        bar.textContent = `${figures.done} of ${figures.total}`;
        text.textContent = `${figures.done} of ${figures.total} moves`;
      }
      if (figures.status === "running") label.textContent = "The computer is analysing the moves…";
      setTimeout(poll, POLL_MS);
    }
    setTimeout(poll, POLL_MS);
  }

  suggestion();
  progress();
})();
