"""The GGP HTTP protocol's messages and answers, as texts: no network, no database.

The game manager POSTs one S-expression a message (Stanford's GGP notes, chapter 3, and the
ggp-base manager)::

    (INFO)                                                  -> available | busy | ((name N) (status available) ...)
    (START <matchid> <role> (<gdl rules>) <startclock> <playclock>)   -> ready
    (PLAY <matchid> <joint move | nil>)                     -> <move>
    (STOP <matchid> <joint move>)                           -> done
    (ABORT <matchid>)                                       -> aborted

A joint move lists one move a role, in the game's role order: ``(noop (mark 1 2) noop)``.
Answers are read case-insensitively for the keywords; a move is returned as its S-expression
text, with single spaces (``(mark 1 2)``), for the game's own reader to judge.

>>> play("bh42", None)
'(PLAY bh42 nil)'
>>> read_move("  ( mark  1   2 )\\n")
'(mark 1 2)'
"""

from __future__ import annotations

import re
from collections.abc import Sequence

CONTENT_TYPE = "text/acl"  # what GGP managers send (Stanford's notes: "content type text/acl")
MATCH_ID = re.compile(r"[a-z][a-z0-9_.-]{0,60}", re.ASCII)
_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")
MAX_MOVE_CHARS = 200


class AnswerError(ValueError):
    """A player's answer that is not a well-formed S-expression of the expected kind."""


def match_id(pk: int) -> str:
    """Boardhall's GGP match id for match ``pk``: a lower-case letter first, as the protocol asks."""
    return f"boardhall.{pk}"


def info() -> str:
    return "(INFO)"


def start(matchid: str, role: str, gdl: str, start_clock: int, play_clock: int) -> str:
    return f"(START {matchid} {role} ({gdl.strip()}) {int(start_clock)} {int(play_clock)})"


def joint(moves: Sequence[str] | None) -> str:
    """The joint move as sent: ``nil`` before the first move, else one move a role."""
    return "nil" if moves is None else f"({' '.join(moves)})"


def play(matchid: str, moves: Sequence[str] | None) -> str:
    return f"(PLAY {matchid} {joint(moves)})"


def stop(matchid: str, moves: Sequence[str] | None) -> str:
    return f"(STOP {matchid} {joint(moves)})"


def abort(matchid: str) -> str:
    return f"(ABORT {matchid})"


def tokens(text: str) -> list[str]:
    """The S-expression's tokens: parentheses and atoms (AnswerError on stray text)."""
    out, at, text = [], 0, text.rstrip()
    while at < len(text):
        found = _TOKEN.match(text, at)
        if found is None:
            raise AnswerError("not an S-expression")
        out.append(found[1])
        at = found.end()
    return out


def parse(text: str):
    """One S-expression: an atom (str) or a list of them, nested (AnswerError otherwise).

    >>> parse("((name egghead) (status available))")
    [['name', 'egghead'], ['status', 'available']]
    """
    items = tokens(text)
    if not items:
        raise AnswerError("an empty answer")
    stack: list[list] = [[]]
    for token in items:
        if token == "(":
            stack.append([])
        elif token == ")":
            if len(stack) == 1:
                raise AnswerError("a closing parenthesis too many")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(token)
    if len(stack) != 1:
        raise AnswerError("a parenthesis left open")
    if len(stack[0]) != 1:
        raise AnswerError("more than one expression")
    return stack[0][0]


def unparse(term) -> str:
    return term if isinstance(term, str) else f"({' '.join(unparse(t) for t in term)})"


def read_info(text: str) -> tuple[str, str | None]:
    """An INFO answer as (status, name): status ``available`` or ``busy`` (an answer that says
    neither reads as ``available`` if it is a well-formed property list without a status).

    >>> read_info("((name egghead) (status busy))")
    ('busy', 'egghead')
    """
    term = parse(text)
    if isinstance(term, str):
        status = term.lower()
        if status in {"available", "ready"}:
            return "available", None
        if status == "busy":
            return "busy", None
        raise AnswerError("an INFO answer that is neither available nor busy")  # its text is never echoed
    props = {p[0].lower(): unparse(p[1]) for p in term
             if isinstance(p, list) and len(p) == 2 and isinstance(p[0], str)}
    status = props.get("status", "available").lower()
    name = props.get("name")
    return ("busy" if status == "busy" else "available"), (name[:60] if name else None)


def read_word(text: str, *expected: str) -> str:
    """An answer that must be one of the ``expected`` atoms (``ready``, ``busy``, ``done``)."""
    term = parse(text)
    if isinstance(term, str) and term.lower() in expected:
        return term.lower()
    raise AnswerError(f"expected {' or '.join(expected)}")


def read_move(text: str) -> str:
    """A PLAY answer: the move's text with single spaces (AnswerError if not one term)."""
    move = unparse(parse(text))
    if len(move) > MAX_MOVE_CHARS:
        raise AnswerError("a move too long")
    return move
