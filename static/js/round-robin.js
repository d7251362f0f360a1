// A round robin's or a Swiss's page, live: its socket (/ws/tournaments/<id>/) says when the tournament has
// changed (a newer version); the page then fetches itself again and swaps in the parts that
// show it (status, standings, games, buttons), as the server draws them.

import { ReconnectingSocket, socketUrl } from "./socket.js";

const root = document.getElementById("tournament");
const live = document.getElementById("tournament-live");
const PARTS = ["tournament-status", "podium-panel", "tournament-actions", "standings-panel", "games-panel"];
let version = Number(root.dataset.version);
let refreshing = false;
let again = false;

const invite = root.dataset.invite ? `?invite=${encodeURIComponent(root.dataset.invite)}` : "";
const socket = new ReconnectingSocket(socketUrl(`/ws/tournaments/${root.dataset.tournamentId}/${invite}`),
  { pingEvery: 20000 });
socket.addEventListener("message", ({ detail }) => {
  if (detail.type === "tournament" && detail.version > version) {
    version = detail.version;
    refresh();
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

async function refresh() {
  if (refreshing) { // the read under way may predate the change: one more follows it
    again = true;
    return;
  }
  refreshing = true;
  try {
    const answer = await fetch(location.href, { headers: { Accept: "text/html" } });
    if (!answer.ok) return;
    const fresh = new DOMParser().parseFromString(await answer.text(), "text/html");
    for (const id of PARTS) {
      const now = document.getElementById(id), then = fresh.getElementById(id);
      if (now && then) now.replaceWith(document.importNode(then, true));
      else if (now) now.hidden = true;
    }
  } catch {
    // offline for a moment: the next change, or a reconnect's state, brings the page up to date
  } finally {
    refreshing = false;
    if (again) {
      again = false;
      refresh();
    }
  }
}
