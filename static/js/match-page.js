// The match page as the template gives it: which match and who looks (the #match element's data
// attributes), the elements the other match-*.js modules draw into, and the few builders they
// share (buttons, forms that post to the match's views, hints, the error line).

const root = document.getElementById("match");
export const matchId = root.dataset.matchId;
export const userId = Number(root.dataset.userId) || null;
export const invite = root.dataset.invite;
export const signedIn = root.dataset.signedIn === "1";
export const createdBy = Number(root.dataset.createdBy) || null;
export const gameName = root.dataset.gameName; // in the page's language (the states carry the English)
export const withInvite = invite ? { invite } : {}; // forms about this match carry the link we came by
const csrfToken = document.querySelector("#csrf-holder [name=csrfmiddlewaretoken]").value;

const $ = (id) => document.getElementById(id);
export const ui = {
  board: $("board"), status: $("status-line"), connection: $("connection"), error: $("action-error"),
  seats: $("seats"), spectators: $("spectators"), result: $("result"), resultText: $("result-text"),
  scores: $("scores"), controls: $("controls"), moves: $("moves"), movesEmpty: $("moves-empty"),
  links: $("match-links"), lastMove: $("last-move"), claim: $("claim"),
  chatLines: $("chat-lines"), chatEmpty: $("chat-empty"), chatForm: $("chat-form"), chatText: $("chat-text"),
  chatReadonly: $("chat-readonly"), chat: $("chat"), offers: $("offers"), alerts: $("alerts"),
  movesEnd: $("moves-end"), boardClocks: $("board-clocks"), firstMove: $("first-move"), timeControl: $("time-control"),
};

export function seatName(seat) {
  return seat.player ? seat.player.name : gettext("free seat");
}

export function isComputer(seat) {
  return Boolean(seat.player && seat.player.computer);
}

/** A seat a program plays (the computer, a bot account, a GGP player): it thinks on its turn. */
export function isProgram(seat) {
  return Boolean(seat.player && (seat.player.computer || seat.player.bot));
}

/** The line under the board: why an action was not sent or was refused (null hides it). */
export function showError(message) {
  ui.error.hidden = !message;
  ui.error.textContent = message || "";
}

export function button(label, onClick, variant) {
  const node = document.createElement("button");
  node.type = "button";
  node.className = `button ${variant}`;
  node.textContent = label;
  node.addEventListener("click", onClick);
  return node;
}

/** A one-button form that posts `fields` (and the CSRF token) to `action`. */
export function postButton(action, label, fields = {}, variant = "button--primary") {
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

export function hintText(text) {
  const node = document.createElement("p");
  node.className = "hint";
  node.textContent = text;
  return node;
}
