// Keyboard and reading help for the boards drawn by boards.js.
//
// - rovingFocus: a board's cells (and Quarto's pool) are one tab stop each; the arrow keys move
//   between cells, Home / End to the ends of a row (with Ctrl: of the board), Enter or Space
//   plays the focused cell when it is playable. The focus is remembered across redraws.
// - coordinates: letters over the columns and numbers beside the rows, as in the move list
//   ("x A3 c1": sub-board column A, row 3; cell column c, row 1).

const remembered = new WeakMap(); // holder element -> {group name: data-key of its tab stop}

export function rovingFocus(board, holder) {
  const memory = remembered.get(holder) || {};
  remembered.set(holder, memory);
  for (const group of board.querySelectorAll("[data-roving]")) {
    const items = [...group.querySelectorAll("[data-key]")];
    if (!items.length) continue;
    const name = group.dataset.roving;
    const stop = items.find((item) => item.dataset.key === memory[name])
      || group.querySelector("[data-action]") || group.querySelector(".cell--last") || items[0];
    for (const item of items) item.tabIndex = item === stop ? 0 : -1;
    group.addEventListener("focusin", (event) => {
      const item = event.target.closest("[data-key]");
      if (!item) return;
      for (const other of items) other.tabIndex = other === item ? 0 : -1;
      memory[name] = item.dataset.key;
    });
    group.addEventListener("keydown", (event) => {
      const from = event.target.closest("[data-key]");
      const to = from && neighbour(items, from, event);
      if (!to) return;
      event.preventDefault();
      to.focus();
    });
  }
}

function neighbour(items, from, { key, ctrlKey }) {
  const index = items.indexOf(from);
  if (from.dataset.row === undefined) { // a list (the pool): previous and next
    const step = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 }[key];
    if (step) return items[index + step] || null;
    return key === "Home" ? items[0] : key === "End" ? items[items.length - 1] : null;
  }
  const at = (item) => [Number(item.dataset.row), Number(item.dataset.col)];
  const [row, col] = at(from);
  const find = (r, c) => items.find((item) => item.dataset.row === String(r) && item.dataset.col === String(c)) || null;
  const last = Math.max(...items.map((item) => at(item)[1]));
  const lastRow = Math.max(...items.map((item) => at(item)[0]));
  switch (key) {
    case "ArrowLeft": return find(row, col - 1);
    case "ArrowRight": return find(row, col + 1);
    case "ArrowUp": return find(row - 1, col);
    case "ArrowDown": return find(row + 1, col);
    case "Home": return ctrlKey ? find(0, 0) : find(row, 0);
    case "End": return ctrlKey ? find(lastRow, last) : find(row, last);
    default: return null;
  }
}

const LETTERS = "abcde";

/** The grid with its coordinates around it: a new element holding both. */
export function coordinates(grid, family) {
  grid.dataset.roving = "cells";
  const wrap = div(`coords coords--${family}`);
  const top = div("coords__top");
  const left = div("coords__left");
  top.setAttribute("aria-hidden", "true");
  left.setAttribute("aria-hidden", "true");
  if (family === "nine-board") {
    for (let major = 0; major < 3; major += 1) {
      const column = div("coords__group");
      column.append(div("coords__major", LETTERS[major].toUpperCase()));
      const row = div("coords__group");
      row.append(div("coords__major", String(major + 1)));
      for (let minor = 0; minor < 3; minor += 1) {
        column.append(div("coords__minor", LETTERS[minor]));
        row.append(div("coords__minor", String(minor + 1)));
      }
      top.append(column);
      left.append(row);
    }
  } else {
    const size = { "three-player": 5, quarto: 4 }[family];
    for (let n = 0; n < size; n += 1) {
      top.append(div("coords__minor", LETTERS[n]));
      left.append(div("coords__minor", String(n + 1)));
    }
  }
  wrap.append(top, left, grid);
  return wrap;
}

function div(className, text = "") {
  const node = document.createElement("div");
  node.className = className;
  if (text) node.textContent = text;
  return node;
}
