"""A tournament's live state, as its page is sent it over the websocket
(``live.consumers.tournament``): the standings with their marks, the games in play, and the
moments a countdown needs. The same for every viewer; ``viewer_part`` adds what is one
viewer's own (in it or not, paused, their game in play). Reads only."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone

from games.match.clocks import TimeControl
from games.rules import get_game
from tournaments import selectors, swiss, swiss_selectors
from tournaments.arena import arena_standings, arena_table
from tournaments.models import Entry, Tournament


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def _person(user) -> dict[str, Any]:
    return {"id": user.pk, "name": user.display_name}


def tournament_state(*, tournament_id: int, now: datetime | None = None) -> dict[str, Any] | None:
    """The state of tournament ``tournament_id`` (None if there is none)."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        return None
    now = now or timezone.now()
    entries = {e.player_id: e for e in Entry.objects.filter(tournament=tournament).select_related("player")}
    if tournament.format == Tournament.Format.ARENA:
        standings, playing = _arena(tournament, entries)
    else:
        standings, playing = _round_robin(tournament, entries)
    return {"type": "tournament", "id": tournament.pk, "version": tournament.version, "format": tournament.format,
            "name": tournament.name, "game_name": get_game(tournament.game).name,
            "time_control": TimeControl.of(tournament).label, "status": tournament.status,
            "status_reason": tournament.status_reason, "now": _iso(now), "starts_at": _iso(tournament.starts_at),
            "ends_at": _iso(tournament.ends_at), "standings": standings, "playing": playing}


def _arena(tournament: Tournament, entries: dict[int, Entry]) -> tuple[list[dict], list[dict]]:
    table = arena_table(tournament)
    busy = table.busy()
    rows = []
    for row in arena_standings(tournament, table):
        entry, sheet = entries[row.player], row.sheet
        if entry.withdrawn and not sheet.marks and tournament.status == Tournament.Status.UPCOMING:
            continue
        rows.append({"rank": row.rank, **_person(entry.player), "score": sheet.score,
                     "tie_break": sheet.performance, "fire": sheet.on_fire, "berserks": sheet.berserks,
                     "marks": [{"points": m.points, "outcome": m.outcome, "fire": m.fire, "berserk": m.berserk}
                               for m in sheet.marks],
                     "games": len(sheet.marks), "playing": row.player in busy,
                     "paused": entry.paused, "withdrawn": entry.withdrawn})
    playing = [{"match": match.url, "first": _person(game.first), "second": _person(game.second),
                "berserk_first": game.berserk_first, "berserk_second": game.berserk_second}
               for game, match in reversed(table.in_play)]
    return rows, playing


def _round_robin(tournament: Tournament, entries: dict[int, Entry]) -> tuple[list[dict], list[dict]]:
    """A round robin's standings and games; a Swiss's, as its page ranks them (byes counted,
    Buchholz first; ``tie_break`` is Sonneborn-Berger in both)."""
    page = (swiss_selectors.swiss_page if swiss.is_swiss(tournament) else selectors.tournament_page)(tournament)
    rows = [{"rank": r.rank, **_person(r.player), "score": r.score, "tie_break": r.tie_break, "fire": False,
             "berserks": 0, "marks": [], "games": r.played, "playing": False, "paused": False,
             "withdrawn": r.withdrawn} for r in page["standings"]]
    playing = [{"match": g.match_url, "first": _person(g.first), "second": _person(g.second),
                "berserk_first": False, "berserk_second": False, **({"third": _person(g.third)} if g.third else {})}
               for g in page["games"] if g.match_url and not g.result]
    busy = {p["id"] for game in playing for p in _seated(game)}
    for row in rows:
        row["playing"] = row["id"] in busy
    return rows, playing


def _seated(game: dict[str, Any]) -> list[dict[str, Any]]:
    """The players of a game in play: two, or three in a three-player Swiss."""
    return [game["first"], game["second"], *([game["third"]] if "third" in game else [])]


def viewer_part(state: dict[str, Any], user_id: int | None) -> dict[str, Any]:
    """What of ``state`` is the viewer's own: whether they are in it (and paused or withdrawn),
    and the address of their game in play, if any."""
    row = next((r for r in state["standings"] if r["id"] == user_id), None) if user_id else None
    game = next((g["match"] for g in state["playing"] if user_id in {p["id"] for p in _seated(g)}), None)
    return {"joined": bool(row) and not row["withdrawn"], "paused": bool(row) and row["paused"],
            "game": game if user_id else None}
