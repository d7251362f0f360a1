// The match page's sentences about where the match stands: the status line at the top, the last
// move under the board, the ending under the move list, and the result panel with its scores
// and rating changes.

import { state } from "./match-connection.js";
import { isProgram, seatName, ui } from "./match-page.js";
import { abortSentence, playerName, resultSentence, roleLabel } from "./names.js";
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
    const wait = `Waiting for players: ${free} free seat${free === 1 ? "" : "s"}.`;
    if (!you.roles.length) return wait;
    // A waiting match nobody has open is called off. The lobby lists a public one while a player
    // waits on this page, as a lichess challenge; a private one only its invite link reaches, and
    // it stays open while its players are anywhere on the site (games/services/invites.py).
    return match.private && !match.rematch_of
      ? `${wait} Send the invite link to the people you want to play with: you may wait on any page of the site.`
      : match.private
      ? `${wait} Keep this page open until they join.`
      : `${wait} Keep this page open: the lobby lists the match while you wait here.`;
  }
  if (match.status === "aborted" && match.result?.declined && match.result.by) {
    return `Rematch declined by ${match.result.by.name}: this match was called off.`;
  }
  // A private invitation that ended: the page's own sentence ("This invitation ended: Ada left the site.").
  const ended = match.status === "aborted" && match.result?.invite_ended && document.getElementById("invite-ended-text");
  if (ended) return ended.textContent;
  if (match.status === "aborted") return abortSentence(match);
  if (match.status === "finished") return `Game over: ${resultSentence(match.result, match.seats)}`;
  const seat = match.seats.find((s) => s.role === view.to_move);
  const verb = view.family === "quarto" ? (view.phase === "select" ? "choose a piece" : "place the piece") : "move";
  if (you.roles.includes(view.to_move)) return `Your turn (${roleLabel(view.to_move)}): ${verb}.`;
  if (seat && isProgram(seat)) return `${seatName(seat)} is thinking (${roleLabel(view.to_move)})…`;
  return `${seat ? seatName(seat) : roleLabel(view.to_move)} to ${verb} (${roleLabel(view.to_move)}).`;
}

export function lastMoveLine(match) {
  const move = match.moves[match.moves.length - 1];
  if (!move) return "";
  return `Last move: ${playerName(match.seats, move.role)} (${roleLabel(move.role)}), ${move.label}.`;
}

export function renderResult(match) {
  const finished = match.status === "finished";
  ui.result.hidden = !finished;
  if (!finished) return;
  ui.resultText.textContent = resultSentence(match.result, match.seats);
  const scores = (match.result && match.result.scores) || {};
  ui.scores.replaceChildren(...match.seats.map((seat) => {
    const item = document.createElement("li");
    const rating = match.rated && seat.rating_after !== null ? `, rating ${ratingText(seat)}` : "";
    item.textContent = `${seatName(seat)} (${roleLabel(seat.role)}): ${scores[seat.role] ?? "–"}${rating}${unratedNote(seat, match.seats)}`;
    return item;
  }));
}

// Why a rated result did not count, as the history rows say it (games.match.labels.unrated_note).
function unratedNote(seat, seats) {
  const against = seat.unrated_against || [];
  if (!against.length) return "";
  if (against.length === seats.length - 1) return "; not rated: the pair's daily limit";
  const names = against.map((role) => seatName(seats.find((s) => s.role === role)));
  return `; not rated against ${names.join(" and ")}: the pair's daily limit`;
}
