// The embeddable board (/embed/<id>/, in another site's iframe): the board, its players and
// where the match stands, kept live over the match's socket as a spectator sees it. No actions,
// no cookies: it watches a public match.

import { renderBoard } from "./boards.js";
import { abortSentence, playerName, resultSentence, roleLabel } from "./names.js";
import { MatchSocket, socketUrl } from "./socket.js";

const root = document.getElementById("embed");
const board = document.getElementById("board");
const players = document.getElementById("embed-players");
const status = document.getElementById("embed-status");

function statusLine(match) {
  if (match.status === "finished") return resultSentence(match.result, match.seats);
  if (match.status === "aborted") return abortSentence(match);
  if (match.status === "waiting") return "Waiting for players.";
  return `${playerName(match.seats, match.view.to_move)} (${roleLabel(match.view.to_move)}) to move.`;
}

function draw(match, version) {
  const moves = match.moves;
  renderBoard(board, match.view, { focusable: false, hints: false,
                                   lastAction: moves.length ? moves[moves.length - 1].action : null });
  board.dataset.version = String(version);
  players.textContent = match.seats.map((s) => `${s.player ? s.player.name : "free seat"} (${roleLabel(s.role)})`).join(" · ");
  status.textContent = statusLine(match);
}

const first = JSON.parse(document.getElementById("match-snapshot").textContent);
draw(first, first.version);
const socket = new MatchSocket(socketUrl(`/ws/matches/${root.dataset.matchId}/`));
socket.addEventListener("state", ({ detail }) => draw(detail.match, detail.version));
socket.start();
