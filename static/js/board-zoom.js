// The zoom switch of a server-drawn board. Fitted, the picture takes the width it is given; zoomed, it is
// drawn at its natural size (one unit of its viewBox to one CSS pixel) or twice the fitted width,
// whichever is larger, inside its frame, which then scrolls both ways while the page itself never
// scrolls sideways; a mouse may drag the board around in it too. The choice is remembered per game on
// this device. A big board (data-fit="height" on its <svg>: The Wall, The Great Wall) that has no
// choice remembered opens zoomed where fitting it would shrink it below three quarters of its natural
// size (a phone), since its text is readable only near that size. Pinch-zoom stays the browser's.
//
// Markup (templates/games/_board_zoom.html): a frame with an id and data-zoom-key (the game), holding
// the board's <svg>, and a button with aria-controls naming the frame. The switch is a toggle button:
// its name stays "Zoom in" and aria-pressed tells whether the board is zoomed.
(function () {
  "use strict";
  const STORE = "wallsite.board-zoom.";

  // true or false as chosen on this device, null when never chosen.
  function remembered(key) {
    try {
      const choice = window.localStorage.getItem(STORE + key);
      return choice === null ? null : choice === "in";
    } catch (error) {
      return null; // storage refused (private browsing, blocked cookies): as if never chosen
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
    dragToPan(frame, () => zoomed);
    // A place reached with Tab or the arrow keys is scrolled into the frame's view.
    frame.addEventListener("focusin", (event) => {
      if (zoomed && event.target !== frame && event.target.scrollIntoView) {
        event.target.scrollIntoView({ block: "nearest", inline: "nearest" });
      }
    });
    button.closest(".board-tools").hidden = false;
    const chosen = remembered(key);
    const big = svg.dataset.fit === "height" && natural > 0 && frame.clientWidth < 0.75 * natural;
    show(chosen === null ? big : chosen, { store: false });
  }

  // A mouse drags the zoomed board around its frame, as a finger scrolls it. A drag that moved is not
  // also a click on the place where it ended.
  function dragToPan(frame, active) {
    let start = null;
    let moved = false;
    frame.addEventListener("pointerdown", (event) => {
      if (!active() || event.pointerType !== "mouse" || event.button !== 0) return;
      start = { x: event.clientX, y: event.clientY, left: frame.scrollLeft, top: frame.scrollTop };
      moved = false;
    });
    frame.addEventListener("pointermove", (event) => {
      if (!start) return;
      const dx = event.clientX - start.x;
      const dy = event.clientY - start.y;
      if (!moved && Math.abs(dx) + Math.abs(dy) < 6) return;
      if (!moved) {
        moved = true;
        frame.setPointerCapture(event.pointerId);
        frame.classList.add("panning");
      }
      frame.scrollLeft = start.left - dx;
      frame.scrollTop = start.top - dy;
    });
    const stop = () => {
      start = null;
      frame.classList.remove("panning");
    };
    frame.addEventListener("pointerup", stop);
    frame.addEventListener("pointercancel", stop);
    frame.addEventListener("click", (event) => {
      if (moved) {
        moved = false;
        event.stopPropagation();
        event.preventDefault();
      }
    }, true);
  }

  document.querySelectorAll("button.board-zoom[aria-controls]").forEach(setUp);
})();
