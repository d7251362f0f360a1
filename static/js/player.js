// A player's page: the challenge form sends through the site socket (site.js); the answer
// arrives in the challenge tray, and an accepted challenge opens the match.

import { site } from "./site.js";

const form = document.getElementById("challenge-form");
const status = document.getElementById("challenge-status");
form.addEventListener("submit", (event) => {
  event.preventDefault();
  const sent = site.challenge(Number(form.dataset.playerId),
                              { game: form.elements.game.value, rated: form.elements.rated.checked,
                                clock: form.elements.clock.value });
  if (sent) status.textContent = "Challenge sent: waiting for the answer.";
});
site.addEventListener("error", ({ detail }) => { status.textContent = detail.message; });
