"""KIF, the s-expression syntax GDL is written in: text to nested tuples and back.

A term is a string (a constant such as ``b`` or ``3``, or a variable such as ``?x``) or a
non-empty tuple of terms (``("cell", "1", "1", "b")``). ``to_text`` prints the one canonical
spelling: single spaces, no comments, case as written (GDL itself ignores case; Boardhall's role
names such as ``xPlayer`` keep theirs).

The parser also reads what other programs send over the network, so it is iterative (no
recursion to exhaust), refuses text over ``max_length`` characters or nested deeper than
``max_depth``, accepts printable ASCII only, and raises ``KifError`` (a ``ValueError``) naming
the place of the first fault.

Example::

    >>> parse_term("( MARK 1   2 ) ; a comment")
    ('MARK', '1', '2')
    >>> to_text(("cell", "1", "1", "b"))
    '(cell 1 1 b)'
"""

from __future__ import annotations

import re
from typing import Union

Term = Union[str, tuple["Term", ...]]

MAX_LENGTH = 1_000_000  # characters: the largest rule sheet we read; callers reading moves pass less
MAX_DEPTH = 32  # nesting of brackets; GDL sheets rarely pass 6
_TOKEN = re.compile(r"[ \t\r\n]+|;[^\n]*|\(|\)|[!-'*-:<-~]+")
_CONSTANT = re.compile(r"[!-'*-:<-~]+")  # printable ASCII but brackets, ';' and space


class KifError(ValueError):
    """Text that is not KIF, or too long or too deep to read. ``str(err)`` says where."""


def parse(text: str, *, max_length: int = MAX_LENGTH, max_depth: int = MAX_DEPTH) -> list[Term]:
    """Every top-level term of ``text``, in order (a rule sheet is a sequence of them).

    Example::

        >>> parse("(role white) (role black)")
        [('role', 'white'), ('role', 'black')]
    """
    if not isinstance(text, str):
        raise KifError(f"KIF is text, not {type(text).__name__}")
    if len(text) > max_length:
        raise KifError(f"KIF text of {len(text)} characters is over the limit of {max_length}")
    forms: list[Term] = []
    stack: list[list[Term]] = []
    position = 0
    while position < len(text):
        found = _TOKEN.match(text, position)
        if found is None:
            raise KifError(f"unexpected character {text[position]!r} at {_where(text, position)}: KIF uses "
                           f"printable ASCII, brackets and spaces")
        token = found.group()
        if token == "(":
            if len(stack) >= max_depth:
                raise KifError(f"brackets nested deeper than {max_depth} at {_where(text, position)}")
            stack.append([])
        elif token == ")":
            if not stack:
                raise KifError(f"a ')' without its '(' at {_where(text, position)}")
            items = stack.pop()
            if not items:
                raise KifError(f"an empty list '()' at {_where(text, position)}")
            (stack[-1] if stack else forms).append(tuple(items))
        elif token[0] not in " \t\r\n;":
            if token == "?":
                raise KifError(f"a variable without a name at {_where(text, position)}")
            (stack[-1] if stack else forms).append(token)
        position = found.end()
    if stack:
        raise KifError(f"{len(stack)} '(' never closed by the end of the text")
    return forms


def parse_term(text: str, *, max_length: int = MAX_LENGTH, max_depth: int = MAX_DEPTH) -> Term:
    """The one term in ``text`` (a move, a fact); ``KifError`` for none or several.

    Example::

        >>> parse_term("noop")
        'noop'
    """
    forms = parse(text, max_length=max_length, max_depth=max_depth)
    if len(forms) != 1:
        raise KifError(f"expected one KIF term, found {len(forms)}")
    return forms[0]


def to_text(term: Term) -> str:
    """The canonical text of a term (see the module docstring)."""
    if isinstance(term, str):
        if not _CONSTANT.fullmatch(term):
            raise KifError(f"{term!r} is not a KIF constant or variable")
        return term
    if not isinstance(term, tuple) or not term:
        raise KifError(f"{term!r} is not a KIF term: a string or a non-empty tuple of terms")
    return "(" + " ".join(to_text(item) for item in term) + ")"


def canonical(text: str, *, max_length: int = MAX_LENGTH, max_depth: int = MAX_DEPTH) -> str:
    """``to_text(parse_term(text))``: one term's text with the spacing and comments folded away.

    Example::

        >>> canonical("(cell  1 1\\n b)")
        '(cell 1 1 b)'
    """
    return to_text(parse_term(text, max_length=max_length, max_depth=max_depth))


def is_variable(term: Term) -> bool:
    return isinstance(term, str) and term.startswith("?")


def _where(text: str, position: int) -> str:
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    return f"line {line}, column {column}"
