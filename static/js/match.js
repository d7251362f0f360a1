// The match page: it only reflects the server. A click sends the action with the version we
// drew; the board changes when the next state arrives, never before.

import { alertControls, yourTurn } from "./alerts.js";
import { markSvg, marksSwapped, renderBoard } from "./boards.js";
import { Clocks } from "./clock.js";
import { setupLookback } from "./lookback.js";
import { abortSentence, playerName, resultSentence, roleLabel } from "./names.js";
import { ratingText } from "./ratings.js";
import { MatchSocket, SIGNED_OUT, TRY_AGAIN_LATER, showSignedOut, socketUrl } from "./socket.js";

const root = document.getElementById("match");
const matchId = root.dataset.matchId;
const userId = Number(root.dataset.userId) || null;
const invite = root.dataset.invite;
const signedIn = root.dataset.signedIn === "1";
const csrfToken = document.querySelector("#csrf-holder [name=csrfmiddlewaretoken]").value;
const withInvite = invite ? { invite } : {}; // forms about this match carry the link we came by
const pageTitle = document.title;
// How a seat left play (games.models.Out), as its line in the seats says it.
const OUT_LABELS = { resigned: "resigned", time: "ran out of time", abandoned: "away, claimed against",
                     left: "left the site" };

const $ = (id) => document.getElementById(id);
const ui = {
  board: $("board"), status: $("status-line"), connection: $("connection"), error: $("action-error"),
  seats: $("seats"), spectators: $("spectators"), result: $("result"), resultText: $("result-text"),
  scores: $("scores"), controls: $("controls"), moves: $("moves"), movesEmpty: $("moves-empty"),
  links: $("match-links"), lastMove: $("last-move"), claim: $("claim"),
  chatLines: $("chat-lines"), chatEmpty: $("chat-empty"), chatForm: $("chat-form"), chatText: $("chat-text"),
  chatReadonly: $("chat-readonly"), chat: $("chat"), offers: $("offers"), alerts: $("alerts"),
  movesEnd: $("moves-end"), boardClocks: $("board-clocks"), firstMove: $("first-move"), timeControl: $("time-control"),
};
const clocks = new Clocks();
clocks.onTick = renderFirstMove;
const chat = new Map(); // line id -> line, as the server sent them

let current = null; // the last state message: {version, match, last_move, you}
let presence = { spectators: 0, online: {}, away: {}, claim_after: 60 };
let presenceAt = 0; // when it arrived: "away" counts seconds up to that moment
let claimDrawn = null;
let claimTimer = null;
let pending = false; // an action is on its way; further clicks wait for the answer
let confirmingResign = false;
let reconnectedTimer = null;
let seatsDrawn = null; // what the seat list and the controls show, to rebuild them only on a change
let controlsDrawn = null;
let notice = null; // the last answer to an offer, until the next state

const socket = new MatchSocket(socketUrl(`/ws/matches/${matchId}/${invite ? `?invite=${encodeURIComponent(invite)}` : ""}`));
// A handle for the browser console and the browser tests (they send through the page's socket).
window.boardhall = { socket };

socket.addEventListener("state", ({ detail }) => {
  const wasMyTurn = current && myTurnIn(current);
  current = detail;
  pending = false;
  notice = null;
  if (!wasMyTurn && myTurnIn(current) && current.match.moves.length > 0) {
    yourTurn(`${current.match.game_name} #${matchId}: ${lastMoveLine(current.match)}`);
  }
  if (detail.match.status !== "active") confirmingResign = false;
  render();
});
socket.addEventListener("presence", ({ detail }) => {
  presence = detail;
  presenceAt = performance.now();
  renderPresence();
  renderClaim();
});
socket.addEventListener("notice", ({ detail }) => {
  notice = detail.text;
  renderOffers();
});
socket.addEventListener("chat", ({ detail }) => {
  if (detail.replace) chat.clear();
  for (const line of detail.lines) chat.set(line.id, line);
  renderChat();
});
ui.chatForm.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = ui.chatText.value.trim();
  if (!text) return;
  if (socket.send({ type: "chat", text })) {
    ui.chatText.value = "";
  } else {
    showError("Not connected: your message was not sent. Wait for the connection to come back.");
  }
});
socket.addEventListener("error", ({ detail }) => {
  pending = false;
  if (detail.code !== "unavailable") showError(detail.message); // the banner says it (below)
});
socket.addEventListener("lost", ({ detail }) => {
  clearTimeout(reconnectedTimer);
  showBanner(detail && detail.code === TRY_AGAIN_LATER
    ? "Live updates interrupted, reconnecting… (the server cannot reach its services right now; moves already made are kept)"
    : "Connection lost. Reconnecting…", "lost");
  renderBoardNow();
});
socket.addEventListener("reconnected", () => {
  showBanner("Reconnected: the board is up to date.", "back");
  reconnectedTimer = setTimeout(() => showBanner(null), 4000);
});
socket.addEventListener("closed", ({ detail }) => {
  if (detail.code === SIGNED_OUT) {  // this browser logged out: the server closed the page's sockets
    showSignedOut();
    return;
  }
  showBanner("This match is not available (it may be private). Reload the page to try again.", "lost");
});

const lookback = setupLookback({ matchId, invite, live: ui.board, moves: ui.moves, latest: () => current });
socket.addEventListener("state", () => lookback.update());

const initial = JSON.parse(document.getElementById("match-snapshot").textContent);
current = { version: initial.version, match: initial, last_move: null, you: { roles: [], legal: {} } };
render({ live: false });
if (current.match.seats.some((s) => s.player && s.player.id === userId)) ui.alerts.append(alertControls());
socket.start();

// -- actions ----------------------------------------------------------------------------------

function play(action) {
  if (pending) return;
  if (!socket.sendAction(action)) {
    showError("Not connected: your move was not sent. Wait for the connection to come back, then play again.");
    return;
  }
  pending = true;
  showError(null);
}

function resign() {
  if (!socket.send({ type: "resign" })) {
    showError("Not connected: wait for the connection to come back, then resign again.");
    return;
  }
  confirmingResign = false;
  renderControls();
}

function claim(type = "claim") {
  if (!socket.send({ type })) {
    showError("Not connected: wait for the connection to come back, then try again.");
  }
}

// -- drawing ----------------------------------------------------------------------------------

function render({ live = true } = {}) {
  const { match } = current;
  renderBoardNow();
  if (live) ui.board.dataset.version = String(current.version);
  ui.board.dataset.status = match.status;
  ui.status.textContent = statusLine(match);
  clocks.update(match.clock);
  renderSeats();
  renderOffers();
  renderResult(match);
  renderControls();
  renderClaim();
  renderMoves(match.moves, match.seats);
  const ending = match.status === "finished" ? resultSentence(match.result, match.seats)
    : match.status === "aborted" ? abortSentence(match) : "";
  ui.movesEnd.hidden = !ending;
  ui.movesEnd.textContent = ending;
  ui.lastMove.textContent = lastMoveLine(match);
  ui.links.hidden = !["active", "finished"].includes(match.status);
  const mine = current.you.roles.length > 0;
  ui.chat.hidden = match.seats.filter((s) => !isComputer(s)).length < 2; // nobody to talk to against the computer
  ui.chatForm.hidden = !mine;
  ui.chatReadonly.hidden = mine || !live;
}

function renderChat() {
  const lines = [...chat.values()].sort((a, b) => a.id - b.id);
  ui.chatEmpty.hidden = lines.length > 0;
  ui.chatLines.replaceChildren(...lines.map((line) => {
    const item = document.createElement("li");
    const author = document.createElement("span");
    author.className = "chat__author";
    author.textContent = line.author ? line.author.name : "?";
    item.append(author, document.createTextNode(` ${line.text}`));
    return item;
  }));
  ui.chatLines.scrollTop = ui.chatLines.scrollHeight;
}

function renderBoardNow() {
  const { match, last_move: lastMove } = current;
  const myTurn = myTurnIn(current) && socket.connected;
  const moves = match.moves;
  const lastAction = lastMove ? lastMove.action : moves.length ? moves[moves.length - 1].action : null;
  renderBoard(ui.board, match.view, { onAction: myTurn ? play : null, lastAction });
  ui.board.classList.toggle("board-holder--my-turn", myTurn);
  document.title = myTurn ? `Your turn · ${pageTitle}` : pageTitle;
}

function seatName(seat) {
  return seat.player ? seat.player.name : "free seat";
}

// Why a rated result did not count, as the history rows say it (games.labels.unrated_note).
function unratedNote(seat, seats) {
  const against = seat.unrated_against || [];
  if (!against.length) return "";
  if (against.length === seats.length - 1) return "; not rated: the pair's daily limit";
  const names = against.map((role) => seatName(seats.find((s) => s.role === role)));
  return `; not rated against ${names.join(" and ")}: the pair's daily limit`;
}

function isComputer(seat) {
  return Boolean(seat.player && seat.player.computer);
}

function statusLine(match) {
  const { view } = match;
  if (match.status === "waiting") {
    const free = match.seats.filter((s) => !s.player).length;
    const wait = `Waiting for players: ${free} free seat${free === 1 ? "" : "s"}.`;
    if (!current.you.roles.length) return wait;
    // A waiting match nobody has open is called off. The lobby lists a public one while a player
    // waits on this page, as a lichess challenge; a private one only its invite link reaches.
    return match.private
      ? `${wait} Send the invite link to the people you want to play with, and keep this page open until they join.`
      : `${wait} Keep this page open: the lobby lists the match while you wait here.`;
  }
  if (match.status === "aborted" && match.result?.declined && match.result.by) {
    return `Rematch declined by ${match.result.by.name}: this match was called off.`;
  }
  if (match.status === "aborted") return abortSentence(match);
  if (match.status === "finished") return `Game over: ${resultSentence(match.result, match.seats)}`;
  const seat = match.seats.find((s) => s.role === view.to_move);
  const verb = view.family === "quarto" ? (view.phase === "select" ? "choose a piece" : "place the piece") : "move";
  if (current.you.roles.includes(view.to_move)) return `Your turn (${roleLabel(view.to_move)}): ${verb}.`;
  return `${seat ? seatName(seat) : roleLabel(view.to_move)} to ${verb} (${roleLabel(view.to_move)}).`;
}

function lastMoveLine(match) {
  const move = match.moves[match.moves.length - 1];
  if (!move) return "";
  return `Last move: ${playerName(match.seats, move.role)} (${roleLabel(move.role)}), ${move.label}.`;
}


function renderSeats() {
  const { match, you } = current;
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
    name.textContent = seatName(seat) + (you.roles.includes(seat.role) ? " (you)" : "");
    const rating = ratingText(seat);
    if (rating) {
      const badge = document.createElement("span");
      badge.className = "seat__rating";
      badge.dataset.testid = "rating";
      badge.textContent = rating;
      name.append(" ", badge);
    }
    const detail = document.createElement("span");
    detail.className = "seat__role";
    const label = roleLabel(seat.role);
    const bits = [mark && mark.toUpperCase() !== label ? `${label}, plays ${mark}` : label];
    if (!seat.player && seat.reserved_for) bits.push(`kept for ${seat.reserved_for.name}`);
    if (seat.resigned) bits.push(OUT_LABELS[seat.out] || "resigned");
    if (match.status === "finished" && seat.score !== null && seat.score !== undefined) bits.push(`score ${seat.score}`);
    detail.textContent = bits.join(" · ");
    text.append(name, detail);
    item.append(text);
    if (isComputer(seat)) {
      const always = document.createElement("span");
      always.className = "presence presence--computer";
      always.textContent = "computer";
      item.append(always);
    } else if (seat.player) {
      const dot = document.createElement("span");
      dot.className = "presence";
      item.append(dot);
    } else if (match.status === "waiting" && !mine && !(seat.reserved_for && seat.reserved_for.id !== userId)) {
      item.append(signedIn ? postButton(`/matches/${matchId}/join/`, `Join as ${roleLabel(seat.role)}`, { role: seat.role, ...withInvite })
                           : hintText("Choose a name at the top to join."));
    }
    if (match.clock.kind !== "untimed") {
      const time = document.createElement("span");
      time.className = "clock";
      time.dataset.role = seat.role;
      item.append(time);
      clocks.attach(seat.role, time);
    }
    if (match.status === "active" && view.to_move === seat.role) {
      item.classList.add("seat--to-move");
      const turn = document.createElement("span");
      turn.className = "tag tag--turn";
      turn.textContent = "to move";
      text.append(turn);
    }
    return item;
  }));
  renderBoardClocks();
  clocks.tick();
  renderPresence();
}

// On a phone the seat list is below the board: the strip over the board shows every clock.
function renderBoardClocks() {
  const { match } = current;
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

function renderPresence() {
  for (const dot of ui.seats.querySelectorAll(".presence:not(.presence--computer)")) {
    const online = Boolean(presence.online[dot.closest(".seat").dataset.role]);
    dot.className = `presence ${online ? "presence--on" : "presence--off"}`;
    dot.textContent = online ? "online" : "offline";
  }
  ui.spectators.textContent = `${presence.spectators} watching`;
}

function renderResult(match) {
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

function myTurnIn({ match, you }) {
  return match.status === "active" && Object.keys(you.legal).length > 0;
}

// Who offers what, for everyone (spectators too); the answer buttons are in the controls.
function renderOffers() {
  const { match } = current;
  const { draw, takeback } = match.offers;
  const names = (roles) => roles.map((role) => seatName(match.seats.find((s) => s.role === role))).join(" and ");
  const lines = [];
  if (match.status === "active" && draw.length) lines.push(`${names(draw)} ${draw.length > 1 ? "agree to" : "offers"} a draw.`);
  if (match.status === "active" && takeback.length) lines.push(`${names(takeback.slice(0, 1))} asks to take back their last move.`);
  if (notice) lines.push(notice);
  ui.offers.textContent = lines.join(" ");
  ui.offers.hidden = lines.length === 0;
}

// Until every seat has made its first move (lichess's rule) the match can only be aborted: it
// is not rated, and nobody wins or loses.
function notBegun(match) {
  const moved = new Set(match.moves.map((m) => m.role));
  return match.seats.some((s) => !moved.has(s.role));
}

// In real time each seat has a short time for its first move, shown to everyone as a countdown
// in place of the time control's line (a phone keeps the board on its first screen).
function renderFirstMove() {
  const ms = current && current.match.status === "active" ? clocks.firstMoveLeft() : null;
  ui.firstMove.hidden = ms === null;
  ui.timeControl.hidden = ms !== null;
  if (ms === null) return;
  const { match, you } = current;
  const role = match.clock.running;
  const who = you.roles.includes(role) ? "Your" : `${playerName(match.seats, role)}'s`;
  ui.firstMove.textContent = `${who} first move within ${Math.ceil(ms / 1000)} s, or the match is aborted.`;
}

// What a player may do about the match as a whole: abort it before everyone moved (no draws
// then), offer or answer a draw, ask for or answer a takeback (not in real time), resign.
function conductControls(match, mySeat) {
  const parts = [];
  const { draw, takeback } = match.offers;
  const moved = new Set(match.moves.map((m) => m.role));
  const others = match.seats.filter((s) => s.role !== mySeat.role && !s.resigned);
  const begun = !notBegun(match);
  if (!begun) {
    parts.push(postButton(`/matches/${matchId}/abort/`, "Abort", withInvite, "button--secondary"),
               hintText("Until every player has moved, the match can only be aborted: it is not rated."));
  }
  const answer = (kind, text) => {
    const box = document.createElement("div");
    box.className = "offer";
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", text);
    box.append(hintText(text), button("Accept", () => send({ type: `${kind}_accept` }), "button--primary"),
               button("Decline", () => send({ type: `${kind}_decline` }), "button--secondary"));
    return box;
  };
  if (draw.length && !draw.includes(mySeat.role)) {
    parts.push(answer("draw", "Accept the draw?"));
  } else if (begun && !draw.length && others.length && others.every((s) => !s.player.computer)) {
    parts.push(match.offers.declined.includes(mySeat.role)
      ? hintText("Your draw offer was declined: you may offer again after your next move.")
      : button("Offer a draw", () => send({ type: "draw_offer" }), "button--secondary"));
  }
  if (takeback.length && !takeback.includes(mySeat.role)) {
    parts.push(answer("takeback", "Let them take back their move?"));
  } else if (!takeback.length && match.clock.kind !== "real_time" && moved.has(mySeat.role)) {
    parts.push(match.offers.takeback_declined.includes(mySeat.role)
      ? hintText("Your takeback request was declined: you may ask again after your next move.")
      : button("Ask to take back", () => send({ type: "takeback_offer" }), "button--secondary"));
  }
  return parts;
}

function resignControl() {
  if (!confirmingResign) {
    return button("Resign", () => { confirmingResign = true; renderControls(); ui.controls.querySelector(".button--danger")?.focus(); }, "button--secondary");
  }
  const box = document.createElement("div");
  box.className = "confirm";
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", "Confirm resignation");
  box.append(hintText("Resign this match? It counts as a loss."),
             button("Yes, resign", resign, "button--danger"),
             button("Keep playing", () => { confirmingResign = false; renderControls(); }, "button--secondary"));
  return box;
}

function send(message) {
  if (!socket.send(message)) showError("Not connected: wait for the connection to come back, then try again.");
}

function renderControls() {
  const { match, you } = current;
  const mySeat = match.seats.find((s) => you.roles.includes(s.role));
  const drawn = JSON.stringify([match.status, mySeat, match.rematch, match.rematch_by, confirmingResign, match.offers,
                                match.moves.length, match.rematch_declined]);
  if (drawn === controlsDrawn) return;
  controlsDrawn = drawn;
  const parts = [];
  if (match.status === "waiting" && mySeat) {
    parts.push(postButton(`/matches/${matchId}/abort/`, "Call off this match", withInvite, "button--secondary"));
  }
  if (match.status === "active" && mySeat && !mySeat.resigned) {
    parts.push(...conductControls(match, mySeat));
    if (!notBegun(match)) parts.push(resignControl()); // before, Abort is the button
  }
  if (match.status === "finished" && mySeat) {
    parts.push(rematchControl(match));
  } else if (match.status === "finished" && match.rematch && !match.private) {
    parts.push(spectatorRematch(match));
  }
  ui.controls.replaceChildren(...parts);
}

// When the player to move has left the page, the others see a countdown, then may claim the match:
// the absent seat counts as resigned (the win with two players; with three the game goes on), or,
// with two, call it a draw.
function renderClaim() {
  const { match, you } = current;
  const mySeat = match.seats.find((s) => you.roles.includes(s.role));
  const mover = match.view.to_move;
  const away = (presence.away || {})[mover];
  const untimed = match.clock.kind === "untimed"; // a clock ends a timed match by itself
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
  const wait = Math.ceil(presence.claim_after - away - (performance.now() - presenceAt) / 1000);
  const drawn = JSON.stringify([mover, name, Math.max(wait, 0), match.version]);
  if (drawn === claimDrawn) return;
  claimDrawn = drawn;
  ui.claim.hidden = false;
  if (wait > 0) {
    ui.claim.replaceChildren(hintText(`${name} has left the match. If they are not back within ${clock(wait)}, you may claim it.`));
    if (!claimTimer) claimTimer = setInterval(renderClaim, 1000);
    return;
  }
  clearInterval(claimTimer);
  claimTimer = null;
  const playingOn = match.seats.filter((s) => !s.resigned && s.role !== mover).length;
  if (playingOn > 1) {  // with three, a draw would be the third player's to agree to as well
    ui.claim.replaceChildren(hintText(`${name} has left the match and has not come back.`),
                             button(`Play on without ${name}`, () => claim(), "button--primary"));
    return;
  }
  // As on lichess: claim the win, or call it a draw (or wait on).
  ui.claim.replaceChildren(hintText(`${name} has left the match and has not come back.`),
                           button("Claim the win", () => claim(), "button--primary"),
                           button("Call it a draw", () => claim("claim_draw"), "button--secondary"));
}

function clock(seconds) {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

// Spectators follow the players to their rematch (a private one has its own invite link).
function spectatorRematch(match) {
  const box = document.createElement("div");
  box.className = "offer";
  box.setAttribute("role", "status");
  const link = document.createElement("a");
  link.href = `/matches/${match.rematch}/`;
  link.className = "button button--secondary";
  link.textContent = "Watch the rematch";
  box.append(hintText(`${match.rematch_by ? match.rematch_by.name : "A player"} offered a rematch.`), link);
  return box;
}

function rematchControl(match) {
  if (!match.rematch && match.rematch_declined.includes(userId)) return hintText("Rematch declined.");
  if (!match.rematch) return postButton(`/matches/${matchId}/rematch/`, "Offer a rematch", {}, "button--primary");
  const by = match.rematch_by;
  if (by && by.id === userId) {
    const link = document.createElement("a");
    link.href = `/matches/${match.rematch}/`;
    link.className = "button button--secondary";
    link.textContent = "Go to your rematch offer";
    return link;
  }
  const box = document.createElement("div");
  box.className = "offer";
  box.setAttribute("role", "status");
  box.append(hintText(`${by ? by.name : "Your opponent"} offers a rematch.`),
             postButton(`/matches/${match.rematch}/join/`, "Accept the rematch", {}, "button--primary"),
             postButton(`/matches/${matchId}/rematch/decline/`, "Decline", {}, "button--secondary"));
  return box;
}

function renderMoves(moves, seats) {
  ui.movesEmpty.hidden = moves.length > 0;
  // A seat that left play in the three-player game has its turns played at random (the site's
  // rule, docs/architecture.md: the others play on); those moves say so.
  const outAfter = new Map(seats.filter((s) => s.out_ply !== null && s.out_ply !== undefined)
    .map((s) => [s.role, s.out_ply]));
  const items = moves.map((move) => {
    const item = document.createElement("li");
    item.value = move.ply;
    item.dataset.ply = String(move.ply);
    // The number is an element, not the list's marker: it stays beside a long label's first line.
    const number = document.createElement("span");
    number.className = "moves__number";
    number.textContent = `${move.ply}.`;
    const role = document.createElement("span");
    role.className = "moves__role";
    role.textContent = roleLabel(move.role);
    const step = document.createElement("button"); // lookback.js shows the position after it
    step.type = "button";
    step.className = "moves__step";
    step.dataset.ply = String(move.ply);
    // "x A3 c1" names its mark already
    if (!move.label.startsWith(`${role.textContent.toLowerCase()} `)) step.append(role, " ");
    step.append(move.label);
    if (outAfter.has(move.role) && move.ply > outAfter.get(move.role)) {
      const random = document.createElement("span");
      random.className = "moves__random";
      random.textContent = "(at random)";
      step.append(" ", random);
    }
    item.append(number, step);
    return item;
  });
  ui.moves.replaceChildren(...items);
  ui.moves.scrollTop = ui.moves.scrollHeight;
}

function showError(message) {
  ui.error.hidden = !message;
  ui.error.textContent = message || "";
}

function showBanner(text, kind) {
  ui.connection.hidden = !text;
  ui.connection.textContent = text || "";
  ui.connection.className = `banner${kind ? ` banner--${kind}` : ""}`;
}

// -- small builders -----------------------------------------------------------------------------

function button(label, onClick, variant) {
  const node = document.createElement("button");
  node.type = "button";
  node.className = `button ${variant}`;
  node.textContent = label;
  node.addEventListener("click", onClick);
  return node;
}

function postButton(action, label, fields = {}, variant = "button--primary") {
  const form = document.createElement("form");
  form.method = "post";
  form.action = action;
  form.className = "inline-form";
  const values = { csrfmiddlewaretoken: csrfToken, ...fields };
  for (const [name, value] of Object.entries(values)) {
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.value = value;
    form.append(input);
  }
  const submit = document.createElement("button");
  submit.type = "submit";
  submit.className = `button ${variant}`;
  submit.textContent = label;
  form.append(submit);
  return form;
}

function hintText(text) {
  const node = document.createElement("p");
  node.className = "hint";
  node.textContent = text;
  return node;
}

const copyButton = document.getElementById("copy-invite");
if (copyButton) {
  copyButton.addEventListener("click", async () => {
    const input = document.getElementById("invite-url");
    const status = document.getElementById("copy-status");
    try {
      await navigator.clipboard.writeText(input.value);
      status.textContent = "Link copied.";
    } catch {
      input.select();
      status.textContent = "Select the link and copy it (Ctrl+C).";
    }
  });
}
