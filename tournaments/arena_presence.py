"""Who is at an arena, for its waves (lichess's rule: a player whose socket is gone is paused
after missing a pairing). A player is there when, within ``PRESENCE_TIMEOUT_SECONDS``, one of
these answered: the arena's page (``/ws/tournaments/<id>/``), the match page or match stream
of their latest game in it (a game just ended: its page is where they wait), or, for a bot,
the bot API's event stream. The pages are kept in ``games.runtime.presence`` (Redis when
``REDIS_URL`` is set), so every server process's wave sees every process's pages.

A page that closes leaves a mark "left at" under the player's id, fresh for the same timeout:
a reload, or the moment between a page's old socket and its new one, is not an absence.
"""

from __future__ import annotations

import time

from django.conf import settings

from games.runtime import outages, presence
from tournaments.models import TournamentGame


def _left_mark(user_id: int) -> str:
    return f"left.{user_id}"


def arena_page_enter(*, tournament_id: int, channel_name: str, user_id: int) -> None:
    """A signed-in player opened the tournament's page."""
    presence.store().enter(presence.tournament_key(tournament_id), channel_name, user_id)


def arena_page_leave(*, tournament_id: int, channel_name: str, user_id: int) -> None:
    """The page closed: forget it, and mark since when its player has been gone."""
    store = presence.store()
    key = presence.tournament_key(tournament_id)
    store.leave(key, channel_name)
    store.enter(key, _left_mark(user_id), user_id)


def _latest_games(tournament_id: int, player_ids: list[int]) -> dict[int, int]:
    """Each player's latest game's match in the arena (games are made in order)."""
    latest: dict[int, int] = {}
    for first, second, match_id in (TournamentGame.objects.filter(tournament_id=tournament_id, match__isnull=False)
                                    .order_by("pk").values_list("first_id", "second_id", "match_id")):
        latest[first] = latest[second] = match_id
    wanted = set(player_ids)
    return {player: match_id for player, match_id in latest.items() if player in wanted}


def arena_present(*, tournament_id: int, player_ids: list[int]) -> set[int] | None:
    """Which of ``player_ids`` are at the arena now (see the module's docstring); None when the
    store cannot be read (Redis away): nobody is paused for an outage."""
    store = presence.store()
    fresh_after = time.time() - settings.PRESENCE_TIMEOUT_SECONDS

    def users(key: presence.Key) -> set[int]:
        return {user_id for user_id, seen in store.pages(key) if user_id is not None and seen >= fresh_after}

    try:
        here = users(presence.tournament_key(tournament_id)) | users(presence.EVENT_STREAMS)
        for player, match_id in _latest_games(tournament_id, [p for p in player_ids if p not in here]).items():
            if player in users(match_id):
                here.add(player)
    except outages.SERVICE_DOWN as err:
        outages.report_or_raise("reading who is at an arena (nobody paused)", err)
        return None
    return {p for p in player_ids if p in here}
