// The match page's connection and the state it holds. One MatchSocket (socket.js keeps the
// versions: it drops an old state and asks for the full one after a gap or a reconnect), the
// last state it delivered, and the banner that says when live updates stop and come back.
// The page only reflects the server: a click sends the action with the version we drew, and
// the board changes when the next state arrives, never before.

import { invite, matchId, showError, ui } from "./match-page.js";
import { MatchSocket, SIGNED_OUT, TRY_AGAIN_LATER, showSignedOut, socketUrl } from "./socket.js";

export const state = {
  current: null, // the last state message: {version, match, last_move, you}
  presence: { spectators: 0, online: {}, away: {}, claim_after: 60 },
  presenceAt: 0, // when it arrived: "away" counts seconds up to that moment
  pending: false, // an action is on its way; further clicks wait for the answer
  notice: null, // the last answer to an offer, until the next state
};

export const socket = new MatchSocket(socketUrl(`/ws/matches/${matchId}/${invite ? `?invite=${encodeURIComponent(invite)}` : ""}`));
// A handle for the browser console and the browser tests (they send through the page's socket).
window.boardhall = { socket };

/** Send `message`; when the socket is down, say so under the board (`failure`, or a general line). */
export function send(message, failure = gettext("Not connected: wait for the connection to come back, then try again.")) {
  const sent = socket.send(message);
  if (!sent) showError(failure);
  return sent;
}

let reconnectedTimer = null;

/** The banner and the error line follow the socket; `onLost` redraws what a lost socket changes. */
export function watchConnection({ onLost }) {
  socket.addEventListener("error", ({ detail }) => {
    state.pending = false;
    if (detail.code !== "unavailable") showError(detail.message); // the banner says it (below)
  });
  socket.addEventListener("lost", ({ detail }) => {
    clearTimeout(reconnectedTimer);
    showBanner(detail && detail.code === TRY_AGAIN_LATER
      ? gettext("Live updates interrupted, reconnecting… (the server cannot reach its services right now; moves already made are kept)")
      : gettext("Connection lost. Reconnecting…"), "lost");
    onLost();
  });
  socket.addEventListener("reconnected", () => {
    showBanner(gettext("Reconnected: the board is up to date."), "back");
    reconnectedTimer = setTimeout(() => showBanner(null), 4000);
  });
  socket.addEventListener("closed", ({ detail }) => {
    if (detail.code === SIGNED_OUT) {  // this browser logged out: the server closed the page's sockets
      showSignedOut();
      return;
    }
    showBanner(gettext("This match is not available (it may be private). Reload the page to try again."), "lost");
  });
}

function showBanner(text, kind) {
  ui.connection.hidden = !text;
  ui.connection.textContent = text || "";
  ui.connection.className = `banner${kind ? ` banner--${kind}` : ""}`;
}
