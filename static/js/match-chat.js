// The match chat: the players write, spectators read. Lines arrive over the match's socket (the
// whole chat on connecting and on every sync, "replace"; new lines one by one) and are shown in
// the server's order.

import { send, socket } from "./match-connection.js";
import { isComputer, ui } from "./match-page.js";

const chat = new Map(); // line id -> line, as the server sent them

export function setupChat() {
  socket.addEventListener("chat", ({ detail }) => {
    if (detail.replace) chat.clear();
    for (const line of detail.lines) chat.set(line.id, line);
    renderChat();
  });
  ui.chatForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = ui.chatText.value.trim();
    if (!text) return;
    if (send({ type: "chat", text }, gettext("Not connected: your message was not sent. Wait for the connection to come back."))) {
      ui.chatText.value = "";
    }
  });
}

/** Who sees the chat: not a match against the computer (nobody to talk to); only players write. */
export function showChat(match, { mine, live }) {
  ui.chat.hidden = match.seats.filter((s) => !isComputer(s)).length < 2;
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
