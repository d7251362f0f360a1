"""The computer player: Monte Carlo tree search over any rule set, through the shared interface.

Pure Python, standard library only, and it never branches on which game it plays: it needs
``to_move``, ``legal_actions``, ``play``, ``is_terminal``, ``goals`` and ``random_playout``.
Each node keeps the summed goals of every role, so the same search serves two players and three
(each mover maximises its own score, as GGP goals mean).

Example::

    >>> import random
    >>> from games.rules import get_game
    >>> game = get_game("tictactoe-3player")
    >>> action = choose_action(game, game.initial_state(), rng=random.Random(1), iterations=200)
    >>> action in game.legal_actions(game.initial_state())
    True
"""

from __future__ import annotations

import math
import os
import random
import time
from typing import Any

from games.rules import Action, Game, get_game

EXPLORATION = 1.4  # UCB1's constant for goals scaled to 0..1
# The computer's strengths, level 1 to 3: a name, and the search rounds it spends on a move.
LEVELS = (("easy", 30), ("medium", 300), ("strong", 3000))
STRONGEST = len(LEVELS)


class _Node:
    __slots__ = ("state", "mover", "untried", "children", "visits", "totals")

    def __init__(self, game: Game, state: Any) -> None:
        self.state = state
        self.mover = game.to_move(state)
        self.untried = game.legal_actions(state) if self.mover is not None else []
        self.children: list[tuple[Action, _Node]] = []
        self.visits = 0
        self.totals = dict.fromkeys(game.roles, 0.0)

    def best_child(self, log_visits: float) -> tuple[Action, "_Node"]:
        mover = self.mover

        def ucb(item: tuple[Action, _Node]) -> float:
            child = item[1]
            return child.totals[mover] / (100.0 * child.visits) + EXPLORATION * math.sqrt(log_visits / child.visits)

        return max(self.children, key=ucb)


def choose_action(game: Game, state: Any, *, rng: random.Random, iterations: int = 2000,
                  seconds: float | None = None) -> Action:
    """The action the mover of ``state`` should play: the most visited after ``iterations`` rounds
    of search (or fewer, when ``seconds`` runs out first). Raises ``ValueError`` in a terminal state.
    """
    root = _Node(game, state)
    if root.mover is None:
        raise ValueError("the game is over: there is nothing to choose")
    if len(root.untried) == 1:
        return root.untried[0]
    deadline = None if seconds is None else time.monotonic() + seconds
    for done in range(iterations):
        if deadline is not None and done % 16 == 0 and time.monotonic() > deadline:
            break
        _search_once(game, root, rng)
    # A move that wins at once is taken without further thought; otherwise the most visited.
    for action, child in root.children:
        if child.mover is None and game.goals(child.state)[root.mover] == 100:
            return action
    return max(root.children, key=lambda item: item[1].visits)[0]


def _search_once(game: Game, root: _Node, rng: random.Random) -> None:
    node, path = root, [root]
    # Selection: descend through fully expanded nodes.
    while not node.untried and node.children:
        _, node = node.best_child(math.log(node.visits))
        path.append(node)
    # Expansion: one new child.
    if node.untried:
        action = node.untried.pop(int(rng.random() * len(node.untried)))
        child = _Node(game, game.play(node.state, node.mover, action))
        node.children.append((action, child))
        node = child
        path.append(node)
    # Simulation, then backpropagation of every role's goal.
    goals = game.goals(node.state) if node.mover is None else game.random_playout(node.state, rng)
    for visited in path:
        visited.visits += 1
        totals = visited.totals
        for role, value in goals.items():
            totals[role] += value


def give_way(niceness: int) -> None:
    """Run this thread (on Linux a thread has its own nice value; a pool's process has one
    thread that thinks) at ``niceness`` more than now: the scheduler then serves the threads
    that answer people first, and the search takes what is left."""
    if niceness > 0:
        os.nice(niceness)


def choose_action_from_json(game_slug: str, state_json: Any, *, seed: str, iterations: int, seconds: float) -> Action:
    """``choose_action`` from plain values, for a worker process: the position as
    ``Game.state_to_json`` gives it and the seed of its random choices."""
    game = get_game(game_slug)
    return choose_action(game, game.state_from_json(state_json), rng=random.Random(seed),
                         iterations=iterations, seconds=seconds)
