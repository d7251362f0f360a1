"""How people see roles: by their mark or colour ("X", "Red", "White"), never by the rules'
role names ("xPlayer", "oplayer"); and texts about roles (a result's reason) with the players'
names put in. One mapping for every page; the match page gets it as ``role-labels`` JSON."""

from __future__ import annotations

import re
from collections.abc import Mapping

from django.utils.translation import gettext, ngettext, pgettext_lazy

from games.match.reasons import reason_words

ROLE_LABELS = {
    "xPlayer": "X", "oPlayer": "O",  # nine-board
    "xplayer": "X", "oplayer": "O", "zplayer": "Z",  # x9 and three-player
    "red": "Red", "blue": "Blue",  # the pie variant
    "white": "White", "black": "Black",  # Quarto
}
# The seats named by colour, in the active language; marks (X, O, Z) read the same in every one.
SEAT_WORDS = {"Red": pgettext_lazy("seat", "Red"), "Blue": pgettext_lazy("seat", "Blue"),
              "White": pgettext_lazy("seat", "White"), "Black": pgettext_lazy("seat", "Black")}
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
    None), or by the role's label (in the active language) where nobody holds the seat.

    >>> with_names("oPlayer resigned", {"oPlayer": "Bob"})
    'Bob resigned'
    """
    return _ROLE_WORD.sub(lambda m: names.get(m[1]) or seat_label(m[1]), text or "")


def abort_sentence(result: Mapping | None, names: Mapping[str, str | None], *, rated: bool) -> str:
    """An aborted match for people, as the match page says it: "Aborted: not rated. Bob
    resigned before moving." (a casual match: "Aborted: no result. ..."), in the active
    language (the reason as stored: ``games.match.reasons`` words it)."""
    head = gettext("Aborted: not rated.") if rated else gettext("Aborted: no result.")
    reason = with_names(reason_words((result or {}).get("reason", "")), names)
    return f"{head} {reason[:1].upper()}{reason[1:]}." if reason else head


def result_sentence(result: Mapping | None, names: Mapping[str, str | None]) -> str:
    """A finished match's result for people, naming each player once: "Ada won: Bob resigned.",
    "Ada completed a line of x in sub-board B2 and won." (a reason that starts with the winners
    says so itself: "Ada and Cy made three in a row ... and share the win; ...") or "A draw:
    the board is full."; in the active language."""
    result = result or {}
    roles = result.get("winners") or []
    raw = result.get("reason", "") or ""
    reason = with_names(reason_words(raw), names)
    if roles and not result.get("draw") and re.match(rf"{re.escape(_joined(roles))}\b", raw):
        deed, sep, rest = reason.partition("; ")
        won = (gettext("%(deed)s and won") if len(roles) == 1 else gettext("%(deed)s and share the win")) % {"deed": deed}
        return f"{won}{sep}{rest}."
    winners = [names.get(role) or seat_label(role) for role in roles]
    if winners and not result.get("draw"):
        who = ngettext("%(players)s won", "%(players)s won", len(winners)) % {"players": people(winners)}
        return (gettext("%(who)s: %(reason)s.") % {"who": who, "reason": reason}) if reason else f"{who}."
    return gettext("A draw: %(reason)s.") % {"reason": reason} if reason else gettext("A draw.")


def people(names: list[str]) -> str:
    """Names joined as a sentence lists them: "Ada", "Ada and Bob", "Ada, Bob and Cy"."""
    if len(names) < 2:
        return "".join(names)
    return gettext("%(first)s and %(last)s") % {"first": ", ".join(names[:-1]), "last": names[-1]}


def seat_label(role: str) -> str:
    """``role_label`` in the active language ("Rot" for ``red``; marks read the same)."""
    label = role_label(role)
    return str(SEAT_WORDS.get(label, label))


def _joined(roles: list[str]) -> str:
    """Roles as the rules' reasons list them: "xplayer", "xplayer and zplayer", "a, b and c"."""
    return roles[0] if len(roles) == 1 else f"{', '.join(roles[:-1])} and {roles[-1]}"


def unrated_note(unrated_against: list[str], names: Mapping[str, str | None], *, everyone: bool) -> str:
    """Why a seat's result (or part of it, in the three-player game) did not count for the
    ratings: "not rated: the pair's daily limit", or "not rated against Bea: ..."; "" if it did."""
    if not unrated_against:
        return ""
    if everyone:
        return gettext("not rated: the pair's daily limit")
    return gettext("not rated against %(players)s: the pair's daily limit") % {
        "players": people([names.get(r) or seat_label(r) for r in unrated_against])}


def pair_limit_note(pairs: list[tuple[str, str]], names: Mapping[str, str | None], *, seats: int,
                    finished: bool) -> str:
    """What the pair limit does to a rated match, said before it is played (or, once it is
    over, to a rated rematch): "" when every result counts."""
    if not pairs:
        return ""
    who = people([names.get(r) or seat_label(r) for r in pairs[0]])
    if finished:
        return gettext("A rated rematch would not count for the ratings: the pair's daily limit (%(players)s "
                       "already had a rated result count in this game in the last 24 hours).") % {"players": who}
    if len(pairs) == seats * (seats - 1) // 2:
        return gettext("Rated, but not counted for the ratings: the pair's daily limit (%(players)s already had "
                       "a rated result count in this game in the last 24 hours).") % {"players": who}
    between = "; ".join(people([names.get(r) or seat_label(r) for r in pair]) for pair in pairs)
    return gettext("Rated, but not between %(pairs)s: the pair's daily limit.") % {"pairs": between}
