// The page of a private invitation that ended: its "Challenge <creator>" button sends the
// creator a challenge to the same game over the site socket; the tray shows it from there.

import { site } from "./site.js";

const button = document.getElementById("invite-challenge");
const status = document.getElementById("invite-challenge-status");
if (button) {
  const settings = JSON.parse(document.getElementById("invite-settings").textContent);
  button.addEventListener("click", () => {
    if (site.challenge(Number(button.dataset.to), settings)) {
      status.textContent = gettext("Challenge sent: the answer shows at the bottom of the page.");
      button.disabled = true;
    }
  });
  site.addEventListener("error", ({ detail }) => {
    status.textContent = detail.message;
    button.disabled = false;
  });
}
