// Editors for the text options of the match-creation form. The textarea stays the truth: an editor
// only reads and writes its JSON, so the form works without script and the server checks everything.
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  const FILES = "abcdefgh";
  const CELL = 40;
  const PAD = 22;
  const SIZE = 8;
  const MAX_BOARDS = 3;
  const TOOLS = [
    ["wall", "Wall (click between two squares)"],
    ["stairway", "Stairway (one per player, in seat order)"],
    ["hero", "Hero"],
    ["giant", "Giant"],
    ["rats4", "Pack of 4 rats"],
    ["rats1", "Single rat"],
    ["erase", "Erase a piece"],
  ];

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    Object.entries(attrs || {}).forEach(([key, value]) => node.setAttribute(key, value));
    if (parent) parent.appendChild(node);
    return node;
  }

  function html(name, attrs, parent, text) {
    const node = document.createElement(name);
    Object.entries(attrs || {}).forEach(([key, value]) => node.setAttribute(key, value));
    if (text) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  function square(x, y) { return FILES[x] + (y + 1); }

  // A wall is a square and the side it lies on, "e" or "n": the canonical names the server uses.
  function edgeAt(px, py) {
    const gx = (px - PAD) / CELL;
    const gy = SIZE - (py - PAD) / CELL;
    const fx = gx - Math.floor(gx);
    const fy = gy - Math.floor(gy);
    const near = 0.22;
    const x = Math.floor(gx);
    const y = Math.floor(gy);
    const dx = Math.min(fx, 1 - fx);
    const dy = Math.min(fy, 1 - fy);
    if (dx < near && dx <= dy) {
      const west = Math.round(gx) - 1;
      if (west < 0 || west >= SIZE - 1 || y < 0 || y >= SIZE) return null;
      return square(west, y) + "e";
    }
    if (dy < near) {
      const south = Math.round(gy) - 1;
      if (south < 0 || south >= SIZE - 1 || x < 0 || x >= SIZE) return null;
      return square(x, south) + "n";
    }
    return null;
  }

  function squareAt(px, py) {
    const x = Math.floor((px - PAD) / CELL);
    const y = SIZE - 1 - Math.floor((py - PAD) / CELL);
    return x >= 0 && x < SIZE && y >= 0 && y < SIZE ? square(x, y) : null;
  }

  function corner(sq) {
    const x = FILES.indexOf(sq[0]);
    const y = parseInt(sq.slice(1), 10) - 1;
    return [PAD + x * CELL, PAD + (SIZE - 1 - y) * CELL];
  }

  function stairwaysLayout(textarea, examples) {
    const box = html("div", { class: "layout-editor", "data-testid": "layout-editor" });
    textarea.parentNode.insertBefore(box, textarea);
    const top = html("p", { class: "editor-row" }, box);
    html("label", { for: textarea.id + "-example" }, top, "Start from ");
    const pick = html("select", { id: textarea.id + "-example", "data-testid": "layout-example" }, top);
    const load = html("button", { type: "button", "data-testid": "layout-load" }, top, "Load");
    const tools = html("fieldset", { class: "editor-tools" }, box);
    html("legend", {}, tools, "Place");
    TOOLS.forEach(([value, label], index) => {
      const id = `${textarea.id}-tool-${value}`;
      const wrap = html("label", { for: id }, tools);
      const radio = html("input", { type: "radio", name: textarea.id + "-tool", id, value }, wrap);
      if (index === 0) radio.checked = true;
      wrap.appendChild(document.createTextNode(" " + label + " "));
    });
    const tabs = html("p", { class: "editor-row", role: "group", "aria-label": "Boards" }, box);
    const status = html("p", { class: "muted", role: "status", "data-testid": "layout-status" }, box);
    // The server's preview of this very layout says which heroes monsters can reach in the first round
    // (a warning, not an error): repeat it here, and ring those heroes, until the layout is edited.
    const riskNote = document.querySelector('[data-testid="preview"] [data-testid="opening-risk-note"]');
    const riskRings = document.querySelector('[data-testid="preview"] [data-testid="opening-risk"]');
    const warning = html("p", { class: "warning", role: "status", "data-testid": "layout-warning" }, box);
    let risky = riskRings ? (riskRings.getAttribute("data-squares") || "").split(" ").filter(Boolean) : [];
    warning.textContent = riskNote ? riskNote.textContent : "";
    warning.hidden = !riskNote;
    const board = el("svg", {
      viewBox: `0 0 ${SIZE * CELL + 2 * PAD} ${SIZE * CELL + 2 * PAD}`,
      class: "board editor-board",
      role: "img",
      "aria-label": "Layout being edited: click to place the chosen piece",
      "data-testid": "layout-board",
    }, box);
    let current = 0;

    function seats() {
      const field = document.getElementById("id_seat_count");
      return parseInt(field && field.value, 10) || 2;
    }

    function fillExamples() {
      const options = (examples && examples[seats()]) || {};
      pick.replaceChildren();
      Object.keys(options).forEach((label) => html("option", { value: label }, pick, label));
      load.disabled = !Object.keys(options).length;
    }

    function read() {
      if (!textarea.value.trim()) return null;
      try { return JSON.parse(textarea.value); } catch (err) { return undefined; }
    }

    function blank() {
      return { name: "custom", walls: [], stairways: [], heroes: [], giant: null, rats: [] };
    }

    function boardOf(layout, index) {
      if (index === 0) return layout;
      layout.boards = layout.boards || [];
      return layout.boards[index - 1];
    }

    function write(layout) {
      forgetRisk();
      if (layout.boards && !layout.boards.length) delete layout.boards;
      textarea.value = JSON.stringify(layout, null, 1);
      draw();
    }

    function drawTabs(layout) {
      tabs.replaceChildren();
      const count = 1 + ((layout && layout.boards) || []).length;
      if (current >= count) current = count - 1;
      for (let index = 0; index < count; index += 1) {
        const tab = html("button", { type: "button", "aria-pressed": String(index === current) }, tabs, `Board ${index + 1}`);
        tab.addEventListener("click", () => { current = index; draw(); });
      }
      const add = html("button", { type: "button" }, tabs, "Add a board");
      add.disabled = !layout || count >= MAX_BOARDS;
      add.addEventListener("click", () => {
        const data = read() || blank();
        data.boards = data.boards || [];
        data.boards.push({ walls: [], heroes: [], giant: null, rats: [] });
        current = data.boards.length;
        write(data);
      });
      if (count > 1) {
        const remove = html("button", { type: "button" }, tabs, `Remove board ${Math.max(current, 1) + 1}`);
        remove.addEventListener("click", () => {
          const data = read();
          data.boards.splice(Math.max(current, 1) - 1, 1);
          current = 0;
          write(data);
        });
      }
    }

    function draw() {
      board.replaceChildren();
      const layout = read();
      drawTabs(layout);
      if (layout === undefined) {
        status.textContent = "The box below is not valid JSON; fix it there or load a starting point.";
        return;
      }
      const data = layout ? boardOf(layout, current) : blank();
      status.textContent = layout
        ? `Board ${current + 1}: ${data.walls.length} walls, ${data.heroes.length} heroes, ` +
          `${(data.rats || []).length} rat groups${current === 0 ? `, ${layout.stairways.length} stairways` : ""}.`
        : "Empty: the preset chosen above is used. Click the board or load a starting point to make your own.";
      for (let x = 0; x < SIZE; x += 1) {
        for (let y = 0; y < SIZE; y += 1) {
          const [cx, cy] = corner(square(x, y));
          el("rect", { x: cx, y: cy, width: CELL, height: CELL, class: "cell", fill: (x + y) % 2 ? "#efe8da" : "#f7f2e8", stroke: "#cfc6b4" }, board);
        }
      }
      for (let x = 0; x < SIZE; x += 1) {
        el("text", { x: PAD + x * CELL + CELL / 2, y: PAD + SIZE * CELL + 15, "text-anchor": "middle", "font-size": 11 }, board).textContent = FILES[x];
        el("text", { x: 8, y: PAD + (SIZE - 1 - x) * CELL + CELL / 2 + 4, "text-anchor": "middle", "font-size": 11 }, board).textContent = String(x + 1);
      }
      el("rect", { x: PAD, y: PAD, width: SIZE * CELL, height: SIZE * CELL, fill: "none", stroke: "#333", "stroke-width": 3 }, board);
      (data.walls || []).forEach((wall) => {
        const sq = wall.slice(0, -1);
        if (!/^[a-h][1-8]$/.test(sq)) return;
        const [x, y] = corner(sq);
        const line = wall.endsWith("e")
          ? { x1: x + CELL, y1: y, x2: x + CELL, y2: y + CELL }
          : { x1: x, y1: y, x2: x + CELL, y2: y };
        el("line", { ...line, stroke: "#5a3b1b", "stroke-width": 6, "stroke-linecap": "round", "data-wall": wall }, board);
      });
      function mark(sq, text, colour) {
        if (typeof sq !== "string" || !/^[a-h][1-8]$/.test(sq)) return;
        const [x, y] = corner(sq);
        el("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL / 2 - 6, fill: colour, stroke: "#222" }, board);
        el("text", { x: x + CELL / 2, y: y + CELL / 2 + 4, "text-anchor": "middle", "font-size": 11, fill: "#fff" }, board).textContent = text;
      }
      if (current === 0 && layout) layout.stairways.forEach((sq, seat) => mark(sq, `S${seat + 1}`, "#6b6b6b"));
      (data.heroes || []).forEach((sq) => mark(sq, "H", "#2a6f97"));
      if (data.giant) mark(data.giant, "G", "#8c2f39");
      (data.rats || []).forEach((rat) => mark(rat.square, `R${rat.size}`, "#4a4a4a"));
      if (current === 0) {
        risky.forEach((sq) => {
          if (!/^[a-h][1-8]$/.test(sq)) return;
          const [x, y] = corner(sq);
          el("circle", { cx: x + CELL / 2, cy: y + CELL / 2, r: CELL / 2 - 2, fill: "none", stroke: "#c0392b", "stroke-width": 3, "stroke-dasharray": "5 3", "data-risk": sq }, board);
        });
      }
    }

    function tool() {
      const chosen = box.querySelector(`input[name="${textarea.id}-tool"]:checked`);
      return chosen ? chosen.value : "wall";
    }

    function toggle(list, value) {
      const at = list.indexOf(value);
      if (at >= 0) list.splice(at, 1); else list.push(value);
    }

    board.addEventListener("click", (event) => {
      const layout = read();
      if (layout === undefined) return;
      const data = layout || blank();
      const target = boardOf(data, current);
      const point = board.createSVGPoint();
      point.x = event.clientX;
      point.y = event.clientY;
      const local = point.matrixTransform(board.getScreenCTM().inverse());
      const chosen = tool();
      if (chosen === "wall") {
        const wall = edgeAt(local.x, local.y);
        if (!wall) return;
        toggle(target.walls, wall);
        write(data);
        return;
      }
      const sq = squareAt(local.x, local.y);
      if (!sq) return;
      target.rats = target.rats || [];
      const withoutRat = target.rats.filter((rat) => rat.square !== sq);
      if (chosen === "stairway") {
        if (current !== 0) { status.textContent = "Every stairway stands on the first board."; return; }
        toggle(data.stairways, sq);
      } else if (chosen === "hero") toggle(target.heroes, sq);
      else if (chosen === "giant") target.giant = target.giant === sq ? null : sq;
      else if (chosen === "rats4" || chosen === "rats1") {
        const size = chosen === "rats4" ? 4 : 1;
        const same = target.rats.some((rat) => rat.square === sq && rat.size === size);
        target.rats = same ? withoutRat : [...withoutRat, { square: sq, size }];
      } else {
        target.heroes = target.heroes.filter((h) => h !== sq);
        target.rats = withoutRat;
        if (target.giant === sq) target.giant = null;
        if (current === 0) data.stairways = data.stairways.filter((s) => s !== sq);
      }
      write(data);
    });
    load.addEventListener("click", () => {
      const text = ((examples && examples[seats()]) || {})[pick.value];
      if (text) { textarea.value = text; current = 0; forgetRisk(); draw(); }
    });
    function forgetRisk() {
      // The preview's warning was about the layout as it was previewed; an edit needs a new preview.
      if (!risky.length && warning.hidden) return;
      risky = [];
      warning.textContent = "";
      warning.hidden = true;
    }
    textarea.addEventListener("input", () => { forgetRisk(); draw(); });
    const count = document.getElementById("id_seat_count");
    if (count) count.addEventListener("input", fillExamples);
    fillExamples();
    draw();
  }

  const EDITORS = { "stairways-layout": stairwaysLayout };

  function start() {
    const data = document.getElementById("option-examples");
    const examples = data ? JSON.parse(data.textContent) : {};
    document.querySelectorAll("textarea[data-editor]").forEach((textarea) => {
      const editor = EDITORS[textarea.dataset.editor];
      const set = textarea.closest("[data-game]");
      const game = set ? set.dataset.game : "";
      const option = textarea.name.replace(`opt_${game}_`, "");
      if (editor) editor(textarea, ((examples[game] || {})[option]) || {});
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
