"""Reads for sharing a match outside Boardhall: the text of its link preview (Open Graph and
Twitter card tags) and the picture of its position (``og:image``). Only public matches are
shared: a private one gets a preview that names nobody, and no picture."""

from __future__ import annotations

from collections.abc import Mapping

from django.core.cache import cache

from games.match.clocks import TimeControl
from games.match.labels import abort_sentence, result_sentence
from games.match.picture import HEIGHT, WIDTH, board_png
from games.match.rulesets import known_rules, ruleset_name
from games.models import Match
from games.selectors import rows

PICTURE_SECONDS = 24 * 3600  # a picture is kept this long per match and version (it never changes)
PRIVATE_PREVIEW = {"title": "A private match", "description": "A private match on Boardhall: it opens with its invite link."}


def link_preview(*, match: Match, names: Mapping[str, str | None], to_move: str | None, page_url: str,
                 site: str) -> dict[str, str | None]:
    """What a chat app shows of a link to a page of ``match`` (``page_url``): its title,
    description and picture (an absolute URL under ``site``, "https://host/", or None).
    ``names``: role -> player's name (None: a free seat), in seat order; ``to_move``: the role
    to move. E.g. title "Ada vs Bob · Nine-Board Tic-Tac-Toe", description "Ada won: Bob
    resigned." or "Live: Bob to move. Casual, 5+3."."""
    if match.is_private:
        return {**PRIVATE_PREVIEW, "url": page_url, "image": None}
    players = " vs ".join(name or "a free seat" for name in names.values())
    title = f"{players} · {ruleset_name(match.game)}"
    kind = f"{'Rated' if match.rated else 'Casual'}, {TimeControl.of(match).label}."
    if match.status == Match.Status.FINISHED:
        description = result_sentence(match.result, names)
    elif match.status == Match.Status.ABORTED:
        description = abort_sentence(match.result, names, rated=match.rated)
    elif match.status == Match.Status.ACTIVE:
        mover = names.get(to_move) if to_move else None
        description = f"Live: {mover} to move. {kind}" if mover else f"Live. {kind}"
    else:
        description = f"Waiting for players. {kind}"
    return {"title": title, "description": description, "url": page_url,
            "image": f"{site}matches/{match.pk}/position.png?v={match.version}", "width": WIDTH, "height": HEIGHT}


def position_picture(*, match_id: int) -> tuple[bytes, int] | None:
    """The PNG picture of a public match's current position and its version, or None (no such
    match, a private one, or rules this site no longer has). One query; the picture is drawn
    once per match and version and kept in the cache."""
    match = rows.match_by_id(match_id)
    game = None if match is None or match.is_private else known_rules(match.game)
    if game is None:
        return None
    # The match's own random token too: an id comes back after a database is emptied or restored.
    key = f"position-png:{match.pk}:{match.random_token}:{match.version}"
    picture = cache.get(key)
    if picture is None:
        picture = board_png(game.view(game.state_from_json(match.state)))
        cache.set(key, picture, PICTURE_SECONDS)
    return picture, match.version
