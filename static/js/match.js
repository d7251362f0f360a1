// The match page: it only reflects the server. A click sends the action with the version we
// drew; the board changes when the next state arrives, never before.
//
// This module wires the page's parts, each a module of its own:
//   match-page.js        the page's data and elements, shared builders (buttons, forms, hints)
//   match-connection.js  the socket, the state it holds, the connection banner
//   match-board.js       the live board (our clicks) and the move list
//   match-clocks.js      the clocks in the seats and over the board, the first-move countdown
//   match-seats.js       the seat list: players, ratings, presence, join buttons
//   match-status.js      the status line, the last move, the ending, the result panel
//   match-conduct.js     offers and conduct: abort, draw, takeback, resign, rematch
//   match-claim.js       claiming against a player who left an untimed match
//   match-chat.js        the chat
// and lookback.js (earlier positions), alerts.js (the turn alert).

import { alertControls, yourTurn } from "./alerts.js";
import { setupLookback } from "./lookback.js";
import { myTurnIn, renderBoardNow, renderMoves } from "./match-board.js";
import { setupChat, showChat } from "./match-chat.js";
import { renderClaim } from "./match-claim.js";
import { clocks } from "./match-clocks.js";
import { cancelResign, renderControls, renderOffers } from "./match-conduct.js";
import { socket, state, watchConnection } from "./match-connection.js";
import { gameName, invite, matchId, ui, userId } from "./match-page.js";
import { renderPresence, renderSeats } from "./match-seats.js";
import { lastMoveLine, renderResult, renderStatusLines } from "./match-status.js";

socket.addEventListener("state", ({ detail }) => {
  const wasMyTurn = state.current && myTurnIn(state.current);
  state.current = detail;
  state.pending = false;
  state.notice = null;
  const { match } = detail;
  if (!wasMyTurn && myTurnIn(detail) && match.moves.length > 0) {
    yourTurn(`${gameName} #${matchId}: ${lastMoveLine(match)}`);
  }
  if (match.status !== "active") cancelResign();
  render();
});
socket.addEventListener("presence", ({ detail }) => {
  state.presence = detail;
  state.presenceAt = performance.now();
  renderPresence();
  renderClaim();
});
socket.addEventListener("notice", ({ detail }) => {
  state.notice = detail.text;
  renderOffers();
});
setupChat();
watchConnection({ onLost: renderBoardNow });

const lookback = setupLookback({ matchId, invite, live: ui.board, moves: ui.moves, latest: () => state.current });
socket.addEventListener("state", () => lookback.update());

const initial = JSON.parse(document.getElementById("match-snapshot").textContent);
state.current = { version: initial.version, match: initial, last_move: null, you: { roles: [], legal: {} } };
render({ live: false });
if (initial.seats.some((s) => s.player && s.player.id === userId)) ui.alerts.append(alertControls());
socket.start();

// Everything follows the state: `live` is false for the page's embedded snapshot, drawn before
// the socket delivers the first state.
function render({ live = true } = {}) {
  const { match, you } = state.current;
  renderBoardNow();
  if (live) ui.board.dataset.version = String(state.current.version);
  ui.board.dataset.status = match.status;
  clocks.update(match.clock);
  renderSeats();
  renderOffers();
  renderResult(match);
  renderControls();
  renderClaim();
  renderMoves(match.moves, match.seats);
  renderStatusLines(match);
  ui.links.hidden = !["active", "finished"].includes(match.status);
  showChat(match, { mine: you.roles.length > 0, live });
}

const copyButton = document.getElementById("copy-invite");
if (copyButton) {
  copyButton.addEventListener("click", async () => {
    const input = document.getElementById("invite-url");
    const status = document.getElementById("copy-status");
    try {
      await navigator.clipboard.writeText(input.value);
      status.textContent = gettext("Link copied.");
    } catch {
      input.select();
      status.textContent = gettext("Select the link and copy it (Ctrl+C).");
    }
  });
}
