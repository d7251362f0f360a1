"""Players who are gone for good, and matches nobody will come back to.

- ``player_depart``: a guest logs out (its account ends with the session): every match of
  theirs is settled at once instead of waiting on a seat that can never come back.
- ``waiting_matches_expire``: a match still waiting for players whose players have all left
  its page is called off after ``WAITING_EXPIRE_SECONDS`` (the lobby stops listing it at once);
  a private invitation has its own, longer lifetime (``games.services.invites``).
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from games.match import invites
from games.match.errors import ServiceError
from games.models import Challenge, Match, Out, Seat
from games.selectors import match_seats
from games.services import broadcast
from games.services.challenges import challenge_cancel, challenge_decline
from games.services.guards import lock_match
from games.services.invites import invite_ending, invites_expire, waiting_invites
from games.services.lifecycle import call_off, resign_seat


def player_depart(*, user) -> dict[str, int]:
    """Settle every unfinished match of ``user``, who is leaving for good.

    Their open challenges, sent or received, close first (an accept already under way ends
    before, and its match is settled below). Then each match is settled by its status under its
    row lock, not by the status it had when listed (a waiting match may have started since).
    In play: the seat resigns (two players: the others win now; three: the game goes on with
    random moves for the seat, as after any resignation; before every seat has moved, the
    match is aborted instead). Waiting: the seat is freed for
    someone else, and a match left with nobody seated (or a rematch kept for ``user``) is
    called off. Returns how many matches were resigned and freed or called off.
    """
    _close_challenges(user)
    resigned = freed = 0
    unfinished = (Seat.objects.filter(Q(player=user) | Q(reserved_for=user),
                                      match__status__in=[Match.Status.WAITING, Match.Status.ACTIVE])
                  .values_list("match_id", flat=True))
    for match_id in sorted(set(unfinished)):
        with transaction.atomic():
            match = lock_match(match_id)
            seats = match_seats(match.pk)
            if match.status == Match.Status.ACTIVE:
                seat = next((s for s in seats if s.player_id == user.pk and not s.resigned), None)
                if seat is not None:
                    resign_seat(match, seats, seat, out=Out.LEFT)
                    resigned += 1
            elif match.status == Match.Status.WAITING:
                if any(s.reserved_for_id == user.pk for s in seats) or not any(
                        s.player_id not in (None, user.pk) for s in seats):
                    ended = (invite_ending(match, invites.LOGGED_OUT)
                             if match.created_by_id == user.pk and match.is_private and match.rematch_of_id is None
                             else None)
                    call_off(match, seats=seats, invite_ended=ended,
                             reason=invites.reason(invites.LOGGED_OUT) if ended else "")
                else:
                    Seat.objects.filter(match=match, player=user).update(player=None, joined_at=None, away_since=None)
                    broadcast.match_changed_on_commit(match.pk)
                    broadcast.lobby_changed_on_commit()
                freed += 1
    return {"resigned": resigned, "freed": freed}


def _close_challenges(user) -> None:
    """Cancel the challenges ``user`` sent and decline those sent to them, each under its lock."""
    open_ = Challenge.objects.filter(Q(challenger=user) | Q(challenged=user), status=Challenge.Status.PENDING)
    for challenge_id, challenger_id in list(open_.values_list("pk", "challenger_id")):
        close = challenge_cancel if challenger_id == user.pk else challenge_decline
        try:
            close(user=user, challenge_id=challenge_id)
        except ServiceError:  # answered or expired meanwhile
            pass


def waiting_matches_expire(*, now=None, match_id: int | None = None) -> int:
    """Call off the waiting matches (only ``match_id``, if given) whose seated players have all
    had no page open on them for ``WAITING_EXPIRE_SECONDS``, and the private invitations
    whose time is up (``invites_expire``); returns how many."""
    before = (now or timezone.now()) - timedelta(seconds=settings.WAITING_EXPIRE_SECONDS)
    still_here = Seat.objects.filter(match=OuterRef("pk"), player__isnull=False).filter(
        Q(away_since__isnull=True) | Q(away_since__gt=before))
    stale = (Match.objects.filter(status=Match.Status.WAITING).exclude(Exists(still_here))
             .exclude(pk__in=waiting_invites().values("pk")))
    if match_id is not None:
        stale = stale.filter(pk=match_id)
    expired = invites_expire(now=now, match_id=match_id)
    for match_id in list(stale.values_list("pk", flat=True)):
        with transaction.atomic():
            match = lock_match(match_id)
            if stale.filter(pk=match.pk).exists():  # nobody came back meanwhile
                call_off(match)
                expired += 1
    return expired
