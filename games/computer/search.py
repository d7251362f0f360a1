"""The computer player: Monte Carlo tree search over any rule set, through the shared interface.

Pure Python, standard library only, and it never branches on which game it plays (but for handing
a rule set's moves to a compiled search, ``compiled`` below): it needs
``to_move``, ``legal_actions``, ``play``, ``is_terminal``, ``goals``, ``random_playout`` and
``tactical_playout``. Each node keeps the summed goals of every role, so the same search serves
two players and three (each mover maximises its own score, as GGP goals mean).

What a search may add to plain UCT, each switched by a ``Level``'s fields:

``tactics``  playouts by ``Game.tactical_playout`` (a win in one is taken, a loss in one avoided);
``solver``   MCTS-Solver: a node whose value is known exactly (a terminal position; a mover with a
             child that gives it the top score; every child known) is *proven*, the search stops
             sampling it and the final choice never takes a proven worse move; before searching,
             a win in one is played at once;
``endgame``  when a sampled estimate of the remaining game tree is small (Quarto's last pieces),
             an exact depth-first search with a transposition table proves the root's children
             first, within a share of the time: the rules' own (``Game.exact_goals``) where
             they have one, else a generic one over ``play`` (``solve``);
``win_share`` with ``endgame``, in rules with their own exact search: before that, a search for
             a forced win (``Game.exact_win``, a null window) on trees up to ``WIN_REACH`` times
             larger, for this share of the time: a won position is played as won sooner;
``rank``     every role is taken to play for first place rather than for its GGP score: an end
             is worth 100 to a role alone at the top, 100/k to each of k sharing it, 0 to the
             rest (``ranked``). Two-player games with goals 100/0 and 50/50 are unchanged; in
             the three-player game a second place with a three (66) is no longer worth nearly
             a win. Ratings count places, so this is what a player on the ladder plays for;
``bias``     progressive bias: a child's UCB score gains ``bias * prior / (visits + 1)``, its
             prior from ``Game.move_priors`` (games without one: no change), so promising moves
             are tried first and the hint fades as rounds come in;
``practical`` when the position is proven drawn or lost (the best any move can do against
             best play is known and it is not a win), the rest of the time goes to a search
             without proofs among the moves that keep that value, and the one it likes best is
             played: the move a fallible opponent is likeliest to get wrong, not the first in
             the rules' order;
``contempt`` a draw (every role ends with the same value) is worth that much less to the
             searching role (as chess engines' contempt): against a fallible opponent, lines
             that keep winning chances are preferred to a safe draw;
``score_seats`` in these seats (role indexes) the search values ends by the GGP goals, not by
             first place (``rank`` off): a three-player seat whose next mover blocks for it
             may do better building threes (66 whoever makes four) than blocking.
``compiled``  with a clock, in rule sets with a compiled search (misère Quarto's,
             ``games.computer.quarto_compiled``: the same ideas over bit masks, compiled by numba,
             many times the rounds a second), the move is that search's; without a clock (the
             analysis's fixed rounds) and elsewhere, this module's;
``model_others`` with three or more roles, where the rules have a model of how the opponent
             the computer is measured against plays (``Game.others_model``: a plain UCT's
             likely moves, fitted to its recorded moves): the other roles' moves in the tree
             are drawn from that model instead of chosen by UCB1 for their own values, so
             the searching role plays against the blocks those opponents make and miss.

Keeping the tree from move to move was tried and measured: the subtree of the position that
came up held 1% to 15% of a move's rounds, and the expert with and without it split 8 games
4-4 in nine-board and in Quarto, so it was left out (it also held memory between moves).
Ten more switches were built, measured side by side against plain UCTs and did not pay, so
they were removed: ``rave`` (RAVE), ``mast`` (MAST playouts), ``slips``, ``paranoid`` and
``rank_others`` (three players); ``exact_leaves``, ``verify``, ``keep_table``,
``endgame_plies`` and ``traps`` (classic Quarto). Their last version is at commit ``f4f612b``
(``git show f4f612b:games/computer/search.py``); the measurements are in docs/computer.md. So
was ``model`` (the other roles judged as a plain UCT judges, by random playouts; both games),
at commit ``a9f7a08``, and ``careless`` (three players: another role holding a three, which
scores 66 whoever makes four, moving at random in the tree), at commit ``4d65011``, and
``no_consolation`` (in the score seats, an end where another role wins worth nothing to the
rest), at commit ``0e56cd3``.

Example::

    >>> import random
    >>> from games.rules import get_game
    >>> game = get_game("tictactoe-3player")
    >>> action = choose_action(game, game.initial_state(), rng=random.Random(1), iterations=200)
    >>> action in game.legal_actions(game.initial_state())
    True
"""

from __future__ import annotations

import bisect
import itertools
import math
import os
import random
import time
from dataclasses import dataclass, replace
from typing import Any, Callable

from django.utils.translation import gettext_lazy

from games.rules import Action, Game, Role, get_game
from games.rules.quarto import MisereQuarto

EXPLORATION = 1.4  # UCB1's constant for goals scaled to 0..1
TOP_GOAL = 100  # GGP's best score: a child that gives it to its parent's mover proves the parent
# The exact endgame search is tried when the estimated tree below the position is smaller than
# this many positions per second of its share of the time (measured: it proves an estimated
# million-position Quarto endgame in about a second here), or than ENDGAME_TREE without a clock.
ENDGAME_TREE_PER_SECOND = 1_000_000
ENDGAME_TREE = 20_000
# The same for a game's own exact search (``Game.EXACT_SEARCH``): misère Quarto's alpha-beta
# proves a position with 8 pieces left (an estimated 7e8 positions, a median) in a median 0.17 to
# 0.34 s here, one with 7 left in 0.04 to 0.05 s (docs/computer.md, ``strength.py --mode endgame``).
EXACT_TREE_PER_SECOND = 1_000_000_000
ENDGAME_SHARE = 0.4  # the share of the time budget the exact endgame search may take
# The search for a forced win (``win_share``, the rules' ``Game.exact_win``) is tried on trees up
# to this many times larger than the exact search would take on in the same time: it only has to
# find one winning move, or show there is none, which settles far sooner than every move's value.
WIN_REACH = 30
Worth = Callable[[tuple[int, ...]], tuple[int, ...]]  # an end's goals, in roles' order, to what a search maximises
LEAST_SECONDS = 0.05  # the thinking a turn still gets when it waited its whole budget for a worker
# The principal variation post-game analysis stores with a position: at most this many moves,
# each reply resting on at least this many rounds of the search (else it is not the line).
LINE_PLIES = 6
LINE_LEAST_VISITS = 10


@dataclass(frozen=True)
class Level:
    """One of the computer's strengths: what it does, in words for people and in switches."""

    name: str
    description: str  # shown on the create form
    rounds: int  # the most search rounds a move (the time budget may stop it sooner)
    share: float = 1.0  # the share of the time budget it thinks at most
    blunder: float = 0.0  # the chance of playing a random legal move instead of searching
    tactics: bool = False
    solver: bool = False
    endgame: bool = False
    rank: bool = False
    bias: float = 0.0
    practical: bool = False
    exploration: float = EXPLORATION  # UCB1's constant
    contempt: int = 0  # what a draw (every role with the same value) is worth less to the searching role
    score_seats: tuple[int, ...] = ()  # the seats (role indexes) in which ``rank`` is off: ends valued by GGP goals
    win_share: float = 0.0  # with ``endgame``: the share of the time a search for a forced win may take first
    wary: bool = False  # three or more roles: do not count on the next mover to block the one after it
    model_others: bool = False  # the other roles' moves in the tree drawn from ``Game.others_model``
    compiled: bool = False  # with a clock, in rule sets with a compiled search (``_compiled_search``), search there


# The computer's strengths, level 1 to 4 (``User.computer_level``); benchmarks/strength.py
# measures each against the one below and the strongest against a plain UCT (docs/computer.md).
LEVELS = (
    Level("easy", gettext_lazy(
        "Blunders often: plays one move in four at random and the rest after a brief look; "
        "misses wins"), 30, blunder=0.25),
    Level("medium", gettext_lazy(
        "Plays sensibly but looks only a little ahead, by trying out a few hundred random games; "
        "falls into traps a few moves deep"), 300),
    Level("strong", gettext_lazy(
        "Never misses a win in one move: thinks for a quarter of its time, tries out games that "
        "take such wins and dodge some losses, and works out which positions are surely won or lost"),
        3000, share=0.25, tactics=True, solver=True, rank=True, bias=3.0, practical=True),
    Level("expert", gettext_lazy(
        "Thinks as the strong level does but for its whole time, plays the last moves of a game "
        "perfectly, would rather keep its winning chances than settle for a safe draw, and with three "
        "players never leaves a win open for another player to block, and builds threats the others "
        "tend to leave open"),
        10_000_000, tactics=True, solver=True, endgame=True, rank=True, bias=3.0, practical=True, contempt=25,
        score_seats=(1,), win_share=0.7, wary=True, model_others=True, compiled=True),
)
# Both play for first place (``rank``) with progressive bias 3 (``bias``) and play on practically
# in proven positions (``practical``). Each of the expert's own switches paid side by side against
# plain UCTs (docs/computer.md, "The search, part by part", has each run's command, date and
# commit): with three players, the model of the others (``model_others``) took 102 first places
# of 180 against 74 without; wariness (``wary``), blocking a win another role could make after
# the role in between rather than counting on that role to block it, 150 of 360 against 133; the
# score in the second seat (``score_seats``) 42% of o's first places against 26%. Neither
# ``rank`` nor ``bias`` changes a two-player game whose goals are 100/0 and 50/50, or a game
# without ``Game.move_priors``. The forced-win search (``win_share``, 70% of the time where the
# tree is within 30 times the exact search's reach) won 92 of 200 classic Quarto games as white
# against 73 without. Contempt 25 (a draw worth 25 to the expert) won 49% as classic white
# against contempt 15's 34%, and 35 won 45% against 25's 53%; one as large as 45 makes a draw
# proven inside the tree worth less than a losing line's hopeful estimate
# (tests/games/computer/test_search.py). The switches measured that did not pay were removed: RAVE, MAST,
# ``slips``, ``paranoid``, ``rank_others``, ``exact_leaves``, ``verify``, ``keep_table``,
# ``endgame_plies`` and ``traps``; their last version is at commit f4f612b
# (``git show f4f612b:games/computer/search.py``).
STRONGEST = len(LEVELS)
PLAIN = Level("plain", "plain UCT: random playouts", 2000)


class _Node:
    __slots__ = ("state", "me", "untried", "children", "visits", "totals", "proven", "prior", "priors", "model")

    def __init__(self, game: Game, state: Any, solver: bool, worth: Worth = tuple) -> None:
        self.state = state
        mover = game.to_move(state)
        self.me = -1 if mover is None else game.roles.index(mover)  # the mover's role index
        self.untried = game.legal_actions(state) if mover is not None else []
        self.children: list[tuple[Action, _Node]] = []
        self.visits = 0
        self.totals = [0.0] * len(game.roles)
        # The exact goals of every role under best play (by each mover for itself), once known.
        self.proven: tuple[int, ...] | None = None
        self.prior = 0.0  # the parent's mover's hint for the move to here (``bias``)
        self.priors: dict[Action, float] | None = None  # the hints for this node's moves, once asked
        # ``model_others``: this node's moves with their summed likelihoods, and its children by
        # move, once asked (``False`` where the game has no model)
        self.model: tuple[list[Action], list[float], dict[Action, "_Node"]] | bool | None = None
        if mover is None and solver:
            self.proven = _values(game, game.goals(state), worth)

    def select(self, bias: float = 0.0, exploration: float = EXPLORATION) -> "_Node":
        """The child UCB1 prefers (with progressive ``bias``); a proven child counts at its exact
        value, without exploration."""
        me, log_visits = self.me, math.log(self.visits or 1)
        best, best_score = None, -1.0
        for _, child in self.children:
            proven = child.proven
            if proven is not None:
                score = proven[me] / 100.0
            elif not child.visits:  # added by the exact search, which could not prove it
                return child
            else:
                visits = child.visits
                score = child.totals[me] / (100.0 * visits) + exploration * math.sqrt(log_visits / visits)
                if bias:
                    score += bias * child.prior / (visits + 1)
            if score > best_score:
                best, best_score = child, score
        return best

    def try_to_prove(self) -> bool:
        """Mark this node proven if a child gives its mover the top score, or every child is proven."""
        me, best, complete = self.me, None, not self.untried
        for _, child in self.children:
            proven = child.proven
            if proven is None:
                complete = False
            elif proven[me] >= TOP_GOAL:
                self.proven = proven
                return True
            elif best is None or proven[me] > best[me]:
                best = proven
        if complete and best is not None:
            self.proven = best
            return True
        return False


def ranked(values: tuple[int, ...]) -> tuple[int, ...]:
    """What an end is worth to each role playing for first place: 100 alone at the top, 100/k
    to each of k sharing it (rounded down), 0 below: ``ranked((66, 100, 66)) == (0, 100, 0)``,
    ``ranked((66, 33, 66)) == (50, 0, 50)``."""
    top = max(values)
    share = 100 // values.count(top)
    return tuple(share if value == top else 0 for value in values)


def worth_for(rank: bool, me: int = 0, contempt: int = 0) -> Worth:
    """How a search values an end, from the goals in ``game.roles`` order: as they are, or as
    ``ranked`` shares (``rank``). With ``contempt``, a draw (every role ends with the same
    value) is worth that much less to role ``me`` alone:
    ``worth_for(False, me=0, contempt=10)((50, 50)) == (40, 50)``."""
    worth: Worth = ranked if rank else tuple
    if not contempt:
        return worth

    def scorning(values: tuple[int, ...]) -> tuple[int, ...]:
        valued = worth(values)
        if valued.count(valued[me]) == len(valued):
            return valued[:me] + (valued[me] - contempt,) + valued[me + 1:]
        return valued
    return scorning


def _level_worth(game: Game, state: Any, level: Level) -> Worth:
    mover = game.to_move(state)
    me = 0 if mover is None else game.roles.index(mover)
    rank = level.rank and me not in level.score_seats
    return worth_for(rank, me, level.contempt)


def _values(game: Game, goals: dict[str, int], worth: Worth) -> tuple[int, ...]:
    """An end's value to each role in ``game.roles`` order, as ``worth`` (``worth_for``) says."""
    return worth(tuple(goals[role] for role in game.roles))


def _priors(game: Game, node: _Node) -> dict[Action, float]:
    """``node``'s moves' hints from ``Game.move_priors``, asked once per node (empty if none)."""
    if node.priors is None:
        hints = game.move_priors(node.state)
        node.priors = {} if hints is None else dict(zip(game.legal_actions(node.state), hints))
    return node.priors


def _model(game: Game, node: _Node) -> tuple[list[Action], list[float], dict[Action, _Node]] | bool:
    """``model_others``: ``node``'s moves, their likelihoods summed in order, and its children by
    move, from ``Game.others_model`` (asked once per node); ``False`` where the game has none."""
    if node.model is None:
        likely = game.others_model(node.state)
        node.model = False if likely is None else (game.legal_actions(node.state), list(itertools.accumulate(likely)),
                                                   dict(node.children))
    return node.model


def new_root(game: Game, state: Any, *, level: Level) -> _Node:
    """The root of a new search tree for ``state``, for ``search``."""
    return _Node(game, state, level.solver, _level_worth(game, state, level))


def search(game: Game, root: _Node, *, rng: random.Random, level: Level, rounds: int,
           deadline: float | None = None) -> None:
    """Run up to ``rounds`` rounds of search from ``root`` (fewer when ``deadline``, a
    ``time.monotonic()`` value, passes first, or the root is proven)."""
    playout = game.tactical_playout if level.tactics else game.random_playout
    roles, solver, bias = game.roles, level.solver, level.bias
    worth = _level_worth(game, root.state, level)
    exploration = level.exploration
    searcher = root.me if level.model_others and len(roles) > 2 else None
    for done in range(rounds):
        if root.proven is not None:
            return
        if deadline is not None and done and done % 16 == 0 and time.monotonic() > deadline:
            return
        node, path = root, [root]
        while True:
            if node.proven is not None:
                goals = node.proven
                break
            kids = None
            if searcher is not None and node.me != searcher and (model := _model(game, node)):
                # another role's move, drawn from the model of how it plays, not chosen by UCB1
                actions, summed, kids = model
                action = actions[min(bisect.bisect(summed, rng.random() * summed[-1]), len(actions) - 1)]
                if action in kids:
                    node = kids[action]
                    path.append(node)
                    continue
                node.untried.remove(action)
            elif node.untried:
                action = node.untried.pop(int(rng.random() * len(node.untried)))
            else:
                action = None
            if action is not None:
                child = _Node(game, game.play(node.state, roles[node.me], action), solver, worth)
                if bias:
                    child.prior = _priors(game, node).get(action, 0.0)
                if kids is not None:
                    kids[action] = child
                node.children.append((action, child))
                path.append(child)
                if child.me < 0:
                    goals = child.proven or _values(game, game.goals(child.state), worth)
                else:
                    goals = _values(game, playout(child.state, rng), worth)
                break
            if not node.children:  # terminal, outside the solver
                goals = _values(game, game.goals(node.state), worth)
                break
            node = node.select(bias, exploration)
            path.append(node)
        for visited in path:
            visited.visits += 1
            totals = visited.totals
            for index, value in enumerate(goals):
                totals[index] += value
        if solver and path[-1].proven is not None:
            for parent in reversed(path[:-1]):
                if parent.proven is not None or not parent.try_to_prove():
                    break


def final_choice(root: _Node) -> tuple[Action, _Node]:
    """The move to play: a proven best one when the root is proven, else the most visited among
    those not proven worse than the best proven value (all else failing, any)."""
    me = root.me
    if root.proven is not None:
        best = root.proven[me]
        return max((item for item in root.children if item[1].proven is not None and item[1].proven[me] == best),
                   key=lambda item: item[1].visits)
    floor = max((child.proven[me] for _, child in root.children if child.proven is not None), default=-1)
    open_or_good = [item for item in root.children if item[1].proven is None or item[1].proven[me] >= floor]
    return max(open_or_good or root.children, key=lambda item: (item[1].visits, item[1].proven is not None))


def principal_variation(node: _Node, *, plies: int = LINE_PLIES, least_visits: int = LINE_LEAST_VISITS) -> list[Action]:
    """The line the search expects from ``node``: at each position the move ``final_choice``
    takes there (a proven best one, else the most visited), for at most ``plies`` moves. It
    stops at the end of the game, at a position the tree does not reach beyond, and before a
    reply that rests on fewer than ``least_visits`` rounds (a guess, not what the search
    found); a proven reply is exact whatever its visits, so a proven line follows its proof
    and a forced win's line ends in the win (within ``plies``)."""
    line: list[Action] = []
    while len(line) < plies and node.children:
        action, child = final_choice(node)
        if child.proven is None and child.visits < least_visits:
            break
        line.append(action)
        node = child
    return line


def _practical_choice(game: Game, root: _Node, *, rng: random.Random, level: Level, rounds: int,
                      deadline: float | None) -> Action:
    """``practical``: in a position proven drawn or lost, the move among those that keep the
    proven value that a search without proofs values most (its playouts err as a fallible
    opponent does), searched for what is left of ``rounds`` and of the time."""
    me = root.me
    keeping = [action for action, child in root.children if child.proven is not None
               and child.proven[me] == root.proven[me]]
    if len(keeping) < 2 or (deadline is not None and time.monotonic() >= deadline):
        return final_choice(root)[0]
    fresh = _Node(game, root.state, False, _level_worth(game, root.state, level))
    fresh.untried = keeping
    search(game, fresh, rng=rng, level=replace(level, solver=False), rounds=max(rounds - root.visits, len(keeping)),
           deadline=deadline)
    return max(fresh.children, key=lambda item: item[1].visits)[0]


def choose_action(game: Game, state: Any, *, rng: random.Random, iterations: int = 2000,
                  seconds: float | None = None, level: Level = PLAIN) -> Action:
    """The action the mover of ``state`` should play after at most ``iterations`` rounds of the
    search ``level`` describes, and at most ``seconds`` of thinking when given. Raises
    ``ValueError`` in a terminal state.
    """
    started = time.monotonic()
    if seconds is not None:
        seconds *= level.share
    deadline = None if seconds is None else started + seconds
    mover = game.to_move(state)
    if mover is None:
        raise ValueError("the game is over: there is nothing to choose")
    legal = game.legal_actions(state)
    if len(legal) == 1:
        return legal[0]
    if level.blunder and rng.random() < level.blunder:
        return legal[int(rng.random() * len(legal))]
    if level.solver:
        for action in legal:
            after = game.play(state, mover, action)
            if game.is_terminal(after) and game.goals(after)[mover] >= TOP_GOAL:
                return action
    if level.compiled and deadline is not None and (compiled := _compiled_search(game)) is not None:
        return compiled(game, state, seconds=max(0.0, deadline - time.monotonic()), rounds=iterations,
                        seed_value=int(rng.random() * 2**31), contempt=level.contempt, exploration=level.exploration)
    root = new_root(game, state, level=level)
    if level.wary and len(game.roles) > 2:
        _keep_wary(game, root, mover)
    if level.endgame and root.proven is None:
        clock = seconds is not None
        _solve_children(game, root, rng, started + seconds * ENDGAME_SHARE if clock else None,
                        _level_worth(game, state, level),
                        started + seconds * level.win_share if clock and level.win_share else None)
    search(game, root, rng=rng, level=level, rounds=iterations, deadline=deadline)
    if level.practical and root.proven is not None and root.proven[root.me] < TOP_GOAL:
        return _practical_choice(game, root, rng=rng, level=level, rounds=iterations, deadline=deadline)
    if not level.solver:
        # A move that wins at once is taken without further thought; otherwise the most visited.
        for action, child in root.children:
            if child.me < 0 and game.goals(child.state)[mover] >= TOP_GOAL:
                return action
    return final_choice(root)[0]


def _compiled_search(game: Game) -> Callable[..., Action] | None:
    """``compiled``: the compiled search for ``game``'s rules, if there is one (misère Quarto's,
    ``games.computer.quarto_compiled``), else ``None``. It is imported here, not at the top, so
    that only the processes that think load numba (a thinking process's start loads it anyway,
    ``get_ready``; the web processes never do)."""
    if not isinstance(game, MisereQuarto):
        return None
    from games.computer import quarto_compiled  # noqa: PLC0415 (numba: only where the computer thinks)

    return quarto_compiled.best_move


def _leaves_a_win(game: Game, state: Any, mover: Role, action: Action) -> bool:
    """After ``mover`` plays ``action``, can the next mover leave the role after it (another
    than ``mover``) a move that wins at once, by not blocking it? Two of the next mover's moves
    are tried: a single winning cell is left open by one of them."""
    after = game.play(state, mover, action)
    between = game.to_move(after)
    if between is None:
        return False
    for move in game.legal_actions(after)[:2]:
        later = game.play(after, between, move)
        third = game.to_move(later)
        if third is None or third == mover:
            continue
        for reply in game.legal_actions(later):
            end = game.play(later, third, reply)
            if game.is_terminal(end) and game.goals(end)[third] >= TOP_GOAL:
                return True
    return False


def _keep_wary(game: Game, root: _Node, mover: Role) -> None:
    """``wary``: search only the moves that leave no other role a win that the role moving in
    between would have to block, when there are some such moves."""
    wary = [action for action in root.untried if not _leaves_a_win(game, root.state, mover, action)]
    if wary and len(wary) < len(root.untried):
        root.untried = wary


# -- exact endgame search (``endgame``) -----------------------------------------------------------

class _OutOfTime(Exception):
    pass


def estimated_tree_size(game: Game, state: Any, rng: random.Random, samples: int = 8) -> float:
    """Knuth's estimate of the number of positions in the game tree below ``state``: the mean,
    over random descents, of the sums of the products of the branching factors met."""
    total = 0.0
    for _ in range(samples):
        size, width, position = 1.0, 1.0, state
        while (mover := game.to_move(position)) is not None:
            actions = game.legal_actions(position)
            width *= len(actions)
            size += width
            position = game.play(position, mover, actions[int(rng.random() * len(actions))])
        total += size
    return total / samples


def solve(game: Game, state: Any, *, deadline: float | None = None,
          table: dict[Any, tuple[int, ...]] | None = None, rank: bool = False) -> tuple[int, ...] | None:
    """The exact goals of every role in ``state`` (their ``ranked`` values with ``rank``) when
    each mover maximises its own (the first such move in the rules' order), by depth-first
    search; a move that gives its mover the top value ends the search of its siblings. ``None``
    when ``deadline`` passes first."""
    return _generic(game, state, {} if table is None else table, deadline, worth_for(rank))


def _generic(game: Game, state: Any, table: dict, deadline: float | None, worth: Worth) -> tuple[int, ...] | None:
    try:
        return _exact(game, state, table, deadline, [0], worth)
    except _OutOfTime:
        return None


def _proved(game: Game, state: Any, table: dict, deadline: float | None, worth: Worth) -> tuple[int, ...] | None:
    """``state``'s exact values as ``worth`` has them: by the rules' own search where they have
    one (``Game.EXACT_SEARCH``), else by the generic one; ``None`` when ``deadline`` passes first."""
    if game.EXACT_SEARCH:
        goals = game.exact_goals(state, deadline, table)
        return None if goals is None else _values(game, goals, worth)
    return _generic(game, state, table, deadline, worth)


def _exact(game: Game, state: Any, table: dict, deadline: float | None, count: list[int],
           worth: Worth) -> tuple[int, ...]:
    known = table.get(state)
    if known is not None:
        return known
    count[0] += 1
    if deadline is not None and count[0] % 256 == 0 and time.monotonic() > deadline:
        raise _OutOfTime
    mover = game.to_move(state)
    if mover is None:
        value = _values(game, game.goals(state), worth)
    else:
        me, value = game.roles.index(mover), None
        for action in game.legal_actions(state):
            result = _exact(game, game.play(state, mover, action), table, deadline, count, worth)
            if value is None or result[me] > value[me]:
                value = result
                if value[me] >= TOP_GOAL:
                    break
    table[state] = value
    return value


def _solve_children(game: Game, root: _Node, rng: random.Random, deadline: float | None, worth: Worth,
                    win_by: float | None = None) -> None:
    """Prove the root's children exactly when the tree below looks small enough (``endgame``),
    with one table of the positions the exact search settles for them all. With ``win_by``
    (``win_share``, rules with their own exact search), first look until then for a child from
    which the mover wins, on a tree up to ``WIN_REACH`` times larger."""
    speed = EXACT_TREE_PER_SECOND if game.EXACT_SEARCH else ENDGAME_TREE_PER_SECOND
    size = estimated_tree_size(game, root.state, rng)
    table: dict = {}
    if win_by is not None and game.EXACT_SEARCH and size <= WIN_REACH * speed * (win_by - time.monotonic()):
        _find_win(game, root, table, win_by, worth)
        if root.proven is not None:
            return
    limit = ENDGAME_TREE if deadline is None else speed * (deadline - time.monotonic())
    if size > limit:
        return
    for child in _all_children(game, root, worth):
        if child.proven is None:
            child.proven = _proved(game, child.state, table, deadline, worth)
            if child.proven is None:
                return
        if root.try_to_prove():
            return


def child_of(game: Game, root: _Node, action: Action, *, level: Level) -> _Node:
    """``root``'s child by ``action`` (a legal move), added to the tree unvisited if the search
    never tried it (post-game analysis judges the move a player made, tried or not)."""
    for done, child in root.children:
        if done == action:
            return child
    return _adopt(game, root, action, game.play(root.state, game.roles[root.me], action),
                  _level_worth(game, root.state, level))


def _adopt(game: Game, root: _Node, action: Action, state: Any, worth: Worth) -> _Node:
    """Add ``state``, reached from ``root`` by its untried ``action``, to the tree (unvisited)."""
    child = _Node(game, state, True, worth)
    root.untried.remove(action)
    root.children.append((action, child))
    return child


def _all_children(game: Game, root: _Node, worth: Worth) -> list[_Node]:
    """Every child of ``root``, those not yet in the tree added (unvisited), in the rules' order."""
    mover = game.roles[root.me]
    known = dict(root.children)
    for action in list(root.untried):
        known[action] = _adopt(game, root, action, game.play(root.state, mover, action), worth)
    return list(known.values())


def _find_win(game: Game, root: _Node, table: dict, deadline: float, worth: Worth) -> None:
    """Prove the first child from which the root's mover wins (``Game.exact_win``), and so the
    root, unless ``deadline`` passes first; the other children stay as they were."""
    mover = game.roles[root.me]
    win = _values(game, {role: TOP_GOAL if role == mover else 0 for role in game.roles}, worth)  # two players
    for action, child in list(root.children) + [(action, None) for action in root.untried]:
        if child is not None and child.proven is not None:
            continue
        state = child.state if child is not None else game.play(root.state, mover, action)
        won = game.exact_win(state, mover, deadline, table)
        if won is None:
            return
        if won:
            if child is None:
                child = _adopt(game, root, action, state, worth)
            child.proven = win
            root.try_to_prove()
            return


def give_way(niceness: int) -> None:
    """Run this thread (on Linux a thread has its own nice value; a pool's process has one
    thread that thinks) at ``niceness`` more than now: the scheduler then serves the threads
    that answer people first, and the search takes what is left."""
    if niceness > 0:
        os.nice(niceness)


def get_ready(niceness: int) -> None:
    """A thinking process's (or thread's) start: ``give_way``, then the compiled searches loaded
    (compiled and cached the first time), so that its first move is not late."""
    give_way(niceness)
    from games.computer import quarto_compiled  # noqa: PLC0415 (numba: only where the computer thinks)

    quarto_compiled.warm()


def play_level(game: Game, state: Any, *, level: int, rng: random.Random, seconds: float | None,
               most_rounds: int | None = None) -> Action:
    """The move of the computer at ``level`` (1 to ``STRONGEST``) thinking at most ``seconds``
    and at most ``most_rounds`` rounds (besides the level's own limit)."""
    chosen = LEVELS[level - 1]
    rounds = chosen.rounds if most_rounds is None else min(chosen.rounds, most_rounds)
    return choose_action(game, state, rng=rng, iterations=rounds, seconds=seconds, level=chosen)


def choose_action_from_json(game_slug: str, state_json: Any, *, seed: str, level: int, seconds: float,
                            most_rounds: int | None = None, answer_by: float | None = None) -> Action:
    """``play_level`` from plain values, for a worker process: the position as
    ``Game.state_to_json`` gives it and the seed of its random choices. ``answer_by`` (a
    ``time.time()`` value: the turn was asked for at ``answer_by - seconds``) shortens the
    thinking by the time the turn waited for a free worker, down to ``LEAST_SECONDS``: under
    load the computer thinks less, never longer."""
    if answer_by is not None:
        seconds = min(seconds, max(LEAST_SECONDS, answer_by - time.time()))
    game = get_game(game_slug)
    return play_level(game, game.state_from_json(state_json), level=level, rng=random.Random(seed),
                      seconds=seconds, most_rounds=most_rounds)
