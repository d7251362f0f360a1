"""How people see roles: by their mark or colour ("X", "Red", "White"), never by the rules'
role names ("xPlayer", "oplayer"); and texts about roles (a result's reason) with the players'
names put in. One mapping for every page; the match page gets it as ``role-labels`` JSON."""

from __future__ import annotations

import re
from collections.abc import Mapping

ROLE_LABELS = {
    "xPlayer": "X", "oPlayer": "O",  # nine-board
    "xplayer": "X", "oplayer": "O", "zplayer": "Z",  # x9 and three-player
    "red": "Red", "blue": "Blue",  # the pie variant
    "white": "White", "black": "Black",  # Quarto
}
_ROLE_WORD = re.compile(r"\b(" + "|".join(sorted(ROLE_LABELS, key=len, reverse=True)) + r")\b")


def role_label(role: str) -> str:
    """``role_label("oPlayer") == "O"``; an unknown role is shown as it is."""
    return ROLE_LABELS.get(role, role)


def label_beside_role(role: str, label: str) -> str:
    """A move's label as shown after its mover's label: without a leading mark that the role's
    label already says ("X" then "B2 c1", not "X x B2 c1"); a mark that tells more stays
    ("Red" then "o B2 c1" once the pie player has swapped).

    >>> label_beside_role("xPlayer", "x B2 c1")
    'B2 c1'
    """
    mark, _, rest = label.partition(" ")
    return rest if rest and mark.lower() == role_label(role).lower() else label


def with_names(text: str, names: Mapping[str, str | None]) -> str:
    """``text`` with each role name replaced by its player's name (``names``: role -> name or
    None), or by the role's label where nobody holds the seat.

    >>> with_names("oPlayer resigned", {"oPlayer": "Bob"})
    'Bob resigned'
    """
    return _ROLE_WORD.sub(lambda m: names.get(m[1]) or role_label(m[1]), text or "")


def abort_sentence(result: Mapping | None, names: Mapping[str, str | None], *, rated: bool) -> str:
    """An aborted match for people, as the match page says it: "Aborted: not rated. Bob
    resigned before moving." (a casual match: "Aborted: no result. ...")."""
    head = f"Aborted: {'not rated' if rated else 'no result'}."
    reason = with_names((result or {}).get("reason", ""), names)
    return f"{head} {reason[:1].upper()}{reason[1:]}." if reason else head


def result_sentence(result: Mapping | None, names: Mapping[str, str | None]) -> str:
    """A finished match's result for people, naming each player once: "Ada won: Bob resigned.",
    "Ada completed a line of x in sub-board B2 and won." (a reason that starts with the winners
    says so itself: "Ada and Cy made three in a row ... and share the win; ...") or "A draw:
    the board is full."."""
    result = result or {}
    roles = result.get("winners") or []
    raw = result.get("reason", "") or ""
    reason = with_names(raw, names)
    if roles and not result.get("draw") and re.match(rf"{re.escape(_joined(roles))}\b", raw):
        deed, sep, rest = reason.partition("; ")
        return f"{deed} and {'won' if len(roles) == 1 else 'share the win'}{sep}{rest}."
    winners = [names.get(role) or role_label(role) for role in roles]
    who = f"{' and '.join(winners)} won" if winners and not result.get("draw") else "A draw"
    return f"{who}: {reason}." if reason else f"{who}."


def _joined(roles: list[str]) -> str:
    """Roles as the rules' reasons list them: "xplayer", "xplayer and zplayer", "a, b and c"."""
    return roles[0] if len(roles) == 1 else f"{', '.join(roles[:-1])} and {roles[-1]}"


PAIR_LIMIT_REASON = "the pair's daily limit"


def unrated_note(unrated_against: list[str], names: Mapping[str, str | None], *, everyone: bool) -> str:
    """Why a seat's result (or part of it, in the three-player game) did not count for the
    ratings: "not rated: the pair's daily limit", or "not rated against Bea: ..."; "" if it did."""
    if not unrated_against:
        return ""
    if everyone:
        return f"not rated: {PAIR_LIMIT_REASON}"
    return f"not rated against {' and '.join(names.get(r) or role_label(r) for r in unrated_against)}: {PAIR_LIMIT_REASON}"


def pair_limit_note(pairs: list[tuple[str, str]], names: Mapping[str, str | None], *, seats: int,
                    finished: bool) -> str:
    """What the pair limit does to a rated match, said before it is played (or, once it is
    over, to a rated rematch): "" when every result counts."""
    if not pairs:
        return ""
    who = " and ".join(names.get(r) or role_label(r) for r in pairs[0])
    why = f"{PAIR_LIMIT_REASON} ({who} already had a rated result count in this game in the last 24 hours)"
    if finished:
        return f"A rated rematch would not count for the ratings: {why}."
    if len(pairs) == seats * (seats - 1) // 2:
        return f"Rated, but not counted for the ratings: {why}."
    between = "; ".join(" and ".join(names.get(r) or role_label(r) for r in pair) for pair in pairs)
    return f"Rated, but not between {between}: {PAIR_LIMIT_REASON}."
