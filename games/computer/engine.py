"""The computer's one documented entry point, for the web app, benchmarks and outside programs.

``best_move`` returns a level's move for a rule set and a state within a time budget;
``evaluate`` gives each role's expected score of a position and the best move found, with a
fixed budget and seed so the same call gives the same answer (post-game analysis).
Their names and arguments are stable; what searches behind them may change.

    >>> from games.rules import get_game
    >>> game = get_game("tictactoe-3player")
    >>> best_move("tictactoe-3player", game.initial_state(), level=1, seconds=0.5, seed="x") in game.legal_actions(game.initial_state())
    True
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from typing import Any

from games.computer import search
from games.rules import Action, get_game

# The strong level's search, with the round count the caller gives, valuing each end by its GGP
# goals (analysis shows expected scores, not places) and without the three-player bias, so
# every analysis, stored or new, comes from the same search.
ANALYSIS = dataclasses.replace(search.LEVELS[2], rank=False, bias=0.0)
PLAYED_SHARE = 0.25  # the least share of an evaluation's rounds the played move's value rests on


@dataclass(frozen=True)
class Evaluation:
    scores: dict[str, float]  # each role's expected score, 0 to 1 (a GGP goal of 100 is 1)
    best: Action | None  # the best move found for the mover; None in a terminal state
    # With ``played``: each role's expected score after that move, judged in the same search as
    # ``scores`` (the best move's), so the two compare like with like.
    played: dict[str, float] | None = None
    # The line the search expects: the best move, then the replies it looked at most (proven
    # ones following their proof), at most ``search.LINE_PLIES`` moves; empty in a terminal state.
    line: tuple[Action, ...] = ()


def best_move(ruleset: str, state: Any, *, level: int = search.STRONGEST, seconds: float = 1.0,
              seed: str | int | None = None) -> Action:
    """The move the computer at ``level`` (1 = weakest, ``search.STRONGEST`` = 4 the strongest)
    plays in ``state`` of ``ruleset`` (a rule set's slug), thinking at most ``seconds``. Raises
    ``ValueError`` in a terminal state or for a level out of range."""
    if level not in range(1, search.STRONGEST + 1):
        raise ValueError(f"the computer's level runs from 1 to {search.STRONGEST}, not {level!r}")
    return search.play_level(get_game(ruleset), state, level=level, rng=random.Random(seed), seconds=seconds)


def evaluate(ruleset: str, state: Any, *, rounds: int = 3000, seed: str | int = 0,
             played: Action | None = None) -> Evaluation:
    """Each role's expected score in ``state`` and the mover's best move, after ``rounds`` rounds
    of search seeded with ``seed`` (repeatable: no clock is read). The search is the strong
    level's (tactical playouts, proven positions); a proven move's scores are exact. ``line``
    is the principal variation: the best move and the replies the search expects after it.

    With ``played`` (a legal move), also each role's expected score after it, from the same
    tree: that child is searched on until it holds at least ``PLAYED_SHARE`` of ``rounds``
    (a move the search hardly looked at is judged on as many rounds as a considered one)."""
    game = get_game(ruleset)
    if game.is_terminal(state):
        return Evaluation({role: value / 100.0 for role, value in game.goals(state).items()}, None)
    rng = random.Random(seed)
    root = search.new_root(game, state, level=ANALYSIS)
    search.search(game, root, rng=rng, level=ANALYSIS, rounds=rounds)
    best_action, best = search.final_choice(root)
    if played is None:
        return Evaluation(_scores(game, best), best_action, line=_line(best_action, best))
    # The best move's mean is the highest of many small samples, so it runs high; the played
    # move may have had a handful of rounds. Both get at least a share of the rounds, and are
    # then compared: an equal move loses nothing, whatever the two samples were before.
    child = search.child_of(game, root, played, level=ANALYSIS)
    for node in (best, child):
        short = int(rounds * PLAYED_SHARE) - node.visits
        if node.proven is None and short > 0:
            search.search(game, node, rng=rng, level=ANALYSIS, rounds=short)
    return Evaluation(_scores(game, best), best_action, _scores(game, child), _line(best_action, best))


def _line(best_action: Action, best) -> tuple[Action, ...]:
    """The best move and the search's expected replies after it (``search.principal_variation``)."""
    return (best_action, *search.principal_variation(best, plies=search.LINE_PLIES - 1))


def _scores(game, node) -> dict[str, float]:
    """A node's value to each role, 0 to 1: exact when proven, else its mean."""
    if node.proven is not None:
        return {role: value / 100.0 for role, value in zip(game.roles, node.proven)}
    return {role: total / (100.0 * node.visits) for role, total in zip(game.roles, node.totals)}
