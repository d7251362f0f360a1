"""A match's creation: ``match_create`` seats its creator, and the other players at once when
they are known (quick pairing, an accepted challenge, the computer, GGP players); the computer's
accounts (``computer_user``). Seats taken later: ``seats``; rematches: ``rematches``."""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from games.computer import search as computer
from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.match.settings import MatchSettings
from games.models import GGPPlayer, Match, Move, Seat
from games.rules import get_game
from games.selectors.rows import MAX_ID
from games.services import broadcast
from games.services.guards import require_player
from games.services.lifecycle import start
from games.services.playing import is_real_time, lock_players, require_not_playing, start_guard
from games.services.ratings import is_ratable, seat_rating

logger = logging.getLogger(__name__)


def match_create(*, user, settings: MatchSettings, is_private: bool = False, role: str | None = None,
                 opponents: Sequence = (), against_computer: bool = False,
                 computer_level: int = computer.STRONGEST, rng: random.Random | None = None,
                 ggp_players: Mapping[str, int] | None = None, watch: bool = False,
                 watched_max: int | None = None) -> Match:
    """Create a match with ``settings`` (rule set, rated or casual, time control) and seat its
    creator (``role=None`` picks a random seat).

    It waits for players, unless every other seat is taken at once: by ``opponents`` (quick
    pairing, an accepted challenge; they take the other seats in random order) or, if
    ``against_computer``, by the computer at ``computer_level`` (1 to 4,
    ``games.computer.search.LEVELS``); then it starts. A rated match is for signed-up accounts only.
    ``ggp_players`` seats registered GGP players (role -> ``GGPPlayer`` id) at once, as the
    computer is seated; such a match needs the per-move time control (the GGP way), and
    people and the computer may take the other seats; rated only against programs that
    answered their last check and that none of the people seated registered
    (``require_ggp_seats_ratable``). With ``watch`` the creator takes no seat (``role`` is
    ignored): every seat goes at once to ``ggp_players`` and, with ``against_computer``, the
    computer, so programs meet; such a match starts at once, and its creator has at most
    ``WATCHED_MAX`` of them unfinished (``watched_max``: another limit, for the GGP arena's
    own account, ``ggparena``, which keeps its own).
    """
    require_player(user)
    if against_computer:
        require_computer_may_play(level=computer_level, rated=settings.rated,
                                   advice="untick Rated, or choose to play against people.")
    if settings.rated and not all(is_ratable(p) for p in (user, *opponents)):
        raise ServiceError("rated_needs_accounts", "Rated matches are between signed-up players: guests play "
                                                   "casual matches. Sign up, or choose casual.")
    game = get_game(settings.game)
    rng = rng or random
    if watch:
        role = None
        if opponents or len(ggp_players or {}) + against_computer < 2:
            raise ServiceError("ggp_seats", "Without a seat of your own, the seats go to programs: "
                                            "choose at least two GGP players, or one and the computer.")
    elif role is None:
        role = rng.choice(game.roles)
    elif role not in game.roles:
        raise ServiceError("unknown_role", f"{game.name} has no seat {role!r}; pick one of {', '.join(game.roles)}.")
    ggp = _ggp_accounts(ggp_players or {}, game, role, settings.time_control)
    if settings.rated and ggp:
        require_ggp_seats_ratable(seated=[p.pk for p in ggp.values()], people=[user, *opponents], online_now=True)
    others = [r for r in game.roles if r != role and r not in ggp]
    if against_computer:
        seated = {r: computer_user(n, computer_level) for n, r in enumerate(others, start=1)}
    else:
        shuffled = rng.sample(others, len(others))
        seated = dict(zip(shuffled, opponents))
    seated.update(ggp)
    if role is not None:
        seated[role] = user
    elif len(seated) < len(game.roles):
        raise ServiceError("ggp_seats", "Without a seat of your own, every seat goes to a program: "
                                        "choose a GGP player or the computer for each.")
    control = settings.time_control
    starts = len(seated) == len(game.roles)
    with transaction.atomic():
        # First of all its locks (playing.py); the watching creator's row too, for the count below.
        lock_players([*(p.pk for p in seated.values()), *([user.pk] if watch else [])])
        if not starts and not opponents:
            _require_room_to_wait(user)
        if watch:
            _require_room_to_watch(user, WATCHED_MAX if watched_max is None else watched_max)
        if against_computer:
            require_room_for_the_computer(user)
        if is_real_time(control) and not starts:  # a seek while playing would start a second match
            require_not_playing(seated.values(), user=user)
        now = timezone.now()
        match = Match.objects.create(game=game.slug, rated=settings.rated, is_private=is_private, created_by=user,
                                     state=game.state_to_json(game.initial_state()), **control.fields())
        # A waiting match counts its players away until they open its page: the lobby lists it
        # only then, and the expiry sweep calls it off if nobody ever comes.
        away = None if starts else now
        seats = [Seat(match=match, role=r, order=i, player=seated.get(r), joined_at=now if r in seated else None,
                      away_since=away if r in seated and not seated[r].is_computer else None)
                 for i, r in enumerate(game.roles)]
        for seat in seats:
            seat.rating_before, seat.rating_provisional = seat_rating(user=seat.player, game=game.slug)
        Seat.objects.bulk_create(seats)
        if starts:
            if is_real_time(control):
                start_guard(match, seated.values(), user=user)
            start(match, game, seats, now)
        broadcast.lobby_changed_on_commit()
        broadcast.mine_changed_on_commit(seated.values())
    return match


WATCHED_MAX = 3  # unfinished matches a person created between programs only, without a seat of their own


def _require_room_to_watch(user, most: int) -> None:
    """Refuse a ``watch`` match while ``user`` has ``most`` such matches unfinished: each
    keeps the game manager calling programs for them."""
    watched = (Match.objects.filter(created_by=user, status__in=[Match.Status.WAITING, Match.Status.ACTIVE])
               .exclude(seats__player=user).order_by("pk").values_list("pk", flat=True)[:most])
    if len(watched) >= most:
        raise ServiceError("too_many_watched", f"You already have {most} unfinished matches between programs "
                                               "(without a seat of your own): let one end first.")


def _ggp_accounts(chosen: Mapping[str, int], game, role: str, control: TimeControl) -> dict:
    """The accounts of the GGP players ``chosen`` for their roles (ServiceError if a role or
    player is wrong, or the time control is not per move)."""
    if not chosen:
        return {}
    if not control.play:
        raise ServiceError("ggp_needs_per_move", "A match with a GGP player uses the per-move time control "
                                                 "(a start clock and a play clock): choose one.")
    if (role is not None and role in chosen) or not set(chosen) <= set(game.roles) or len(set(chosen.values())) != len(chosen):
        raise ServiceError("ggp_seats", "Each GGP player takes one seat other than yours.")
    storable = [pk for pk in chosen.values() if 0 < pk <= MAX_ID]  # no row has another; the database refuses larger
    players = {p.pk: p for p in GGPPlayer.objects.select_related("account")
               .filter(pk__in=storable, account__is_active=True, removed_at__isnull=True)}
    if set(players) != set(chosen.values()):
        raise ServiceError("ggp_unknown", "There is no such GGP player.")
    return {r: players[pk].account for r, pk in chosen.items()}


def require_ggp_seats_ratable(*, seated: Iterable[int], people: Iterable, online_now: bool,
                              advice: str | None = None) -> None:
    """Refuse a rated match in which a GGP seat's program (its account's id among ``seated``,
    which may name other players too) was registered by one of the ``people`` seated in it:
    a program's owner decides how it plays, or whether it answers at all, so beating it proves
    nothing (lichess: no rated games against your own engine). With ``online_now`` (seating
    it), refuse too a program whose last check did not find it online: every move of one that
    does not answer is played at random. ``advice`` ends a refusal with what to do instead
    (by default: untick Rated)."""
    rows = list(GGPPlayer.objects.select_related("account").filter(account__in=list(seated)))
    people_ids = {p.pk for p in people}
    own = next((row for row in rows if row.owner_id in people_ids), None)
    if own is not None:
        raise ServiceError("ggp_own_program", f"{own.account} is a GGP player you registered: a match against "
                                              "your own program cannot be rated. "
                                              f"{advice or 'Untick Rated to play it casual.'}")
    silent = next((row for row in rows if online_now and row.status != GGPPlayer.Status.ONLINE), None)
    if silent is not None:
        found = ("has not answered its first check yet" if silent.status == GGPPlayer.Status.CHECKING
                 else f"was {silent.get_status_display()} at its last check")
        raise ServiceError("ggp_not_online", f"{silent.account} {found}: only a GGP player that answers can play "
                                             "a rated match. "
                                             f"{advice or 'Untick Rated, or play it rated once it is online.'}")


def require_computer_may_play(*, level: int, rated: bool, advice: str) -> None:
    """Refuse a computer's seat at an unknown ``level`` or in a ``rated`` match (the computer plays
    casual only); ``advice`` ends the rated refusal with what the player can do instead."""
    if level not in range(1, computer.STRONGEST + 1):
        raise ServiceError("unknown_level", f"The computer's level runs from 1 to {computer.STRONGEST}.")
    if rated:
        raise ServiceError("rated_needs_accounts", f"Games against the computer are casual: {advice}")


def _require_room_to_wait(user) -> None:
    """A player has at most ``WAITING_MATCHES_MAX`` matches of their own waiting for players
    (rematch offers aside): the lobby is not theirs to fill. Call holding their row lock."""
    waiting = Match.objects.filter(created_by=user, status=Match.Status.WAITING, rematch_of__isnull=True).count()
    if waiting >= settings.WAITING_MATCHES_MAX:
        raise ServiceError("too_many_waiting", f"You already have {waiting} matches waiting for players: "
                                               "wait for them to start, or leave one first.")


def require_room_for_the_computer(user) -> None:
    """A player has at most ``COMPUTER_MATCHES_MAX`` unfinished matches with the computer
    seated: playing it again and again is fine, leaving games behind by the dozen is not (each
    may ask for the computer's time). Finished and aborted ones do not count, nor one the
    player resigned that the others play on (three players): nothing in it is left to them;
    nor an untimed one nobody has moved in for ``COMPUTER_IDLE_HOURS``: no clock will end it,
    and it stays to resume (a move makes it count again) or resign. The refusal links to the
    oldest that counts. Call holding the player's row lock."""
    idle_since = timezone.now() - timedelta(hours=settings.COMPUTER_IDLE_HOURS)
    untimed = Q(clock_base__isnull=True, clock_days__isnull=True, clock_play__isnull=True)
    idle = untimed & Q(started_at__lt=idle_since) & ~Exists(
        Move.objects.filter(match=OuterRef("pk"), created_at__gte=idle_since))
    unfinished = (Match.objects.filter(status=Match.Status.ACTIVE, seats__player=user, seats__resigned=False)
                  .filter(seats__player__is_computer=True).exclude(idle).distinct().order_by("started_at"))
    oldest = list(unfinished.values_list("pk", flat=True)[:settings.COMPUTER_MATCHES_MAX])
    if len(oldest) >= settings.COMPUTER_MATCHES_MAX:
        games = f"{len(oldest)} unfinished game{'s' if len(oldest) > 1 else ''}"
        raise ServiceError("too_many_computer_games", f"You have {games} against the computer: finish or resign "
                                                      "one first (abort one not yet begun), such as the oldest.",
                           {"match": oldest[0]})


def computer_user(number: int = 1, level: int = computer.STRONGEST):
    """The computer player's account at ``level`` for its ``number``-th seat in a match (made on
    first use), e.g. "Computer 2 (easy)".

    One account per seat and level, since a player holds one seat of a match and the level
    belongs to the player (as on other sites: "level 3"); none of them can log in.
    """
    name = computer.LEVELS[level - 1].name
    user, created = get_user_model().objects.get_or_create(
        username=f"computer-{name}-{number}",
        defaults={"display_name": f"Computer ({name})" if number == 1 else f"Computer {number} ({name})",
                  "is_computer": True, "computer_level": level})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    elif not user.is_computer:
        # A person's account holds the name (signing up under it is refused, but an older
        # deployment may have one): never seat them as the computer.
        logger.error("the computer's account name %r belongs to a person's account", user.username)
        raise ServiceError("computer_unavailable", "The computer cannot play at this level right now; "
                                                   "try another level.")
    return user
