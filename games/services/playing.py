"""One real-time match at a time (as on lichess; untimed and correspondence matches excepted).

A player has at most one unfinished real-time match in play. Every path that starts one
(a created match against the computer, the last seat of a waiting match taken by a join, an
invite link or a rematch accepted, a quick game, an accepted challenge) calls ``start_guard``
in the transaction that starts it, holding the row locks of its players (``lock_players``):
it refuses if one of them already plays a real-time match, else it withdraws what could start
a second one (the player's pool entry, the real-time challenges they sent, their seats in
waiting real-time matches). A waiting match is a seek, not a game: creating one (or offering
a rematch, or a challenge) only checks that its creator is not playing one right now.

Lock order, so that nothing deadlocks: players' rows first (in id order), then matches and
challenges. A quick pairing takes its partners' entries and rows without waiting
(``SKIP LOCKED``): a player busy starting something is skipped, and paired on a later try.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.db.models import Q

from games import selectors
from games.match import invites
from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.models import Challenge, Match, PoolEntry, Seat
from games.services import broadcast
from games.services.guards import lock_match
from games.services.invites import invite_ending
from games.services.lifecycle import call_off

# A real-time match: a base time, no days per move (``TimeControl.kind == "real_time"``).
REAL_TIME = Q(clock_base__isnull=False, clock_days__isnull=True)


def is_real_time(control: TimeControl) -> bool:
    return control.kind == "real_time"


def lock_players(ids: Iterable[int | None], *, skip_locked: bool = False) -> set[int]:
    """Take the row locks of the people among the players ``ids`` (not the computer's: it plays
    any number of matches), in id order; returns the ids locked. ``skip_locked``: leave out
    those another transaction holds instead of waiting for them (a pairing). ``FOR NO KEY
    UPDATE`` as in ``guards.lock_player``."""
    rows = (get_user_model().objects.select_for_update(no_key=True, skip_locked=skip_locked)
            .filter(pk__in={i for i in ids if i is not None}, is_computer=False).order_by("pk"))
    return set(rows.values_list("pk", flat=True))


def playing_real_time(user_ids: Iterable[int], *, besides: int | None = None) -> dict[int, int]:
    """The real-time match each of ``user_ids`` is playing now (not ``besides``), by player."""
    seats = (Seat.objects.filter(player_id__in=list(user_ids), resigned=False, match__status=Match.Status.ACTIVE)
             .filter(match__clock_base__isnull=False, match__clock_days__isnull=True))
    if besides is not None:
        seats = seats.exclude(match_id=besides)
    return dict(seats.values_list("player_id", "match_id"))


def require_not_playing(users: Iterable, *, user=None, besides: int | None = None) -> None:
    """Refuse (``already_playing``) if one of ``users`` plays a real-time match now; the message
    speaks to ``user`` when it is them, and names the match (``extra["match"]``) for its link."""
    people = {u.pk: u for u in users if u is not None and not u.is_computer}
    playing = playing_real_time(people, besides=besides)
    if not playing:
        return
    if user is not None and user.pk in playing:
        raise ServiceError("already_playing", "You are already playing a real-time match: finish it first.",
                           {"match": playing[user.pk]})
    other = people[min(playing)]
    raise ServiceError("already_playing", f"{other} is playing another real-time match right now: "
                                          "try again when it is over.")


def start_guard(match: Match, players: Iterable, *, user=None) -> None:
    """``match``, real-time, starts now with ``players`` (their rows locked by this transaction):
    refuse if one of them plays another real-time match, else withdraw their pool entries,
    the real-time challenges they sent and their seats in other waiting real-time matches."""
    players = [p for p in players if p is not None and not p.is_computer]
    require_not_playing(players, user=user, besides=match.pk)
    ids = [p.pk for p in players]
    _close_pool_entries(ids)
    sent = (Challenge.objects.select_for_update(of=("self",)).filter(challenger_id__in=ids, status=Challenge.Status.PENDING)
            .select_related("challenger", "challenged").order_by("pk"))
    for challenge in sent:
        if not is_real_time(TimeControl.parse(challenge.settings["clock"])):
            continue
        challenge.status = Challenge.Status.CANCELLED
        challenge.save(update_fields=["status"])
        challenge_changed_on_commit(challenge)
    waiting = (Seat.objects.filter(player_id__in=ids, match__status=Match.Status.WAITING)
               .filter(match__clock_base__isnull=False, match__clock_days__isnull=True).exclude(match_id=match.pk)
               .values_list("match_id", flat=True))
    for match_id in sorted(set(waiting)):
        _withdraw(lock_match(match_id), ids)


def _close_pool_entries(ids: list[int]) -> None:
    """Delete the players' pool entries; their waiting pages hear ``site.unpooled``."""
    for player_id, channel in PoolEntry.objects.filter(player_id__in=ids).values_list("player_id", "channel_name"):
        broadcast.player_notify_on_commit(player_id, {"type": "site.unpooled", "channel": channel})
    PoolEntry.objects.filter(player_id__in=ids).delete()


def _withdraw(match: Match, ids: list[int]) -> None:
    """Take the players ``ids`` out of the waiting ``match`` (locked): called off if nobody
    else is seated, else their seats are free again."""
    if match.status != Match.Status.WAITING:
        return
    seats = selectors.match_seats(match.pk)
    if not any(s.player_id is not None and s.player_id not in ids for s in seats):
        ended = None
        if match.is_private and match.rematch_of_id is None and match.created_by_id in ids:
            ended = invite_ending(match, invites.PLAYING)
        call_off(match, seats=seats, invite_ended=ended, reason=invites.reason(invites.PLAYING) if ended else "")
        return
    Seat.objects.filter(match=match, player_id__in=ids).update(player=None, joined_at=None, away_since=None)
    broadcast.match_changed_on_commit(match.pk)
    broadcast.lobby_changed_on_commit()


def challenge_changed_on_commit(challenge: Challenge) -> None:
    """Both players' pages hear the challenge's new state after commit (``site.challenge``)."""
    message = {"type": "site.challenge", "challenge": selectors.challenge_json(challenge)}
    for player_id in (challenge.challenger_id, challenge.challenged_id):
        broadcast.player_notify_on_commit(player_id, message)
