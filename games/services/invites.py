"""Private invitations: a private match (not a rematch) waiting for the friends its link was
sent to.

- It stays open while one of its players has a page of the site open, any page (the site
  socket's presence, ``games.runtime.presence``), and for ``INVITE_GRACE_SECONDS`` after the
  last of them left the site (``invites_site_left`` starts that wait, on the seat's
  ``away_since``); then ``invites_expire`` calls it off saying why (``Match.result``'s
  ``invite_ended``, ``games.match.invites``), so a friend who opens the link reads why.
- Its creator is told once: at once on any page of hers (``site.invite_ended``), or on the next
  page she opens (``invite_endings_take``).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from games.match import invites
from games.match.rulesets import ruleset_name
from games.models import Match, Seat
from games.runtime import presence
from games.selectors import match_seats
from games.selectors.snapshots import player_json
from games.services import broadcast
from games.services.guards import lock_match
from games.services.lifecycle import call_off


def waiting_invites() -> QuerySet[Match]:
    """The private matches waiting for the players their link was sent to (rematch offers,
    whose seats are kept for the old players, are not invitations)."""
    return Match.objects.filter(status=Match.Status.WAITING, is_private=True, rematch_of__isnull=True)


def invite_ending(match: Match, why: str) -> dict[str, Any]:
    """The ``invite_ended`` of ``match``, ended for ``why`` (its creator named)."""
    return invites.ending(why, player_json(match.created_by) if match.created_by_id else None)


def invites_expire(*, now=None, match_id: int | None = None) -> int:
    """Call off the invitations (only ``match_id``'s, if given) none of whose players has a
    page of the site open nor left the site less than ``INVITE_GRACE_SECONDS`` ago; the
    creator's site pages hear it. Returns how many."""
    before = (now or timezone.now()) - timedelta(seconds=settings.INVITE_GRACE_SECONDS)
    recent = Seat.objects.filter(match=OuterRef("pk"), player__isnull=False, player__is_computer=False).filter(
        Q(away_since__isnull=True) | Q(away_since__gt=before))
    stale = waiting_invites().exclude(Exists(recent))
    if match_id is not None:
        stale = stale.filter(pk=match_id)
    candidates = list(stale.values_list("pk", flat=True))
    if not candidates:
        return 0
    online = presence.online_player_ids()
    expired = 0
    for candidate in candidates:
        with transaction.atomic():
            match = lock_match(candidate)
            if not stale.filter(pk=match.pk).exists():  # someone came back or joined meanwhile
                continue
            seats = match_seats(match.pk)
            if any(s.player_id in online for s in seats if s.player_id is not None):
                continue
            call_off(match, seats=seats, reason=invites.reason(invites.LEFT),
                     invite_ended=invite_ending(match, invites.LEFT))
            if match.created_by_id is not None:
                broadcast.player_notify_on_commit(match.created_by_id,
                                                  {"type": "site.invite_ended", "ending": ending_json(match)})
            expired += 1
    return expired


def invites_site_left(*, user) -> int:
    """``user`` closed their last page of the site: the grace of their waiting invitations runs
    from now (a seat is away since its page on the match closed, which may be long before).
    Returns how many seats were touched."""
    return Seat.objects.filter(player=user, away_since__isnull=False,
                               match__in=waiting_invites().values("pk")).update(away_since=timezone.now())


def ending_json(match: Match) -> dict[str, Any]:
    """An ended invitation as its creator's pages show it."""
    ended = (match.result or {}).get("invite_ended") or {}
    return {"match": match.pk, "game_name": ruleset_name(match.game),
            "text": invites.ended_text(ended, creator=True, grace_seconds=settings.INVITE_GRACE_SECONDS)}


def _untold(user) -> QuerySet[Match]:
    return Match.objects.filter(created_by=user, status=Match.Status.ABORTED, is_private=True,
                                result__told=False)


def invite_endings_take(*, user) -> list[dict[str, Any]]:
    """The invitations of ``user`` that ended while they were away and they were not told of
    yet (``ending_json``), now counted as told."""
    with transaction.atomic():
        ended = list(_untold(user).select_for_update().order_by("finished_at"))
        for match in ended:
            match.result["told"] = True
            match.save(update_fields=["result"])
    return [ending_json(match) for match in ended]


def invite_ending_told(*, user, match_id: int) -> None:
    """``user``'s page showed the ending of their invitation ``match_id``: not shown again."""
    with transaction.atomic():
        for match in _untold(user).filter(pk=match_id).select_for_update():
            match.result["told"] = True
            match.save(update_fields=["result"])
