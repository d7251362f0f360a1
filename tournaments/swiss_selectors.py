"""A Swiss's reads for its page and its download: standings by score, Buchholz and
Sonneborn-Berger, and the rounds' games and byes. No writes here."""

from __future__ import annotations

from dataclasses import dataclass

from games.rules import get_game
from tournaments.models import Bye, Entry, Tournament
from tournaments.selectors import GameRow, _result_text
from tournaments.services import is_round_by_round, results, time_control_of
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
    """What a Swiss's page shows, in the keys of ``selectors.tournament_page``, with ``byes``,
    ``is_swiss`` and ``may_join_late``."""
    entries = list(Entry.objects.filter(tournament=tournament).select_related("player").order_by("joined_at", "pk"))
    by_id = {e.player_id: e for e in entries}
    if tournament.status == Tournament.Status.UPCOMING:
        history, played = {e.player_id: [] for e in entries if not e.withdrawn}, []
    else:
        history, _, _ = swiss_history(tournament)
        played = results(tournament)
    rows = [SwissStandingRow(rank=s.rank, player=by_id[s.player].player, score=s.score, buchholz=s.buchholz,
                             tie_break=s.sonneborn_berger, played=s.played, withdrawn=by_id[s.player].withdrawn)
            for s in swiss_standings(list(history), history)]
    games = [GameRow(round=g.round, first=g.first, second=g.second, match_url=g.match_url, result=_result_text(r))
             for g, r in played]
    byes = [ByeRow(round=b.round, player=b.player, points=b.points)
            for b in Bye.objects.filter(tournament=tournament).select_related("player").order_by("round", "pk")]
    return {
        "game_name": get_game(tournament.game).name,
        "time_control": time_control_of(tournament),
        "round_by_round": is_round_by_round(tournament),
        "standings": rows,
        "games": games,
        "byes": byes,
        "players": [e.player_id for e in entries if not e.withdrawn],
        "is_swiss": True,
        "may_join_late": may_join_late(tournament),
    }
