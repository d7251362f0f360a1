"""Pending draw offers and takeback requests of a match, as plain values.

``Match.offers`` keeps them in one short text ("draw:x,o;takeback:o,x"): for a draw the role
that offered first, then the roles that accepted, and likewise for a takeback the requester
first; and ``declined``: the roles whose draw offer was declined, and ``takeback_declined``: the
role whose takeback request was, who may offer or ask again once they have moved (no offering
again and again, as on lichess; accepting an offer that another declines holds nobody back). A
text column, so the move path can ask "no offers?" in its conditional update on any database.
"""

from __future__ import annotations

KINDS = ("draw", "takeback", "declined", "takeback_declined")


def parse(text: str) -> dict[str, list[str]]:
    """``{"draw": [...], "takeback": [...], "declined": [...], "takeback_declined": [...]}``
    from ``Match.offers``.

    >>> parse("draw:x;takeback:o")
    {'draw': ['x'], 'takeback': ['o'], 'declined': [], 'takeback_declined': []}
    """
    offers: dict[str, list[str]] = {kind: [] for kind in KINDS}
    for part in filter(None, text.split(";")):
        kind, _, roles = part.partition(":")
        if kind in offers:
            offers[kind] = [r for r in roles.split(",") if r]
    return offers


def format(offers: dict[str, list[str]]) -> str:
    return ";".join(f"{kind}:{','.join(offers[kind])}" for kind in KINDS if offers.get(kind))


def after_move(text: str, mover: str) -> str:
    """The offers once ``mover`` played: a draw offer the mover had not joined lapses (moving
    is declining it), one the mover made or accepted stands; a takeback request is dropped; the
    mover may offer a draw and ask for a takeback again.

    >>> after_move("draw:x;declined:o", "o")
    ''
    >>> after_move("draw:x;takeback:x;declined:o;takeback_declined:o", "x")
    'draw:x;declined:o;takeback_declined:o'
    """
    if not text:
        return text
    offers = parse(text)
    return format({"draw": offers["draw"] if mover in offers["draw"] else [],
                   **{kind: [role for role in offers[kind] if role != mover]
                      for kind in ("declined", "takeback_declined")}})
