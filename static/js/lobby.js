// The lobby: the seat list follows the chosen game, and the open and live match lists follow
// the server (/ws/lobby/ pushes both lists on every change), as does a signed-in player's list
// of their own matches (whose turn it is, a match starting, ending or new to them).

import { yourTurn } from "./alerts.js";
import { roleLabel } from "./names.js";
import { nameWithRating } from "./ratings.js";
import { site } from "./site.js";
import { ReconnectingSocket, socketUrl } from "./socket.js";

const csrfToken = document.querySelector("#csrf-holder [name=csrfmiddlewaretoken]").value;
const openList = document.getElementById("open-matches");
const liveList = document.getElementById("live-matches");
const signedIn = openList.dataset.signedIn === "1";
const userId = Number(openList.dataset.userId) || null;
const status = document.getElementById("lobby-status");
let listsDrawn = null; // what the lists show, to rebuild them only on a change
let mineDrawn = null;
// match id -> whether it was the player's turn, as the list shown says (first the server's)
let turnsSeen = new Map([...document.querySelectorAll("#my-matches [data-match-id]")]
  .map((line) => [Number(line.dataset.matchId), line.dataset.yourTurn === "1"]));
const pageTitle = document.title;
// The rule sets' names in the page's language, by slug (the lists the server pushes carry the English).
const gameNames = JSON.parse(document.getElementById("game-names").textContent);

setupCreateForm();
const computerForm = document.getElementById("computer-form"); // a visitor's "Play the computer"
if (computerForm) describeLevel(computerForm.elements.computer_level);
setupQuickGame();
renderLists(JSON.parse(document.getElementById("lobby-lists").textContent));

const socket = new ReconnectingSocket(socketUrl("/ws/lobby/"));
socket.addEventListener("message", ({ detail }) => {
  if (detail.type === "lobby") renderLists(detail);
  else if (detail.type === "mine") renderMine(detail.matches);
});
socket.addEventListener("open", () => setLive(true));
socket.addEventListener("reconnected", () => setLive(true));
socket.addEventListener("lost", () => setLive(false));
socket.start();

function setLive(live) {
  status.classList.toggle("live-dot--off", !live);
  status.textContent = live ? gettext("live") : gettext("reconnecting…");
  status.title = live ? gettext("updates as matches open and start") : gettext("connection lost; reconnecting");
}

function setupCreateForm() {
  const form = document.getElementById("create-form");
  if (!form) return;
  const rolesByGame = JSON.parse(document.getElementById("roles-by-game").textContent);
  const base = form.elements.base_game;
  const game = form.elements.game; // the rules actually played: the game itself or one of its variants
  const role = form.elements.role;
  const summary = document.getElementById("game-summary");
  const variantField = document.getElementById("variant-field");
  const allRules = [...game.options].map((option) => ({ ...option.dataset, slug: option.value }));
  const fit = () => {
    const chosen = role.value;
    const roles = rolesByGame[game.value] || [];
    const options = [new Option(gettext("Random seat"), "")];
    roles.forEach((r, index) => options.push(new Option(seatWords(roleLabel(r), index + 1), r)));
    role.replaceChildren(...options);
    role.value = roles.includes(chosen) ? chosen : "";
    summary.textContent = game.selectedOptions[0].dataset.summary || "";
    document.getElementById("rules-link").href = `/rules/${base.value}/`;
  };
  const fitRules = () => {
    const chosen = game.value;
    const rules = allRules.filter((r) => r.base === base.value);
    game.replaceChildren(...rules.map((r) => {
      const option = new Option(r.variant, r.slug);
      option.dataset.summary = r.summary;
      return option;
    }));
    game.value = rules.some((r) => r.slug === chosen) ? chosen : base.value;
    variantField.hidden = rules.length < 2;
    fit();
  };
  base.addEventListener("change", fitRules);
  game.addEventListener("change", fit);
  fitRules();
  // The computer's strength matters only against the computer, and games against it are casual.
  const level = form.elements.computer_level;
  const rated = form.elements.rated; // not shown to guests
  describeLevel(level);
  const opponents = () => {
    const computer = form.elements.opponents.value === "computer";
    level.disabled = !computer;
    if (rated) {
      rated.disabled = computer;
      if (computer) rated.checked = false;
    }
  };
  for (const radio of form.elements.opponents) radio.addEventListener("change", opponents);
  opponents();
  // Minutes and seconds are asked for only for a custom time control.
  const clock = form.elements.clock;
  const custom = document.getElementById("custom-clock");
  const fitClock = () => { custom.hidden = clock.value !== "custom"; };
  clock.addEventListener("change", fitClock);
  fitClock();
}

// A level select shows only the level's name; what the level does is shown below it.
function describeLevel(select) {
  const description = document.getElementById(`${select.id}-description`);
  const fit = () => { description.textContent = select.selectedOptions[0].dataset.description; };
  select.addEventListener("change", fit);
  fit();
}

// "X (first to move)": a seat and its place in the turn order (lobby.forms.seat_choices).
function seatWords(seat, n) {
  const words = [gettext("%(seat)s (first to move)"), gettext("%(seat)s (second to move)"),
    gettext("%(seat)s (third to move)")][n - 1];
  return words ? interpolate(words, { seat }, true) : seat;
}

function gameName(match) {
  return gameNames[match.game] || match.game_name;
}

// A time control's short label ("5+3", "2 days", "10 s/move", "untimed"; clocks.TimeControl.label)
// in the page's language.
function clockWords(label) {
  const days = /^(\d+) days?$/.exec(label);
  if (days) return interpolate(ngettext("%(days)s day", "%(days)s days", Number(days[1])), { days: days[1] }, true);
  const perMove = /^(\d+) s\/move$/.exec(label);
  if (perMove) return interpolate(gettext("%(play)s s/move"), { play: perMove[1] }, true);
  return label === "untimed" ? gettext("untimed") : label;
}

function quickSettings() {
  const form = document.getElementById("quick-form");
  return { game: form.elements.game.value, rated: form.elements.rated.checked, clock: form.elements.clock.value };
}

function setupQuickGame() {
  const form = document.getElementById("quick-form");
  if (!form) return;
  const status = document.getElementById("quick-status");
  const start = document.getElementById("quick-start");
  const cancel = document.getElementById("quick-cancel");
  let since = null;
  const waiting = (on) => {
    start.hidden = on;
    cancel.hidden = !on;
    since = on ? Date.now() : null;
    if (!on) status.textContent = "";
  };
  setInterval(() => {
    if (since !== null) {
      status.textContent = interpolate(gettext("Waiting for an opponent… %(seconds)s s"),
        { seconds: Math.round((Date.now() - since) / 1000) }, true);
    }
  }, 1000);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (site.poolEnter(quickSettings())) status.textContent = gettext("Looking for an opponent…");
  });
  cancel.addEventListener("click", () => site.poolLeave());
  site.addEventListener("pool", ({ detail }) => waiting(detail.waiting));
  site.addEventListener("error", ({ detail }) => {
    waiting(false);
    status.textContent = detail.message;
  });
}

function renderOnline(online) {
  const list = document.getElementById("online-players");
  if (!list) return;
  const others = online.filter((p) => p.id !== userId);
  list.replaceChildren(...others.map((player) => {
    const item = document.createElement("li");
    item.className = "match-row";
    item.dataset.playerId = String(player.id);
    const link = document.createElement("a");
    link.href = `/players/${player.id}/`;
    link.textContent = player.name + (player.guest ? ` ${gettext("(guest)")}` : player.bot ? ` ${gettext("(bot)")}` : "");
    const challenge = document.createElement("button");
    challenge.type = "button";
    challenge.className = "button button--secondary";
    challenge.textContent = gettext("Challenge");
    challenge.setAttribute("aria-label", interpolate(
      gettext("Challenge %(name)s (the game and rating chosen under Quick game)"), { name: player.name }, true));
    challenge.addEventListener("click", () => site.challenge(player.id, quickSettings()));
    item.append(link, challenge);
    return item;
  }));
  document.getElementById("online-empty").hidden = others.length > 0;
}

function renderLists({ open, live, online }) {
  // Rebuild only on a change, so that a join button is never swapped out under a click.
  const drawn = JSON.stringify([open, live, online]);
  if (drawn === listsDrawn) return;
  listsDrawn = drawn;
  renderOnline(online || []);
  openList.replaceChildren(...open.map((match) => row(match, true)));
  liveList.replaceChildren(...live.map((match) => row(match, false)));
  document.getElementById("open-empty").hidden = open.length > 0;
  document.getElementById("live-empty").hidden = live.length > 0;
}

// A match's line: its link, players and time control (the lists add what applies to them).
function matchLine(match) {
  const item = document.createElement("li");
  item.className = "match-row";
  item.dataset.matchId = String(match.id);
  const link = document.createElement("a");
  link.href = `/matches/${match.id}/`;
  link.textContent = `${gameName(match)} #${match.id}`;
  const players = document.createElement("span");
  players.className = "match-row__players";
  players.textContent = match.seats.map((s) => nameWithRating(s)).join(" · ");
  if (match.rated) link.textContent += ` · ${gettext("rated")}`;
  const clock = document.createElement("span");
  clock.className = "tag tag--clock";
  clock.title = gettext("time control");
  clock.textContent = match.clock_words || clockWords(match.clock);
  item.append(link, players, clock);
  return { item, link };
}

function row(match, joinable) {
  const { item, link } = matchLine(match);
  const seated = match.seats.some((s) => s.player && s.player.id === userId);
  if (joinable && signedIn && !seated) {
    item.append(joinForm(match));
  } else {
    const watch = document.createElement("a");
    watch.href = link.href;
    watch.className = "button button--secondary";
    watch.textContent = seated ? gettext("Open") : joinable ? gettext("Look") : gettext("Watch");
    watch.setAttribute("aria-label", `${watch.textContent}: ${link.textContent}`);
    item.append(watch);
  }
  return item;
}

function joinForm(match) {
  const form = document.createElement("form");
  form.method = "post";
  form.action = `/matches/${match.id}/join/`;
  form.className = "inline-form";
  const token = document.createElement("input");
  token.type = "hidden";
  token.name = "csrfmiddlewaretoken";
  token.value = csrfToken;
  const submit = document.createElement("button");
  submit.type = "submit";
  submit.className = "button button--primary";
  submit.textContent = gettext("Join");
  submit.setAttribute("aria-label", interpolate(gettext("Join %(match)s (free: %(seats)s)"),
    { match: `${gameName(match)} #${match.id}`, seats: match.free.map(roleLabel).join(", ") }, true));
  form.append(token, submit);
  return form;
}

// "Your matches": the player's matches waiting or in play, newest first (games.selectors.matches_of_player).
function renderMine(matches) {
  const list = document.getElementById("my-matches");
  if (!list) return;
  const drawn = JSON.stringify(matches);
  if (drawn === mineDrawn) return;
  mineDrawn = drawn;
  // As a match page does: a sound, and a notification while this tab is hidden, when it becomes
  // the player's turn in a match the list already showed; the title counts the turns waiting.
  for (const match of matches) {
    if (match.your_turn && turnsSeen.get(match.id) === false) {
      const others = match.seats.filter((s) => s.player && s.player.id !== userId).map((s) => s.player.name);
      const name = `${gameName(match)} #${match.id}`;
      yourTurn(others.length ? interpolate(gettext("%(match)s against %(players)s"),
        { match: name, players: others.join(gettext(" and ")) }, true) : name);
    }
  }
  turnsSeen = new Map(matches.map((m) => [m.id, m.your_turn]));
  const waiting = matches.filter((m) => m.your_turn).length;
  document.title = waiting ? `(${waiting}) ${pageTitle}` : pageTitle;
  list.replaceChildren(...matches.map((match) => {
    const { item } = matchLine(match);
    item.dataset.yourTurn = match.your_turn ? "1" : "0";
    const state = document.createElement("span");
    if (match.your_turn) {
      state.className = "tag tag--turn";
      state.textContent = match.deadline
        ? interpolate(gettext("your turn · %(left)s left"), { left: timeLeft(match.deadline) }, true) : gettext("your turn");
    } else {
      state.className = `tag tag--${match.status}`;
      state.textContent = match.status === "waiting" ? pgettext("match status", "waiting") : pgettext("match status", "in play");
    }
    item.append(state);
    return item;
  }));
  list.hidden = matches.length === 0;
  document.getElementById("mine-empty").hidden = matches.length > 0;
}

// "2 days, 3 hours", "5 minutes": the two largest units left until ``deadline`` (as Django's timeuntil).
function timeLeft(deadline) {
  let minutes = Math.max(0, Math.floor((Date.parse(deadline) - Date.now()) / 60000));
  const parts = [];
  const units = [[1440, (n) => ngettext("%(count)s day", "%(count)s days", n)],
    [60, (n) => ngettext("%(count)s hour", "%(count)s hours", n)],
    [1, (n) => ngettext("%(count)s minute", "%(count)s minutes", n)]];
  for (const [size, words] of units) {
    const count = Math.floor(minutes / size);
    minutes -= count * size;
    if (count && parts.length < 2) parts.push(interpolate(words(count), { count }, true));
    else if (parts.length) break;
  }
  return parts.length ? parts.join(", ") : interpolate(ngettext("%(count)s minute", "%(count)s minutes", 0), { count: 0 }, true);
}
