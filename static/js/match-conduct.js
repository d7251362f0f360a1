// Offers and conduct on the match page: the line saying who offers what (to everyone), and a
// player's controls: call off a waiting match, abort before everyone moved, offer or answer a
// draw or a takeback, resign (after a confirmation), offer or answer a rematch; spectators may
// follow the players to their rematch. Draws, takebacks and resigning go over the socket;
// calling off, aborting and rematches are forms posted to the match's views.

import { send, state } from "./match-connection.js";
import { button, hintText, invite, matchId, postButton, seatName, ui, userId, withInvite } from "./match-page.js";
import { people } from "./names.js";

let confirmingResign = false;
let controlsDrawn = null; // what the controls show, to rebuild them only on a change

/** The match is no longer active: a resignation being confirmed is moot. */
export function cancelResign() {
  confirmingResign = false;
}

// Who offers what, for everyone (spectators too); the answer buttons are in the controls.
export function renderOffers() {
  const { match } = state.current;
  const { draw, takeback } = match.offers;
  const names = (roles) => people(roles.map((role) => seatName(match.seats.find((s) => s.role === role))));
  const lines = [];
  if (match.status === "active" && draw.length) {
    lines.push(interpolate(ngettext("%(players)s offers a draw.", "%(players)s agree to a draw.", draw.length),
                           { players: names(draw) }, true));
  }
  if (match.status === "active" && takeback.length) lines.push(interpolate(gettext("%(name)s asks to take back their last move."), { name: names(takeback.slice(0, 1)) }, true));
  if (state.notice) lines.push(state.notice);
  ui.offers.textContent = lines.join(" ");
  ui.offers.hidden = lines.length === 0;
}

export function renderControls() {
  const { match, you } = state.current;
  const mySeat = match.seats.find((s) => you.roles.includes(s.role));
  const drawn = JSON.stringify([match.status, mySeat, match.rematch, match.rematch_by, confirmingResign, match.offers,
                                match.moves.length, match.rematch_declined, match.rematch_status]);
  if (drawn === controlsDrawn) return;
  controlsDrawn = drawn;
  const parts = [];
  if (match.status === "waiting" && mySeat) {
    parts.push(postButton(`/matches/${matchId}/abort/`, gettext("Call off this match"), withInvite, "button--secondary"));
  }
  if (match.status === "active" && mySeat && !mySeat.resigned) {
    parts.push(...conductControls(match, mySeat));
    if (!notBegun(match)) parts.push(resignControl()); // before, Abort is the button
  }
  if (match.status === "finished" && mySeat) {
    parts.push(rematchControl(match));
  } else if (match.status === "finished" && match.rematch) {
    parts.push(spectatorRematch(match));
  }
  // Redrawn, the controls keep the keyboard's place: on the same button if it is still there
  // ("Take back" again and again), or else on the board, never lost at the top of the page.
  const focused = ui.controls.contains(document.activeElement) ? document.activeElement.textContent : null;
  ui.controls.replaceChildren(...parts);
  if (focused !== null) {
    const same = [...ui.controls.querySelectorAll("button")].find((node) => node.textContent === focused);
    (same ?? ui.board.querySelector('[tabindex="0"]'))?.focus();
  }
}

// Until every seat has made its first move (lichess's rule) the match can only be aborted: it
// is not rated, and nobody wins or loses.
function notBegun(match) {
  const moved = new Set(match.moves.map((m) => m.role));
  return match.seats.some((s) => !moved.has(s.role));
}

// What a player may do about the match as a whole: abort it before everyone moved (no draws
// then), offer or answer a draw, ask for or answer a takeback (untimed and correspondence
// only: no clock runs meanwhile), resign.
// Against the computer alone in a casual match, "Take back" undoes the move at once, in any
// time control (the computer always agrees), as on lichess.
function conductControls(match, mySeat) {
  const parts = [];
  const { draw, takeback } = match.offers;
  const moved = new Set(match.moves.map((m) => m.role));
  const others = match.seats.filter((s) => s.role !== mySeat.role && !s.resigned);
  const begun = !notBegun(match);
  const computerAlone = !match.rated && match.seats.every((s) => s.role === mySeat.role || s.player?.computer);
  if (!begun) {
    parts.push(postButton(`/matches/${matchId}/abort/`, gettext("Abort"), withInvite, "button--secondary"),
               hintText(gettext("Until every player has moved, the match can only be aborted: it is not rated.")));
  }
  const answer = (kind, text) => {
    const box = document.createElement("div");
    box.className = "offer";
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", text);
    // A takeback is accepted at the version shown when clicked, as a move: a stale page undoes
    // nothing. Read then, not when the box was drawn: a change that leaves the controls as they
    // were (another player resigning) raises the version too.
    const accept = () => (kind === "takeback" ? { version: state.current.version } : {});
    box.append(hintText(text), button(gettext("Accept"), () => send({ type: `${kind}_accept`, ...accept() }), "button--primary"),
               button(gettext("Decline"), () => send({ type: `${kind}_decline` }), "button--secondary"));
    return box;
  };
  if (draw.length && !draw.includes(mySeat.role)) {
    parts.push(answer("draw", gettext("Accept the draw?")));
  } else if (begun && !draw.length && others.length && others.every((s) => !s.player.computer)) {
    parts.push(match.offers.declined.includes(mySeat.role)
      ? hintText(gettext("Your draw offer was declined: you may offer again after your next move."))
      : button(gettext("Offer a draw"), () => send({ type: "draw_offer" }), "button--secondary"));
  }
  if (computerAlone && moved.has(mySeat.role)) {
    parts.push(button(gettext("Take back"), askTakeback, "button--secondary"));
  } else if (takeback.length && !takeback.includes(mySeat.role)) {
    parts.push(answer("takeback", gettext("Let them take back their move?")));
  } else if (!takeback.length && ["untimed", "correspondence"].includes(match.clock.kind) && moved.has(mySeat.role)) {
    parts.push(match.offers.takeback_declined.includes(mySeat.role)
      ? hintText(gettext("Your takeback request was declined: you may ask again after your next move."))
      : button(gettext("Ask to take back"), askTakeback, "button--secondary"));
  }
  return parts;
}

// One request per state, at the version shown: a second click (a double click) before the
// answer would take back the turn before too, against the computer, or be refused as already
// asked; a page behind the match is refused as stale and undoes nothing.
function askTakeback() {
  if (state.pending) return;
  if (send({ type: "takeback_offer", version: state.current.version })) state.pending = true;
}

function resignControl() {
  if (!confirmingResign) {
    return button(gettext("Resign"), () => { confirmingResign = true; renderControls(); ui.controls.querySelector(".button--danger")?.focus(); }, "button--secondary");
  }
  const box = document.createElement("div");
  box.className = "confirm";
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", gettext("Confirm resignation"));
  box.append(hintText(gettext("Resign this match? It counts as a loss.")),
             button(gettext("Yes, resign"), resign, "button--danger"),
             button(gettext("Keep playing"), () => { confirmingResign = false; renderControls(); }, "button--secondary"));
  return box;
}

function resign() {
  if (!send({ type: "resign" }, gettext("Not connected: wait for the connection to come back, then resign again."))) return;
  confirmingResign = false;
  renderControls();
}

function rematchControl(match) {
  if (!match.rematch && match.rematch_declined.includes(userId)) return hintText(gettext("Rematch declined."));
  if (!match.rematch) return postButton(`/matches/${matchId}/rematch/`, gettext("Offer a rematch"), {}, "button--primary");
  // Once the rematch has begun (accepted here or in another tab) there is nothing to answer.
  if (match.rematch_status !== "waiting") return rematchLink(match, gettext("Go to the rematch"));
  const by = match.rematch_by;
  if (by && by.id === userId) return rematchLink(match, gettext("Go to your rematch offer"));
  const box = document.createElement("div");
  box.className = "offer";
  box.setAttribute("role", "status");
  box.append(hintText(by ? interpolate(gettext("%(name)s offers a rematch."), { name: by.name }, true) : gettext("Your opponent offers a rematch.")),
             postButton(`/matches/${match.rematch}/join/`, gettext("Accept the rematch"), {}, "button--primary"),
             postButton(`/matches/${matchId}/rematch/decline/`, gettext("Decline"), {}, "button--secondary"));
  return box;
}

// Spectators follow the players to their rematch, as on lichess: a link while it is offered, and
// the page goes there when it begins while they watch. A private one opens with the link they
// came by (the link of a match shows its rematches too).
let rematchWaitingSeen = false;
function spectatorRematch(match) {
  if (match.rematch_status === "waiting") rematchWaitingSeen = true;
  else if (match.rematch_status === "active" && rematchWaitingSeen) location.assign(rematchHref(match));
  const box = document.createElement("div");
  box.className = "offer";
  box.setAttribute("role", "status");
  const offered = match.rematch_by ? interpolate(gettext("%(name)s offered a rematch."), { name: match.rematch_by.name }, true)
    : gettext("A player offered a rematch.");
  const line = { waiting: offered, active: gettext("The rematch is under way.") }[match.rematch_status]
    ?? gettext("The players played a rematch.");
  box.append(hintText(line), rematchLink(match, gettext("Watch the rematch")));
  return box;
}

function rematchHref(match) {
  return `/matches/${match.rematch}/${invite ? `?invite=${encodeURIComponent(invite)}` : ""}`;
}

function rematchLink(match, text) {
  const link = document.createElement("a");
  link.href = rematchHref(match);
  link.className = "button button--secondary";
  link.textContent = text;
  return link;
}
