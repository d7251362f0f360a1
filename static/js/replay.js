// The replay page: switches among the positions the server rebuilt with the rules
// (`replay-data`: {views: [view at ply 0..n], moves: [{ply, role, action, label}], ply, analysis}).
// With an analysis: the graph jumps to a position on click and follows the current one, and the
// note under the board says what the analysis found of the move that led here (static/js/analysis.js).
// Nothing is computed here; every position is drawn read-only by boards.js. A screen reader
// hears each step from the status line ("Move 2 of 37: O B2 a3", "(at random)" after a move
// played in an absent seat's place, as the move list says), never the board, which is
// redrawn whole at every step. As on lichess, the
// arrow keys step through the moves wherever the focus is (the slider and form fields keep
// theirs): the board, where nothing can be played, is no tab stop and does not take them.
// With an analysis done, as lichess's "next inaccuracy, mistake, blunder": the marked-move
// buttons (and Shift with the left or right arrow) go to the previous or next move marked of
// the player chosen beside them (or of anyone), going round past the last or the first.
import { renderBoard } from "/static/js/boards.js";
import { describeMove, followAnalysis } from "/static/js/analysis.js";

const AUTOPLAY_MS = 900;

const data = JSON.parse(document.getElementById("replay-data").textContent);
const last = data.views.length - 1;
const board = document.getElementById("replay-board");
const slider = document.getElementById("replay-slider");
const plyOutput = document.getElementById("replay-ply");
const moveText = document.getElementById("replay-move");
const moveList = document.getElementById("replay-moves");
const playButton = document.querySelector('[data-step="play"]');
const analysis = data.analysis;
const graph = document.getElementById("analysis-graph");
const cursor = document.getElementById("analysis-cursor");
const moveNote = document.getElementById("analysis-move");
const jumpWho = document.getElementById("analysis-jump-who");
const jumpStatus = document.getElementById("analysis-jump-status");
let ply = Math.min(Math.max(data.ply, 0), last);
let timer = null;

function show(next) {
  ply = Math.min(Math.max(next, 0), last);
  const lastAction = ply > 0 ? data.moves[ply - 1].action : null;
  renderBoard(board, data.views[ply], { lastAction, focusable: false });
  board.dataset.ply = String(ply);
  slider.value = String(ply);
  plyOutput.textContent = String(ply);
  const move = ply > 0 ? data.moves[ply - 1] : null;
  moveText.textContent = move ? `: ${move.role_label} ${move.label}${move.note ? ` (${move.note})` : ""}` : ": the start";
  for (const button of moveList.querySelectorAll("button[data-ply]")) {
    const current = Number(button.dataset.ply) === ply;
    button.classList.toggle("is-current", current);
    if (current) {
      button.setAttribute("aria-current", "step");
      keepInView(button);
    } else {
      button.removeAttribute("aria-current");
    }
  }
  showAnalysis();
  if (jumpStatus) jumpStatus.textContent = "";
  const url = new URL(window.location.href);
  url.searchParams.set("ply", String(ply));
  window.history.replaceState(null, "", url);
  if (ply === last) stop();
}

// The current move in sight within the move list, which scrolls on its own: never the page
// (scrollIntoView scrolled it too, and on a phone, where the list is under the board, every
// step took the board and its buttons out of sight).
function keepInView(button) {
  const list = moveList.getBoundingClientRect();
  const item = button.getBoundingClientRect();
  if (item.top < list.top) moveList.scrollTop -= list.top - item.top;
  else if (item.bottom > list.bottom) moveList.scrollTop += item.bottom - list.bottom;
}

function showAnalysis() {
  if (graph) {
    const column = graph.querySelector(`rect[data-ply="${ply}"]`);
    if (column) {
      const x = Number(column.getAttribute("x")) + Number(column.getAttribute("width")) / 2;
      cursor.setAttribute("x1", String(x));
      cursor.setAttribute("x2", String(x));
    }
  }
  if (moveNote && analysis) describeMove(moveNote, analysis.positions[ply], ply > 0 ? analysis.moves[ply - 1] : null);
}

// The next (direction 1) or previous (-1) marked move of the chosen player: the position after
// it. Past the last one it goes round to the first (and before the first to the last), as
// lichess's "next mistake" does: the replay stands at the end when an analysis appears.
function jumpToMarked(direction) {
  const who = jumpWho.value;
  const marked = analysis.moves.filter((m) => m.mark && (!who || m.role === who));
  const ahead = direction > 0 ? marked.find((m) => m.ply > ply) : marked.findLast((m) => m.ply < ply);
  const found = ahead || (direction > 0 ? marked[0] : marked.at(-1));
  const whose = who ? ` of ${jumpWho.selectedOptions[0].textContent}` : "";
  stop();
  if (!found || found.ply === ply) {
    jumpStatus.textContent = `No ${found ? "other " : ""}marked move${whose}.`;
    return;
  }
  show(found.ply);
  if (!ahead) jumpStatus.textContent = `Back to the ${direction > 0 ? "first" : "last"} marked move${whose}.`;
}

function stop() {
  if (timer === null) return;
  clearInterval(timer);
  timer = null;
  playButton.setAttribute("aria-pressed", "false");
  playButton.setAttribute("aria-label", "Play");
  playButton.textContent = "\u25B6\uFE0E Play";
}

function play() {
  if (ply === last) show(0);
  playButton.setAttribute("aria-pressed", "true");
  playButton.setAttribute("aria-label", "Pause");
  playButton.textContent = "\u23F8\uFE0E Pause";
  timer = setInterval(() => show(ply + 1), AUTOPLAY_MS);
}

const steps = {
  first: () => show(0),
  prev: () => show(ply - 1),
  next: () => show(ply + 1),
  last: () => show(last),
};

document.querySelector(".replay-controls").addEventListener("click", (event) => {
  const button = event.target.closest("button[data-step]");
  if (!button) return;
  if (button.dataset.step === "play") {
    if (timer === null) play();
    else stop();
    return;
  }
  stop();
  steps[button.dataset.step]();
});

slider.addEventListener("input", () => {
  stop();
  show(Number(slider.value));
});

moveList.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-ply]");
  if (!button) return;
  stop();
  show(Number(button.dataset.ply));
});

const keys = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
document.addEventListener("keydown", (event) => {
  // The slider moves itself with the arrow keys (its input event redraws); text fields keep theirs.
  // The marked-move keys work from the player's select beside their buttons too: choosing a
  // player leaves the focus there, and a select does nothing with Shift and an arrow.
  const target = event.target instanceof Element ? event.target : null;
  const inField = target && (target === slider || target.closest("input, textarea, select"));
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.shiftKey && jumpWho && (event.key === "ArrowLeft" || event.key === "ArrowRight")
      && (!inField || target === jumpWho)) {
    event.preventDefault();
    jumpToMarked(event.key === "ArrowRight" ? 1 : -1);
    return;
  }
  if (inField) return;
  const step = keys[event.key];
  if (!step) return;
  event.preventDefault();
  stop();
  steps[step]();
});

if (graph) {
  graph.addEventListener("click", (event) => {
    const column = event.target.closest("rect[data-ply]");
    if (!column) return;
    stop();
    show(Number(column.dataset.ply));
  });
}

if (jumpWho) {
  document.querySelector(".analysis-jump").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-jump]");
    if (button) jumpToMarked(Number(button.dataset.jump));
  });
}

if (analysis && (analysis.status === "queued" || analysis.status === "running")) {
  followAnalysis(analysis.url, {
    progress: document.getElementById("analysis-progress"),
    count: document.getElementById("analysis-count"),
    state: document.getElementById("analysis-state"),
  });
}

show(ply);
