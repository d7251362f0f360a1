"""The GGP arena's reads: the ladder (each program's rating, record and strikes), the matches
running now, and an owner's programs with their place in the arena."""

from __future__ import annotations

from games.match.ratings import shown
from games.models import GGPPlayer, Match
from ggparena.models import ArenaEntry, ArenaMatch


def _row(entry: ArenaEntry) -> dict:
    status = ("paused" if entry.paused_at else "in the arena") if entry.opted_in else "opted out"
    return {"player_id": entry.player_id, "name": str(entry.player.account), "owner": str(entry.player.owner),
            "rating": shown(entry.mu), "played": entry.played, "won": entry.won, "drawn": entry.drawn,
            "lost": entry.lost, "aborted": entry.aborted, "late": entry.late, "illegal": entry.illegal,
            "silent": entry.silent, "status": status, "paused_note": entry.paused_note}


def arena_ladder() -> list[dict]:
    """Every program in the arena or that played in it (removed ones left out), best first."""
    entries = (ArenaEntry.objects.select_related("player__account", "player__owner")
               .filter(player__removed_at__isnull=True).exclude(opted_in=False, played=0, aborted=0)
               .order_by("-mu", "sigma", "pk"))
    return [_row(entry) for entry in entries]


def arena_running() -> list[dict]:
    """The arena's matches being played now, newest first."""
    rows = (ArenaMatch.objects.filter(settled=False, match__status=Match.Status.ACTIVE)
            .select_related("match").prefetch_related("match__seats__player").order_by("-pk"))
    return [{"match_id": row.match_id, "game": row.match.game, "plies": row.match.plies,
             "start": row.match.clock_start, "play": row.match.clock_play,
             "players": [str(seat.player) for seat in sorted(row.match.seats.all(), key=lambda s: s.order)]}
            for row in rows]


def arena_programs_of(owner) -> list[dict]:
    """``owner``'s registered programs and whether each is in the arena (or paused)."""
    players = (GGPPlayer.objects.filter(owner=owner, removed_at__isnull=True).select_related("account")
               .order_by("created_at"))
    entries = {e.player_id: e for e in ArenaEntry.objects.filter(player__in=players)}
    rows = []
    for player in players:
        entry = entries.get(player.pk)
        rows.append({"player_id": player.pk, "name": str(player.account), "opted_in": bool(entry and entry.opted_in),
                     "paused": bool(entry and entry.paused_at), "paused_note": entry.paused_note if entry else ""})
    return rows
