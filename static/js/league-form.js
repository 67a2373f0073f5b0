// The league form: only the chosen game's options. Without script every game's options are shown, and
// only the chosen game's are read.
(function () {
  "use strict";
  const select = document.getElementById("id_game");
  if (!select) return; // editing a league: its game is fixed and only its options are there
  function sync() {
    document.querySelectorAll(".game-options").forEach((set) => { set.hidden = set.dataset.game !== select.value; });
  }
  select.addEventListener("change", sync);
  sync();
})();
