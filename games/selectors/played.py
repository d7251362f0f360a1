"""Reads for tables of many games at once (an arena's standings): each match's length,
outcomes and the players' ratings when seated, and players' current ratings in a rule set."""

from __future__ import annotations

from dataclasses import dataclass

from games.match import ratings
from games.models import Match, Rating, Seat


@dataclass(frozen=True)
class MatchPlayed:
    """How a match stands: ``status`` (a ``Match.Status`` value), its moves (``plies``), each
    player's outcome once finished ("won", "drawn", "lost") and rating when seated, by player
    id, and its page's address (with the invite token of a private match)."""

    status: str
    plies: int
    outcomes: dict[int, str]
    ratings: dict[int, int | None]
    url: str


def matches_played(match_ids) -> dict[int, MatchPlayed]:
    """Each of ``match_ids`` as a ``MatchPlayed`` (two queries)."""
    ids = list(match_ids)
    found = {pk: MatchPlayed(status, plies, {}, {}, f"/matches/{pk}/" + (f"?invite={token}" if private else ""))
             for pk, status, plies, private, token in Match.objects.filter(pk__in=ids)
             .values_list("pk", "status", "plies", "is_private", "invite_token")}
    for match_id, player_id, outcome, rating in (Seat.objects.filter(match_id__in=ids, player__isnull=False)
                                                 .values_list("match_id", "player_id", "outcome", "rating_before")):
        found[match_id].ratings[player_id] = rating
        if outcome and found[match_id].status == Match.Status.FINISHED:
            found[match_id].outcomes[player_id] = outcome
    return found


def shown_ratings(*, game: str, player_ids) -> dict[int, int]:
    """Each player's rating in ``game`` as shown (a player with none: the initial rating)."""
    ids = list(player_ids)
    found = dict(Rating.objects.filter(game=game, player_id__in=ids).values_list("player_id", "mu"))
    return {i: ratings.shown(found.get(i, ratings.INITIAL[0])) for i in ids}
