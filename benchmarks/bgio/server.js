// boardgame.io peer of Boardhall's move benchmark: nine-board tic-tac-toe on boardgame.io's own
// server (Koa + socket.io), driven by benchmarks/load/bgio.py over its socket.io protocol.
//
//   node server.js PORT API_PORT memory            in-memory storage (boardgame.io's default)
//   node server.js PORT API_PORT flatfile DIR      FlatFile storage (node-persist files under DIR)
//
// Rules as RULES.md section 1: cell = board * 9 + cell-in-board (0..80). The next play goes in the
// sub-board named by the previous cell, anywhere when that sub-board is full or on the first
// move; the first line of three inside any sub-board ends the game; a full board is a draw.
const { Server, FlatFile } = require('boardgame.io/server');
const { INVALID_MOVE } = require('boardgame.io/core');

const LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
const full = (cells, b) => cells.slice(b * 9, b * 9 + 9).every((c) => c !== null);

function legal(G, cell) {
  if (G.cells[cell] !== null) return false;
  return G.board === null || full(G.cells, G.board) || Math.floor(cell / 9) === G.board;
}

const NineBoard = {
  name: 'nine-board-tictactoe',
  setup: () => ({ cells: Array(81).fill(null), board: null }),
  turn: { minMoves: 1, maxMoves: 1 },
  moves: {
    play: ({ G, playerID }, cell) => {
      if (!Number.isInteger(cell) || cell < 0 || cell > 80 || !legal(G, cell)) return INVALID_MOVE;
      G.cells[cell] = playerID;
      G.board = cell % 9;
    },
  },
  endIf: ({ G }) => {
    for (let b = 0; b < 9; b++) {
      for (const [p, q, r] of LINES) {
        const m = G.cells[b * 9 + p];
        if (m !== null && m === G.cells[b * 9 + q] && m === G.cells[b * 9 + r]) return { winner: m };
      }
    }
    if (G.cells.every((c) => c !== null)) return { draw: true };
  },
};

const [port, apiPort, mode, dir] = process.argv.slice(2);
const db = mode === 'flatfile' ? new FlatFile({ dir, logging: false }) : undefined;
const server = Server({ games: [NineBoard], db, origins: ['*'] });
// The lobby API (create, join) on its own port: on the game server's port its routes are added
// after socket.io has wrapped the Koa app's handler, and every API request answers 404.
server.run({ port: Number(port), lobbyConfig: { apiPort: Number(apiPort) } },
  () => console.log(`listening ${port} ${mode}`));
