// Pages follow what they show without a reload: a match page its match, My matches its rows, and every
// page the header's "your move" badge. Each asks the server every few seconds with the ETag of what it
// shows (If-None-Match); "304 Not Modified" costs the server no more than a look in the cache, and a
// changed answer carries the parts of the page to redraw, rendered by the page's own templates
// (games/views.py).
//
// A page polls every VISIBLE_MS while it is in sight and every HIDDEN_MS while its tab is hidden, and at
// once when it comes back into sight. VISIBLE_MS is the slowest rate that still shows a change within
// five seconds; an unchanged poll costs the server about a millisecond of CPU (bench/live.py), so 1,000
// pages in sight cost a fifth of one core at this rate (a third at one poll every 3 s).
//
// Redrawing keeps what the player is doing: the move being chosen on the board survives any change
// that leaves their legal moves as they were (static/js/board.js gives the clicks and takes them back);
// a change of position clears it and says so. A part holding the field being typed in waits until the
// focus leaves it.
(function () {
  "use strict";
  if (!window.fetch || !window.JSON) return;

  const VISIBLE_MS = 4800;
  const HIDDEN_MS = 30000;
  // The badge alone (on pages other than a match's or My matches) need not be as quick.
  const BADGE_VISIBLE_MS = 15000;
  const BADGE_HIDDEN_MS = 60000;
  const CLEARED = "The position changed while you were choosing: your move was cleared.";

  function visible() {
    return document.visibilityState !== "hidden";
  }

  // One address polled with its ETag; onChange gets each changed answer's JSON. An interval of null:
  // no timer, only a poll when the page comes back into sight.
  function follow({ url, etag, query, hints, onChange, visibleMs, hiddenMs }) {
    let timer = null;
    let busy = false;
    let stopped = false;

    function schedule(ms) {
      clearTimeout(timer);
      const wait = ms === undefined ? (visible() ? visibleMs : hiddenMs) : ms;
      if (!stopped && wait !== null) timer = setTimeout(poll, wait);
    }

    async function poll() {
      if (busy || stopped) return;
      busy = true;
      try {
        const headers = Object.assign({ Accept: "application/json" }, hints ? hints() : {});
        if (etag) headers["If-None-Match"] = etag;
        const address = url + (query ? "?" + new URLSearchParams(query()).toString() : "");
        const response = await fetch(address, { credentials: "same-origin", cache: "no-store", headers });
        if (response.status === 200) {
          const data = await response.json();
          etag = response.headers.get("ETag") || etag;
          onChange(data);
        } else if (response.status === 403 || response.status === 404) {
          stopped = true; // logged out, or the match is gone: nothing more to follow
        }
      } catch (error) {
        // Offline for a moment, or a reply cut short: the next poll tries again.
      } finally {
        busy = false;
        schedule();
      }
    }

    document.addEventListener("visibilitychange", () => {
      if (visible()) schedule(0);
      else schedule();
    });
    schedule();
    return { poll: () => schedule(0) };
  }

  function fragment(html) {
    const template = document.createElement("template");
    template.innerHTML = html;
    return template.content;
  }

  // Redraw every element marked data-live="<name>" with the part's HTML, unless the player is typing in
  // it: then once the focus has left it (with the newest HTML that came meanwhile).
  const waiting = new Map();

  function typingIn(region) {
    const active = document.activeElement;
    return Boolean(active && region.contains(active) && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName));
  }

  function swap(name, html) {
    document.querySelectorAll('[data-live="' + name + '"]').forEach((region) => {
      if (!typingIn(region)) {
        waiting.delete(region);
        region.replaceChildren(fragment(html));
        return;
      }
      if (!waiting.has(region)) {
        region.addEventListener("focusout", function later() {
          setTimeout(() => {
            if (typingIn(region) || !waiting.has(region)) return;
            region.removeEventListener("focusout", later);
            region.replaceChildren(fragment(waiting.get(region)));
            waiting.delete(region);
          }, 0);
        });
      }
      waiting.set(region, html);
    });
  }

  // The log shows its newest lines: its box is scrolled to the end, and stays there as lines come in
  // unless the reader has scrolled up to read older ones.
  function logAtEnd() {
    const log = document.querySelector("#live-log ol.log");
    return !log || log.scrollHeight - log.scrollTop - log.clientHeight < 8;
  }

  function logToEnd() {
    const log = document.querySelector("#live-log ol.log");
    if (log) log.scrollTop = log.scrollHeight;
  }

  // --- the match page ---------------------------------------------------------------------------------

  function followMatch(config) {
    const keys = { board: config.dataset.boardKey, log: config.dataset.logKey };
    const scripts = (config.dataset.scripts || "").split(" ").filter(Boolean);
    const notice = document.getElementById("live-notice");
    const boardRegion = document.getElementById("live-board");

    let saidAt = 0;
    function say(text) {
      if (!notice) return;
      notice.textContent = text;
      notice.hidden = !text;
      saidAt = Date.now();
    }
    // The notice stays until the player goes back to choosing a move, or a later change of the board
    // makes it old news (once it has been there long enough to be read).
    const READ_MS = 10000;
    if (boardRegion) {
      boardRegion.addEventListener("click", () => say(""));
      boardRegion.addEventListener("keydown", () => say(""));
    }

    function pending() {
      const hook = window.wallsiteBoard;
      const input = document.querySelector("#move-form input[name=move]");
      const clicks = hook ? hook.selection() : [];
      const typed = input ? input.value : "";
      return { clicks, typed, any: clicks.length > 0 || typed.trim() !== "" };
    }

    function legalMoves(root) {
      const data = root.querySelector("#legal-moves");
      try {
        return data ? JSON.parse(data.textContent) : null;
      } catch (error) {
        return null;
      }
    }

    // The board's scripts run again on the new board, one after the other; then ``done``.
    function runScripts(done) {
      const wanted = scripts.filter((src) =>
        /board-zoom/.test(src) ? document.getElementById("board-frame") : document.getElementById("move-form")
      );
      let left = wanted.length;
      if (!left) return done();
      wanted.forEach((src) => {
        const script = document.createElement("script");
        script.src = src;
        script.async = false; // in order: board.js needs pending-move.js
        script.onload = script.onerror = () => {
          script.remove();
          if (--left === 0) done();
        };
        document.body.appendChild(script);
      });
    }

    function redrawBoard(html) {
      const chosen = pending();
      const incoming = fragment(html);
      const moves = legalMoves(incoming);
      const hook = window.wallsiteBoard;
      // The same legal moves: the clicks still lead where they led. Anything else clears them.
      const keep = chosen.any && moves !== null && hook && !hook.legalMovesChanged(moves);
      const focused = document.activeElement;
      window.wallsiteBoard = null;
      boardRegion.replaceChildren(incoming);
      runScripts(() => {
        const board = window.wallsiteBoard;
        if (keep && board) {
          if (chosen.clicks.length) board.restore(chosen.clicks);
          const input = document.querySelector("#move-form input[name=move]");
          if (!chosen.clicks.length && input) input.value = chosen.typed;
        }
        // Restoring a complete move puts the focus on Play: give it back to whatever had it outside.
        if (focused && focused !== document.body && document.contains(focused) && !boardRegion.contains(focused)) {
          focused.focus();
        }
        if (chosen.any && !keep) say(CLEARED);
        else if (!keep && notice && !notice.hidden && Date.now() - saidAt > READ_MS) say("");
      });
    }

    const poller = follow({
      url: config.dataset.url,
      etag: config.dataset.etag,
      // What the page has: the server leaves out the board and the log when they are unchanged.
      hints: () => ({ "X-Live-Board": keys.board, "X-Live-Log": keys.log }),
      visibleMs: VISIBLE_MS,
      hiddenMs: HIDDEN_MS,
      onChange(data) {
        const parts = data.parts || {};
        Object.keys(parts).forEach((name) => {
          if (name === "board" || name === "log") return;
          swap(name, parts[name]);
        });
        if (parts.log !== undefined) {
          const atEnd = logAtEnd();
          swap("log", parts.log);
          if (atEnd) logToEnd();
        }
        if (parts.board !== undefined && boardRegion) redrawBoard(parts.board);
        if (data.keys) Object.assign(keys, data.keys);
      },
    });

    // A chat message sent from this page goes without a reload, so a move being chosen stays.
    const chatForm = document.querySelector("form.chat-form");
    if (chatForm) chatForm.addEventListener("submit", (event) => sendChat(event, chatForm, poller));
    return poller;
  }

  async function sendChat(event, form, poller) {
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    const text = form.querySelector("textarea");
    let error = form.querySelector(".error");
    if (button) button.disabled = true;
    try {
      const response = await fetch(form.action, {
        method: "POST",
        body: new FormData(form),
        credentials: "same-origin",
        headers: { Accept: "application/json" },
      });
      if (response.redirected) return form.submit(); // logged out meanwhile: the form says what to do
      const data = await response.json().catch(() => ({}));
      if (response.ok) {
        if (text) text.value = "";
        if (error) error.remove();
        poller.poll();
      } else {
        if (!error) {
          error = document.createElement("p");
          error.className = "error";
          error.setAttribute("role", "alert");
          form.appendChild(error);
        }
        error.textContent = data.detail || "Your message was not sent; try again.";
      }
    } catch (failure) {
      form.submit(); // no answer from the server: the ordinary form post says what happened
    } finally {
      if (button) button.disabled = false;
    }
  }

  // --- My matches and the badge -------------------------------------------------------------------------

  // My matches polls for its rows as often as a match page for its match; other pages for the badge
  // alone, more slowly; a match page's own poll brings the badge whenever its match changes, and it
  // asks for the badge only when it comes back into sight (other matches may have moved meanwhile).
  function followMine(config, { table, onMatchPage }) {
    follow({
      url: config.dataset.url,
      etag: table ? table.dataset.etag : null,
      query: () => (table ? { table: "1" } : {}),
      visibleMs: onMatchPage ? null : table ? VISIBLE_MS : BADGE_VISIBLE_MS,
      hiddenMs: onMatchPage ? null : table ? HIDDEN_MS : BADGE_HIDDEN_MS,
      onChange(data) {
        const parts = data.parts || {};
        Object.keys(parts).forEach((name) => swap(name, parts[name]));
      },
    });
  }

  const match = document.getElementById("live");
  if (match) {
    logToEnd();
    followMatch(match);
  }
  const mine = document.getElementById("live-me");
  if (mine) followMine(mine, { table: document.getElementById("live-table"), onMatchPage: Boolean(match) });
})();
