// The match-creation form: only the chosen game's options, and at most seats - 1 computer opponents.
(function () {
  "use strict";
  // Show only the chosen game's options; without script every game's options are shown and only
  // the chosen game's are used.
  (function () {
    const select = document.getElementById("id_game");
    function sync() {
      // The options, and the link to the rules, of the chosen game only.
      document.querySelectorAll(".game-options, .game-rules-link").forEach((set) => { set.hidden = set.dataset.game !== select.value; });
    }
    select.addEventListener("change", sync);
    sync();
  })();
  // Computer opponents may take every seat but the creator's; the server checks it too and says why.
  (function () {
    const seats = document.getElementById("id_seat_count");
    const bots = document.getElementById("id_bot_count");
    function sync() { bots.max = Math.max(0, (parseInt(seats.value, 10) || 1) - 1); }
    seats.addEventListener("input", sync);
    sync();
  })();
  // Takebacks need the creator's leave only in a rated match: an unrated one always allows them.
  (function () {
    const rated = document.getElementById("id_rated");
    const allow = document.getElementById("id_allow_takebacks");
    if (!rated || !allow) return;
    const row = allow.closest(".field");
    function sync() { row.hidden = !rated.checked; }
    rated.addEventListener("change", sync);
    sync();
  })();
})();
