"""Pages opening and closing on a match. The pages themselves live in ``games.runtime.presence``
(memory or Redis); the database is written only when a seated player leaves or comes back."""

from __future__ import annotations

import time

from django.conf import settings
from django.utils import timezone

from games.models import Seat
from games.runtime import presence
from games.selectors import match_seats
from games.services import broadcast
from games.services.invites import invites_site_left


def presence_enter(*, match_id: int, channel_name: str, user) -> list[Seat]:
    """A page on the match opened (a websocket connected); a seated player is back. Returns
    the match's seats, read once the page counts as open, so that a page of the same player
    closing meanwhile either wrote its "away" before this read (cleared here) or sees this page
    when it looks again after writing (``presence_leave``): a reload never leaves a player who
    is there marked away."""
    signed_in = user is not None and user.is_authenticated
    presence.store().enter(match_id, channel_name, user.pk if signed_in else None)
    seats = match_seats(match_id)
    if signed_in:
        for seat in seats:
            if seat.player_id == user.pk and seat.away_since is not None:
                Seat.objects.filter(pk=seat.pk).update(away_since=None)
                seat.away_since = None
                broadcast.lobby_changed_on_commit()  # the match may be listed again
    return seats


def presence_touch(*, match_id: int, channel_name: str) -> None:
    presence.store().touch(match_id, channel_name)


def presence_leave(*, match_id: int, channel_name: str, user) -> list[Seat]:
    """A page closed; when it was a seated player's last one on the match, note since when
    they are away. Returns the match's seats (for the presence message)."""
    store = presence.store()
    store.leave(match_id, channel_name)
    seats = match_seats(match_id)
    if user is not None and user.is_authenticated and any(s.player_id == user.pk for s in seats):
        fresh_after = time.time() - settings.PRESENCE_TIMEOUT_SECONDS

        def still_here() -> bool:
            return any(uid == user.pk and seen >= fresh_after for uid, seen in store.pages(match_id))

        if not still_here():
            now = timezone.now()
            Seat.objects.filter(match_id=match_id, player=user).update(away_since=now)
            if still_here():  # a page of theirs opened meanwhile and read the seats before this write
                Seat.objects.filter(match_id=match_id, player=user, away_since=now).update(away_since=None)
                return seats
            broadcast.lobby_changed_on_commit()  # the lobby lists only matches someone is at
            for seat in seats:
                if seat.player_id == user.pk:
                    seat.away_since = now
    return seats


def online_enter(*, user, channel_name: str) -> None:
    """A signed-in player opened a page of the site: they count as online (the lobby hears it)."""
    presence.store().enter(presence.SITE, channel_name, user.pk)
    broadcast.lobby_changed_on_commit()


def online_leave(*, channel_name: str, user=None) -> None:
    """A site page closed; when it was ``user``'s last, the grace of their waiting invitations
    starts (``invites_site_left``)."""
    presence.store().leave(presence.SITE, channel_name)
    broadcast.lobby_changed_on_commit()
    if user is not None and user.pk not in presence.online_player_ids():
        invites_site_left(user=user)
