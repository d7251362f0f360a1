"""A Swiss tournament's writes: start, pair each round, late join and withdraw while it runs,
and move on after a game ends. Each runs in one transaction holding the tournament's row lock.

A Swiss has a fixed number of rounds, played one at a time: every game of a round is created
at once, and the next round is paired (``swiss_pairing``, the FIDE Dutch system) when the last
game of the round has ended, or by the sweep. A player who misses a round is withdrawn: their
game was aborted before they moved (they lose it by forfeit, their opponent wins it), and they
are not paired again. Players may join until half the rounds have begun; a late joiner scores a
half-point bye for the round running when they joined, and nothing for the rounds before it
(lichess's rule: one bye however many rounds were missed).

A Swiss of the three-player game seats tables of three (``trios``): points by place, a bye
worth a table's average for the one or two left over, and a player who let a game be aborted
before their first turn forfeits it (0) while the others at the table score the bye's points.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from games import selectors
from games.match.errors import ServiceError
from games.rules import get_game
from tournaments import push, services
from tournaments.models import Bye, Entry, Tournament, TournamentGame
from tournaments.swiss_pairing import Kind, NoPairing, Slot, Standing, swiss_pairs, swiss_standings
from tournaments.trios import BYE_POINTS, SEATS, TrioSlot, place_points, trio_round, trio_standings

BYE, HALF_BYE = 1.0, 0.5


def is_swiss(tournament: Tournament) -> bool:
    return tournament.format == Tournament.Format.SWISS


def _lock_swiss(tournament_id: int) -> Tournament:
    tournament = services._lock(tournament_id)
    if not is_swiss(tournament):
        raise ServiceError("not_swiss", "This tournament is not a Swiss.")
    return tournament


def players_of(tournament: Tournament) -> list[int]:
    """Every entrant's id in entry order (the initial ranking), withdrawn ones too."""
    return list(Entry.objects.filter(tournament=tournament).order_by("joined_at", "pk")
                .values_list("player_id", flat=True))


def is_three_player(tournament: Tournament) -> bool:
    return len(get_game(tournament.game).roles) == SEATS


def standings_of(tournament: Tournament, history: dict) -> list[Standing]:
    """The Swiss's standings from its ``swiss_history``: two-player or three-player."""
    ranking = trio_standings if is_three_player(tournament) else swiss_standings
    return ranking(list(history), history)


def trio_results(tournament: Tournament) -> list[tuple[TournamentGame, dict[int, float] | None]]:
    """Each three-player game of the rounds begun with each player's points by place: None
    while it is unfinished, empty if it was aborted."""
    played = services.results(tournament)
    ended = [g.match_id for g, r in played if r is not None and r.first_score is not None]
    goals = selectors.seat_scores(ended)
    return [(game, None if result is None else place_points(goals[game.match_id])
             if result.first_score is not None else {}) for game, result in played]


def _trio_history(tournament: Tournament) -> tuple[dict[int, dict[int, TrioSlot]], bool, set[int]]:
    played = trio_results(tournament)
    aborted = [g.match_id for g, points in played if points == {}]
    movers = selectors.players_who_moved(aborted) if aborted else {}
    history: dict[int, dict[int, TrioSlot]] = {p: {} for p in players_of(tournament)}
    missed: set[int] = set()
    complete = True
    for game, points in played:
        if points is None:
            complete = False
            continue
        table = (game.first_id, game.second_id, game.third_id)
        # Aborted: the first seat in turn order that never moved let it be aborted.
        loser = None if points else next((p for p in table if p not in movers.get(game.match_id, set())), None)
        for seat, player in enumerate(table):
            others = tuple(p for p in table if p != player)
            if points:
                history[player][game.round] = TrioSlot(Kind.GAME, points[player], others, seat)
            else:
                history[player][game.round] = TrioSlot(Kind.FORFEIT, 0.0 if player == loser else BYE_POINTS,
                                                       others, seat)
        if loser is not None:
            missed.add(loser)
    for bye in Bye.objects.filter(tournament=tournament, round__lte=tournament.current_round):
        history[bye.player_id][bye.round] = TrioSlot(Kind.BYE, bye.points)
    return history, complete, missed


def swiss_history(tournament: Tournament) -> tuple[dict[int, list[Slot]], bool, set[int]]:
    """Each entrant's slots for the rounds begun (``TrioSlot``s in a three-player Swiss),
    whether every game of them has ended, and the players who missed a round (did not move in a
    game that was aborted for it)."""
    if is_three_player(tournament):
        trio, complete, missed = _trio_history(tournament)
        return ({player: [rounds.get(n, TrioSlot(Kind.ABSENT)) for n in range(1, tournament.current_round + 1)]
                 for player, rounds in trio.items()}, complete, missed)
    played = services.results(tournament)
    aborted = [g.match_id for g, r in played if r is not None and r.first_score is None]
    movers = selectors.players_who_moved(aborted) if aborted else {}
    history: dict[int, dict[int, Slot]] = {p: {} for p in players_of(tournament)}
    missed: set[int] = set()
    complete = True
    for game, result in played:
        if result is None:
            complete = False
            continue
        if result.first_score is not None:
            history[game.first_id][game.round] = Slot(Kind.GAME, result.first_score, game.second_id, True)
            history[game.second_id][game.round] = Slot(Kind.GAME, 1.0 - result.first_score, game.first_id, False)
            continue
        first_moved = game.first_id in movers.get(game.match_id, set())
        loser = game.second_id if first_moved else game.first_id
        missed.add(loser)
        history[game.first_id][game.round] = Slot(Kind.FORFEIT, 1.0 if first_moved else 0.0, game.second_id, True)
        history[game.second_id][game.round] = Slot(Kind.FORFEIT, 0.0 if first_moved else 1.0, game.first_id, False)
    for bye in Bye.objects.filter(tournament=tournament, round__lte=tournament.current_round):
        kind = Kind.BYE if bye.points == BYE else Kind.HALF_BYE
        history[bye.player_id][bye.round] = Slot(kind, bye.points)
    slots = {player: [rounds.get(n, Slot(Kind.ABSENT)) for n in range(1, tournament.current_round + 1)]
             for player, rounds in history.items()}
    return slots, complete, missed


def swiss_start(*, tournament_id: int, user=None, now: datetime | None = None) -> Tournament:
    """Start an upcoming Swiss (by its creator at any time, by the sweep once due) and pair its
    first round; with fewer than its least players it is cancelled instead."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _lock_swiss(tournament_id)
        if user is not None and tournament.created_by_id != user.pk:
            raise ServiceError("not_creator", "Only the tournament's creator can start it early.")
        services._require_upcoming(tournament)
        if user is None and tournament.starts_at > now:
            raise ServiceError("not_yet", "This tournament starts later.")
        Entry.objects.filter(tournament=tournament, withdrawn=True).delete()  # left before it began
        count = Entry.objects.filter(tournament=tournament).count()
        if services.cancelled_if_short(tournament, count, now):
            return tournament
        tournament.status, tournament.started_at = Tournament.Status.RUNNING, now
        tournament.save(update_fields=["status", "started_at"])
        _next_round(tournament, now)
        return tournament


def _next_round(tournament: Tournament, now: datetime) -> None:
    """Pair the next round and create its games, or finish when no pairing is left. Call
    holding the row lock, with every game begun ended."""
    history, _, _ = swiss_history(tournament)
    absent = set(Entry.objects.filter(tournament=tournament, withdrawn=True).values_list("player_id", flat=True))
    try:
        if is_three_player(tournament):
            found = trio_round(players=players_of(tournament), history=history, absent=absent)
            tables, byes, bye_points = found.tables, found.byes, BYE_POINTS
        else:
            pairing = swiss_pairs(players=players_of(tournament), history=history, rounds=tournament.rounds,
                                  absent=absent)
            tables, byes, bye_points = pairing.pairs, [pairing.bye] if pairing.bye is not None else [], BYE
    except NoPairing as err:
        _finish(tournament, now, reason=f"Finished after round {tournament.current_round}: {err}.")
        return
    number = tournament.current_round + 1
    TournamentGame.objects.bulk_create(
        TournamentGame(tournament=tournament, round=number, first_id=table[0], second_id=table[1],
                       third_id=table[2] if len(table) > 2 else None)
        for table in tables)
    Bye.objects.bulk_create(Bye(tournament=tournament, round=number, player_id=player, points=bye_points)
                            for player in byes)
    tournament.current_round = number
    tournament.save(update_fields=["current_round"])
    services._create_matches(tournament)


def _finish(tournament: Tournament, now: datetime, reason: str = "") -> None:
    tournament.status, tournament.finished_at, tournament.status_reason = Tournament.Status.FINISHED, now, reason
    tournament.save(update_fields=["status", "finished_at", "status_reason"])
    push.changed_on_commit(tournament)


def _score(tournament: Tournament, history: dict[int, list[Slot]]) -> None:
    """Store each entry's score; a game that ended changes one, and the page hears of it."""
    changed = 0
    for row in standings_of(tournament, history):
        changed += Entry.objects.filter(tournament=tournament, player_id=row.player).exclude(
            score=row.score).update(score=row.score)
    if changed:
        push.changed_on_commit(tournament)


def swiss_advance(*, tournament_id: int, now: datetime | None = None) -> None:
    """Move a running Swiss on: create the games still missing, score, withdraw whoever missed
    a round, and once the round's last game has ended pair the next round or finish."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = services._lock(tournament_id)
        if tournament.status != Tournament.Status.RUNNING or not is_swiss(tournament):
            return
        services._create_matches(tournament)
        history, complete, missed = swiss_history(tournament)
        _score(tournament, history)
        if missed:
            Entry.objects.filter(tournament=tournament, player_id__in=missed).update(withdrawn=True)
        if not complete:
            return
        if tournament.current_round >= tournament.rounds:
            _finish(tournament, now)
        else:
            _next_round(tournament, now)


def may_join_late(tournament: Tournament) -> bool:
    """A running Swiss takes players until half its rounds have begun (11 rounds: until round 6
    begins; 12 rounds: until round 7)."""
    return (is_swiss(tournament) and tournament.status == Tournament.Status.RUNNING
            and tournament.current_round * 2 <= tournament.rounds)


def swiss_late_join(*, tournament_id: int, user, invite: str | None = None, password: str | None = None) -> Entry:
    """Enter ``user`` in a running Swiss that may still take players, with a half-point bye for
    the round in play; they are paired from the next round on."""
    services.require_account(user, "join a tournament")
    with transaction.atomic():
        tournament = _lock_swiss(tournament_id)
        services.require_invited(tournament, user, invite, password)
        if not may_join_late(tournament):
            raise ServiceError("too_late", "Half of this Swiss's rounds have begun: it takes no more players.")
        if Entry.objects.filter(tournament=tournament, player=user).exists():
            raise ServiceError("already_joined", "You are already in this tournament (a player who withdrew from "
                                                 "a running Swiss does not come back).")
        if Entry.objects.filter(tournament=tournament, withdrawn=False).count() >= tournament.max_players:
            raise ServiceError("full", f"This tournament is full ({tournament.max_players} players).")
        entry = Entry.objects.create(tournament=tournament, player=user, joined_round=tournament.current_round,
                                     score=HALF_BYE)
        Bye.objects.create(tournament=tournament, round=tournament.current_round, player=user, points=HALF_BYE)
        push.changed_on_commit(tournament)
        return entry


def swiss_withdraw(*, tournament_id: int, user) -> None:
    """Take ``user`` out of a running Swiss: not paired again (a game in play is theirs to finish
    or resign); their results stay in the standings."""
    services.require_account(user, "withdraw")
    with transaction.atomic():
        tournament = _lock_swiss(tournament_id)
        if tournament.status != Tournament.Status.RUNNING:
            raise ServiceError("not_running", "This tournament is not running.")
        if not Entry.objects.filter(tournament=tournament, player=user, withdrawn=False).update(withdrawn=True):
            raise ServiceError("not_joined", "You are not in this tournament.")
        push.changed_on_commit(tournament)


def swiss_sweep(*, now: datetime | None = None) -> int:
    """Start (or cancel) every Swiss due to start and move every running one on. Returns how
    many it started."""
    now = now or timezone.now()
    swisses = Tournament.objects.filter(format=Tournament.Format.SWISS)
    due = list(swisses.filter(status=Tournament.Status.UPCOMING, starts_at__lte=now).values_list("pk", flat=True))
    for tournament_id in due:
        try:
            swiss_start(tournament_id=tournament_id, now=now)
        except ServiceError:
            continue  # started or cancelled meanwhile
    for tournament_id in swisses.filter(status=Tournament.Status.RUNNING).values_list("pk", flat=True):
        swiss_advance(tournament_id=tournament_id, now=now)
    return len(due)
