// Claiming against an absent player (untimed matches: a clock ends a timed one by itself). When
// the player to move has left the page, the others see a countdown from the presence message,
// then may claim the match: the absent seat counts as resigned (the win with two players; with
// three the game goes on), or, with two, call it a draw.

import { send, state } from "./match-connection.js";
import { button, hintText, seatName, ui } from "./match-page.js";

let claimDrawn = null; // what the claim panel shows, to redraw it only on a change
let claimTimer = null;

export function renderClaim() {
  const { current: { match, you }, presence } = state;
  const mySeat = match.seats.find((s) => you.roles.includes(s.role));
  const mover = match.view.to_move;
  const away = (presence.away || {})[mover];
  const untimed = match.clock.kind === "untimed";
  if (!(untimed && match.status === "active" && mySeat && !mySeat.resigned && mover && mover !== mySeat.role
        && away !== undefined)) {
    clearInterval(claimTimer);
    claimTimer = null;
    claimDrawn = null;
    ui.claim.hidden = true;
    return;
  }
  const seat = match.seats.find((s) => s.role === mover);
  const name = seatName(seat);
  const wait = Math.ceil(presence.claim_after - away - (performance.now() - state.presenceAt) / 1000);
  const drawn = JSON.stringify([mover, name, Math.max(wait, 0), match.version]);
  if (drawn === claimDrawn) return;
  claimDrawn = drawn;
  ui.claim.hidden = false;
  if (wait > 0) {
    ui.claim.replaceChildren(hintText(interpolate(
      gettext("%(name)s has left the match. If they are not back within %(time)s, you may claim it."), { name, time: minutes(wait) }, true)));
    if (!claimTimer) claimTimer = setInterval(renderClaim, 1000);
    return;
  }
  clearInterval(claimTimer);
  claimTimer = null;
  const playingOn = match.seats.filter((s) => !s.resigned && s.role !== mover).length;
  if (playingOn > 1) {  // with three, a draw would be the third player's to agree to as well
    ui.claim.replaceChildren(hintText(gone(name)),
                             button(interpolate(gettext("Play on without %(name)s"), { name }, true), () => send({ type: "claim" }), "button--primary"));
    return;
  }
  // As on lichess: claim the win, or call it a draw (or wait on).
  ui.claim.replaceChildren(hintText(gone(name)),
                           button(gettext("Claim the win"), () => send({ type: "claim" }), "button--primary"),
                           button(gettext("Call it a draw"), () => send({ type: "claim_draw" }), "button--secondary"));
}

function gone(name) {
  return interpolate(gettext("%(name)s has left the match and has not come back."), { name }, true);
}

// "1:05": the countdown's minutes and seconds.
function minutes(seconds) {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}
