// Draw any board from the `view` dict of the rules (docs/architecture.md, "the drawing data").
//
//   renderBoard(container, view, { onAction, lastAction, focusable, hints, yours })
//
// Cells are buttons: the ones listed in `view.cell_actions` call `onAction(action)` when
// clicked (or on Enter / Space); every other cell is disabled. Without `onAction` the board
// is read-only (spectators, replays). The board is one tab stop whose cells the arrow keys
// move between; with `focusable: false` it is no tab stop at all, and the page keeps the arrow
// keys (the replay steps through the moves with them). Marks are shapes as well as colours, the sub-board to
// play in has a thick outline and a text hint, and the line that ended the game is marked.
// `hints: false` leaves the text hints out (a small board beside other text, such as the
// analysis's better move). A hint that tells the mover what to do ("Place the selected piece
// on an empty cell.") is for the player whose turn it is (`yours`: by default, a board drawn
// with `onAction`; the match page says so also while its socket is away);
// everyone else (the other players, spectators, the replay, looking back, the rules' diagrams)
// reads what happens next, by the mover's label ("White places the selected piece on an empty
// cell."), never an instruction that is not theirs to follow.

import { coordinates, rovingFocus } from "./board-a11y.js";
import { roleLabel } from "./names.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const COLUMNS = "abcde";

const DRAWERS = {
  "nine-board": drawNineBoard,
  "three-player": drawThreePlayer,
  quarto: drawQuarto,
};

export function renderBoard(container, view, { onAction = null, lastAction = null, focusable = true,
                                              hints = true, yours = Boolean(onAction) } = {}) {
  const draw = DRAWERS[view.family];
  if (!draw) throw new Error(`No drawing for the board family ${view.family}`);
  const focused = container.contains(document.activeElement) ? document.activeElement.dataset.key || "board" : null;
  const board = draw(view, { onAction: typeof onAction === "function" ? onAction : null, yours,
                             last: lastCell(view.family, lastAction) });
  board.classList.add("board", `board--${view.family}`);
  if (view.to_move === null) board.classList.add("board--over");
  if (!hints) for (const node of board.querySelectorAll(".board-hint")) node.remove();
  container.classList.toggle("marks-swapped", marksSwapped(view));
  container.replaceChildren(board);
  if (focusable) rovingFocus(board, container);
  else for (const button of board.querySelectorAll("button")) button.tabIndex = -1;
  if (focused) {
    // Keep keyboard players where they were: on the same cell (every cell can hold the focus),
    // or on the board once that cell is gone.
    const again = container.querySelector(`[data-key="${focused}"]`);
    if (!again) container.tabIndex = -1;
    (again || container).focus();
  }
}

/** "b3": column letter, row number, 1-based, as in the move list (sub-boards in capitals: "B2"). */
export function cellName(row, column) {
  return `${COLUMNS[column - 1]}${row}`;
}

/** The cell index an action put a mark or piece on, or null (swap, select). */
export function lastCell(family, action) {
  if (!action) return null;
  const numbers = (action.match(/\b\d+\b/g) || []).map(Number);
  if (family === "nine-board" && numbers.length >= 4) {
    const [i, j, k, l] = numbers.slice(-4);
    return ((i - 1) * 3 + (j - 1)) * 9 + (k - 1) * 3 + (l - 1);
  }
  if (family === "three-player" && numbers.length >= 2) {
    const [m, n] = numbers.slice(-2);
    return (m - 1) * 5 + (n - 1);
  }
  if (family === "quarto" && action.startsWith("(place") && numbers.length >= 2) {
    const [x, y] = numbers.slice(-2);
    return (y - 1) * 4 + (x - 1);
  }
  return null;
}

// -- nine-board ---------------------------------------------------------------------------

function drawNineBoard(view, { onAction, last, yours }) {
  const highlight = new Set(view.highlight);
  const line = new Set(view.line);
  const hinted = new Set(view.highlight.map((cell) => Math.floor(cell / 9)));
  const forced = hinted.size === 1 ? [...hinted][0] : null;

  const root = el("div");
  const grid = el("div", "nine-grid");
  for (let sub = 0; sub < 9; sub += 1) {
    const i = Math.floor(sub / 3) + 1;
    const j = (sub % 3) + 1;
    const subName = cellName(i, j).toUpperCase();
    const box = el("div", "sub-board");
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", `sub-board ${subName}${sub === forced ? ", play here" : ""}`);
    if (sub === forced) box.classList.add("sub-board--forced");
    for (let inner = 0; inner < 9; inner += 1) {
      const k = Math.floor(inner / 3) + 1;
      const l = (inner % 3) + 1;
      const index = sub * 9 + inner;
      box.append(cellButton({
        index, view, onAction, last, line, highlight, at: [(i - 1) * 3 + k - 1, (j - 1) * 3 + l - 1],
        label: `sub-board ${subName}, cell ${cellName(k, l)}`,
        describe: markWord,
        draw: markSvg,
      }));
    }
    grid.append(box);
  }
  root.append(coordinates(grid, "nine-board"));
  root.append(hint(nineBoardHint(view, forced, yours)));
  const buttons = otherActions(view, onAction);
  if (buttons) root.append(buttons);
  return root;
}

function nineBoardHint(view, forced, yours) {
  if (view.to_move === null) return view.line.length ? "The marked line ended the game." : "The board is full.";
  if (forced === null) {
    return yours ? "Free move: any empty cell of any sub-board."
      : `Free move: ${roleLabel(view.to_move)} may play in any empty cell of any sub-board.`;
  }
  const name = cellName(Math.floor(forced / 3) + 1, (forced % 3) + 1).toUpperCase();
  return `Next mark goes in sub-board ${name} (outlined).`;
}

// -- three-player -------------------------------------------------------------------------

function drawThreePlayer(view, { onAction, last }) {
  const line = new Set(view.line);
  const highlight = new Set(view.highlight);
  const root = el("div");
  const grid = el("div", "five-grid");
  if (view.wraps) grid.classList.add("five-grid--wraps");
  for (let index = 0; index < 25; index += 1) {
    const m = Math.floor(index / 5) + 1;
    const n = (index % 5) + 1;
    grid.append(cellButton({
      index, view, onAction, last, line, highlight, at: [m - 1, n - 1],
      label: `cell ${cellName(m, n)}`,
      describe: markWord,
      draw: markSvg,
      lineWords: "in a line that scored",
    }));
  }
  root.append(coordinates(grid, "three-player"));
  if (view.wraps) root.append(hint("The edges wrap around: lines continue from one side to the other."));
  if (view.to_move === null && view.line.length) {
    root.append(hint("The marked lines scored: four in a row 100 points, three in a row 66; "
                     + "a player without either scores 33 on a full board, 0 beside a four."));
  }
  return root;
}

// -- quarto -------------------------------------------------------------------------------

function drawQuarto(view, { onAction, last, yours }) {
  const line = new Set(view.line);
  const highlight = new Set(view.highlight);
  const root = el("div", "quarto");
  const grid = el("div", "four-grid");
  for (let index = 0; index < 16; index += 1) {
    const y = Math.floor(index / 4) + 1;
    const x = (index % 4) + 1;
    grid.append(cellButton({
      index, view, onAction, last, line, highlight, at: [y - 1, x - 1],
      label: `cell ${cellName(y, x)}`,
      describe: (piece) => (piece ? `${pieceWords(piece)} piece` : "empty"),
      draw: pieceSvg,
    }));
  }

  const side = el("div", "quarto-side");
  const held = el("div", "quarto-selected");
  held.append(el("h3", "quarto-title", "Piece to place"));
  if (view.selected) {
    const piece = el("div", "piece-frame piece-frame--selected");
    piece.dataset.piece = view.selected;
    piece.setAttribute("role", "img");
    piece.setAttribute("aria-label", pieceWords(view.selected));
    piece.append(pieceSvg(view.selected));
    held.append(piece, el("p", "piece-name", pieceWords(view.selected)));
  } else {
    held.append(el("p", "piece-name", "none yet"));
  }

  const pool = el("div", "quarto-pool");
  pool.append(el("h3", "quarto-title", `Pool (${view.pool.length})`));
  const pieces = el("div", "pool-grid");
  pieces.setAttribute("role", "group");
  pieces.setAttribute("aria-label", "pieces in the pool");
  pieces.dataset.roving = "pool";
  const pieceActions = view.piece_actions || {};
  for (const piece of view.pool) {
    const button = el("button", "piece-button");
    button.type = "button";
    button.dataset.piece = piece;
    button.dataset.key = `piece-${piece}`;
    button.append(pieceSvg(piece));
    const action = pieceActions[piece];
    if (action && onAction) {
      button.dataset.action = action;
      button.setAttribute("aria-label", `${pieceWords(piece)}, choose`);
      button.addEventListener("click", () => onAction(action));
    } else {
      button.setAttribute("aria-disabled", "true");
      button.setAttribute("aria-label", pieceWords(piece));
    }
    pieces.append(button);
  }
  pool.append(pieces);
  side.append(held, pool);
  root.append(coordinates(grid, "quarto"), side, hint(quartoHint(view, yours)));
  return root;
}

function quartoHint(view, yours) {
  if (view.to_move === null) return view.line.length ? "The marked line ended the game." : "The board is full.";
  const mover = roleLabel(view.to_move);
  if (view.phase === "select") {
    if (view.order === "classic") {
      return yours ? "Choose a piece from the pool for the opponent to place."
        : `${mover} chooses a piece from the pool for the opponent to place.`;
    }
    return yours ? "Choose a piece from the pool, then place it." : `${mover} chooses a piece from the pool, then places it.`;
  }
  return yours ? "Place the selected piece on an empty cell." : `${mover} places the selected piece on an empty cell.`;
}

const ATTRIBUTES = [["tall", "short"], ["dark", "light"], ["square", "round"], ["hollow", "solid"]];

/** "tall dark round solid" from "p1100": the digits are attributes 4, 3, 2, 1; 1 = first word. */
export function pieceWords(piece) {
  return ATTRIBUTES.map(([yes, no], position) => (piece[position + 1] === "1" ? yes : no)).join(" ");
}

function pieceSvg(piece) {
  const [tall, dark, square, hollow] = [1, 2, 3, 4].map((position) => piece[position] === "1");
  const svg = svgEl("svg", { viewBox: "0 0 40 40", class: `piece ${dark ? "piece--dark" : "piece--light"}`,
                             "aria-hidden": "true", focusable: "false" });
  const size = tall ? 34 : 22;
  const offset = (40 - size) / 2;
  svg.append(square
    ? svgEl("rect", { x: offset, y: offset, width: size, height: size, rx: 3, class: "piece__body" })
    : svgEl("circle", { cx: 20, cy: 20, r: size / 2, class: "piece__body" }));
  if (hollow) svg.append(svgEl("circle", { cx: 20, cy: 20, r: size * 0.22, class: "piece__hole" }));
  return svg;
}

// -- shared pieces ------------------------------------------------------------------------

function cellButton({ index, view, onAction, last, line, highlight, at, label, describe, draw,
  lineWords = "in the line that ended the game" }) {
  const content = view.cells[index];
  const action = view.cell_actions[String(index)];
  const button = el("button", "cell");
  button.type = "button";
  button.dataset.cell = String(index);
  button.dataset.key = `cell-${index}`;
  [button.dataset.row, button.dataset.col] = at.map(String);
  const words = [label, describe(content)];
  if (content) {
    button.dataset.content = content;
    button.append(draw(content));
  }
  if (action && onAction) {
    button.dataset.action = action;
    words.push("playable");
    button.addEventListener("click", () => onAction(action));
  } else {
    // Not `disabled`: the arrow keys move over every cell, so every cell takes the focus.
    button.setAttribute("aria-disabled", "true");
  }
  if (highlight.has(index) && view.to_move !== null) button.classList.add("cell--hint");
  if (index === last) {
    button.classList.add("cell--last");
    words.push("last move");
  }
  if (line.has(index)) {
    button.classList.add("cell--line");
    words.push(lineWords);
  }
  button.setAttribute("aria-label", words.join(", "));
  return button;
}

function otherActions(view, onAction) {
  if (!onAction || !view.other_actions || !view.other_actions.length) return null;
  const bar = el("div", "board-actions");
  for (const { action, label } of view.other_actions) {
    const button = el("button", "button button--secondary", label);
    button.type = "button";
    button.dataset.action = action;
    button.addEventListener("click", () => onAction(action));
    bar.append(button);
  }
  return bar;
}

function markWord(mark) {
  return mark ? `${mark}` : "empty";
}

// After the pie rule's swap red plays o and blue x (RULES.md): each mark is then drawn in the
// colour of the side that owns it, so Red's marks stay red and Blue's blue.
export function marksSwapped(view) {
  return Boolean(view.markers && view.markers.red === "o");
}

/** x: a cross, o: a ring, z: a triangle; colour only repeats what the shape says. */
export function markSvg(mark) {
  const svg = svgEl("svg", { viewBox: "0 0 40 40", class: `mark mark--${mark}`, "aria-hidden": "true",
                             focusable: "false" });
  if (mark === "x") {
    svg.append(svgEl("path", { d: "M10 10 L30 30 M30 10 L10 30" }));
  } else if (mark === "o") {
    svg.append(svgEl("circle", { cx: 20, cy: 20, r: 11 }));
  } else {
    svg.append(svgEl("path", { d: "M20 8 L32 30 L8 30 Z" }));
  }
  return svg;
}

function hint(text) {
  return el("p", "board-hint", text);
}

function el(tag, className = "", text = "") {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
}

function svgEl(tag, attributes) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}
