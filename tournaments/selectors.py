"""The tournaments' reads, shaped for the pages. No writes here."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Q

from games.rules import get_game
from tournaments import standings
from tournaments.models import Entry, Tournament, TournamentGame
from tournaments.services import is_round_by_round, results, time_control_of

LIST_LIMIT = 50


def can_view(tournament: Tournament, user, invite: str | None = None) -> bool:
    """Public ones to anyone; a private one to its players, its creator and holders of its link
    (and, when it has a password, to anyone who knows its address)."""
    if not tournament.is_private or invite == tournament.invite_secret or tournament.password:
        return True  # a password-protected one shows its page; joining asks for the password
    if user is None or not user.is_authenticated:
        return False
    return tournament.created_by_id == user.pk or tournament.entries.filter(player=user).exists()


def tournament_lists() -> dict[str, list[Tournament]]:
    """The public tournaments by status: upcoming (soonest first), running, finished or cancelled
    (latest first), each with ``players`` counted, ``game_name``, ``time_label`` and ``moment``
    (when it starts, started or ended)."""
    public = Tournament.objects.filter(is_private=False).annotate(
        players=Count("entries", filter=Q(entries__withdrawn=False))).select_related("created_by")
    S = Tournament.Status
    lists = {
        "upcoming": list(public.filter(status=S.UPCOMING).order_by("starts_at", "pk")[:LIST_LIMIT]),
        "running": list(public.filter(status=S.RUNNING).order_by("-started_at", "-pk")[:LIST_LIMIT]),
        "finished": list(public.filter(status__in=[S.FINISHED, S.CANCELLED]).order_by("-finished_at", "-pk")
                         [:LIST_LIMIT]),
    }
    for key, moment in (("upcoming", "starts_at"), ("running", "started_at"), ("finished", "finished_at")):
        for tournament in lists[key]:
            tournament.game_name = get_game(tournament.game).name
            tournament.time_label = time_control_of(tournament).label
            tournament.moment = getattr(tournament, moment)
    return lists


@dataclass(frozen=True)
class StandingRow:
    rank: int
    player: object
    score: float
    tie_break: float
    played: int
    withdrawn: bool


@dataclass(frozen=True)
class GameRow:
    round: int
    first: object
    second: object
    match_url: str | None
    result: str  # "1-0", "½-½", "0-1" (three players: "1 · ½ · 0"), "called off", or "" while unfinished
    third: object = None  # a three-player game's third seat


def _result_text(result: standings.Result | None) -> str:
    if result is None:
        return ""
    if result.first_score is None:
        return "called off"
    return {standings.WIN: "1-0", standings.DRAW: "½-½", standings.LOSS: "0-1"}[result.first_score]


def tournament_page(tournament: Tournament) -> dict:
    """Everything the tournament's page shows: its settings in words, the standings (score,
    then Sonneborn-Berger) and the games of the rounds begun."""
    entries = list(Entry.objects.filter(tournament=tournament).select_related("player").order_by("joined_at", "pk"))
    played = results(tournament) if tournament.status != Tournament.Status.UPCOMING else []
    by_id = {e.player_id: e for e in entries}
    in_play = [e.player_id for e in entries if not e.withdrawn]  # withdrawing ends with the start
    rows = [StandingRow(rank=s.rank, player=by_id[s.player].player, score=s.score, tie_break=s.tie_break,
                        played=s.played, withdrawn=by_id[s.player].withdrawn)
            for s in standings.standings(in_play, (r for _, r in played if r is not None))]
    games = [GameRow(round=g.round, first=g.first, second=g.second, match_url=g.match_url, result=_result_text(r),
                     third=g.third) for g, r in played]
    return {
        "game_name": get_game(tournament.game).name,
        "time_control": time_control_of(tournament),
        "round_by_round": is_round_by_round(tournament),
        "standings": rows,
        "games": games,
        "players": [e.player_id for e in entries if not e.withdrawn],
        "score_places": "-1",  # the decimals a score shows (floatformat): 1, 1.5
    }


def tournament_game_of_match(match_id: int) -> TournamentGame | None:
    """The tournament game (with its tournament) that ``match_id`` is, if any."""
    return TournamentGame.objects.filter(match_id=match_id).select_related("tournament").first()
