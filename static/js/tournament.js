// A tournament's page, live: the state drawn at load (#tournament-state) and every newer one
// the server pushes over /ws/tournaments/<id>/ (a state carries its version; an older one is
// ignored). The standings with their marks, the games in play (one click to watch), the
// viewer's own game ("you are paired", and the page goes there when a new one begins), which of
// the buttons apply, and a countdown to the start or the end from the server's clock.

import { ReconnectingSocket, socketUrl } from "./socket.js";

const root = document.getElementById("tournament");
const live = document.getElementById("arena-live");
const statusLine = document.getElementById("arena-status");
const youLine = document.getElementById("arena-you");
let state = JSON.parse(document.getElementById("tournament-state").textContent);
const gameAtLoad = state.you.game; // a game already in play when the page opened: no jump to it
let clockOffset = Date.parse(state.now) - Date.now(); // server time minus this browser's

draw();
setInterval(drawStatus, 1000);

const invite = root.dataset.invite ? `?invite=${encodeURIComponent(root.dataset.invite)}` : "";
const socket = new ReconnectingSocket(socketUrl(`/ws/tournaments/${root.dataset.tournamentId}/${invite}`),
  { pingEvery: 20000 });
socket.addEventListener("message", ({ detail }) => {
  if (detail.type !== "tournament" || detail.version < state.version) return;
  clockOffset = Date.parse(detail.now) - Date.now();
  state = detail;
  draw();
  if (state.you.game && state.you.game !== gameAtLoad && location.pathname + location.search !== state.you.game) {
    location.assign(state.you.game); // paired: into the game
  }
});
for (const event of ["open", "reconnected"]) socket.addEventListener(event, () => setLive(true));
socket.addEventListener("lost", () => setLive(false));
socket.addEventListener("closed", () => setLive(false));
socket.start();

function setLive(on) {
  live.classList.toggle("live-dot--off", !on);
  live.textContent = on ? "live" : "reconnecting…";
}

function draw() {
  root.dataset.version = state.version;
  drawStatus();
  drawYou();
  drawButtons();
  drawStandings();
  drawPlaying();
  drawPodium();
}

function countdown(iso) {
  const left = Math.max(0, Math.round((Date.parse(iso) - (Date.now() + clockOffset)) / 1000));
  const h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
  const two = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

function drawStatus() {
  let text;
  if (state.status === "upcoming") text = `Starts in ${countdown(state.starts_at)}.`;
  else if (state.status === "running") {
    text = Date.parse(state.ends_at) > Date.now() + clockOffset
      ? `Running: ends in ${countdown(state.ends_at)}.`
      : "Time is up: no new games; the games in play finish and count.";
  } else if (state.status === "finished") text = "Finished.";
  else text = state.status_reason || "Cancelled.";
  if (statusLine.textContent !== text) statusLine.textContent = text;
}

function drawYou() {
  youLine.replaceChildren();
  const you = state.you;
  if (you.game) {
    youLine.append("You are paired: ");
    const link = document.createElement("a");
    link.href = you.game;
    link.id = "your-game";
    link.textContent = "go to your game";
    youLine.append(link, ".");
  } else if (you.paused) {
    youLine.textContent = "You are paused: press Resume to be paired again.";
  } else if (you.joined && state.status === "running") {
    youLine.textContent = "You are in: waiting for your next pairing…";
  } else if (you.joined && state.status === "upcoming") {
    youLine.textContent = "You are in: the pairing begins at the start.";
  }
}

function drawButtons() {
  const open = state.status === "upcoming" || (state.status === "running" && Date.parse(state.ends_at) > Date.now() + clockOffset);
  const you = state.you;
  show("join-form", open && (!you.joined || you.paused));
  const join = document.querySelector("#join-form button");
  if (join) join.textContent = you.paused ? "Resume" : "Join";
  show("pause-form", open && state.status === "running" && you.joined && !you.paused);
  show("withdraw-form", open && you.joined);
  show("start-form", state.status === "upcoming");
}

function show(id, visible) {
  const element = document.getElementById(id);
  if (element) element.hidden = !visible;
}

function cell(text, className) {
  const td = document.createElement("td");
  if (className) td.className = className;
  if (text !== undefined) td.textContent = text;
  return td;
}

function tag(text, title) {
  const span = document.createElement("span");
  span.className = "tag";
  span.textContent = text;
  if (title) span.title = title;
  return span;
}

function drawStandings() {
  const body = document.getElementById("standings-rows");
  document.getElementById("standings-empty").hidden = state.standings.length > 0;
  body.replaceChildren(...state.standings.map((row) => {
    const tr = document.createElement("tr");
    tr.dataset.player = row.id;
    const name = cell();
    const link = document.createElement("a");
    link.href = `/players/${row.id}/`;
    link.textContent = row.name;
    name.append(link);
    if (row.fire) name.append(" ", fireMark());
    if (row.playing) name.append(" ", tag("playing"));
    if (row.paused) name.append(" ", tag("paused"));
    if (row.withdrawn) name.append(" ", tag("withdrawn"));
    const marks = cell();
    const strip = document.createElement("span");
    strip.className = "arena-marks";
    strip.dataset.testid = "marks";
    marks.append(strip);
    for (const mark of row.marks) {
      const span = document.createElement("span");
      span.className = `arena-mark arena-mark--${mark.outcome}${mark.fire ? " arena-mark--fire" : ""}`;
      span.textContent = mark.points + (mark.berserk ? "⚡" : "");
      span.title = `${mark.outcome}${mark.fire ? ", on fire (doubled)" : ""}${mark.berserk ? ", berserk (+1)" : ""}`;
      strip.append(span);
    }
    const score = cell(String(row.score), "num arena-score");
    score.dataset.testid = "score";
    const perf = cell(row.games ? String(row.tie_break) : "–", "num");
    perf.dataset.testid = "tie-break";
    tr.append(cell(String(row.rank), "num"), name, marks, score, perf);
    return tr;
  }));
}

function fireMark() {
  const span = document.createElement("span");
  span.className = "arena-fire";
  span.textContent = "🔥";
  span.title = "on fire: the next win counts double";
  span.setAttribute("aria-label", "on fire");
  return span;
}

function drawPodium() {
  const podium = document.getElementById("podium");
  const top = state.status === "finished" ? state.standings.filter((row) => row.games > 0).slice(0, 3) : [];
  podium.hidden = top.length === 0;
  podium.querySelector("ol").replaceChildren(...top.map((row) => {
    const li = document.createElement("li");
    li.dataset.player = row.id;
    li.textContent = `${row.name}: ${row.score} points`;
    return li;
  }));
}

function drawPlaying() {
  const list = document.getElementById("playing");
  document.getElementById("playing-empty").hidden = state.playing.length > 0;
  list.replaceChildren(...state.playing.map((game) => {
    const li = document.createElement("li");
    const link = document.createElement("a");
    link.href = game.match;
    link.dataset.testid = "game-link";
    link.textContent = "Watch";
    const who = (player, berserk) => player.name + (berserk ? " ⚡" : "");
    li.append(`${who(game.first, game.berserk_first)} – ${who(game.second, game.berserk_second)} `, link);
    return li;
  }));
}
