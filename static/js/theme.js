// The colour theme: the system's setting, or the one chosen with the switch in the footer,
// remembered in this browser. Loaded in <head> (not deferred), so the page never flashes the
// other theme before it is drawn.
(() => {
  const KEY = "boardhall-theme";
  const stored = () => { try { return localStorage.getItem(KEY); } catch { return null; } };
  const apply = (theme) => {
    if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
    else delete document.documentElement.dataset.theme;
  };
  apply(stored());
  document.addEventListener("DOMContentLoaded", () => {
    const choice = document.getElementById("theme-choice");
    if (!choice) return;
    choice.value = stored() || "auto";
    choice.addEventListener("change", () => {
      try {
        if (choice.value === "auto") localStorage.removeItem(KEY);
        else localStorage.setItem(KEY, choice.value);
      } catch { /* storage refused (private mode): the choice lasts for this page */ }
      apply(choice.value);
    });
  });
})();
