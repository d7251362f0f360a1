"""The pair limit as it stands: which results between players would count for their ratings.

One read for the rating update (``games.services.ratings``, under its locks) and for the pages
that say so before a match is played: the create form, a challenge, a rematch offer, a match
page before its first move.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

from django.db.models import Count, Q
from django.utils import timezone

from games.match import ratings
from games.models import GGPPlayer, Match, Seat


def pair_ledger(game: str, player_ids: list[int]) -> ratings.PairLedger:
    """The results that counted in ``game`` between any two of ``player_ids``, each standing
    for its owner if it is a GGP program, and so between any accounts standing for the same
    players (two queries)."""
    owners = GGPPlayer.objects.filter(account_id__in=player_ids).values("owner_id")
    stands_for = dict(GGPPlayer.objects.filter(Q(owner_id__in=player_ids) | Q(owner_id__in=owners))
                      .values_list("account_id", "owner_id"))
    accounts = {*player_ids, *stands_for, *stands_for.values()}
    shared = (Seat.objects.filter(player_id__in=accounts, match__game=game, match__rated=True,
                                  match__status=Match.Status.FINISHED)
              .values("match_id").annotate(seated=Count("pk")).filter(seated__gte=2).values("match_id"))
    by_match = defaultdict(list)
    for row in (Seat.objects.filter(match_id__in=shared, player_id__in=accounts, rating_after__isnull=False)
                .values_list("match_id", "match__finished_at", "player_id", "role", "unrated_against")):
        by_match[row[0]].append(row[1:])
    ledger = ratings.PairLedger(stands_for)
    for seats in by_match.values():
        for (at, a, _, unrated), (_, b, role, _) in combinations(seats, 2):
            if role not in unrated.split():
                ledger.add(a, b, at)
    return ledger


def pairs_over_limit(*, game: str, player_ids: list[int]) -> set[tuple[int, int]]:
    """The index pairs of ``player_ids`` (as they would sit in a rated match of ``game``)
    whose result would not count if the match finished now: the pair's daily limit. Three
    queries; none for fewer than two players."""
    if len(player_ids) < 2 or None in player_ids:
        return set()
    return pair_ledger(game, player_ids).excluded(player_ids, timezone.now())


def match_pairs_over_limit(*, match: Match, seats: list[dict]) -> list[tuple[str, str]]:
    """The pairs of roles of a rated ``match`` (``seats``: its snapshot's, with their players)
    whose result would not count if it finished now: before and during the match, the pairs
    whose result will not count; once it is over, those a rated rematch's would not. Empty for a
    casual match or one with a free seat."""
    if not match.rated or any(seat["player"] is None for seat in seats):
        return []
    over = pairs_over_limit(game=match.game, player_ids=[seat["player"]["id"] for seat in seats])
    return [(seats[i]["role"], seats[j]["role"]) for i, j in sorted(over)]


def games_over_pair_limit(*, player_ids: list[int], games: list[str]) -> list[str]:
    """The rule sets among ``games`` in which a rated result between the two ``player_ids``
    would not count today (for a challenge form: who is challenged is known)."""
    return [game for game in games if pairs_over_limit(game=game, player_ids=player_ids)]
