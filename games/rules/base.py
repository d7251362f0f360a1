"""The one interface every game implements, and the vocabulary around it.

Everything here is pure Python with no imports outside the standard library, so the
rules can be used (and tested, and benchmarked) without Django.

The GGP surface (``roles``, ``initial_state``, ``legal_moves``, ``next_state``,
``is_terminal``, ``goals``) is what RULES.md fixes. Everything else (whose turn it is,
single-role ``play``, replay, JSON, drawing data, outcome, notation) is built once here
on top of a few per-game hooks, so the server, the interface and the computer player
never branch on which game it is.

Example::

    >>> from games.rules import get_game
    >>> game = get_game("tictactoe-3player")
    >>> state = game.play(game.initial_state(), "xplayer", "(mark 3 3)")
    >>> game.to_move(state)
    'oplayer'
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

Role = str
Action = str  # GDL text, e.g. "(play 1 2 3 1 x)"
Joint = Mapping[Role, Action]
NOOP: Action = "noop"
NUMBER = r"-?[1-9][0-9]*|0"  # a whole number in an action: ASCII digits, no leading zeros
MAX_ACTION_LENGTH = 40  # the longest action text a match stores (games.models.Move.action)
_GDL_SPACE = re.compile(r"[ \t\r\n]+")
_ODD_SPACING = re.compile(r"[\t\r\n]|  |\( | \)|^ | $")


class RulesError(ValueError):
    """Base of every refusal. ``code`` is a stable machine word, ``str(err)`` is for people.

    Raised as such (code ``bad_state``) by ``state_from_json`` for data that is not a state.

    A refused action never changes anything: states are immutable values.
    """

    code = "illegal_action"

    def __init__(self, message: str, *, code: str | None = None, role: Role | None = None,
                 action: Action | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.role = role
        self.action = action


class NotAnAction(RulesError):
    """The text is not an action of this game at all (codes ``not_an_action``, ``out_of_range``)."""

    code = "not_an_action"


class IllegalAction(RulesError):
    """A well-formed action that the rules forbid here.

    Codes: ``not_your_turn``, ``must_act`` (noop from the role in control), ``game_over``,
    ``wrong_marker``, ``cell_occupied``, ``wrong_sub_board``, ``swap_unavailable``,
    ``piece_not_in_pool``, ``wrong_piece``, ``wrong_phase``, ``unknown_role``.
    """

    code = "illegal_action"


class GameNotOver(RulesError):
    """``goals``/``outcome`` asked of a state that is not terminal."""

    code = "game_not_over"


def gdl_fold(action: object) -> str:
    """``action`` with GDL's latitude folded away: runs of ASCII whitespace as one space, none
    after ``(`` or before ``)`` or at the ends, lower case. Raises ``NotAnAction`` for what is not
    ASCII text of at most ``MAX_ACTION_LENGTH`` characters (Unicode spaces or digits included).

    Example::

        >>> gdl_fold("( MARK  3\t3 )")
        '(mark 3 3)'
    """
    if not isinstance(action, str):
        raise NotAnAction(f"an action is text, not {type(action).__name__}")
    if len(action) > MAX_ACTION_LENGTH:
        raise NotAnAction(f"an action has at most {MAX_ACTION_LENGTH} characters; this one has {len(action)}")
    if not action.isascii():
        raise NotAnAction(f"{action!r} is not an action: actions use ASCII letters, digits, spaces and brackets",
                          action=action)
    if action.islower() or not any(c.isupper() for c in action):
        if not _ODD_SPACING.search(action):
            return action
    text = _GDL_SPACE.sub(" ", action).strip(" ").lower()
    return text.replace("( ", "(").replace(" )", ")")


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended, in data and in words."""

    scores: dict[Role, int]
    winners: tuple[Role, ...]  # roles with the top score; empty when every score is equal
    reason: str  # for people: "xPlayer completed a line in sub-board (2, 2)"
    line: tuple[int, ...] = ()  # cell indexes (as in ``view``) of the line that ended it

    @property
    def is_draw(self) -> bool:
        return not self.winners

    def to_json(self) -> dict[str, Any]:
        return {"scores": dict(self.scores), "winners": list(self.winners),
                "draw": self.is_draw, "reason": self.reason, "line": list(self.line)}


@dataclass(frozen=True)
class GameInfo:
    """Registry data for the lobby."""

    slug: str
    name: str
    roles: tuple[Role, ...]
    family: str  # which board the interface draws: "nine-board", "three-player", "quarto"
    summary: str
    variant_of: str | None = None  # slug of the game this one is a variant of (its own rules)
    variant_name: str = "standard rules"  # how the lobby names these rules among the game's variants

    @property
    def players(self) -> int:
        return len(self.roles)


class Game(ABC):
    """One rule set. Subclasses implement the hooks marked abstract; the rest is shared.

    States are immutable, hashable values of a per-game type; treat them as opaque outside
    the game and use ``state_to_json``/``view`` at the boundary.
    """

    info: GameInfo

    # -- identity -------------------------------------------------------------------------
    @property
    def slug(self) -> str:
        return self.info.slug

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def roles(self) -> tuple[Role, ...]:
        return self.info.roles

    # -- per-game hooks ---------------------------------------------------------------------
    @abstractmethod
    def initial_state(self) -> Any: ...

    @abstractmethod
    def to_move(self, state: Any) -> Role | None:
        """The role in control, or None when the state is terminal."""

    @abstractmethod
    def legal_actions(self, state: Any) -> list[Action]:
        """Legal actions of the role in control (empty when terminal)."""

    @abstractmethod
    def parse(self, action: Action) -> Any:
        """What a canonical action means, in the game's own terms; ``NotAnAction`` otherwise.

        Numbers are ASCII digits without leading zeros (``gdl_fold`` has removed the latitude).
        """

    @abstractmethod
    def apply(self, state: Any, role: Role, action: Action) -> Any:
        """Validate ``action`` (canonical, see ``canonical_action``) for ``role`` (the role in
        control) and return the next state.

        Raises ``NotAnAction`` or ``IllegalAction`` with the specific code.
        """

    @abstractmethod
    def is_terminal(self, state: Any) -> bool: ...

    @abstractmethod
    def outcome(self, state: Any) -> Outcome:
        """The outcome of a terminal state; raises ``GameNotOver`` otherwise."""

    @abstractmethod
    def state_to_json(self, state: Any) -> dict[str, Any]: ...

    @abstractmethod
    def state_from_json(self, data: Mapping[str, Any]) -> Any:
        """Inverse of ``state_to_json``; raises ``RulesError`` for data that is not a state."""

    @abstractmethod
    def view(self, state: Any) -> dict[str, Any]:
        """Everything the interface needs to draw the position (see docs/architecture.md)."""

    @abstractmethod
    def action_label(self, action: Action) -> str:
        """Readable notation for a move list, e.g. "x B2 c1" or "select tall dark square hollow".

        Raises ``NotAnAction`` for text that is not an action of this game (``noop`` included).
        """

    @abstractmethod
    def random_playout(self, state: Any, rng: random.Random) -> dict[Role, int]:
        """Play uniformly random legal actions from ``state`` to the end; return the goals.

        This is the computer player's hot loop: implementations use compact internal forms.
        """

    def tactical_playout(self, state: Any, rng: random.Random) -> dict[Role, int]:
        """Like ``random_playout``, but each mover takes a win in one when it has one and
        otherwise avoids handing the next mover one where it can (the game says how); random
        among the rest. The strong levels' playouts. By default plain ``random_playout``.
        """
        return self.random_playout(state, rng)

    # An exact endgame search of the rules' own, faster than the computer's generic one over
    # ``play`` and ``legal_actions``: two-player games whose ends are a win or a draw only, so
    # that best play for one's own goal is best play for first place.
    EXACT_SEARCH = False

    def exact_goals(self, state: Any, deadline: float | None = None,
                    table: dict | None = None) -> dict[Role, int] | None:
        """Each role's goal under best play from ``state`` (``EXACT_SEARCH`` games only);
        ``None`` when ``deadline`` (a ``time.monotonic()`` value) passes first. ``table`` may
        be shared by calls on positions of one game, to reuse what they found."""
        raise NotImplementedError

    def exact_win(self, state: Any, role: Role, deadline: float | None = None,
                  table: dict | None = None) -> bool | None:
        """Whether ``role`` wins from ``state`` under best play (``EXACT_SEARCH`` games only): a
        narrower question than ``exact_goals``, settled sooner; ``None`` when ``deadline``
        passes first. ``table`` may be shared with ``exact_goals`` on positions of one game."""
        raise NotImplementedError

    def move_priors(self, state: Any) -> list[float] | None:
        """A hint of how promising each of ``legal_actions(state)`` looks before any search, in
        that order, from 0 to 1; ``None`` when the game gives none (the default). The search's
        progressive bias uses it; it must be cheap, and is never a rule.
        """
        return None

    def others_model(self, state: Any) -> list[float] | None:
        """How likely an opponent of the kind the computer is measured against (a plain UCT
        search, ``benchmarks/uct.py``) is to play each of ``legal_actions(state)``, in that
        order, summing to 1; ``None`` when the game has no such model (the default). Fitted to
        recorded moves (``benchmarks/uct_model.py``); the search's ``model_others`` samples the
        other roles' moves from it. Cheap, and never a rule.
        """
        return None

    # -- the GGP surface, shared ------------------------------------------------------------
    def legal_moves(self, state: Any, role: Role) -> list[Action]:
        """GGP legal moves of ``role``: ``["noop"]`` while waiting, ``[]`` when terminal."""
        self._check_role(role)
        mover = self.to_move(state)
        if mover is None:
            return []
        if role != mover:
            return [NOOP]
        return self.legal_actions(state)

    def next_state(self, state: Any, joint: Joint) -> Any:
        """Apply one GGP step: exactly one action for every role, noop for the waiting ones."""
        if set(joint) != set(self.roles):
            raise IllegalAction(
                f"a step needs one action for each of {', '.join(self.roles)}; got {', '.join(joint) or 'none'}",
                code="unknown_role")
        mover = self.to_move(state)
        if mover is None:
            raise IllegalAction("the game is already over", code="game_over")
        for role in self.roles:
            if role != mover and joint[role] != NOOP:
                raise IllegalAction(f"{role} may only play noop now, not {joint[role]!r}: it is {mover}'s turn",
                                    code="not_your_turn", role=role, action=joint[role])
        return self.play(state, mover, joint[mover])

    def goals(self, state: Any) -> dict[Role, int]:
        """Scores of a terminal state; raises ``GameNotOver`` before the end."""
        return dict(self.outcome(state).scores)

    def outcome_without(self, state: Any, out: Iterable[Role]) -> Outcome:
        """The outcome of a terminal state reached after the roles in ``out`` left play (they
        resigned while the others played on, their turns played at random): they score 0, the
        winners are the top scorers among the rest. A game whose reason names a role's line
        (the three-player game) overrides this so that the reason credits no role in ``out``;
        saying how they left is the caller's part."""
        outcome = self.outcome(state)
        out = set(out)
        scores = {role: 0 if role in out else score for role, score in outcome.scores.items()}
        top = max(scores.values())
        winners = () if min(scores.values()) == top else tuple(r for r in self.roles if scores[r] == top)
        return Outcome(scores=scores, winners=winners, reason=outcome.reason, line=outcome.line)

    # -- built on top, shared ---------------------------------------------------------------
    def canonical_action(self, action: object) -> Action:
        """The one spelling of ``action`` that is stored and shown: GDL's latitude (ASCII
        whitespace, case) folded, checked to be an action of this game. Raises ``NotAnAction``
        (code ``not_an_action`` or ``out_of_range``) for anything else: other spellings of
        numbers or spaces, other scripts' digits, text over ``MAX_ACTION_LENGTH`` characters.

        Example::

            >>> from games.rules import get_game
            >>> get_game("tictactoe-3player").canonical_action("( MARK 3  3 )")
            '(mark 3 3)'
        """
        text = gdl_fold(action)
        self.parse(text)
        return text

    def play(self, state: Any, role: Role, action: Action) -> Any:
        """One role's action, the noops of the others implied. Raises a ``RulesError``.

        ``action`` may use GDL's latitude (see ``canonical_action``); ``Move.action`` should
        keep ``canonical_action(action)``.
        """
        self._check_role(role)
        mover = self.to_move(state)
        if mover is None:
            raise IllegalAction(f"{role} cannot play {action!r}: the game is already over",
                                code="game_over", role=role, action=action)
        if role != mover:
            raise IllegalAction(f"{role} cannot play {action!r}: it is {mover}'s turn",
                                code="not_your_turn", role=role, action=action)
        if action == NOOP:
            raise IllegalAction(f"{role} is in control and must act, not noop",
                                code="must_act", role=role, action=action)
        return self.apply(state, role, gdl_fold(action))

    def joint(self, state: Any, action: Action) -> dict[Role, Action]:
        """The GGP joint move in which the role in control plays ``action``."""
        mover = self.to_move(state)
        return {role: (action if role == mover else NOOP) for role in self.roles}

    def replay(self, actions: Iterable[Action]) -> Any:
        """Rebuild a state from the actions of the roles in control, one per step."""
        state = self.initial_state()
        for action in actions:
            mover = self.to_move(state)
            if mover is None:
                raise IllegalAction(f"{action!r} comes after the end of the game", code="game_over", action=action)
            state = self.play(state, mover, action)
        return state

    def _check_role(self, role: Role) -> None:
        if role not in self.roles:
            raise IllegalAction(f"{role!r} is not a role of {self.slug} ({', '.join(self.roles)})",
                                code="unknown_role", role=role)


@dataclass
class Registry:
    """Games by slug."""

    games: dict[str, Game] = field(default_factory=dict)

    def add(self, game: Game) -> Game:
        self.games[game.slug] = game
        return game

    def get(self, slug: str) -> Game:
        try:
            return self.games[slug]
        except KeyError:
            raise KeyError(f"no game {slug!r}; known games: {', '.join(sorted(self.games))}") from None
