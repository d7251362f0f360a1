"""Every write to an arena, each in one transaction holding the tournament's row lock: create,
join (also while it runs, and to come back from a pause or a withdrawal), pause, withdraw,
start, berserk, and the pairing wave (``arena_pair``), which also ends the arena once its time
is up and its last games have ended. The rules of pairing and scoring are pure
(``arena_pairing``, ``arena_scoring``); the table they read is built here (``arena_table``).

A wave runs when the arena starts, when a player joins or comes back, when one of its games
ends (``arena_match_ended``, through ``games.services.finishing.ENDED``) and every
``ARENA_SWEEP_SECONDS`` in each server process (``tournaments.arena_sweep``). Each pair's match
is created through ``games.services.match_create``: a player busy in another real-time match
stays free for the next wave. Both players' pages are taken to the new game (``site.started``).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import services
from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.match.settings import MatchSettings
from games.rules import SLUGS, get_game
from games.selectors.played import MatchPlayed, matches_played, shown_ratings
from games.services import broadcast
from games.services.berserk import clock_berserk
from games.services.guards import lock_player
from tournaments import arena_pairing, arena_presence, arena_scoring, push
from tournaments.models import Entry, Tournament, TournamentGame
from tournaments.services import NAME_MAX, STARTS_WITHIN_DAYS, UNFINISHED, require_account

logger = logging.getLogger(__name__)

MINUTES_MIN, MINUTES_MAX = 5, 180
PLAYERS_MAX = 200
OUTCOMES = {"won": "win", "drawn": "draw", "lost": "loss"}


def arena_create(*, user, name: str, game: str, time_control: TimeControl, starts_at: datetime, minutes: int,
                 rated: bool = False, is_private: bool = False, max_players: int = PLAYERS_MAX,
                 now: datetime | None = None) -> Tournament:
    """An arena of ``game`` that runs ``minutes`` from ``starts_at``, created by ``user`` (a
    signed-up account, within ``TOURNAMENTS_OPEN_MAX`` unfinished tournaments), who is entered
    in it. Real time only; two-player rule sets only. Refuses with a ``ServiceError`` saying why."""
    require_account(user, "create a tournament")
    now = now or timezone.now()
    name = " ".join((name or "").split())
    if not name or len(name) > NAME_MAX:
        raise ServiceError("bad_name", f"Give the tournament a name of 1 to {NAME_MAX} characters.")
    if game not in SLUGS:
        raise ServiceError("unknown_game", f"There is no game called {game!r}.")
    rules = get_game(game)
    if len(rules.roles) != 2:
        raise ServiceError("two_players_only", f"{rules.name} is played by {len(rules.roles)}: an arena pairs "
                                               "two players at a time. Choose a two-player game.")
    if time_control.kind != "real_time":
        raise ServiceError("arena_real_time", "An arena is played in real time: choose a clock such as 3+2.")
    if not MINUTES_MIN <= minutes <= MINUTES_MAX:
        raise ServiceError("bad_minutes", f"An arena lasts {MINUTES_MIN} to {MINUTES_MAX} minutes.")
    if not 2 <= max_players <= PLAYERS_MAX:
        raise ServiceError("bad_player_counts", f"The most players must lie between 2 and {PLAYERS_MAX}.")
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
            name=name, game=game, format=Tournament.Format.ARENA, minutes=minutes, rated=rated,
            is_private=is_private, min_players=2, max_players=max_players, starts_at=starts_at, created_by=user,
            **time_control.fields())
        Entry.objects.create(tournament=tournament, player=user)
    return tournament


def _lock_arena(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None or tournament.format != Tournament.Format.ARENA:
        raise ServiceError("not_found", "There is no such arena.")
    return tournament


def _require_open(tournament: Tournament, now: datetime) -> None:
    if tournament.status not in UNFINISHED or (tournament.ends_at is not None and now >= tournament.ends_at):
        raise ServiceError("arena_over", "This arena is over: nobody joins or leaves it any more.")


def arena_join(*, tournament_id: int, user, invite: str | None = None, now: datetime | None = None) -> Entry:
    """Enter ``user`` in an arena before it ends (a private one needs its invite), or bring
    them back from a pause or a withdrawal with their score. A running arena pairs them at once."""
    require_account(user, "join a tournament")
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _lock_arena(tournament_id)
        if tournament.is_private and invite != tournament.invite_secret and tournament.created_by_id != user.pk:
            raise ServiceError("not_found", "There is no such arena.")
        _require_open(tournament, now)
        entry = Entry.objects.filter(tournament=tournament, player=user).first()
        if entry is not None and not entry.withdrawn and not entry.paused:
            raise ServiceError("already_joined", "You are already in this arena.")
        if entry is None or entry.withdrawn:
            if Entry.objects.filter(tournament=tournament, withdrawn=False).count() >= tournament.max_players:
                raise ServiceError("full", f"This arena is full ({tournament.max_players} players).")
        if entry is None:
            entry = Entry.objects.create(tournament=tournament, player=user)
        else:
            entry.withdrawn = entry.paused = False
            entry.save(update_fields=["withdrawn", "paused"])
        push.changed_on_commit(tournament)
    if tournament.status == Tournament.Status.RUNNING:
        arena_pair(tournament_id=tournament_id, now=now)
    return entry


def _leave(tournament_id: int, user, *, now: datetime | None, pause: bool) -> None:
    require_account(user, "pause" if pause else "withdraw")
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _lock_arena(tournament_id)
        _require_open(tournament, now)
        entry = Entry.objects.filter(tournament=tournament, player=user, withdrawn=False).first()
        if entry is None:
            raise ServiceError("not_joined", "You are not in this arena.")
        if pause:
            if tournament.status != Tournament.Status.RUNNING:
                raise ServiceError("not_running", "A pause is for a running arena: before it starts, withdraw.")
            if entry.paused:
                raise ServiceError("already_paused", "You are already paused: press Resume to play again.")
            entry.paused = True
            entry.save(update_fields=["paused"])
        else:
            entry.withdrawn, entry.paused = True, False
            entry.save(update_fields=["withdrawn", "paused"])
        push.changed_on_commit(tournament)


def arena_pause(*, tournament_id: int, user, now: datetime | None = None) -> None:
    """Stop pairing ``user`` for now (a game in play goes on and counts); ``arena_join`` resumes."""
    _leave(tournament_id, user, now=now, pause=True)


def arena_withdraw(*, tournament_id: int, user, now: datetime | None = None) -> None:
    """Take ``user`` out of an arena: no more games (one in play goes on and counts); the score
    stays in the standings of a running arena. Joining again brings them back."""
    _leave(tournament_id, user, now=now, pause=False)


def arena_start(*, tournament_id: int, user=None, now: datetime | None = None) -> Tournament:
    """Start an upcoming arena: by its creator (``user``) at any time, or by the sweep (``user``
    None) once its start time has come. It runs ``minutes`` from now, whoever has joined."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _lock_arena(tournament_id)
        if user is not None and tournament.created_by_id != user.pk:
            raise ServiceError("not_creator", "Only the tournament's creator can start it early.")
        if tournament.status != Tournament.Status.UPCOMING:
            raise ServiceError("not_upcoming", "This arena has already started or ended.")
        if user is None and tournament.starts_at > now:
            raise ServiceError("not_yet", "This arena starts later.")
        tournament.status, tournament.started_at = Tournament.Status.RUNNING, now
        tournament.ends_at = now + timedelta(minutes=tournament.minutes)
        tournament.save(update_fields=["status", "started_at", "ends_at"])
        push.changed_on_commit(tournament)
    arena_pair(tournament_id=tournament_id, now=now)
    return tournament


@dataclass
class ArenaTable:
    """What the games of an arena add up to: each player's games as scored, the games in play
    (with their matches), and for pairing each player's last opponent and first-move history."""

    played: dict[int, list[arena_scoring.Played]] = field(default_factory=lambda: defaultdict(list))
    in_play: list[tuple[TournamentGame, MatchPlayed]] = field(default_factory=list)
    last: dict[int, tuple[int, bool]] = field(default_factory=dict)  # player -> (opponent, moved first)
    first_balance: dict[int, int] = field(default_factory=lambda: defaultdict(int))

    def sheets(self) -> dict[int, arena_scoring.Sheet]:
        return {player: arena_scoring.sheet(games) for player, games in self.played.items()}

    def busy(self) -> set[int]:
        return {p for game, _ in self.in_play for p in (game.first_id, game.second_id)}


def arena_table(tournament: Tournament) -> ArenaTable:
    """The arena's games, in the order they were made (a player has one at a time, so that is
    the order each player played them). Reads only."""
    games = list(TournamentGame.objects.filter(tournament=tournament, match__isnull=False)
                 .select_related("first", "second").order_by("pk"))
    found = matches_played(g.match_id for g in games)
    table = ArenaTable()
    for game in games:
        match = found[game.match_id]
        game.match_url = match.url
        table.last[game.first_id], table.last[game.second_id] = (game.second_id, True), (game.first_id, False)
        if match.status == "aborted":
            continue
        table.first_balance[game.first_id] += 1
        table.first_balance[game.second_id] -= 1
        if match.status != "finished":
            table.in_play.append((game, match))
            continue
        for me, other, berserk in ((game.first_id, game.second_id, game.berserk_first),
                                   (game.second_id, game.first_id, game.berserk_second)):
            if me in match.outcomes:
                table.played[me].append(arena_scoring.Played(
                    OUTCOMES[match.outcomes[me]], match.plies, berserk, match.ratings.get(other) or 1500))
    return table


def arena_standings(tournament: Tournament, table: ArenaTable) -> list[arena_scoring.Standing]:
    """Everyone who entered (withdrawn players keep their place by score), best first."""
    players = list(Entry.objects.filter(tournament=tournament).order_by("joined_at", "pk")
                   .values_list("player_id", flat=True))
    return arena_scoring.standings(players, table.sheets())


def arena_pair(*, tournament_id: int, now: datetime | None = None, game_ended: bool = False) -> int:
    """One pairing wave of a running arena: every free player (in it, not paused, not in one of
    its games) paired by ``arena_pairing``; once its time is up no new games, and it finishes
    when its last game has ended. ``game_ended``: one of its games has just ended, so its page
    changes whatever the wave does. Returns how many games it started."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if (tournament is None or tournament.format != Tournament.Format.ARENA
                or tournament.status != Tournament.Status.RUNNING):
            return 0
        if game_ended:
            push.changed_on_commit(tournament)
        table = arena_table(tournament)
        if now >= tournament.ends_at:
            if not table.in_play:
                tournament.status, tournament.finished_at = Tournament.Status.FINISHED, now
                tournament.save(update_fields=["status", "finished_at"])
                push.changed_on_commit(tournament)
            return 0
        entries = {e.player_id: e for e in Entry.objects.filter(tournament=tournament, withdrawn=False, paused=False)
                   .select_related("player")}
        busy = table.busy()
        free_ids = [p for p in entries if p not in busy]
        if len(free_ids) < 2:
            return 0
        free_ids = _pause_absent(tournament, free_ids)
        if len(free_ids) < 2:
            return 0
        ranks = {row.player: row.rank for row in arena_standings(tournament, table)}
        ratings = shown_ratings(game=tournament.game, player_ids=free_ids)
        free = [arena_pairing.Free(p, rank=ranks[p], rating=ratings[p], last_opponent=table.last.get(p, (None,))[0],
                                   first_balance=table.first_balance[p],
                                   last_first=table.last[p][1] if p in table.last else None) for p in free_ids]
        started = _start_games(tournament, arena_pairing.pair(free), entries)
        if started:
            push.changed_on_commit(tournament)
        return started


def _pause_absent(tournament: Tournament, free_ids: list[int]) -> list[int]:
    """The free players of a wave who are at the arena (``arena_presence``); the others miss this
    pairing and are paused (they come back with Resume). Call holding the tournament's row lock."""
    if not settings.ARENA_PAUSE_ABSENT:
        return free_ids
    present = arena_presence.arena_present(tournament_id=tournament.pk, player_ids=free_ids)
    if present is None:
        return free_ids
    absent = [p for p in free_ids if p not in present]
    if absent:
        Entry.objects.filter(tournament=tournament, player_id__in=absent).update(paused=True)
        push.changed_on_commit(tournament)
        logger.info("arena %s: paused %s, not at the arena", tournament.pk, absent)
    return [p for p in free_ids if p in present]


def _start_games(tournament: Tournament, pairs, entries: dict[int, Entry]) -> int:
    """Create each pair's match and game (wave ``current_round + 1``); a pair one of whose players
    is busy elsewhere is skipped. Call holding the tournament's row lock."""
    wave = tournament.current_round + 1
    match_settings = MatchSettings(game=tournament.game, rated=tournament.rated,
                                   time_control=TimeControl.of(tournament))
    first_role = get_game(tournament.game).roles[0]
    started = 0
    for first, second in pairs:
        try:
            with transaction.atomic():
                match = services.match_create(user=entries[first].player, settings=match_settings, role=first_role,
                                              opponents=[entries[second].player], is_private=tournament.is_private)
        except ServiceError as err:
            logger.info("arena %s: %s and %s wait: %s", tournament.pk, first, second, err.message)
            continue
        TournamentGame.objects.create(tournament=tournament, round=wave, first_id=first, second_id=second,
                                      match=match)
        for player in (first, second):
            broadcast.player_notify_on_commit(player, {"type": "site.started", "match": match.pk})
        started += 1
    if started:
        tournament.current_round = wave
        tournament.save(update_fields=["current_round"])
    return started


def arena_berserk(*, tournament_id: int, match_id: int, user) -> None:
    """``user`` halves their own clock in their arena game ``match_id`` before their first move,
    for ``arena_scoring.BERSERK_BONUS`` on a win."""
    require_account(user, "go berserk")
    with transaction.atomic():
        tournament = _lock_arena(tournament_id)
        game = TournamentGame.objects.filter(tournament=tournament, match_id=match_id).first()
        if game is None or user.pk not in (game.first_id, game.second_id):
            raise ServiceError("not_seated", "This is not one of your games in this arena.")
        clock_berserk(match_id=match_id, user=user)
        if user.pk == game.first_id:
            game.berserk_first = True
        else:
            game.berserk_second = True
        game.save(update_fields=["berserk_first", "berserk_second"])
        push.changed_on_commit(tournament)


def arena_match_ended(match_id: int) -> None:
    """A match ended (after commit): if it is an arena's game, its players are free: pair."""
    tournament_id = (TournamentGame.objects.filter(match_id=match_id, tournament__format=Tournament.Format.ARENA)
                     .values_list("tournament_id", flat=True).first())
    if tournament_id is not None:
        arena_pair(tournament_id=tournament_id, game_ended=True)


def arenas_sweep(*, now: datetime | None = None) -> int:
    """Start every arena whose time has come and run a pairing wave in every running one (which
    also ends those whose time is up). Returns how many games the waves started (an arena
    that starts pairs its players itself, not counted)."""
    now = now or timezone.now()
    arenas = Tournament.objects.filter(format=Tournament.Format.ARENA)
    for tournament_id in arenas.filter(status=Tournament.Status.UPCOMING, starts_at__lte=now).values_list("pk", flat=True):
        try:
            arena_start(tournament_id=tournament_id, now=now)
        except ServiceError:
            continue  # started meanwhile
    return sum(arena_pair(tournament_id=pk, now=now)
               for pk in arenas.filter(status=Tournament.Status.RUNNING).values_list("pk", flat=True))
