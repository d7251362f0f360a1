"""A result's reason in the reader's language. The rules and the services store the reason in
English (``Match.result["reason"]``: "oPlayer resigned", "the board is full ..."), the same for
every reader and every page; it is worded in the active language only when shown, clause by
clause ("; " between clauses), from the table below. A clause the table does not know is shown
as stored. Role names stay in the words (``labels.with_names`` puts the players' names in).

The match page's scripts word the reasons that arrive over the socket with the same table
(``reason_table``: the patterns and the sentences of the page's language).

>>> reason_words("drawn by agreement")
'drawn by agreement'
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

_ROLES = r"\w+(?:(?:, | and )\w+)*"  # "xplayer", "xplayer and zplayer", "a, b and c"
# How a seat left play (games.services.finishing.EARLY_EXIT), as a clause says it of one role.
_LEFT = {"resigned": gettext_lazy("%(role)s resigned"),
         "ran out of time": gettext_lazy("%(role)s ran out of time"),
         "left the match": gettext_lazy("%(role)s left the match"),
         "left the site": gettext_lazy("%(role)s left the site")}

# (pattern, sentence): a pattern matches one whole clause; its named groups fill the sentence's
# placeholders. Groups named ``roles`` are lists of roles, joined again in the language.
CLAUSES: list[tuple[str, Any]] = [
    # The rules (games/rules): how a game ends.
    (r"(?P<role>\w+) completed a line of (?P<mark>[xo]) in sub-board (?P<board>[A-C][1-3])",
     gettext_lazy("%(role)s completed a line of %(mark)s in sub-board %(board)s")),
    (r"all 81 cells are full without a line: a draw", gettext_lazy("all 81 cells are full without a line: a draw")),
    (r"the board is full and no line shares an attribute: a draw",
     gettext_lazy("the board is full and no line shares an attribute: a draw")),
    (r"(?P<role>\w+) completed row (?P<line>[1-4]) of (?P<traits>[a-z ]+) pieces, which loses",
     gettext_lazy("%(role)s completed row %(line)s of %(traits)s pieces, which loses")),
    (r"(?P<role>\w+) completed column (?P<line>[a-d]) of (?P<traits>[a-z ]+) pieces, which loses",
     gettext_lazy("%(role)s completed column %(line)s of %(traits)s pieces, which loses")),
    (r"(?P<role>\w+) completed the diagonal (?P<line>a1-d4|d1-a4) of (?P<traits>[a-z ]+) pieces, which loses",
     gettext_lazy("%(role)s completed the diagonal %(line)s of %(traits)s pieces, which loses")),
    (r"a random move for (?P<role>\w+) made four in a row", gettext_lazy("a random move for %(role)s made four in a row")),
    (r"(?P<role>\w+) made four in a row \(100 points\)", gettext_lazy("%(role)s made four in a row (100 points)")),
    (r"(?P<role>\w+) has three in a row \(66 points\)", gettext_lazy("%(role)s has three in a row (66 points)")),
    (rf"(?P<roles>{_ROLES}) have three in a row \(66 points each\)",
     gettext_lazy("%(roles)s have three in a row (66 points each)")),
    (r"(?P<role>\w+) has no three \(0 points\)", gettext_lazy("%(role)s has no three (0 points)")),
    (rf"(?P<roles>{_ROLES}) have no three \(0 points\)", gettext_lazy("%(roles)s have no three (0 points)")),
    (r"(?P<role>\w+) made three in a row on a full board with no four \(66 points\)",
     gettext_lazy("%(role)s made three in a row on a full board with no four (66 points)")),
    (rf"(?P<roles>{_ROLES}) made three in a row on a full board with no four \(66 points each\)",
     gettext_lazy("%(roles)s made three in a row on a full board with no four (66 points each)")),
    (r"(?P<role>\w+) made no three \(33 points\)", gettext_lazy("%(role)s made no three (33 points)")),
    (rf"(?P<roles>{_ROLES}) made no three \(33 points each\)", gettext_lazy("%(roles)s made no three (33 points each)")),
    (r"the board is full and nobody has three in a row \(33 points each\)",
     gettext_lazy("the board is full and nobody has three in a row (33 points each)")),
    (r"the board is full and nobody still playing has three in a row \(33 points\)",
     gettext_lazy("the board is full and nobody still playing has three in a row (33 points)")),
    (r"the board is full and nobody still playing has three in a row \(33 points each\)",
     gettext_lazy("the board is full and nobody still playing has three in a row (33 points each)")),
    # The services (games/services): resigning, clocks, claims, agreements, calling off.
    (r"(?P<role>\w+) resigned", gettext_lazy("%(role)s resigned")),
    (rf"(?P<roles>{_ROLES}) resigned", gettext_lazy("%(roles)s resigned")),
    (r"(?P<role>\w+) ran out of time", gettext_lazy("%(role)s ran out of time")),
    (r"drawn by agreement", gettext_lazy("drawn by agreement")),
    (r"(?P<role>\w+) left the match and it was called a draw",
     gettext_lazy("%(role)s left the match and it was called a draw")),
    (r"(?P<role>\w+) left the match and the win was claimed",
     gettext_lazy("%(role)s left the match and the win was claimed")),
    (r"(?P<role>\w+) resigned before moving", gettext_lazy("%(role)s resigned before moving")),
    (r"(?P<role>\w+) ran out of time before moving", gettext_lazy("%(role)s ran out of time before moving")),
    (r"(?P<role>\w+) left the match before moving", gettext_lazy("%(role)s left the match before moving")),
    (r"(?P<role>\w+) left the site before moving", gettext_lazy("%(role)s left the site before moving")),
    (r"(?P<role>\w+) resigned before every player had moved",
     gettext_lazy("%(role)s resigned before every player had moved")),
    (r"(?P<role>\w+) ran out of time before every player had moved",
     gettext_lazy("%(role)s ran out of time before every player had moved")),
    (r"(?P<role>\w+) left the match before every player had moved",
     gettext_lazy("%(role)s left the match before every player had moved")),
    (r"(?P<role>\w+) left the site before every player had moved",
     gettext_lazy("%(role)s left the site before every player had moved")),
    (r"(?P<role>\w+) aborted it before every player had moved",
     gettext_lazy("%(role)s aborted it before every player had moved")),
    (r"the rematch offer was declined", gettext_lazy("the rematch offer was declined")),
    (r"the invitation ended: its players left the site", gettext_lazy("the invitation ended: its players left the site")),
    (r"its creator called the invitation off", gettext_lazy("its creator called the invitation off")),
    (r"the invitation ended: its creator left the site", gettext_lazy("the invitation ended: its creator left the site")),
    (r"the invitation ended: its creator started another match",
     gettext_lazy("the invitation ended: its creator started another match")),
    (r"(?P<role>\w+) made no move of its own in its first (?P<count>\d+) turns",
     gettext_lazy("%(role)s made no move of its own in its first %(count)s turns")),
    (r"the server lost (?P<role>\w+)'s answers in (?P<count>\d+) turns",
     gettext_lazy("the server lost %(role)s's answers in %(count)s turns")),
    (r"(?P<role>\w+) ran out of time: no move of its own in (?P<count>\d+) turns in a row",
     gettext_lazy("%(role)s ran out of time: no move of its own in %(count)s turns in a row")),
]
# Quarto's four attributes (games.rules.quarto.ATTRIBUTE_WORDS), as a line's pieces share them.
TRAITS = {"tall": pgettext_lazy("pieces", "tall"), "short": pgettext_lazy("pieces", "short"),
          "dark": pgettext_lazy("pieces", "dark"), "light": pgettext_lazy("pieces", "light"),
          "square": pgettext_lazy("pieces", "square"), "round": pgettext_lazy("pieces", "round"),
          "hollow": pgettext_lazy("pieces", "hollow"), "solid": pgettext_lazy("pieces", "solid")}
_COMPILED = [(re.compile(pattern), sentence) for pattern, sentence in CLAUSES]
_LEFT_CLAUSE = re.compile(r"(?P<role>\w+) (?P<how>resigned|ran out of time|left the match|left the site)")


def and_words() -> str:
    """How the language joins the last two of a list: "%(first)s and %(last)s"."""
    return gettext("%(first)s and %(last)s")


def _listed(text: str) -> str:
    """A list of roles or words as the rules write it ("a, b and c") in the active language."""
    *first, last = re.split(r", | and ", text)
    return and_words() % {"first": ", ".join(first), "last": last} if first else last


def _clause(clause: str) -> str:
    for pattern, sentence in _COMPILED:
        if found := pattern.fullmatch(clause):
            values = {name: _listed(value) if name == "roles" else value for name, value in found.groupdict().items()}
            if "traits" in values:
                values["traits"] = _listed(" and ".join(str(TRAITS.get(w, w)) for w in values["traits"].split(" and ")))
            return str(sentence) % values
    # Seats that left play, joined: "xplayer resigned and zplayer left the site".
    parts = clause.split(" and ")
    found = [_LEFT_CLAUSE.fullmatch(part) for part in parts]
    if len(parts) > 1 and all(found):
        said = [str(_LEFT[m["how"]]) % {"role": m["role"]} for m in found]
        return and_words() % {"first": ", ".join(said[:-1]), "last": said[-1]}
    return clause


def reason_words(reason: str) -> str:
    """``reason`` (as stored) in the active language; a clause not in the table as it is."""
    return "; ".join(_clause(clause) for clause in (reason or "").split("; ")) if reason else ""


def reason_table() -> dict[str, Any]:
    """The table for the page's scripts, in the active language: each pattern in JavaScript's
    spelling with its sentence (``%(name)s`` placeholders), the attributes' words, the words
    joining a list, and the sentences for seats that left."""
    return {"clauses": [[pattern.replace("(?P<", "(?<"), str(sentence)] for pattern, sentence in CLAUSES],
            "traits": {word: str(said) for word, said in TRAITS.items()},
            "and": and_words(), "left": {how: str(said) for how, said in _LEFT.items()}}
