"""Every write to a tournament: create, join, withdraw, start (by its creator, or by the sweep
at its start time), and move on after a game ends (``tournament_advance``). Each runs in one
transaction holding the tournament's row lock. Games are created through
``games.services.match_create``, as any match.

A round robin of a correspondence (days per move) or untimed game creates every round's games
at once when it starts; a real-time one creates one round at a time, the next when the last
game of a round has ended. A real-time game whose player is busy in another real-time match is
kept as a pairing and created at the next try (the next game that ends, or the sweep).
"""

from __future__ import annotations

import logging
import random
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.hashers import check_password, make_password
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from games import services
from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.match.settings import MatchSettings
from games.rules import SLUGS, get_game
from games.selectors.played import matches_played
from games.services.guards import lock_player
from notify.delivery import notify_on_commit
from notify.events import Notice
from tournaments import push, standings
from tournaments.models import Entry, Tournament, TournamentGame
from tournaments.pairing import berger_rounds

logger = logging.getLogger(__name__)

NAME_MAX = 60
PLAYERS_MIN, PLAYERS_MAX = 2, 20
SWISS_PLAYERS_MAX, SWISS_ROUNDS_MIN, SWISS_ROUNDS_MAX = 100, 2, 15
PASSWORD_MAX = 60
STARTS_WITHIN_DAYS = 30
TOURNAMENT_NOTICE_MINUTES = 10  # an entrant who opted in hears this long before the start
UNFINISHED = (Tournament.Status.UPCOMING, Tournament.Status.RUNNING)
SCORES = {"won": standings.WIN, "drawn": standings.DRAW, "lost": standings.LOSS}


def require_account(user, doing: str) -> None:
    if user is None or not user.is_authenticated:
        raise ServiceError("not_signed_in", f"Log in to {doing}.")
    if user.is_guest or user.is_computer:
        raise ServiceError("account_needed", f"Tournaments are for signed-up accounts: sign up to {doing}.")


def time_control_of(tournament: Tournament) -> TimeControl:
    return TimeControl.of(tournament)


def is_round_by_round(tournament: Tournament) -> bool:
    """Real-time: one round at a time; otherwise every game at once."""
    return time_control_of(tournament).kind == "real_time"


def tournament_create(*, user, name: str, game: str, time_control: TimeControl, starts_at: datetime,
                      rated: bool = False, is_private: bool = False, min_players: int = 2, max_players: int = 8,
                      cycles: int = 1, now: datetime | None = None,
                      tournament_format: str = Tournament.Format.ROUND_ROBIN,
                      rounds: int = 0, password: str = "") -> Tournament:
    """A round robin (or a Swiss of ``rounds`` rounds) of ``game`` starting at ``starts_at``,
    created by ``user`` (a signed-up account, with fewer than ``TOURNAMENTS_OPEN_MAX`` unfinished
    tournaments of their own), who is entered in it; a private one may also take a ``password``
    (joining asks for it, unless one came by the invite link). Refuses what it cannot run with a
    ``ServiceError`` saying why."""
    require_account(user, "create a tournament")
    now = now or timezone.now()
    name = " ".join((name or "").split())
    if not name or len(name) > NAME_MAX:
        raise ServiceError("bad_name", f"Give the tournament a name of 1 to {NAME_MAX} characters.")
    if game not in SLUGS:
        raise ServiceError("unknown_game", f"There is no game called {game!r}.")
    rules = get_game(game)
    swiss = tournament_format == Tournament.Format.SWISS
    if len(rules.roles) == 3 and not swiss:
        raise ServiceError("two_players_only", f"{rules.name} is played by three: a round robin of it would need "
                                               "every trio to meet, so it is played as a Swiss. Choose Swiss.")
    if len(rules.roles) not in (2, 3):
        raise ServiceError("two_players_only", f"{rules.name} is played by {len(rules.roles)}: tournaments are for "
                                               "two- and three-player games.")
    if len(rules.roles) == 3 and min_players < 3:
        raise ServiceError("bad_player_counts", f"{rules.name} is played by three: a tournament of it needs at "
                                                "least 3 players.")
    if time_control.kind == "per_move":
        raise ServiceError("no_per_move", "Tournaments are played in real time, by correspondence or untimed: "
                                          "choose one of those time controls.")
    if cycles not in (1, 2):
        raise ServiceError("bad_cycles", "Everyone meets once or twice.")
    if tournament_format not in (Tournament.Format.ROUND_ROBIN, Tournament.Format.SWISS):
        raise ServiceError("bad_format", "Choose a round robin or a Swiss.")
    if swiss and not time_control.timed:
        raise ServiceError("swiss_untimed", "A Swiss needs a clock: a player who never moves would hold up a round "
                                            "for good. Choose real time or correspondence.")
    if swiss and not SWISS_ROUNDS_MIN <= rounds <= SWISS_ROUNDS_MAX:
        raise ServiceError("bad_rounds", f"A Swiss has {SWISS_ROUNDS_MIN} to {SWISS_ROUNDS_MAX} rounds.")
    most = SWISS_PLAYERS_MAX if swiss else PLAYERS_MAX
    if not (PLAYERS_MIN <= min_players <= max_players <= most):
        raise ServiceError("bad_player_counts", f"The least and the most players must lie between {PLAYERS_MIN} "
                                                f"and {most}, the least no more than the most.")
    if password and (not is_private or len(password) > PASSWORD_MAX):
        raise ServiceError("bad_password", f"A password (at most {PASSWORD_MAX} characters) is for a private "
                                           "tournament: tick private, or leave the password empty.")
    if starts_at <= now:
        raise ServiceError("starts_in_past", "Choose a start time in the future.")
    if starts_at > now + timedelta(days=STARTS_WITHIN_DAYS):
        raise ServiceError("starts_too_late", f"Choose a start within {STARTS_WITHIN_DAYS} days.")
    with transaction.atomic():
        lock_player(user)
        open_count = Tournament.objects.filter(created_by=user, status__in=UNFINISHED).count()
        if open_count >= settings.TOURNAMENTS_OPEN_MAX:
            raise ServiceError("too_many_tournaments", f"You already run {open_count} tournaments that have not "
                                                       "finished: wait for one to end first.")
        tournament = Tournament.objects.create(
            name=name, game=game, cycles=cycles, format=tournament_format, rounds=rounds if swiss else 0,
            password=make_password(password) if password else "", rated=rated, is_private=is_private, min_players=min_players,
            max_players=max_players, starts_at=starts_at, created_by=user, **time_control.fields())
        Entry.objects.create(tournament=tournament, player=user)
    return tournament


def _lock(tournament_id: int) -> Tournament:
    try:
        return Tournament.objects.select_for_update().get(pk=tournament_id)
    except Tournament.DoesNotExist:
        raise ServiceError("not_found", "There is no such tournament.") from None


def _require_upcoming(tournament: Tournament) -> None:
    if tournament.status != Tournament.Status.UPCOMING:
        raise ServiceError("not_upcoming", "This tournament has already started or ended: players join and "
                                           "withdraw before it starts.")


def tournament_join(*, tournament_id: int, user, invite: str | None = None, password: str | None = None) -> Entry:
    """Enter ``user`` (a signed-up account) in an upcoming tournament that has room; a private
    one needs its invite secret, or its password if it has one. Joining again after withdrawing
    enters again."""
    require_account(user, "join a tournament")
    with transaction.atomic():
        tournament = _lock(tournament_id)
        require_invited(tournament, user, invite, password)
        _require_upcoming(tournament)
        entry = Entry.objects.filter(tournament=tournament, player=user).first()
        if entry is not None and not entry.withdrawn:
            raise ServiceError("already_joined", "You are already in this tournament.")
        if Entry.objects.filter(tournament=tournament, withdrawn=False).count() >= tournament.max_players:
            raise ServiceError("full", f"This tournament is full ({tournament.max_players} players).")
        push.changed_on_commit(tournament)
        if entry is None:
            return Entry.objects.create(tournament=tournament, player=user)
        entry.withdrawn = False
        entry.save(update_fields=["withdrawn"])
        return entry


def require_invited(tournament: Tournament, user, invite: str | None, password: str | None) -> None:
    """A private tournament lets in its creator, holders of its invite link and, when it has a
    password, those who give it."""
    if not tournament.is_private or invite == tournament.invite_secret or tournament.created_by_id == user.pk:
        return
    if not tournament.password:
        raise ServiceError("not_found", "There is no such tournament.")
    if not password or not check_password(password, tournament.password):
        raise ServiceError("wrong_password", "That is not this tournament's password: ask its creator for it, "
                                             "or for its invite link.")


def tournament_withdraw(*, tournament_id: int, user) -> None:
    """Take ``user`` out of an upcoming tournament they joined."""
    require_account(user, "withdraw")
    with transaction.atomic():
        tournament = _lock(tournament_id)
        _require_upcoming(tournament)
        if not Entry.objects.filter(tournament=tournament, player=user, withdrawn=False).update(withdrawn=True):
            raise ServiceError("not_joined", "You are not in this tournament.")
        push.changed_on_commit(tournament)


def tournament_start(*, tournament_id: int, user=None, now: datetime | None = None) -> Tournament:
    """Start an upcoming tournament: by its creator (``user``) at any time, or by the sweep
    (``user`` None) once its start time has come. With fewer than its least number of players
    it is cancelled instead, and says why."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _lock(tournament_id)
        push.changed_on_commit(tournament)
        if user is not None and tournament.created_by_id != user.pk:
            raise ServiceError("not_creator", "Only the tournament's creator can start it early.")
        _require_upcoming(tournament)
        if user is None and tournament.starts_at > now:
            raise ServiceError("not_yet", "This tournament starts later.")
        players = list(Entry.objects.filter(tournament=tournament, withdrawn=False).order_by("joined_at", "pk")
                       .values_list("player_id", flat=True))
        if cancelled_if_short(tournament, len(players), now):
            return tournament
        rounds = berger_rounds(players, cycles=tournament.cycles)
        TournamentGame.objects.bulk_create(
            TournamentGame(tournament=tournament, round=number, first_id=first, second_id=second)
            for number, pairs in enumerate(rounds, start=1) for first, second in pairs
            if first is not None and second is not None)
        tournament.status, tournament.started_at, tournament.rounds = Tournament.Status.RUNNING, now, len(rounds)
        tournament.current_round = 1 if is_round_by_round(tournament) else len(rounds)
        tournament.save(update_fields=["status", "started_at", "rounds", "current_round"])
        _create_matches(tournament)
        _advance(tournament, now)
        return tournament


def cancelled_if_short(tournament: Tournament, players: int, now: datetime) -> bool:
    """Cancel a tournament starting with fewer than its least players, saying why. Call holding
    its row lock."""
    if players >= tournament.min_players:
        return False
    tournament.status = Tournament.Status.CANCELLED
    tournament.status_reason = (f"Cancelled: {players} player{'s' if players != 1 else ''} "
                                f"joined, and it needed at least {tournament.min_players}.")
    tournament.finished_at = now
    tournament.save(update_fields=["status", "status_reason", "finished_at"])
    return True


def _create_matches(tournament: Tournament) -> None:
    """Create the match of every game of the rounds begun that has none yet (a player busy in
    another real-time match: left for the next try)."""
    pending = (TournamentGame.objects.filter(tournament=tournament, round__lte=tournament.current_round,
                                             match__isnull=True).select_related("first", "second", "third")
               .order_by("pk"))
    match_settings = MatchSettings(game=tournament.game, rated=tournament.rated,
                                   time_control=time_control_of(tournament))
    first_role = get_game(tournament.game).roles[0]
    if pending:
        push.changed_on_commit(tournament)
    for game in pending:
        try:
            with transaction.atomic():
                opponents = [game.second] if game.third is None else [game.second, game.third]
                match = services.match_create(user=game.first, settings=match_settings, role=first_role,
                                              opponents=opponents, is_private=tournament.is_private,
                                              rng=SEATS_IN_ORDER)
        except ServiceError as err:
            logger.info("tournament %s: game %s waits: %s", tournament.pk, game.pk, err.message)
            continue
        game.match = match
        game.save(update_fields=["match"])


class _SeatsInOrder(random.Random):
    """What ``match_create`` draws the opponents' seats with: the seats in the order given
    (second, then third), as the pairing chose them."""

    def sample(self, population, k, *, counts=None):
        return list(population)[:k]


SEATS_IN_ORDER = _SeatsInOrder()


def results(tournament: Tournament) -> list[tuple[TournamentGame, standings.Result | None]]:
    """Each game of the tournament begun so far with its result (None while it is unfinished);
    a game whose match exists carries its ``match_url``."""
    games = list(TournamentGame.objects.filter(tournament=tournament, round__lte=tournament.current_round)
                 .select_related("first", "second", "third").order_by("round", "pk"))
    found = matches_played(g.match_id for g in games if g.match_id is not None)
    rows = []
    for game in games:
        result = found.get(game.match_id)
        game.match_url = result.url if result else None
        if result is None or result.status not in ("finished", "aborted"):
            rows.append((game, None))
        elif result.status == "aborted":
            rows.append((game, standings.Result(game.first_id, game.second_id, None)))
        else:
            rows.append((game, standings.Result(game.first_id, game.second_id,
                                                SCORES[result.outcomes[game.first_id]])))
    return rows


def _advance(tournament: Tournament, now: datetime) -> None:
    """Score the entries from the games, and once every game begun has ended begin the next
    round or finish. Call holding the tournament's row lock."""
    played = results(tournament)
    entries = list(Entry.objects.filter(tournament=tournament))
    totals = standings.scores([e.player_id for e in entries], (r for _, r in played if r is not None))
    for entry in entries:
        if entry.score != totals[entry.player_id]:
            entry.score = totals[entry.player_id]
            entry.save(update_fields=["score"])
            push.changed_on_commit(tournament)
    if any(result is None for _, result in played):
        return
    if tournament.current_round < tournament.rounds:
        tournament.current_round += 1
        tournament.save(update_fields=["current_round"])
        _create_matches(tournament)
        return
    tournament.status, tournament.finished_at = Tournament.Status.FINISHED, now
    tournament.save(update_fields=["status", "finished_at"])
    push.changed_on_commit(tournament)


def tournament_advance(*, tournament_id: int, now: datetime | None = None) -> None:
    """Move a running tournament on: create the games still missing, score, begin the next
    round once the last game of the round has ended, finish after the last round."""
    with transaction.atomic():
        tournament = _lock(tournament_id)
        if tournament.status != Tournament.Status.RUNNING or tournament.format != Tournament.Format.ROUND_ROBIN:
            return
        _create_matches(tournament)
        _advance(tournament, now or timezone.now())


def match_ended(match_id: int) -> None:
    """A match ended (after commit): if it is a tournament's game, move the tournament on."""
    tournament_id = (TournamentGame.objects.filter(match_id=match_id).values_list("tournament_id", flat=True)
                     .first())
    if tournament_id is not None:
        tournament_advance(tournament_id=tournament_id)


def tournaments_sweep(*, now: datetime | None = None) -> int:
    """Start (or cancel) every upcoming tournament whose time has come, and move every running
    one on (what a lost hand-off or a busy player left behind). Returns how many it started."""
    now = now or timezone.now()
    starting_soon_notify(now=now)
    round_robins = Tournament.objects.filter(format=Tournament.Format.ROUND_ROBIN)
    due = list(round_robins.filter(status=Tournament.Status.UPCOMING, starts_at__lte=now)
               .values_list("pk", flat=True))
    for tournament_id in due:
        try:
            tournament_start(tournament_id=tournament_id, now=now)
        except ServiceError:
            continue  # started or cancelled meanwhile
    for tournament_id in round_robins.filter(status=Tournament.Status.RUNNING).values_list("pk", flat=True):
        tournament_advance(tournament_id=tournament_id, now=now)
    return len(due)


def starting_soon_notify(*, now: datetime) -> None:
    """Tell each entrant of an upcoming tournament that starts within
    ``TOURNAMENT_NOTICE_MINUTES`` (those who opted in; once per entry: the notice is keyed by
    the entry, and ``notify.delivery`` sends a key once)."""
    soon = now + timedelta(minutes=TOURNAMENT_NOTICE_MINUTES)
    entries = (Entry.objects.filter(tournament__status=Tournament.Status.UPCOMING, tournament__starts_at__gt=now,
                                    tournament__starts_at__lte=soon, withdrawn=False)
               .select_related("tournament"))
    for entry in entries:
        tournament = entry.tournament
        notify_on_commit(Notice(kind="tournament", user_id=entry.player_id, key=entry.pk,
                                path=reverse("tournaments:page", args=[tournament.pk]),
                                game=get_game(tournament.game).name, by=tournament.name))
