// The rules pages: draw each diagram (a real position the server played out) read-only.
import { renderBoard } from "./boards.js";

const diagrams = JSON.parse(document.getElementById("guide-diagrams").textContent);
for (const holder of document.querySelectorAll("[data-diagram]")) {
  const { view, last } = diagrams[holder.dataset.diagram];
  renderBoard(holder, view, { lastAction: last });
}
