"""Play random games through a GDL sheet and through ``games.rules`` side by side.

Both sides keep their own state: the rules from ``initial_state`` and ``next_state``, the
reasoner from ``initial`` and ``next``; ``moves`` only translates. At every state the two
must agree on the state's facts, on terminal, on every role's legal moves (while the game
runs) and on every role's goal (once it is over). A difference is recorded with the game,
the step and what each side said; the game stops there.

Example::

    >>> report = compare("tictactoe-3player", games=1, seed=7)
    >>> report.mismatches, report.games
    ([], 1)
"""

from __future__ import annotations

import itertools
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from games.ggp.gdl import moves
from games.ggp.gdl.reasoner import Reasoner
from games.ggp.gdl.sheets import sheet_text
from games.rules import Game, get_game


@dataclass
class Report:
    slug: str
    games: int = 0
    states: int = 0
    mismatches: list[str] = field(default_factory=list)
    seconds_per_state: list[float] = field(default_factory=list)  # the reasoner's time for each state
    outcomes: Counter = field(default_factory=Counter)  # goals of the finished games, in role order
    kinds: Counter = field(default_factory=Counter)  # actions played, by kind (play, swap, select ...)
    fresh_groundings: int = 0  # questions outside the sheet's base/input (0 for a complete sheet)


def compare(slug: str, *, games: int, seed: int, gdl_text: str | None = None) -> Report:
    """Play ``games`` random games of ``slug`` (seeded) through both; ``gdl_text`` replaces the sheet."""
    rng = random.Random(seed)
    return _run(slug, gdl_text, [lambda game, state: pick(game.legal_actions(state), rng)] * games)


def compare_line(slug: str, actions: list[str], *, gdl_text: str | None = None) -> Report:
    """Play one given game (the actions of the roles in control, in order) through both."""
    plies = iter(actions)
    return _run(slug, gdl_text, [lambda game, state: next(plies)])


def compare_state(slug: str, state: Any, *, gdl_text: str | None = None) -> Report:
    """Compare one state of the rules (built, say, with ``state_from_json``) with the sheet's
    answers for its facts: terminal, then legal moves or goals."""
    report = Report(slug, states=1)
    reasoner = Reasoner(sheet_text(slug) if gdl_text is None else gdl_text)
    problem = difference(get_game(slug), reasoner, state, moves.state_facts(slug, state))
    if problem is not None:
        report.mismatches.append(f"{slug} the given state: {problem}")
    return report


def _run(slug: str, gdl_text: str | None, players: list[Callable[[Game, Any], str]]) -> Report:
    game = get_game(slug)
    reasoner = _Timed(Reasoner(sheet_text(slug) if gdl_text is None else gdl_text))
    report = Report(slug)
    if reasoner.roles != list(game.roles):
        report.mismatches.append(f"roles: rules {list(game.roles)}, sheet {reasoner.roles}")
        return report
    for number, choose in enumerate(players):
        report.games += 1
        state, facts = game.initial_state(), reasoner.initial()
        for step in itertools.count():
            report.states += 1
            reasoner.seconds = 0.0
            problem = difference(game, reasoner, state, facts)
            terminal = game.is_terminal(state)
            if problem is None and not terminal:
                action = choose(game, state)
                report.kinds[_kind(action)] += 1
                facts = reasoner.next(facts, moves.joint(slug, state, action))
                state = game.next_state(state, game.joint(state, action))
            report.seconds_per_state.append(reasoner.seconds)
            if problem is not None:
                report.mismatches.append(f"{slug} game {number + 1} step {step}: {problem}")
                break
            if terminal:
                report.outcomes[tuple(game.goals(state)[role] for role in game.roles)] += 1
                break
    report.fresh_groundings = reasoner.reasoner.fresh_groundings
    return report


def pick(actions: list[str], rng: random.Random) -> str:
    """A random action: a kind first (the action's first word: play, swap, select ...), then one
    of that kind, so a rare kind such as the pie swap (one action among 81) comes up often."""
    kinds: dict[str, list[str]] = {}
    for action in actions:
        kinds.setdefault(_kind(action), []).append(action)
    return rng.choice(kinds[rng.choice(sorted(kinds))])


def _kind(action: str) -> str:
    return action.strip("(").split(" ", 1)[0]


class _Timed:
    """The reasoner with the time spent in it added up in ``seconds``."""

    def __init__(self, reasoner: Reasoner) -> None:
        self.reasoner = reasoner
        self.roles = reasoner.roles
        self.seconds = 0.0

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self.reasoner, name)

        def timed(*args: Any) -> Any:
            started = time.perf_counter()
            try:
                return method(*args)
            finally:
                self.seconds += time.perf_counter() - started
        return timed


def difference(game: Game, reasoner: Any, state: Any, facts: frozenset[str]) -> str | None:
    """What the rules (in ``state``) and the sheet (in ``facts``) disagree on, or None."""
    expected = moves.state_facts(game.slug, state)
    if expected != facts:
        return (f"state facts differ: only in the rules {sorted(expected - facts)}, "
                f"only in the sheet {sorted(facts - expected)}")
    terminal = game.is_terminal(state)
    if reasoner.terminal(facts) != terminal:
        return f"terminal: rules {terminal}, sheet {not terminal}"
    for role in game.roles:
        if terminal:
            rules_goal = game.goals(state)[role]
            try:
                sheet_goal = reasoner.goal(facts, role)
            except ValueError as err:
                return f"goal of {role}: rules {rules_goal}, sheet: {err}"
            if rules_goal != sheet_goal:
                return f"goal of {role}: rules {rules_goal}, sheet {sheet_goal}"
            continue
        rules_moves = {moves.to_gdl(game.slug, state, role, action) for action in game.legal_moves(state, role)}
        sheet_moves = set(reasoner.legal(facts, role))
        if rules_moves != sheet_moves:
            return (f"legal moves of {role}: only in the rules {sorted(rules_moves - sheet_moves)}, "
                    f"only in the sheet {sorted(sheet_moves - rules_moves)}")
    return None
