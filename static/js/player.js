// A player's page: the challenge form sends through the site socket (site.js); the answer
// arrives in the challenge tray, and an accepted challenge opens the match. The line beside the
// form follows the latest challenge to this player until it is answered, withdrawn or expires.

import { site } from "./site.js";

const form = document.getElementById("challenge-form");
const status = document.getElementById("challenge-status");
const playerId = Number(form.dataset.playerId);
form.addEventListener("submit", (event) => {
  event.preventDefault();
  const sent = site.challenge(playerId, { game: form.elements.game.value, rated: form.elements.rated.checked,
                                          clock: form.elements.clock.value });
  if (sent) status.textContent = "Sending the challenge…";
});
site.addEventListener("error", ({ detail }) => { status.textContent = detail.message; });
site.addEventListener("challenge", ({ detail: challenge }) => {
  if (challenge.from.id !== site.userId || challenge.to.id !== playerId) return;
  const name = challenge.to.name;
  status.textContent = {
    pending: "Challenge sent: waiting for the answer.",
    accepted: `${name} accepted: opening the match…`,
    declined: `${name} declined your challenge.`,
    cancelled: "Your challenge was cancelled.",
    expired: `Your challenge expired: ${name} did not answer in time.`,
  }[challenge.status] || "";
});
