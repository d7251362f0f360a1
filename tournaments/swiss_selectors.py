"""A Swiss's reads for its page and its download: standings by score, Buchholz and
Sonneborn-Berger, and the rounds' games and byes. No writes here."""

from __future__ import annotations

from dataclasses import dataclass

from tournaments import selectors
from tournaments.models import Bye, Entry, Tournament
from tournaments.swiss import may_join_late, swiss_history
from tournaments.swiss_pairing import swiss_standings


@dataclass(frozen=True)
class SwissStandingRow:
    rank: int
    player: object
    score: float
    buchholz: float
    tie_break: float  # Sonneborn-Berger, as the round robin's rows call it
    played: int
    withdrawn: bool


@dataclass(frozen=True)
class ByeRow:
    round: int
    player: object
    points: float


def swiss_page(tournament: Tournament) -> dict:
    """What a Swiss's page shows: ``selectors.tournament_page``'s keys (its games, players and
    settings), with the Swiss's standings, and ``byes``, ``is_swiss`` and ``may_join_late``."""
    page = selectors.tournament_page(tournament)
    entries = {e.player_id: e for e in Entry.objects.filter(tournament=tournament).select_related("player")}
    if tournament.status == Tournament.Status.UPCOMING:
        history = {player: [] for player in page["players"]}
    else:
        history, _, _ = swiss_history(tournament)
    rows = [SwissStandingRow(rank=s.rank, player=entries[s.player].player, score=s.score, buchholz=s.buchholz,
                             tie_break=s.sonneborn_berger, played=s.played, withdrawn=entries[s.player].withdrawn)
            for s in swiss_standings(list(history), history)]
    byes = [ByeRow(round=b.round, player=b.player, points=b.points)
            for b in Bye.objects.filter(tournament=tournament).select_related("player").order_by("round", "pk")]
    return {**page, "standings": rows, "byes": byes, "is_swiss": True, "may_join_late": may_join_late(tournament)}
