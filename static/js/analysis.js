// The replay page's analysis: follows a queued or running analysis by asking its JSON address
// (backing off from 1 s to 8 s), shows the progress, and reloads the page once it is done
// (the graph, the marks and the summary are drawn by the server), or withheld for fair play
// (a 409: the page says why). The replay page has no socket of its own, and an analysis
// changes once a position: a small poll is enough here.
// describeMove() says what the analysis found of a position and of the move that led to it,
// for the note under the board: for a marked move, the better move, the line the search
// expected from it (numbered as the move list numbers moves; none in an analysis stored before
// lines were) and the board after the better move.
import { renderBoard } from "/static/js/boards.js";

const FIRST_WAIT_MS = 1000;
const LONGEST_WAIT_MS = 8000;

function stateText(data) {
  if (data.status !== "queued") return "Analysing:";
  return data.ahead ? `Waiting for the analyser (${data.ahead} ahead):` : "Waiting for the analyser:";
}

export function followAnalysis(url, { progress, count, state }) {
  let wait = FIRST_WAIT_MS;
  let seen = -1;
  async function ask() {
    let data = null;
    try {
      const response = await fetch(url, { headers: { Accept: "application/json" } });
      if (response.ok) data = await response.json();
      else if (response.status === 409) data = { status: "withheld" }; // fair play: the page says why
    } catch {
      data = null; // offline for a moment: ask again later
    }
    if (data && ["done", "failed", "none", "withheld"].includes(data.status)) {
      window.location.reload();
      return;
    }
    if (data) {
      if (progress) {
        progress.max = data.total;
        progress.value = data.done;
      }
      if (count) count.textContent = `${data.done} of ${data.total}`;
      if (state) state.textContent = stateText(data);
      wait = data.done === seen ? Math.min(wait * 1.5, LONGEST_WAIT_MS) : FIRST_WAIT_MS;
      seen = data.done;
    } else {
      wait = Math.min(wait * 2, LONGEST_WAIT_MS);
    }
    setTimeout(ask, wait);
  }
  setTimeout(ask, FIRST_WAIT_MS);
}

export function describeMove(container, position, move) {
  container.replaceChildren();
  if (position) {
    const here = document.createElement("p");
    here.dataset.testid = "analysis-position";
    const scores = position.scores.map((s) => `${s.label} ${s.points}`).join(" · ");
    here.textContent = `Expected scores here: ${scores}` +
      (position.best_label ? `; the search's move: ${position.best_label}.` : " (the end).");
    container.append(here);
  }
  if (!move) return;
  const text = document.createElement("p");
  const points = Math.round(move.loss * 100);
  if (!move.mark) {
    text.textContent = `Move ${move.ply}: ${points ? `lost ${points} points` : "as good as the search found"}.`;
    container.append(text);
    return;
  }
  const mark = document.createElement("strong");
  mark.className = `analysis-mark analysis-mark--${move.mark}`;
  mark.textContent = move.mark[0].toUpperCase() + move.mark.slice(1);
  text.append(mark, ` (move ${move.ply}, lost ${points} points). Better was ${move.better_label}:`);
  const board = document.createElement("div");
  board.className = "analysis-better";
  board.dataset.testid = "analysis-better";
  container.append(text, board);
  if (move.better_line && move.better_line.length) container.append(bestLine(move.better_line));
  renderBoard(board, move.better_view, { lastAction: move.better, focusable: false, hints: false });
}

function bestLine(moves) {
  const line = document.createElement("p");
  line.className = "analysis-line";
  line.dataset.testid = "analysis-line";
  line.textContent = `Best line: ${moves.map((m) => `${m.ply}. ${m.role_label} ${m.label}`).join(", ")}.`;
  return line;
}
