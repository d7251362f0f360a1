"""The rule set a stored match names. A row may name one this site no longer has (a rule set
since removed, or a damaged row): the lists then show its slug for its name, but the lobby's
open matches leave a waiting one out (nobody could join it; its creator's own list keeps it,
and aborting it needs no rules), and what needs its rules (its page, replay, export, analysis)
is refused with ``unknown_rules``, which the pages answer as a 404 that says why
(``config.errorpages.UnknownRulesPage``), never a 500; the server's own work on an active one
(the computer's turns, the GGP manager) is skipped with one warning (``rules_or_skip``), until
the clock sweep calls it off (``services.clock_flag``)."""

from __future__ import annotations

import logging

from games.match.errors import ServiceError
from games.rules import GAMES, Game, get_game

_NAMES = {info.slug: info.name for info in GAMES}
logger = logging.getLogger(__name__)
_skipped: set[int] = set()  # matches already warned about by this process


def ruleset_name(slug: str) -> str:
    """The rule set's name, or ``slug`` itself for one this site does not have."""
    return _NAMES.get(slug, slug)


def known_rules(slug: str) -> Game | None:
    """The rules of ``slug``, or None for a slug this site does not have."""
    return get_game(slug) if slug in _NAMES else None


def stored_rules(slug: str) -> Game:
    """The rules a stored match was played under; ``ServiceError`` ``unknown_rules`` for a slug
    this site does not have."""
    game = known_rules(slug)
    if game is None:
        raise ServiceError("unknown_rules", f"This match was played under rules this site no longer has ({slug}): "
                                            "it stays in the lists and its players' records, but it cannot be "
                                            "shown, replayed, exported or analysed.")
    return game


def rules_or_skip(*, match_id: int, slug: str) -> Game | None:
    """The rules of stored match ``match_id`` for the server's own work on it (the computer's
    turn, the GGP manager's steps, their sweeps), or None for a slug this site
    does not have: the caller skips the match, and the first time in this process a warning
    says why (a timer or sweep meets such a match again and again; its players' pages say
    ``unknown_rules``)."""
    game = known_rules(slug)
    if game is None and match_id not in _skipped:
        _skipped.add(match_id)
        logger.warning("match %s names rules this site does not have (%s): the computer's turns and the GGP "
                       "manager skip it until the clock sweep calls it off", match_id, slug)
    return game


def forget() -> None:
    """Forget which matches this process warned about (tests: ids come back)."""
    _skipped.clear()
