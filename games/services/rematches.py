"""Rematches of a finished match: offer one (``rematch_offer``: the same players, seats rotated),
or decline the one offered (``rematch_decline``). The computer and GGP players are seated at
once, as at creation; the other people's seats wait for them."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from games.ggp.manager import is_ggp
from games.match.errors import ServiceError
from games.match.rulesets import stored_rules
from games.match.settings import MatchSettings
from games.models import Match, Seat
from games.selectors import match_seats
from games.selectors.snapshots import player_json
from games.services import broadcast, notices
from games.services.guards import lock_match, seat_of
from games.services.lifecycle import call_off, start
from games.services.matches import require_ggp_seats_ratable, require_room_for_the_computer
from games.services.playing import is_real_time, lock_players, require_not_playing, start_guard
from games.services.ratings import seat_rating


def rematch_offer(*, match_id: int, user) -> Match:
    """Offer a rematch of a finished match: same players, seats rotated by one.

    The offerer is seated at once, and so are the computer and GGP players where they played
    (a GGP player cannot accept: it is seated as ``match_create`` seats it, and a rated rematch
    is refused if it may not play rated now, ``require_ggp_seats_ratable``; one removed since,
    always); the other people's seats are kept for them and the rematch starts when they accept
    (``seat_join``). A second offer returns the pending rematch. Once a player declined one, its
    offerer may not offer another after this match (there is no next move to wait for, as with
    draws).
    """
    with transaction.atomic():
        lock_players([user.pk] if user.is_authenticated else [])  # before the matches' rows (playing.py)
        old = lock_match(match_id)
        old_seats = match_seats(old.pk)
        seat_of(old, user, old_seats)
        if old.status != Match.Status.FINISHED:
            raise ServiceError("match_not_over", "A rematch can be offered once the match is over.")
        pending = old.rematches.exclude(status=Match.Status.ABORTED).first()
        if pending is not None:
            return pending
        if old.rematches.filter(created_by=user, result__declined=True).exists():
            raise ServiceError("rematch_declined", "Your rematch offer was declined: you cannot offer another "
                                                   "after this match.")
        gone = next((s.player for s in old_seats if s.player is not None and not s.player.is_active), None)
        if gone is not None:  # a guest who logged out, a GGP player removed: nobody could ever take the seat
            why = f"{gone}, a GGP player, was removed by its owner" if is_ggp(gone) else f"{gone} has left the site"
            raise ServiceError("player_gone", f"{why}: there is nobody to play the rematch with.")
        game = stored_rules(old.game)
        kept = MatchSettings.of_match(old)
        programs = [s.player for s in old_seats if is_ggp(s.player)]
        if kept.rated and programs:
            require_ggp_seats_ratable(seated=[p.pk for p in programs],
                                      people=[s.player for s in old_seats if not is_ggp(s.player)], online_now=True,
                                      advice="A rematch is rated as its match was: play this program from "
                                             "the GGP players page instead.")
        real_time = is_real_time(kept.time_control)
        if real_time:
            require_not_playing([user], user=user)
        if any(s.player is not None and s.player.is_computer for s in old_seats):
            require_room_for_the_computer(user)
        new = Match.objects.create(game=old.game, rated=kept.rated, is_private=old.is_private, created_by=user,
                                   rematch_of=old, state=game.state_to_json(game.initial_state()),
                                   **kept.time_control.fields())
        now = timezone.now()
        seated = {s.player_id for s in old_seats
                  if s.player_id == user.pk or (s.player and s.player.is_computer) or is_ggp(s.player)}
        players = [s.player for s in old_seats]
        rotated = players[-1:] + players[:-1]
        seats = [Seat(match=new, role=r, order=i,
                      player=p if p.pk in seated else None, joined_at=now if p.pk in seated else None,
                      reserved_for=None if p.pk in seated else p)
                 for i, (r, p) in enumerate(zip(game.roles, rotated))]
        for seat in seats:
            seat.rating_before, seat.rating_provisional = seat_rating(user=seat.player, game=game.slug)
        Seat.objects.bulk_create(seats)
        if all(p.pk in seated for p in rotated):
            if real_time:
                start_guard(new, rotated, user=user)
            start(new, game, seats, now)
        broadcast.match_changed_on_commit(old.pk)
        broadcast.lobby_changed_on_commit()
        broadcast.mine_changed_on_commit(rotated)
        notices.rematch_on_commit(old, seats, game, user)
    return new


def rematch_decline(*, match_id: int, user) -> Match:
    """Decline the rematch offered after the finished match ``match_id``: a player it waits
    for calls it off, and the offer leaves every page of both matches (``call_off``)."""
    with transaction.atomic():
        pending = Match.objects.filter(rematch_of_id=match_id, status=Match.Status.WAITING).first()
        rematch = lock_match(pending.pk) if pending is not None else None
        if rematch is None or rematch.status != Match.Status.WAITING:
            raise ServiceError("no_offer", "There is no rematch offer to decline.")
        if not (user.is_authenticated and rematch.seats.filter(reserved_for=user).exists()):
            raise ServiceError("not_yours", "Only a player the rematch waits for can decline it.")
        call_off(rematch, reason="the rematch offer was declined", declined_by=player_json(user))
    return rematch
