// The embeddable board of a live match (templates/games/embed.html): the players, their clocks,
// the board and what happens next, following the match over the read-only socket
// /ws/embed/<id>/ (no cookie, no action: docs/protocol.md). A finished match's embed uses the
// replay's script instead. Nothing here can act: the board is drawn without `onAction`.

import { markSvg, marksSwapped, renderBoard } from "./boards.js";
import { Clocks } from "./clock.js";
import { abortSentence, playerName, resultSentence } from "./names.js";
import { MatchSocket, socketUrl } from "./socket.js";

const root = document.getElementById("embed");
const board = document.getElementById("board");
const seatList = document.getElementById("embed-seats");
const status = document.getElementById("embed-status");
const connection = document.getElementById("embed-connection");
const clocks = new Clocks();

function draw(match, lastMove) {
  const moves = match.moves;
  const lastAction = lastMove ? lastMove.action : moves.length ? moves[moves.length - 1].action : null;
  renderBoard(board, match.view, { lastAction });
  drawSeats(match);
  clocks.update(match.clock);
  status.textContent = statusText(match);
  root.dataset.status = match.status;
  board.dataset.status = match.status; // the board shows the sub-board to play in only while active
  board.dataset.version = String(match.version);
}

function drawSeats(match) {
  const { view } = match;
  const timed = match.clock.kind !== "untimed";
  seatList.classList.toggle("marks-swapped", marksSwapped(view));
  seatList.replaceChildren(...match.seats.map((seat) => {
    const item = document.createElement("li");
    item.className = "embed__seat";
    item.classList.toggle("embed__seat--to-move", match.status === "active" && view.to_move === seat.role);
    const mark = view.markers[seat.role];
    if (mark) {
      const badge = document.createElement("span");
      badge.className = "seat__mark";
      badge.append(markSvg(mark));
      item.append(badge);
    }
    const name = document.createElement("span");
    name.className = "embed__name";
    name.textContent = seat.player ? seat.player.name : "a free seat";
    item.append(name);
    if (timed) {
      const time = document.createElement("span");
      time.className = "clock";
      clocks.attach(seat.role, time, "embed");
      item.append(time);
    }
    return item;
  }));
}

function statusText(match) {
  if (match.status === "finished") return resultSentence(match.result, match.seats);
  if (match.status === "aborted") return abortSentence(match);
  if (match.status === "waiting") return "Waiting for players.";
  return `${playerName(match.seats, match.view.to_move)} to move.`;
}

function showConnection(text) {
  connection.hidden = !text;
  connection.textContent = text || "";
}

const first = JSON.parse(document.getElementById("match-snapshot").textContent);
draw(first, null);

const socket = new MatchSocket(socketUrl(`/ws/embed/${first.id}/`));
socket.version = first.version;
socket.addEventListener("state", ({ detail }) => draw(detail.match, detail.last_move));
socket.addEventListener("lost", () => showConnection("Connection lost. Reconnecting…"));
socket.addEventListener("reconnected", () => showConnection(null));
socket.addEventListener("closed", () => showConnection("This match cannot be shown here."));
socket.start();
