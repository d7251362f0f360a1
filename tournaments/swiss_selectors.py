"""A Swiss's reads for its page and its download: standings by score, Buchholz and
Sonneborn-Berger, and the rounds' games and byes. No writes here."""

from __future__ import annotations

from dataclasses import dataclass

from tournaments import selectors
from tournaments.models import Bye, Entry, Tournament
from tournaments.swiss import is_three_player, may_join_late, standings_of, swiss_history, trio_results


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
            for s in standings_of(tournament, history)]
    byes = [ByeRow(round=b.round, player=b.player, points=b.points)
            for b in Bye.objects.filter(tournament=tournament).select_related("player").order_by("round", "pk")]
    if is_three_player(tournament):  # points by place make quarters: 1.75
        page["three_player"], page["score_places"] = True, "-2"
        if tournament.status != Tournament.Status.UPCOMING:
            page["games"] = trio_game_rows(tournament)
    return {**page, "standings": rows, "byes": byes, "is_swiss": True, "may_join_late": may_join_late(tournament)}


def _points_text(points: float) -> str:
    whole, part = divmod(points, 1)
    fraction = {0.0: "", 0.25: "¼", 0.5: "½", 0.75: "¾"}.get(part, f"{part:g}")
    return (f"{int(whole)}" if whole or not fraction else "") + fraction


def trio_result_text(game, points: dict[int, float] | None) -> str:
    """A three-player game's points in seat order ("1 · ½ · 0", ties "¾ · ¾ · 0"), "called off"
    if it was aborted, "" while unfinished."""
    if points is None:
        return ""
    if not points:
        return "called off"
    return " · ".join(_points_text(points[p]) for p in (game.first_id, game.second_id, game.third_id))


def trio_game_rows(tournament: Tournament) -> list[selectors.GameRow]:
    return [selectors.GameRow(round=g.round, first=g.first, second=g.second, third=g.third, match_url=g.match_url,
                              result=trio_result_text(g, points)) for g, points in trio_results(tournament)]
