"""Matches in the GGP match format (the match JSON of ggp.org's match servers), both ways.

Pure functions over the rules: no Django, no database. ``ggp_dump`` turns a ``MatchRecord``
into the GGP dict; ``ggp_load`` checks a GGP dict against the rules and returns the record.

The keys written, as in ggp-base's ``Match.toJSON``:

- ``matchId``, ``randomToken``, ``startTime`` (ms since the epoch), ``gameMetaURL`` (the rule
  set's GGP game address, ``/rules/<slug>/v<version>/``: its metadata, with the sheet beside it
  as ggp.org's game repository serves them), ``playerNamesFromHost``
  (display names in role order, ``""`` for a free seat), ``isPlayerHuman`` (role order:
  true for a person; false for the computer, a GGP player, a bot account and a free seat;
  left out for an imported match whose file did not say),
  ``isCompleted``, ``isAborted``, ``goalValues`` (role order, only when completed);
- ``moves``: one list per step with one GDL action per role in role order, ``noop`` for
  the roles not in control (the rules' ``joint`` move);
- ``states``: one more than ``moves``; state *n* is the position after *n* steps, written as
  the true facts of the rule set's GDL sheet (the one served at ``/rules/<slug>.kif`` and
  sent to GGP players), sorted (see ``state_gdl``), so a GGP tool can replay the moves
  against the sheet and compare; reading accepts them in any order and the older spelling
  (``legacy_state_gdl``);
- ``stateTimes``: ms since the epoch for every state (state 0: ``startTime``);
- ``errors``: per state, per role, what went wrong in getting the move that led to it, ``""``
  when nothing did (a replaced move's reason, ``: `` and what the player answered);
- ``startClock`` and ``playClock``: seconds (0 when the time control has no GGP equivalent).

No value is ``null``: ggp.org's spectator server refuses a match holding one.

Boardhall additions, since there is no ``gameMetaURL`` for these rule books: ``gameSlug``
(the game, as in ``games.rules.get_game``), ``gameName``, ``matchRoles`` (the roles in
order; the older ggp-base key ``gameRoleNames`` is written too and accepted on reading),
and ``resigned`` (roles that resigned, only when someone did: their goal is 0),
``timeControl`` (``games.match.clocks.TimeControl.code``: "untimed", "5+3", "d2") and
``endReason`` (how the match ended, in words, when it did), ``replacedMoves`` (only when a
GGP seat's move was replaced, or a person's per-move play clock ran out: one
``{"move", "role", "reason", "answer"}`` per such step, ``move`` its index in ``moves``,
``reason`` one of ``late``, ``illegal``, ``silent``, ``lost``, ``answer`` what the player
sent or, when nothing came, why). GGP's ``startClock`` and
``playClock`` (seconds before the first move and per move) are the per-move control's own
(``m30/10``: 30 and 10); correspondence's days per move are written as both; an untimed match
and a Fischer clock (base plus increment), which has no GGP equivalent, write 0 for both: the
clock is in ``timeControl``. Reading ignores these keys, except
``isPlayerHuman``: kept when it is one true or false per role, ignored otherwise.
The history's export adds ``analysis`` once the match has been analysed (``rounds``,
``thresholds``, per state ``stateScores`` in role order, ``bestMoves`` (``""`` at the end) and
``bestLines`` (the search's expected line from the best move on, GDL actions; left out for an
analysis stored before lines were), per step ``moveLosses`` and ``moveMarks`` (``""`` for an
unmarked move); scores on the goals' 0 to 100
scale; left out while fair play withholds an imported match's analysis: a live match stands at
one of its positions); reading ignores it.

Example::

    >>> record = MatchRecord(game_slug="tictactoe-3player", match_id="7", random_token="t",
    ...                      start_ms=0, names=("a", "b", "c"), steps=(), state_times_ms=(0,),
    ...                      completed=False)
    >>> ggp_dump(record=record)["moves"]
    []
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from games.ggp.gdl import kif, moves
from games.match.text import TextRefused, text_clean
from games.rules import get_game
from games.rules.base import Game, RulesError

IMPORTED_NAME_MAX = 60
MATCH_ID_MAX = 100
# Times a file may carry, in ms since 1970: up to the last moment of the year 9999 (Python's
# datetime ends there).
LATEST_MS = 253402300799999

Step = tuple[str, str]  # (role in control, its action)
Replaced = tuple[int, str, str, str]  # (index in moves, role, reason, what the player answered)


class GGPFormatError(ValueError):
    """A file that is not a valid match of this site; ``str(err)`` says why, for people."""


@dataclass(frozen=True)
class MatchRecord:
    """A match as the GGP format carries it. ``steps`` hold the mover's action of each step."""

    game_slug: str
    match_id: str
    random_token: str
    start_ms: int
    names: tuple[str | None, ...]  # role order
    steps: tuple[Step, ...]
    state_times_ms: tuple[int, ...]  # one per state: len(steps) + 1
    completed: bool
    aborted: bool = False
    goals: tuple[int, ...] | None = None  # role order, when completed
    resigned: tuple[str, ...] = ()
    time_control: str = "untimed"  # games.match.clocks.TimeControl.code
    reason: str = ""
    humans: tuple[bool, ...] | None = None  # role order; None: not known (an import that did not say)
    replaced: tuple[Replaced, ...] = ()


# -- states as GDL facts ----------------------------------------------------------------------

def _cell_coordinates(family: str, index: int) -> tuple[int, ...]:
    if family == "nine-board":
        return (index // 27 + 1, index // 9 % 3 + 1, index // 3 % 3 + 1, index % 3 + 1)
    if family == "three-player":
        return (index // 5 + 1, index % 5 + 1)
    if family == "quarto":
        return (index % 4 + 1, index // 4 + 1)  # (x, y): column, row
    raise ValueError(f"unknown board family {family!r}")


STATE_MAX_LENGTH = 20_000  # characters of one state read from a file; the largest (nine-board) is under 2,000


def state_gdl(game: Game, state: Any) -> str:
    """The position as its GDL sheet's true facts, sorted, e.g.
    ``((cell 1 1 b) ... (control xplayer))``.

    The facts are those of the sheet the site sends to GGP players (``games/ggp/gdl/sheets``):
    ``games.ggp.gdl.moves.state_facts``, which the GDL equality tests show equal to what the
    sheet's reasoner holds after the same moves, at every step up to and including the end.
    """
    return f"({' '.join(sorted(moves.state_facts(game.slug, state)))})"


def legacy_state_gdl(game: Game, state: Any) -> str:
    """The position as exports wrote it before they used the sheets' terms (still read on import):
    cells, ``control`` (not at the end), one ``marker`` per role, ``currentboard i j``
    (nine-board), ``pool``, ``selected`` and ``phase`` (Quarto)."""
    view = game.view(state)
    family = view["family"]
    facts = [f"(cell {' '.join(map(str, _cell_coordinates(family, i)))} {mark or 'b'})"
             for i, mark in enumerate(view["cells"])]
    if view.get("to_move"):
        facts.append(f"(control {view['to_move']})")
    facts += [f"(marker {role} {mark})" for role, mark in view.get("markers", {}).items()]
    if view.get("sub_board"):
        facts.append("(currentboard {} {})".format(*view["sub_board"]))
    facts += [f"(pool {piece})" for piece in view.get("pool", [])]
    if view.get("selected"):
        facts.append(f"(selected {view['selected']})")
    if view.get("phase") and view.get("to_move"):
        facts.append(f"(phase {view['phase']})")
    return f"({' '.join(facts)})"


def state_matches(game: Game, text: str, state: Any) -> bool:
    """Whether ``text`` (a file's state) is ``state``: the sheet's facts in any order, spacing and
    case (GDL ignores case), or the text older exports wrote (``legacy_state_gdl``)."""
    if gdl_normalize(text) == legacy_state_gdl(game, state):
        return True
    try:
        term = kif.parse_term(text, max_length=STATE_MAX_LENGTH)
    except kif.KifError:
        return False
    if not isinstance(term, tuple):
        return False
    given = [kif.to_text(fact).lower() for fact in term]
    expected = {fact.lower() for fact in moves.state_facts(game.slug, state)}
    return len(given) == len(expected) and set(given) == expected


def gdl_normalize(text: str) -> str:
    """GDL text in this site's spelling: ``( mark 1 1 )`` (ggp-base's spacing) -> ``(mark 1 1)``."""
    text = " ".join(text.split())
    return re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", text))


# -- outcome ----------------------------------------------------------------------------------

def record_outcome(game: Game, state: Any, resigned: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """The result of a match that ended in ``state`` (``Match.result`` shape), or None if it has not.

    A resigned role scores 0. When at most one role has not resigned the match ends at once
    (the others 100); otherwise play went on to a terminal state.
    """
    if game.is_terminal(state):
        outcome = game.outcome_without(state, resigned).to_json()
        if not resigned:
            return outcome
        outcome["reason"] += f"; {' and '.join(sorted(resigned))} resigned"
    elif resigned and len(game.roles) - len(resigned) <= 1:
        outcome = {"scores": {role: (0 if role in resigned else 100) for role in game.roles},
                   "reason": f"{' and '.join(sorted(resigned))} resigned", "line": []}
    else:
        return None
    outcome["resigned"] = sorted(resigned)
    scores = outcome["scores"]
    top = max(scores.values())
    winners = [] if len(set(scores.values())) == 1 else [r for r in game.roles if scores[r] == top]
    outcome["winners"], outcome["draw"] = winners, not winners
    return outcome


# -- dump -------------------------------------------------------------------------------------

def ggp_dump(*, record: MatchRecord, game_meta_url: str = "") -> dict[str, Any]:
    """The GGP match dict of ``record``, states rebuilt by the rules; ``game_meta_url`` the rule
    set's GGP game address (written as ``gameMetaURL`` when given).

    Raises ``RulesError`` if a stored step is not legal (the database would be inconsistent).
    """
    game = get_game(record.game_slug)
    state = game.initial_state()
    states, moves = [state_gdl(game, state)], []
    for role, action in record.steps:
        joint = game.joint(state, action)
        if joint.get(role) != action:
            raise RulesError(f"stored step {len(moves) + 1}: {role} was not in control", code="not_your_turn")
        state = game.next_state(state, joint)
        moves.append([joint[r] for r in game.roles])
        states.append(state_gdl(game, state))
    data: dict[str, Any] = {
        "matchId": record.match_id,
        "randomToken": record.random_token,
        "startTime": record.start_ms,
        "gameSlug": game.slug,
        "gameName": game.name,
        "matchRoles": list(game.roles),
        "gameRoleNames": list(game.roles),
        "playerNamesFromHost": [name or "" for name in record.names],
        "isPlayerHuman": list(record.humans or ()),
        "moves": moves,
        "states": states,
        "stateTimes": list(record.state_times_ms),
        "isCompleted": record.completed,
        "isAborted": record.aborted,
        "errors": _errors(game, len(states), record.replaced),
        "startClock": 0,
        "playClock": 0,
    }
    if game_meta_url:
        data["gameMetaURL"] = game_meta_url
    if record.humans is None:
        del data["isPlayerHuman"]
    if record.completed and record.goals is not None:
        data["goalValues"] = list(record.goals)
    if record.resigned:
        data["resigned"] = list(record.resigned)
    data["timeControl"] = record.time_control
    days = re.fullmatch(r"d(\d+)", record.time_control)
    per_move = re.fullmatch(r"m(\d+)/(\d+)", record.time_control)
    if days:
        data["startClock"] = data["playClock"] = int(days[1]) * 86_400
    elif per_move:  # the GGP way itself: a start clock and a play clock
        data["startClock"], data["playClock"] = int(per_move[1]), int(per_move[2])
    if record.reason:
        data["endReason"] = record.reason
    if record.replaced:
        data["replacedMoves"] = [{"move": move, "role": role, "reason": reason, "answer": answer}
                                 for move, role, reason, answer in record.replaced]
    return data


def _errors(game: Game, states: int, replaced: tuple[Replaced, ...]) -> list[list[str]]:
    """ggp-base's ``errors``: per state, per role, what went wrong in getting the move that led
    to it ("" when nothing did): a replaced move's reason, and what the player answered."""
    errors = [[""] * len(game.roles) for _ in range(states)]
    for move, role, reason, answer in replaced:
        if 0 <= move < states - 1 and role in game.roles:
            errors[move + 1][game.roles.index(role)] = f"{reason}: {answer}" if answer else reason
    return errors


# -- load -------------------------------------------------------------------------------------

def import_key(*, game_slug: str, names: dict[str, str], steps: Iterable[Step], start_ms: int) -> str:
    """What makes two imported files the same match: a sha256 of the game, the players' names
    (role -> name, as ``result["imported_names"]`` keeps them), the steps and the start time (ms
    since the epoch, 0 when the file has none). The ``matchId`` is not part of it: a file without
    one, or with another, is still the same match.

    >>> len(import_key(game_slug="quarto", names={}, steps=[("white", "(select 1)")], start_ms=0))
    64
    """
    content = json.dumps([game_slug, names, [list(step) for step in steps], start_ms],
                         sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(content.encode()).hexdigest()


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _string_list(data: dict[str, Any], key: str, length: int | None = None) -> list[str] | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise GGPFormatError(f"'{key}' must be a list of texts.")
    if length is not None and len(value) != length:
        raise GGPFormatError(f"'{key}' must have {length} entries, one per role; it has {len(value)}.")
    return value


def _time_ms(value: Any, key: str) -> int:
    if not _is_int(value) or not 0 <= value <= LATEST_MS:
        raise GGPFormatError(f"'{key}' must be a time in milliseconds between 1970 and the year 9999; "
                             f"it is {str(value)[:30]}.")
    return value


def _clean(value: Any, key: str, max_length: int) -> str:
    try:
        return text_clean(value, max_length=max_length, what=f"'{key}'")
    except TextRefused as err:
        raise GGPFormatError(str(err)) from None


def _check_texts(data: Any, max_depth: int = 8) -> None:
    """Refuse a file nested deeper than a match ever is, or holding text no page can show
    (unpaired surrogates, NUL): every message and page below may quote the file's texts."""
    pending = [(data, 0)]
    while pending:
        value, depth = pending.pop()
        if depth > max_depth:
            raise GGPFormatError(f"The file is nested more than {max_depth} levels deep; a match never is.")
        if isinstance(value, dict):
            pending += [(item, depth + 1) for pair in value.items() for item in pair]
        elif isinstance(value, list):
            pending += [(item, depth + 1) for item in value]
        elif isinstance(value, str) and ("\x00" in value or any(0xD800 <= ord(c) <= 0xDFFF for c in value)):
            raise GGPFormatError("The file holds broken text (a NUL character or an unpaired surrogate).")


def ggp_load(*, data: Any) -> tuple[MatchRecord, Any]:
    """Check a GGP match dict against the rules; return the record and the final state.

    Every step is replayed with ``Game.next_state``; the file is refused (``GGPFormatError``)
    for an unknown game, roles other than the game's, a malformed or illegal joint move,
    moves after the end, states that differ from the rules' positions, a match that is not
    completed (or aborted), or goal values other than the rules' goals.
    """
    if not isinstance(data, dict):
        raise GGPFormatError("The file must hold one JSON object (a GGP match).")
    _check_texts(data)
    slug = data.get("gameSlug")
    if not isinstance(slug, str) or not slug:
        raise GGPFormatError("The file does not say which game it is ('gameSlug' is missing).")
    try:
        game = get_game(slug)
    except KeyError:
        raise GGPFormatError(f"Unknown game {slug!r}: this site plays no game by that name.") from None
    roles = list(game.roles)
    for key in ("matchRoles", "gameRoleNames"):
        given = _string_list(data, key)
        if given is not None and given != roles:
            raise GGPFormatError(f"Wrong roles in '{key}': {game.name} has the roles {', '.join(roles)} "
                                 f"in that order, the file says {', '.join(given) or 'none'}.")
    if data.get("isAborted") is True:
        raise GGPFormatError("The match was aborted; only finished matches can be imported.")
    if data.get("isCompleted") is not True:
        raise GGPFormatError("The match is not completed ('isCompleted' is not true); "
                             "only finished matches can be imported.")
    resigned = tuple(_string_list(data, "resigned") or ())
    if not set(resigned) <= set(roles):
        raise GGPFormatError(f"'resigned' names roles that {game.name} does not have.")

    moves = data.get("moves")
    if not isinstance(moves, list):
        raise GGPFormatError("'moves' is missing or is not a list of steps.")
    state = game.initial_state()
    positions = [state]
    steps: list[Step] = []
    for number, move in enumerate(moves, start=1):
        if not isinstance(move, list) or len(move) != len(roles) or not all(isinstance(a, str) for a in move):
            raise GGPFormatError(f"Step {number}: a move must list one action per role ({', '.join(roles)}).")
        if game.is_terminal(state):
            raise GGPFormatError(f"Step {number}: there are moves after the end of the game "
                                 f"(it ended after step {number - 1}).")
        joint = {role: gdl_normalize(action) for role, action in zip(roles, move)}
        mover = game.to_move(state)
        try:
            state = game.next_state(state, joint)
        except RulesError as err:
            raise GGPFormatError(f"Step {number}: illegal move: {err}.") from None
        steps.append((mover, game.canonical_action(joint[mover])))
        positions.append(state)

    states = data.get("states")
    if states is not None:
        if not isinstance(states, list) or len(states) != len(positions) or \
                not all(isinstance(s, str) for s in states):
            raise GGPFormatError(f"'states' must list {len(positions)} states (one more than the moves).")
        for number, (text, position) in enumerate(zip(states, positions)):
            if not state_matches(game, text, position):
                raise GGPFormatError(f"State {number} is not the position the rules give after {number} steps.")

    outcome = record_outcome(game, state, resigned)
    if outcome is None:
        raise GGPFormatError(f"The game is not over after the last of the {len(steps)} steps, "
                             "though the file says it is completed.")
    expected = [outcome["scores"][role] for role in roles]
    goals = data.get("goalValues")
    if not isinstance(goals, list) or not all(_is_int(g) for g in goals):
        raise GGPFormatError("'goalValues' is missing or is not a list of numbers, one per role.")
    if goals != expected:
        raise GGPFormatError(f"The goal values {goals} differ from the rules' goals {expected} "
                             f"(roles {', '.join(roles)}).")

    names = data.get("playerNamesFromHost")
    if names is None:
        names = [None] * len(roles)
    if not isinstance(names, list) or len(names) != len(roles) or \
            not all(n is None or isinstance(n, str) for n in names):
        raise GGPFormatError(f"'playerNamesFromHost' must list {len(roles)} names, one per role.")
    names = [_clean(name, "playerNamesFromHost", IMPORTED_NAME_MAX) if name and name.strip() else None
             for name in names]
    start_ms = data.get("startTime")
    if start_ms is not None:
        start_ms = _time_ms(start_ms, "startTime")
    times = data.get("stateTimes")
    if times is not None:
        if not isinstance(times, list) or len(times) != len(positions):
            raise GGPFormatError(f"'stateTimes' must list {len(positions)} times in milliseconds, one per state.")
        times = [_time_ms(t, "stateTimes") for t in times]
        if any(later < earlier for earlier, later in zip(times, times[1:])):
            raise GGPFormatError("'stateTimes' go back in time.")
    humans = data.get("isPlayerHuman")
    if not (isinstance(humans, list) and len(humans) == len(roles) and all(isinstance(h, bool) for h in humans)):
        humans = None
    match_id, token = data.get("matchId"), data.get("randomToken")
    if match_id is None or isinstance(match_id, str) and not match_id.strip():
        match_id = ""
    else:  # a number, list or object is refused as not text
        match_id = _clean(match_id, "matchId", MATCH_ID_MAX)
    record = MatchRecord(
        game_slug=game.slug,
        match_id=match_id,
        random_token=token if isinstance(token, str) and token.isascii() and token.isalnum() else "",
        start_ms=start_ms if start_ms is not None else (times[0] if times else 0),
        names=tuple(names),
        steps=tuple(steps),
        state_times_ms=tuple(times) if times is not None else (),
        completed=True,
        goals=tuple(expected),
        resigned=resigned,
        humans=tuple(humans) if humans is not None else None,
    )
    return record, state
