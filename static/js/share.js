// The match page's "Share" box: each "Copy" button (data-copy: the id of the field it copies)
// puts that field's text on the clipboard, or selects it where the browser refuses.

const status = document.getElementById("share-status");
document.getElementById("share").addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const field = document.getElementById(button.dataset.copy);
  try {
    await navigator.clipboard.writeText(field.value);
    status.textContent = gettext("Copied.");
  } catch {
    field.select();
    status.textContent = gettext("Select the text and copy it (Ctrl+C).");
  }
});
