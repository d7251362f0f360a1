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

import random
import time
from dataclasses import dataclass, field

from games.ggp.gdl import moves
from games.ggp.gdl.reasoner import Reasoner
from games.ggp.gdl.sheets import sheet_text
from games.rules import get_game


@dataclass
class Report:
    slug: str
    games: int = 0
    states: int = 0
    mismatches: list[str] = field(default_factory=list)
    seconds_per_state: list[float] = field(default_factory=list)  # the reasoner's time for each state


def compare(slug: str, *, games: int, seed: int, gdl_text: str | None = None) -> Report:
    """Play ``games`` random games of ``slug`` (seeded) through both; ``gdl_text`` replaces the sheet."""
    game = get_game(slug)
    reasoner = Reasoner(sheet_text(slug) if gdl_text is None else gdl_text)
    report = Report(slug)
    rng = random.Random(seed)
    if reasoner.roles != list(game.roles):
        report.mismatches.append(f"roles: rules {list(game.roles)}, sheet {reasoner.roles}")
        return report
    for number in range(games):
        report.games += 1
        state, facts = game.initial_state(), reasoner.initial()
        for step in range(200):
            report.states += 1
            started = time.perf_counter()
            problem = _difference(game, reasoner, state, facts)
            if problem is None and not game.is_terminal(state):
                action = rng.choice(game.legal_actions(state))
                joint = game.joint(state, action)
                gdl_joint = moves.joint(slug, state, action)
                facts = reasoner.next(facts, gdl_joint)
                report.seconds_per_state.append(time.perf_counter() - started)
                state = game.next_state(state, joint)
                continue
            report.seconds_per_state.append(time.perf_counter() - started)
            if problem is not None:
                report.mismatches.append(f"{slug} game {number + 1} step {step}: {problem}")
            break
    return report


def _difference(game, reasoner: Reasoner, state, facts: frozenset[str]) -> str | None:
    """What the two sides disagree on in this state, or None."""
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
