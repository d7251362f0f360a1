// The live board and the move list on the match page. The board takes clicks only on our turn
// and while connected; a click sends the action at the version drawn and waits for the server's
// next state (one action at a time). The move list's entries are the steps lookback.js shows.

import { renderBoard } from "./boards.js";
import { socket, state } from "./match-connection.js";
import { showError, ui } from "./match-page.js";
import { roleLabel } from "./names.js";

const pageTitle = document.title;

export function myTurnIn({ match, you }) {
  return match.status === "active" && Object.keys(you.legal).length > 0;
}

export function renderBoardNow() {
  const { match, last_move: lastMove } = state.current;
  const myTurn = myTurnIn(state.current) && socket.connected;
  const moves = match.moves;
  const lastAction = lastMove ? lastMove.action : moves.length ? moves[moves.length - 1].action : null;
  renderBoard(ui.board, match.view, { onAction: myTurn ? play : null, lastAction, yours: myTurnIn(state.current) });
  ui.board.classList.toggle("board-holder--my-turn", myTurn);
  document.title = myTurn ? interpolate(gettext("Your turn · %(title)s"), { title: pageTitle }, true) : pageTitle;
}

function play(action) {
  if (state.pending) return;
  if (!socket.sendAction(action)) {
    showError(gettext("Not connected: your move was not sent. Wait for the connection to come back, then play again."));
    return;
  }
  state.pending = true;
  showError(null);
}

export function renderMoves(moves, seats) {
  ui.movesEmpty.hidden = moves.length > 0;
  // A seat that left play in the three-player game has its turns played at random (the site's
  // rule, docs/architecture.md: the others play on); those moves say so.
  const outAfter = new Map(seats.filter((s) => s.out_ply !== null && s.out_ply !== undefined)
    .map((s) => [s.role, s.out_ply]));
  const items = moves.map((move) => {
    const item = document.createElement("li");
    item.value = move.ply;
    item.dataset.ply = String(move.ply);
    // The number is an element, not the list's marker: it stays beside a long label's first line.
    const number = document.createElement("span");
    number.className = "moves__number";
    number.textContent = `${move.ply}.`;
    const role = document.createElement("span");
    role.className = "moves__role";
    role.textContent = roleLabel(move.role);
    const step = document.createElement("button"); // lookback.js shows the position after it
    step.type = "button";
    step.className = "moves__step";
    step.dataset.ply = String(move.ply);
    // "x A3 c1" names its mark already
    if (!move.label.startsWith(`${role.textContent.toLowerCase()} `)) step.append(role, " ");
    step.append(move.label);
    if (move.replaced) { // a GGP seat late, illegal or silent, or a per-move clock run out
      const random = document.createElement("span");
      random.className = "moves__random";
      random.dataset.testid = "replaced";
      random.textContent = interpolate(gettext("(at random: %(why)s)"), { why: move.replaced }, true);
      step.append(" ", random);
    } else if (outAfter.has(move.role) && move.ply > outAfter.get(move.role)) {
      const random = document.createElement("span");
      random.className = "moves__random";
      random.textContent = gettext("(at random)");
      step.append(" ", random);
    }
    item.append(number, step);
    return item;
  });
  ui.moves.replaceChildren(...items);
  ui.moves.scrollTop = ui.moves.scrollHeight;
}
