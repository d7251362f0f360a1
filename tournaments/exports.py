"""The whole tournament as one JSON download: its settings, the standings with their
tie-breaks, the byes of a Swiss, and every game, each in the GGP match form the history exports
for a single match (``games.history.selectors.match_export``)."""

from __future__ import annotations

from typing import Any

from games.history.selectors import match_export
from games.rules.base import RulesError
from tournaments.models import Tournament, TournamentGame
from tournaments.selectors import _result_text
from tournaments.services import results, time_control_of
from tournaments.state import tournament_state
from tournaments.swiss import is_three_player, trio_results
from tournaments.swiss_selectors import trio_result_text


def _player(user) -> dict[str, Any]:
    return {"id": user.pk, "name": user.display_name}


def tournament_export(tournament: Tournament, page: dict) -> dict[str, Any]:
    """``page`` is what the tournament's page shows (``selectors.tournament_page`` or
    ``swiss_selectors.swiss_page``; for an arena ``arena_page``). A game whose stored moves the rules no longer accept is
    listed with ``match`` null and the reason."""
    matches = {g.pk: g.match for g in TournamentGame.objects.filter(tournament=tournament, match__isnull=False)
               .select_related("match")}
    games = []
    trios = ({g.pk: trio_result_text(g, points) for g, points in trio_results(tournament)}
             if is_three_player(tournament) else {})
    for game, result in results(tournament):
        row: dict[str, Any] = {"round": game.round, "first": _player(game.first), "second": _player(game.second),
                               "result": _result_text(result) or None, "match": None}
        if game.third is not None:  # a three-player game: its points by place in seat order
            row["third"], row["result"] = _player(game.third), trios.get(game.pk) or None
        match = matches.get(game.pk)
        if match is not None:
            try:
                row["match"] = match_export(match=match)
            except RulesError:
                row["error"] = "a stored move is not one the rules accept: the game cannot be exported"
        games.append(row)
    standings = page["arena_standings"] if "arena_standings" in page else []
    for row in page["standings"]:
        entry = {"rank": row.rank, "player": _player(row.player), "score": row.score, "played": row.played,
                 "withdrawn": row.withdrawn, "sonnebornBerger": row.tie_break}
        if hasattr(row, "buchholz"):
            entry["buchholz"] = row.buchholz
        standings.append(entry)
    data = {
        "tournament": {
            "id": tournament.pk, "name": tournament.name, "format": tournament.format, "gameSlug": tournament.game,
            "gameName": page["game_name"], "timeControl": time_control_of(tournament).code,
            "rated": tournament.rated, "rounds": tournament.rounds, "cycles": tournament.cycles,
            "status": tournament.status, "statusReason": tournament.status_reason or None,
            "startsAt": tournament.starts_at.isoformat(),
            "startedAt": tournament.started_at.isoformat() if tournament.started_at else None,
            "finishedAt": tournament.finished_at.isoformat() if tournament.finished_at else None,
        },
        "standings": standings,
        "games": games,
    }
    if "byes" in page:
        data["byes"] = [{"round": b.round, "player": _player(b.player), "points": b.points} for b in page["byes"]]
    return data


def arena_page(tournament: Tournament) -> dict[str, Any]:
    """An arena's standings as its live page shows them (``tournaments.state``): score,
    performance, the points of each game with their fire and berserk marks."""
    state = tournament_state(tournament_id=tournament.pk)
    return {"game_name": state["game_name"], "standings": [], "arena_standings": [
        {"rank": row["rank"], "player": {"id": row["id"], "name": row["name"]}, "score": row["score"],
         "performance": row["tie_break"], "played": row["games"], "withdrawn": row["withdrawn"],
         "marks": row["marks"]} for row in state["standings"]]}
