"""Ratings change here and only here: once, in the transaction that finishes a rated match,
and again from the match log by ``ratings_recompute`` (``manage.py ratings_recompute``).

The maths is ``games.match.ratings`` (openskill, pure). Order matters for a replay to give the same
numbers: a rated match takes its players' rating rows with a lock (in player order, so two
matches never wait on each other crosswise) and only then takes its finishing time, so two
matches sharing a player are ordered by ``finished_at`` as their updates were.

The pair limit (``games.match.ratings.PairLedger``, filled by ``games.selectors.pairs``) reads
the results that counted between the match's players from the same log, after those locks: a match of the same pair finishing at
the same moment waits on them and then sees the other's result. The replay fills its ledger
as it goes, so it decides each match as the live update did. A GGP program counts as its
owner there (``GGPPlayer.owner``, removed programs too): a second account's ten programs are
one opponent, not ten fresh ones.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

from django.db import transaction
from django.utils import timezone

from games.match import ratings
from games.models import GGPPlayer, Match, Rating, Seat
from games.selectors.pairs import pair_ledger

SEAT_RATING_FIELDS = ["rating_before", "rating_provisional", "rating_after", "unrated_against"]
RATING_FIELDS = ["mu", "sigma", "games", "opponents", "last_played"]


def is_ratable(user) -> bool:
    """Signed-up accounts have ratings; guests and the computer play casual only."""
    return user is not None and user.is_authenticated and not user.is_guest and not user.is_computer


def seat_rating(*, user, game: str) -> tuple[int | None, bool]:
    """The rating shown beside ``user`` in a match of ``game`` (None for guests and the
    computer), and whether it is provisional. One query."""
    if not is_ratable(user):
        return None, False
    row = Rating.objects.filter(player=user, game=game).values_list("mu", "games").first()
    mu, games = row if row else (ratings.INITIAL[0], 0)
    return ratings.shown(mu), ratings.provisional(games)


def ratings_update(*, match: Match, seats: list[Seat]) -> None:
    """Update the ratings of a rated ``match`` that is finishing now (scores set on ``seats``,
    which come with their players) and store each seat's rating before and after; sets
    ``match.finished_at``. Call inside the transaction that finishes the match, which must
    decide that it is the one finishing it (the row lock, or an update conditional on the
    version): a race then gives one update, as the loser rolls back. Casual matches, or any
    seat held by a guest or the computer, change no rating."""
    if match.rated and all(is_ratable(s.player) for s in seats):
        # The move path may come here before its conditional update takes the match row:
        # take it first, so every finishing path locks the match before the ratings.
        list(Match.objects.select_for_update().filter(pk=match.pk).values_list("pk"))
        rows = _lock_ratings(match.game, [s.player_id for s in seats])
        match.finished_at = timezone.now()
        _apply(match, seats, rows, pair_ledger(match.game, [s.player_id for s in seats]))
        Rating.objects.bulk_update(rows.values(), RATING_FIELDS)
    else:
        match.finished_at = timezone.now()


def _lock_ratings(game: str, player_ids: list[int]) -> dict[int, Rating]:
    ids = sorted(player_ids)
    mu, sigma = ratings.INITIAL
    Rating.objects.bulk_create([Rating(player_id=i, game=game, mu=mu, sigma=sigma) for i in ids],
                               ignore_conflicts=True)
    return {r.player_id: r for r in
            Rating.objects.select_for_update().filter(game=game, player_id__in=ids).order_by("player_id")}


def _apply(match: Match, seats: list[Seat], rows: dict[int, Rating], ledger: ratings.PairLedger) -> None:
    """Rate ``seats`` from ``rows`` (changed in place) under the pair limit read from
    ``ledger`` (which then holds this match's results that counted too), and fill the seats'
    rating fields."""
    ids = [s.player_id for s in seats]
    excluded = ledger.excluded(ids, match.finished_at)
    before = [rows[i] for i in ids]
    after = ratings.rate_pairs([(r.mu, r.sigma) for r in before], [s.score for s in seats], excluded)
    others = [[j for j in range(len(seats)) if j != i and (min(i, j), max(i, j)) not in excluded]
              for i in range(len(seats))]
    for i, (seat, row, skill) in enumerate(zip(seats, before, after)):
        seat.rating_before, seat.rating_provisional = ratings.shown(row.mu), ratings.provisional(row.games)
        seat.unrated_against = " ".join(sorted(seats[j].role for j in range(len(seats))
                                               if j != i and j not in others[i]))
        seat.rating_after = None if skill is None else ratings.shown(skill[0])
        if skill is not None:
            row.opponents += sum(not ledger.met(ids[i], ids[j]) for j in others[i])
            (row.mu, row.sigma), row.games, row.last_played = skill, row.games + 1, match.finished_at
    for i, j in combinations(range(len(seats)), 2):
        if (i, j) not in excluded:
            ledger.add(ids[i], ids[j], match.finished_at)


def ratings_recompute() -> tuple[int, int]:
    """Rebuild every rating from the match log: replay every finished rated match in the
    order it finished, from the initial rating. Returns (matches replayed, stored values that
    differed and were corrected); a second run finds 0 differences. One transaction."""
    with transaction.atomic():
        matches = (Match.objects.select_for_update().filter(status=Match.Status.FINISHED, rated=True)
                   .order_by("finished_at", "pk"))
        seats_by_match: dict[int, list[Seat]] = {}
        for seat in Seat.objects.filter(match__in=matches).select_related("player").order_by("match_id", "order"):
            seats_by_match.setdefault(seat.match_id, []).append(seat)
        rows: dict[tuple[str, int], Rating] = {}
        stands_for = dict(GGPPlayer.objects.values_list("account_id", "owner_id"))
        ledgers: dict[str, ratings.PairLedger] = defaultdict(lambda: ratings.PairLedger(stands_for))
        changed_seats, differences, count = [], 0, 0
        for match in matches:
            seats = seats_by_match.get(match.pk, [])
            if not seats or not all(is_ratable(s.player) for s in seats):
                continue
            count += 1
            for s in seats:
                rows.setdefault((match.game, s.player_id), Rating(player_id=s.player_id, game=match.game,
                                                                  mu=ratings.INITIAL[0], sigma=ratings.INITIAL[1]))
            stored = [tuple(getattr(s, f) for f in SEAT_RATING_FIELDS) for s in seats]
            _apply(match, seats, {s.player_id: rows[(match.game, s.player_id)] for s in seats}, ledgers[match.game])
            for seat, old in zip(seats, stored):
                if tuple(getattr(seat, f) for f in SEAT_RATING_FIELDS) != old:
                    differences += 1
                    changed_seats.append(seat)
        current = {(r.game, r.player_id): r for r in Rating.objects.all()}
        for key, row in rows.items():
            old = current.pop(key, None)
            if old is None or [getattr(old, f) for f in RATING_FIELDS] != [getattr(row, f) for f in RATING_FIELDS]:
                differences += 1
        differences += len(current)  # ratings no rated match explains
        Rating.objects.all().delete()
        Rating.objects.bulk_create(rows.values())
        Seat.objects.bulk_update(changed_seats, SEAT_RATING_FIELDS)
    return count, differences
