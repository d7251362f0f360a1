// The seat list on the match page: each seat's mark, player, rating, how it left play, its
// clock, who is online, and the join buttons of a waiting match; and the spectators' count.

import { markSvg, marksSwapped } from "./boards.js";
import { clocks, renderBoardClocks, seatClock } from "./match-clocks.js";
import { state } from "./match-connection.js";
import { createdBy, hintText, isComputer, isProgram, matchId, postButton, seatName, signedIn, ui, userId, withInvite } from "./match-page.js";
import { roleLabel } from "./names.js";
import { ratingText } from "./ratings.js";

// How a seat left play (games.models.Out), as its line in the seats says it.
const OUT_LABELS = { resigned: gettext("resigned"), time: gettext("ran out of time"),
                     abandoned: gettext("away, claimed against"), left: gettext("left the site") };

let seatsDrawn = null; // what the seat list shows, to rebuild it only on a change

export function renderSeats() {
  const { match, you } = state.current;
  const { view } = match;
  const mine = you.roles.length > 0;
  // Rebuild only on a change, so that a join button is never swapped out under a click.
  const drawn = JSON.stringify([match.seats, match.status, view.to_move, view.markers, you.roles]);
  if (drawn === seatsDrawn) return;
  seatsDrawn = drawn;
  ui.seats.classList.toggle("marks-swapped", marksSwapped(view));
  ui.seats.replaceChildren(...match.seats.map((seat) => {
    const item = document.createElement("li");
    item.className = "seat";
    item.dataset.role = seat.role;
    const mark = view.markers[seat.role];
    if (mark) {
      const badge = document.createElement("span");
      badge.className = "seat__mark";
      badge.append(markSvg(mark));
      item.append(badge);
    }
    const text = document.createElement("div");
    text.className = "seat__text";
    const name = document.createElement("span");
    name.className = "seat__name";
    name.textContent = seatName(seat) + (you.roles.includes(seat.role) ? ` ${gettext("(you)")}` : "");
    const rating = ratingText(seat);
    if (rating) {
      const badge = document.createElement("span");
      badge.className = "seat__rating";
      badge.dataset.testid = "rating";
      badge.textContent = rating;
      name.append(" ", badge);
    }
    if (seat.player && seat.player.bot) {
      const tag = document.createElement("span");
      tag.className = "tag";
      tag.textContent = gettext("bot");
      name.append(" ", tag);
    }
    const detail = document.createElement("span");
    detail.className = "seat__role";
    const label = roleLabel(seat.role);
    const bits = [mark && mark.toUpperCase() !== label ? interpolate(gettext("%(seat)s, plays %(mark)s"), { seat: label, mark }, true) : label];
    if (!seat.player && seat.reserved_for) bits.push(interpolate(gettext("kept for %(name)s"), { name: seat.reserved_for.name }, true));
    if (seat.resigned) bits.push(OUT_LABELS[seat.out] || OUT_LABELS.resigned);
    if (match.status === "finished" && seat.score !== null && seat.score !== undefined) bits.push(interpolate(gettext("score %(score)s"), { score: seat.score }, true));
    detail.textContent = bits.join(" · ");
    text.append(name, detail);
    item.append(text);
    if (isComputer(seat)) {
      const always = document.createElement("span");
      always.className = "presence presence--computer";
      always.textContent = gettext("computer");
      item.append(always);
    } else if (seat.player) {
      const dot = document.createElement("span");
      dot.className = "presence";
      item.append(dot);
    } else if (match.status === "waiting" && !mine && !(seat.reserved_for && seat.reserved_for.id !== userId)) {
      item.append(signedIn ? postButton(`/matches/${matchId}/join/`, interpolate(gettext("Join as %(seat)s"), { seat: roleLabel(seat.role) }, true), { role: seat.role, ...withInvite })
                           : hintText(gettext("Choose a name at the top to join.")));
    } else if (match.status === "waiting" && userId === createdBy && !match.rated && !seat.reserved_for) {
      item.append(computerSeatForm(seat));
    }
    const time = seatClock(seat, match);
    if (time) item.append(time);
    if (match.status === "active" && view.to_move === seat.role) {
      item.classList.add("seat--to-move");
      const turn = document.createElement("span");
      turn.className = "tag tag--turn";
      turn.textContent = gettext("to move");
      text.append(turn);
      if (isProgram(seat)) {
        const thinking = document.createElement("span");
        thinking.className = "seat__thinking";
        thinking.dataset.testid = "thinking";
        thinking.textContent = gettext("thinking");
        text.append(" ", thinking);
      }
    }
    return item;
  }));
  renderBoardClocks();
  clocks.tick();
  renderPresence();
}

// The creator of a waiting casual match may give a free seat to the computer, at a level.
function computerSeatForm(seat) {
  const form = postButton(`/matches/${matchId}/computer/`, gettext("Give this seat to the computer"),
                          { role: seat.role, ...withInvite }, "button--secondary");
  const label = document.createElement("label");
  label.textContent = `${gettext("Level")} `;
  const select = document.createElement("select");
  select.name = "level";
  JSON.parse(document.getElementById("computer-levels").textContent).forEach((name, index) => {
    select.append(new Option(name[0].toUpperCase() + name.slice(1), String(index + 1), index === 1, index === 1));
  });
  label.append(select);
  form.prepend(label);
  return form;
}

export function renderPresence() {
  for (const dot of ui.seats.querySelectorAll(".presence:not(.presence--computer)")) {
    const online = Boolean(state.presence.online[dot.closest(".seat").dataset.role]);
    dot.className = `presence ${online ? "presence--on" : "presence--off"}`;
    dot.textContent = online ? gettext("online") : gettext("offline");
  }
  const watching = state.presence.spectators;
  ui.spectators.textContent = interpolate(ngettext("%(count)s watching", "%(count)s watching", watching), { count: watching }, true);
}
