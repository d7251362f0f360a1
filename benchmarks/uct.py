"""A plain UCT player, written apart from ``games.computer``: the baseline the computer is
measured against (benchmarks/strength.py).

Plain means: UCB1 selection with the usual constant, one new child per round, uniformly random
playouts (``Game.random_playout``), no solver, no kept tree; it thinks until its time is up and
plays the most visited move. Each role's goals are summed per node, so it plays three-player
games as well (each mover maximises its own goal). Standard library and ``games.rules`` only.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from games.rules import Game

UCB_CONSTANT = math.sqrt(2)


class UctNode:
    __slots__ = ("state", "mover", "moves", "kids", "n", "sums")

    def __init__(self, game: Game, state: Any) -> None:
        self.state = state
        self.mover = game.to_move(state)
        self.moves = game.legal_actions(state) if self.mover is not None else []
        random.shuffle(self.moves)
        self.kids: list[tuple[str, UctNode]] = []
        self.n = 0
        self.sums: dict[str, float] = {role: 0.0 for role in game.roles}


def uct_move(game: Game, state: Any, *, seconds: float | None, rng: random.Random, rounds: int | None = None) -> str:
    """The most visited move after ``seconds`` of plain UCT from ``state`` (or ``rounds`` rounds,
    which do not depend on the machine's load)."""
    if seconds is None and rounds is None:
        raise ValueError("give the search its seconds, its rounds or both")
    stop = math.inf if seconds is None else time.monotonic() + seconds
    root = UctNode(game, state)
    if len(root.moves) == 1:
        return root.moves[0]
    while time.monotonic() < stop and (rounds is None or root.n < rounds):
        node, line = root, [root]
        while node.mover is not None and not node.moves:
            parent = node
            node = max((kid for _, kid in parent.kids),
                       key=lambda kid: kid.sums[parent.mover] / (100 * kid.n)
                       + UCB_CONSTANT * math.sqrt(math.log(parent.n) / kid.n))
            line.append(node)
        if node.moves:
            move = node.moves.pop()
            kid = UctNode(game, game.play(node.state, node.mover, move))
            node.kids.append((move, kid))
            node = kid
            line.append(kid)
        result = game.goals(node.state) if node.mover is None else game.random_playout(node.state, rng)
        for visited in line:
            visited.n += 1
            for role, value in result.items():
                visited.sums[role] += value
    return max(root.kids, key=lambda item: item[1].n)[0]
