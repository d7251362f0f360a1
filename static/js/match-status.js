// The match page's sentences about where the match stands: the status line at the top, the last
// move under the board, the ending under the move list, and the result panel with its scores
// and rating changes.

import { state } from "./match-connection.js";
import { isProgram, seatName, ui } from "./match-page.js";
import { abortSentence, people, playerName, resultSentence, roleLabel } from "./names.js";
import { ratingText } from "./ratings.js";

export function renderStatusLines(match) {
  ui.status.textContent = statusLine(match);
  const ending = match.status === "finished" ? resultSentence(match.result, match.seats)
    : match.status === "aborted" ? abortSentence(match) : "";
  ui.movesEnd.hidden = !ending;
  ui.movesEnd.textContent = ending;
  ui.lastMove.textContent = lastMoveLine(match);
}

function statusLine(match) {
  const { view } = match;
  const { you } = state.current;
  if (match.status === "waiting") {
    const free = match.seats.filter((s) => !s.player).length;
    const wait = interpolate(ngettext("Waiting for players: %(count)s free seat.", "Waiting for players: %(count)s free seats.", free),
                           { count: free }, true);
    if (!you.roles.length) return wait;
    // A waiting match nobody has open is called off. The lobby lists a public one while a player
    // waits on this page, as a lichess challenge; a private one only its invite link reaches, and
    // it stays open while its players are anywhere on the site (games/services/invites.py).
    return match.private && !match.rematch_of
      ? `${wait} ${gettext("Send the invite link to the people you want to play with: you may wait on any page of the site.")}`
      : match.private
      ? `${wait} ${gettext("Keep this page open until they join.")}`
      : `${wait} ${gettext("Keep this page open: the lobby lists the match while you wait here.")}`;
  }
  if (match.status === "aborted" && match.result?.declined && match.result.by) {
    return interpolate(gettext("Rematch declined by %(name)s: this match was called off."), { name: match.result.by.name }, true);
  }
  // A private invitation that ended: the page's own sentence ("This invitation ended: Ada left the site.").
  const ended = match.status === "aborted" && match.result?.invite_ended && document.getElementById("invite-ended-text");
  if (ended) return ended.textContent;
  if (match.status === "aborted") return abortSentence(match);
  if (match.status === "finished") return interpolate(gettext("Game over: %(result)s"), { result: resultSentence(match.result, match.seats) }, true);
  const seat = match.seats.find((s) => s.role === view.to_move);
  const deed = view.family !== "quarto" ? "move" : view.phase === "select" ? "select" : "place";
  const seatLabel = roleLabel(view.to_move);
  if (you.roles.includes(view.to_move)) {
    const yours = { move: gettext("Your turn (%(seat)s): move."), select: gettext("Your turn (%(seat)s): choose a piece."),
                    place: gettext("Your turn (%(seat)s): place the piece.") }[deed];
    return interpolate(yours, { seat: seatLabel }, true);
  }
  if (seat && isProgram(seat)) return interpolate(gettext("%(name)s is thinking (%(seat)s)…"), { name: seatName(seat), seat: seatLabel }, true);
  const theirs = { move: gettext("%(name)s to move (%(seat)s)."), select: gettext("%(name)s to choose a piece (%(seat)s)."),
                   place: gettext("%(name)s to place the piece (%(seat)s).") }[deed];
  return interpolate(theirs, { name: seat ? seatName(seat) : seatLabel, seat: seatLabel }, true);
}

export function lastMoveLine(match) {
  const move = match.moves[match.moves.length - 1];
  if (!move) return "";
  return interpolate(gettext("Last move: %(name)s (%(seat)s), %(move)s."),
                     { name: playerName(match.seats, move.role), seat: roleLabel(move.role), move: move.label }, true);
}

export function renderResult(match) {
  const finished = match.status === "finished";
  ui.result.hidden = !finished;
  if (!finished) return;
  ui.resultText.textContent = resultSentence(match.result, match.seats);
  const scores = (match.result && match.result.scores) || {};
  ui.scores.replaceChildren(...match.seats.map((seat) => {
    const item = document.createElement("li");
    const rating = match.rated && seat.rating_after !== null ? interpolate(gettext(", rating %(rating)s"), { rating: ratingText(seat) }, true) : "";
    item.textContent = `${seatName(seat)} (${roleLabel(seat.role)}): ${scores[seat.role] ?? "–"}${rating}${unratedNote(seat, match.seats)}`;
    return item;
  }));
}

// Why a rated result did not count, as the history rows say it (games.match.labels.unrated_note).
function unratedNote(seat, seats) {
  const against = seat.unrated_against || [];
  if (!against.length) return "";
  if (against.length === seats.length - 1) return `; ${gettext("not rated: the pair's daily limit")}`;
  const names = against.map((role) => seatName(seats.find((s) => s.role === role)));
  return `; ${interpolate(gettext("not rated against %(players)s: the pair's daily limit"), { players: people(names) }, true)}`;
}
