// Tells the server, once a minute while the tab is visible, that the player has the match open, so
// the site holds back e-mails about it. A hidden tab sends nothing; coming back sends one at once.
(function () {
  "use strict";
  const el = document.getElementById("presence");
  if (!el || !window.fetch) return;
  const url = el.dataset.url;
  const csrf = el.dataset.csrf;
  const EVERY_MS = 60 * 1000;
  let last = Date.now(); // the page load itself counted as a visit

  function beat() {
    if (document.visibilityState !== "visible") return;
    last = Date.now();
    fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrf },
      keepalive: true,
    }).catch(function () {
      // Offline for a moment: the next beat tries again, and e-mails are only a little less quiet.
    });
  }

  setInterval(beat, EVERY_MS);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && Date.now() - last > EVERY_MS / 2) beat();
  });
})();
