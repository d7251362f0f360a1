// Looking back on the live match page: click a move in the list (or press the left and right
// arrow keys) to see the position after it while the game goes on; "Back to the live game"
// (or End, or Escape) returns. The live board keeps following the match underneath, hidden;
// the past positions come from the server (/matches/<id>/positions/), drawn read-only. They are
// kept only while the moves they were fetched for stand: a takeback replaces moves, and with them
// the positions after them.

import { renderBoard } from "./boards.js";

export function setupLookback({ matchId, invite, live, moves, latest }) {
  const panel = make("div", { className: "lookback", id: "lookback", hidden: true });
  const bar = make("div", { className: "lookback__bar" });
  bar.setAttribute("role", "status");
  const where = make("p", { className: "lookback__where" });
  const back = make("button", { type: "button", className: "button button--primary", textContent: gettext("Back to the live game") });
  bar.append(where, back);
  const board = make("div", { className: "board-holder lookback__board", id: "lookback-board" });
  panel.append(bar, board);
  live.after(panel);

  let views = [];
  let viewsOf = []; // the moves the page knew when it fetched the views
  let ply = null; // the position shown, or null: the live one
  const url = `/matches/${matchId}/positions/${invite ? `?invite=${encodeURIComponent(invite)}` : ""}`;

  const lastPly = () => latest().match.moves.length;
  const movesNow = () => latest().match.moves.map((m) => `${m.role} ${m.action}`);

  // The positions after a move taken back (and perhaps played otherwise since) are not these.
  function forgetReplaced() {
    const now = movesNow();
    if (viewsOf.some((move, i) => now[i] !== move)) views = [];
  }

  async function load() {
    const asked = movesNow();
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    if (!response.ok) return false;
    // Only the positions of the moves this page knew: the server may be a move or a takeback ahead.
    views = (await response.json()).views.slice(0, asked.length + 1);
    viewsOf = asked;
    forgetReplaced();
    return true;
  }

  async function show(next) {
    if (next === null || next >= lastPly()) { leave(); return; }
    ply = Math.max(next, 0);
    if (ply >= views.length && !(await load())) { leave(); return; }
    if (ply === null) return; // left while the positions were on their way
    if (ply >= views.length) { leave(); return; } // taken back meanwhile
    const move = latest().match.moves[ply - 1];
    renderBoard(board, views[ply], { lastAction: move ? move.action : null, focusable: false });
    where.textContent = ply === 0
      ? interpolate(gettext("The start, before any move. The game goes on: it is at move %(last)s."), { last: lastPly() }, true)
      : interpolate(gettext("After move %(ply)s of %(last)s (%(move)s). The game goes on meanwhile."),
                    { ply, last: lastPly(), move: move.label }, true);
    panel.hidden = false;
    live.hidden = true;
    mark();
  }

  function leave() {
    const wasBack = ply !== null;
    ply = null;
    panel.hidden = true;
    live.hidden = false;
    mark();
    if (wasBack) live.querySelector('[tabindex="0"]')?.focus();
  }

  function mark() {
    for (const step of moves.querySelectorAll("[data-ply]")) {
      const here = ply !== null && Number(step.dataset.ply) === ply;
      step.classList.toggle("moves__step--shown", here);
      if (here) step.setAttribute("aria-current", "step");
      else step.removeAttribute("aria-current");
    }
  }

  back.addEventListener("click", leave);
  moves.addEventListener("click", (event) => {
    const step = event.target.closest("[data-ply]");
    if (step) show(Number(step.dataset.ply));
  });
  document.addEventListener("keydown", (event) => {
    const target = event.target instanceof Element ? event.target : null;
    // The live board's arrow keys move between its cells; text fields keep theirs. The board
    // looked back at takes no keys (nothing is played there): they step, as on the replay.
    if (target && target.closest("#board, input, textarea, select")) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const from = ply === null ? lastPly() : ply;
    const next = { ArrowLeft: from - 1, ArrowRight: from + 1, Home: 0, End: null, Escape: null }[event.key];
    if (next === undefined || (event.key === "Escape" && ply === null)) return;
    if (next !== null && next < 0) return;
    event.preventDefault();
    show(next);
  });

  return {
    /** A new state arrived: keep the shown position and its marks (the list was redrawn). */
    update() {
      forgetReplaced();
      if (ply !== null) show(ply);
      else mark();
    },
  };
}

function make(tag, properties) {
  return Object.assign(document.createElement(tag), properties);
}
