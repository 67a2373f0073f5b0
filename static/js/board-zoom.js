// The zoom switch of a server-drawn board. Fitted, the picture takes the width it is given; zoomed, it is
// drawn at its natural size (one unit of its viewBox to one CSS pixel) or twice the fitted width,
// whichever is larger, inside its frame, which then scrolls both ways while the page itself never
// scrolls sideways. The choice is remembered per game on this device. Pinch-zoom stays the browser's.
//
// Markup (templates/games/_board_zoom.html): a frame with an id and data-zoom-key (the game), holding
// the board's <svg>, and a button with aria-controls naming the frame. The switch is a toggle button:
// its name stays "Zoom in" and aria-pressed tells whether the board is zoomed.
(function () {
  "use strict";
  const STORE = "wallsite.board-zoom.";

  function remembered(key) {
    try {
      return window.localStorage.getItem(STORE + key) === "in";
    } catch (error) {
      return false; // storage refused (private browsing, blocked cookies): start fitted
    }
  }

  function remember(key, zoomed) {
    try {
      window.localStorage.setItem(STORE + key, zoomed ? "in" : "fit");
    } catch (error) {
      // Not remembered; the switch still works on this page.
    }
  }

  function setUp(button) {
    const frame = document.getElementById(button.getAttribute("aria-controls"));
    const svg = frame && frame.querySelector("svg");
    if (!svg) return;
    const key = frame.dataset.zoomKey || "board";
    const box = svg.viewBox && svg.viewBox.baseVal;
    const natural = box && box.width ? box.width : 0;
    let zoomed = false;

    function size() {
      if (!zoomed) {
        svg.style.width = "";
        return;
      }
      // The frame keeps the width of the column while zoomed, so it measures what "fitted" means.
      svg.style.width = Math.round(Math.max(natural, 2 * frame.clientWidth)) + "px";
    }

    // What the player was looking at stays in sight: a chosen or focused place, else the middle.
    function reveal() {
      const focused = frame.contains(document.activeElement) ? document.activeElement : null;
      const spot = focused && focused !== frame ? focused : frame.querySelector("[data-target].chosen");
      if (spot && spot.scrollIntoView) {
        spot.scrollIntoView({ block: "nearest", inline: "center" });
      } else {
        frame.scrollLeft = (frame.scrollWidth - frame.clientWidth) / 2;
      }
    }

    function show(on, { store }) {
      zoomed = on;
      frame.classList.toggle("zoomed", on);
      button.setAttribute("aria-pressed", on ? "true" : "false");
      // A frame that scrolls must be reachable from the keyboard even with nothing to click inside.
      if (on) {
        frame.setAttribute("tabindex", "0");
        frame.setAttribute("role", "region");
        frame.setAttribute("aria-label", "Zoomed board: scroll to see the rest of it");
      } else {
        frame.removeAttribute("tabindex");
        frame.removeAttribute("role");
        frame.removeAttribute("aria-label");
      }
      size();
      if (on) reveal();
      if (store) remember(key, on);
    }

    button.addEventListener("click", () => show(!zoomed, { store: true }));
    window.addEventListener("resize", size);
    // A place reached with Tab or the arrow keys is scrolled into the frame's view.
    frame.addEventListener("focusin", (event) => {
      if (zoomed && event.target !== frame && event.target.scrollIntoView) {
        event.target.scrollIntoView({ block: "nearest", inline: "nearest" });
      }
    });
    button.closest(".board-tools").hidden = false;
    show(remembered(key), { store: false });
  }

  document.querySelectorAll("button.board-zoom[aria-controls]").forEach(setUp);
})();
