// The header on a phone: the links and the account's forms fold behind a "Menu" button (as
// lichess's), so the page's own content starts near the top. The button is a real button with
// aria-expanded; Escape closes the menu and gives the focus back to the button. Without this
// script, or on a wider screen, the header shows everything as it is (static/css/site.css).

const header = document.querySelector(".site-header");
const button = document.getElementById("menu-button");
const menu = document.getElementById("site-menu");

function setOpen(open) {
  header.classList.toggle("site-header--open", open);
  button.setAttribute("aria-expanded", String(open));
}

if (header && button && menu) {
  header.classList.add("site-header--folds");
  button.addEventListener("click", () => setOpen(button.getAttribute("aria-expanded") !== "true"));
  header.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || button.getAttribute("aria-expanded") !== "true") return;
    setOpen(false);
    button.focus();
  });
}

// The footer's language menu: choosing a language sends its form at once (without this
// script, its button does).
const languageForm = document.querySelector("[data-testid=language-form]");
languageForm?.querySelector("select")?.addEventListener("change", () => languageForm.requestSubmit());
