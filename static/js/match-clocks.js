// The match page's clocks: one Clocks (clock.js counts down from each state) shown in the seat
// list and in the strip over the board, and the first-move countdown of a real-time match.

import { Clocks } from "./clock.js";
import { state } from "./match-connection.js";
import { seatName, ui } from "./match-page.js";
import { playerName } from "./names.js";

export const clocks = new Clocks();
clocks.onTick = renderFirstMove;

/** The element showing `seat`'s time in the seat list (null for an untimed match). */
export function seatClock(seat, match) {
  if (match.clock.kind === "untimed") return null;
  const time = document.createElement("span");
  time.className = "clock";
  time.dataset.role = seat.role;
  clocks.attach(seat.role, time);
  return time;
}

// On a phone the seat list is below the board: the strip over the board shows every clock.
export function renderBoardClocks() {
  const { match } = state.current;
  const timed = match.clock.kind !== "untimed";
  ui.boardClocks.replaceChildren(...(timed ? match.seats : []).map((seat) => {
    const item = document.createElement("span");
    item.className = "board-clock";
    item.classList.toggle("board-clock--to-move", match.status === "active" && match.view.to_move === seat.role);
    const name = document.createElement("span");
    name.className = "board-clock__name";
    name.textContent = seatName(seat);
    const time = document.createElement("span");
    time.className = "clock";
    item.append(name, time);
    clocks.attach(seat.role, time, "board");
    return item;
  }));
}

// In real time each seat has a short time for its first move, shown to everyone as a countdown
// in place of the time control's line (a phone keeps the board on its first screen).
function renderFirstMove() {
  const { current } = state;
  const ms = current && current.match.status === "active" ? clocks.firstMoveLeft() : null;
  ui.firstMove.hidden = ms === null;
  ui.timeControl.hidden = ms !== null;
  if (ms === null) return;
  const { match, you } = current;
  const role = match.clock.running;
  const seconds = Math.ceil(ms / 1000);
  ui.firstMove.textContent = you.roles.includes(role)
    ? interpolate(gettext("Your first move within %(seconds)s s, or the match is aborted."), { seconds }, true)
    : interpolate(gettext("%(name)s's first move within %(seconds)s s, or the match is aborted."),
                  { name: playerName(match.seats, role), seconds }, true);
}
