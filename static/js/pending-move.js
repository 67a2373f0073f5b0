// The move being chosen, drawn on the board before Play sends it: a ghost of a piece where it goes, a
// wall where it is built, an arrow at what is attacked, an order written on its place. board.js calls
// draw() after every click and after Clear.
//
// What to draw comes as shapes over named places of the server-drawn SVG (a click target's data-target or
// a data-place; the pieces standing on a place carry data-on with its name). A game's engine lists them
// with each legal move ("preview" in the page's legal-moves list, from the player's own view); a game
// whose click path says it all (Wall Go) has them made here from the clicks. Nothing here knows a rule:
// the page holds only the player's own legal moves, so there is nothing hidden to show.
(function () {
  "use strict";
  const NS = "http://www.w3.org/2000/svg";

  // Shapes made from the clicks themselves, by game (the SVG's class names its game).
  const FROM_PATH = {
    // sq-<from>, sq-<to>, wall-<edge>; a token being placed is one click on its square.
    wallgo(clicks, complete) {
      if (complete && complete.path.length === 1) return [{ draw: "piece", at: clicks[0] }];
      const shapes = [];
      if (clicks.length >= 2 && clicks[0] !== clicks[1]) shapes.push({ draw: "ghost", from: clicks[0], to: clicks[1] });
      if (clicks.length >= 3) shapes.push({ draw: "wall", at: clicks[2] });
      return shapes;
    },
  };

  // The engine's shapes: the complete move's once the clicks make one, else those every move still
  // possible shares (so a shape shows as soon as the clicks so far settle it).
  function listedShapes(clicks, candidates, complete) {
    if (complete) return complete.preview || [];
    if (!clicks.length || !candidates.length) return [];
    const keys = (m) => new Set((m.preview || []).map((s) => JSON.stringify(s)));
    const rest = candidates.slice(1).map(keys);
    return (candidates[0].preview || []).filter((s) => rest.every((k) => k.has(JSON.stringify(s))));
  }

  // --- geometry, in the picture's own coordinates -----------------------------------------------------
  function placeOf(svg, name) {
    const quoted = CSS.escape(name);
    return svg.querySelector(`[data-target="${quoted}"], [data-place="${quoted}"]`);
  }

  // The element's transform to the picture's coordinates, whatever groups it sits in.
  function toPicture(svg, el) {
    return svg.getScreenCTM().inverse().multiply(el.getScreenCTM());
  }

  function boxOf(svg, el) {
    const b = el.getBBox();
    const m = toPicture(svg, el);
    const xs = [], ys = [];
    [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]].forEach(([x, y]) => {
      const p = new DOMPoint(x, y).matrixTransform(m);
      xs.push(p.x);
      ys.push(p.y);
    });
    const x = Math.min(...xs), y = Math.min(...ys);
    const w = Math.max(...xs) - x, h = Math.max(...ys) - y;
    return { x, y, w, h, cx: x + w / 2, cy: y + h / 2 };
  }

  function add(parent, tag, attrs, cls) {
    const el = parent.appendChild(document.createElementNS(NS, tag));
    Object.entries(attrs).forEach(([k, v]) => el.setAttribute(k, v));
    if (cls) el.setAttribute("class", cls);
    return el;
  }

  // A copy of a piece that is only a picture: no name, no button, no tooltip, nothing a test or a
  // screen reader would take for the real piece.
  function copyOf(el) {
    const copy = el.cloneNode(true);
    [copy, ...copy.querySelectorAll("*")].forEach((node) => {
      [...node.attributes].forEach((a) => {
        if (/^(class|id|tabindex|role|data-.*|aria-.*)$/.test(a.name)) node.removeAttribute(a.name);
      });
    });
    copy.querySelectorAll("title").forEach((t) => t.remove());
    return copy;
  }

  function ringAround(g, b, cls, grow) {
    if (Math.abs(b.w - b.h) < 0.3 * Math.max(b.w, b.h)) {
      return add(g, "circle", { cx: b.cx, cy: b.cy, r: Math.max(b.w, b.h) / 2 + grow }, cls);
    }
    return add(g, "rect", { x: b.x - grow, y: b.y - grow, width: b.w + 2 * grow, height: b.h + 2 * grow, rx: 6 }, cls);
  }

  // --- the shapes ----------------------------------------------------------------------------------------
  const PAINT = {
    // The pieces on ``from``, translucent on ``to``; the real ones dimmed where they stand.
    ghost(g, svg, s) {
      const from = placeOf(svg, s.from), to = placeOf(svg, s.to);
      if (!from || !to) return;
      const a = boxOf(svg, from), b = boxOf(svg, to);
      const shift = new DOMMatrix().translate(b.cx - a.cx, b.cy - a.cy);
      svg.querySelectorAll(`[data-on="${CSS.escape(s.from)}"]`).forEach((piece) => {
        if (g.contains(piece)) return;
        const copy = copyOf(piece);
        const m = shift.multiply(toPicture(svg, piece));
        copy.setAttribute("transform", `matrix(${m.a} ${m.b} ${m.c} ${m.d} ${m.e} ${m.f})`);
        copy.setAttribute("class", "pending-ghost");
        g.appendChild(copy);
        piece.classList.add("pending-left");
      });
      add(g, "circle", { cx: b.cx, cy: b.cy, r: 0.45 * Math.min(b.w, b.h) }, "pending-landing");
    },
    // The player's own piece (the SVG's template, drawn about 0,0) on a square.
    piece(g, svg, s) {
      const at = placeOf(svg, s.at);
      const template = svg.querySelector("[data-preview-piece]");
      if (!at || !template) return;
      const b = boxOf(svg, at);
      [...template.children].forEach((part) => {
        const copy = g.appendChild(copyOf(part));
        copy.setAttribute("transform", `translate(${b.cx} ${b.cy})`);
        copy.setAttribute("class", "pending-ghost");
      });
      add(g, "circle", { cx: b.cx, cy: b.cy, r: 0.45 * Math.min(b.w, b.h) }, "pending-landing");
    },
    // A wall along an edge's click band, a little longer than the band (which stops short of the corners).
    wall(g, svg, s) {
      const at = placeOf(svg, s.at);
      if (!at) return;
      const b = boxOf(svg, at);
      const thin = Math.min(b.w, b.h);
      const ends = b.w >= b.h
        ? { x1: b.x - thin / 2, y1: b.cy, x2: b.x + b.w + thin / 2, y2: b.cy }
        : { x1: b.cx, y1: b.y - thin / 2, x2: b.cx, y2: b.y + b.h + thin / 2 };
      add(g, "line", ends, "pending-wall-halo");
      add(g, "line", ends, "pending-wall");
    },
    // A wall about to leave its edge: drawn broken.
    unwall(g, svg, s) {
      const at = placeOf(svg, s.at);
      if (!at) return;
      const b = boxOf(svg, at);
      const ends = b.w >= b.h ? { x1: b.x, y1: b.cy, x2: b.x + b.w, y2: b.cy } : { x1: b.cx, y1: b.y, x2: b.cx, y2: b.y + b.h };
      add(g, "line", ends, "pending-unwall");
    },
    arrow(g, svg, s) {
      const from = placeOf(svg, s.from), to = placeOf(svg, s.to);
      if (!from || !to) return;
      const a = boxOf(svg, from), b = boxOf(svg, to);
      const dx = b.cx - a.cx, dy = b.cy - a.cy;
      const length = Math.hypot(dx, dy);
      if (length < 1) return;
      const ux = dx / length, uy = dy / length;
      // Stop short of the target's middle, so the head points at what is there instead of hiding it.
      const stop = Math.min(0.3 * Math.min(b.w, b.h), length / 3);
      const head = Math.max(7, Math.min(14, length / 4));
      const tipX = b.cx - ux * stop, tipY = b.cy - uy * stop;
      const baseX = tipX - ux * head, baseY = tipY - uy * head;
      const shaft = { x1: a.cx, y1: a.cy, x2: baseX, y2: baseY };
      add(g, "line", shaft, "pending-arrow-halo");
      add(g, "line", shaft, "pending-arrow");
      const side = head * 0.55;
      const points = [
        `${tipX},${tipY}`,
        `${baseX - uy * side},${baseY + ux * side}`,
        `${baseX + uy * side},${baseY - ux * side}`,
      ].join(" ");
      add(g, "polygon", { points }, "pending-arrow-head");
    },
    ring(g, svg, s) {
      const at = placeOf(svg, s.at);
      if (at) ringAround(g, boxOf(svg, at), "pending-ring", 2);
    },
    // Words on their place: inside it, at its lower left, when it has room (a row's cell, a location,
    // under its name); just above it when it is small (a hex, a square, a vital spot), so what stands
    // there still shows, and an arrow, which mostly comes from the mover's side below, too.
    label(g, svg, s) {
      const at = placeOf(svg, s.at);
      if (!at || !s.text) return;
      const b = boxOf(svg, at);
      const tag = add(g, "g", {}, "pending-label");
      const back = add(tag, "rect", { rx: 4 });
      const text = add(tag, "text", { "dominant-baseline": "central" });
      text.textContent = s.text;
      const t = text.getBBox();
      const w = t.width + 10, h = t.height + 4;
      const inside = b.w >= w + 8 && b.h >= h + 6;
      const x = inside ? b.x + 4 : b.cx - w / 2;
      const y = inside ? b.y + b.h - h - 3 : b.y - h + 2;
      text.setAttribute("x", x + 5);
      text.setAttribute("y", y + h / 2);
      Object.entries({ x, y, width: w, height: h }).forEach(([k, v]) => back.setAttribute(k, v));
    },
  };

  function clear(svg) {
    svg.querySelectorAll("[data-testid=pending-move]").forEach((g) => g.remove());
    svg.querySelectorAll(".pending-left").forEach((el) => el.classList.remove("pending-left"));
  }

  // Draw the move that ``clicks`` are building (``candidates``: the legal moves they may still become,
  // ``complete``: the one they make, if any) over ``board``'s picture, in place of what was drawn before.
  function draw(board, clicks, candidates, complete) {
    const svg = board.querySelector("svg.board");
    if (!svg) return;
    clear(svg);
    if (!svg.getScreenCTM()) return; // not on the screen: nothing to measure
    const game = Object.keys(FROM_PATH).find((name) => svg.classList.contains(name));
    const shapes = game ? FROM_PATH[game](clicks, complete) : listedShapes(clicks, candidates, complete);
    if (!shapes.length) return;
    const g = document.createElementNS(NS, "g");
    g.setAttribute("class", "pending-move");
    g.setAttribute("data-testid", "pending-move");
    g.setAttribute("pointer-events", "none");
    g.setAttribute("aria-hidden", "true");
    // Under the script's focus and choice frames, over everything the server drew.
    svg.insertBefore(g, svg.querySelector(":scope > .board-marks"));
    // Pieces and walls first, so that arrows, rings and words stay on top.
    const order = ["unwall", "wall", "ghost", "piece", "ring", "arrow", "label"];
    [...shapes]
      .sort((a, b) => order.indexOf(a.draw) - order.indexOf(b.draw))
      .forEach((s) => { if (PAINT[s.draw]) PAINT[s.draw](g, svg, s); });
    if (!g.childElementCount) g.remove();
  }

  window.wallsitePending = { draw };
})();
