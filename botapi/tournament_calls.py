"""The bot API's tournament calls: list, read, join, withdraw, and an arena's pause and resume.
Each parses the call, checks the tournament may be seen as its page checks it
(``tournaments.selectors.can_view``), and calls the same service as the page's button
(``tournaments.formats``, ``tournaments.arena``); a refusal is the service's own code.
``botapi.api`` registers them with their tokens' scopes and answers. A tournament's games are
matches like any other: they reach the event stream as ``gameStart`` and are played with the
match calls."""

from __future__ import annotations

from typing import Annotated, Any

from ninja import Schema
from pydantic import ConfigDict, Field, StrictStr

from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.rules import get_game
from tournaments import arena, formats, selectors
from tournaments.models import Entry, Tournament
from tournaments.state import tournament_state, viewer_part

SECRET_MAX = 128


class TournamentJoinIn(Schema):
    """A join's body: ``{}`` for a public tournament; a private one's ``invite`` (the secret of its
    invite link) or, if it has one, its ``password``."""

    model_config = ConfigDict(extra="forbid")
    invite: Annotated[StrictStr, Field(min_length=1, max_length=SECRET_MAX)] | None = None
    password: Annotated[StrictStr, Field(min_length=1, max_length=SECRET_MAX)] | None = None


def _iso(moment) -> str | None:
    return moment.isoformat() if moment else None


def tournament_json(tournament: Tournament, players: int) -> dict[str, Any]:
    """A tournament's settings and counts, as the list and the single read give them."""
    time_control = TimeControl.of(tournament)
    return {"id": tournament.pk, "name": tournament.name, "format": tournament.format, "game": tournament.game,
            "game_name": get_game(tournament.game).name, "clock": time_control.code,
            "time_control": time_control.label, "rated": tournament.rated, "status": tournament.status,
            "private": tournament.is_private, "password": bool(tournament.password),
            "players": players, "min_players": tournament.min_players, "max_players": tournament.max_players,
            "rounds": tournament.rounds, "cycles": tournament.cycles, "minutes": tournament.minutes,
            "starts_at": _iso(tournament.starts_at), "started_at": _iso(tournament.started_at),
            "ends_at": _iso(tournament.ends_at), "finished_at": _iso(tournament.finished_at)}


def tournament_list(request) -> dict[str, list[dict[str, Any]]]:
    """The public tournaments one may still join or follow: ``upcoming`` (soonest first) and
    ``running`` (latest first), as the tournaments page lists them."""
    lists = selectors.tournament_lists()
    return {key: [tournament_json(t, t.players) for t in lists[key]] for key in ("upcoming", "running")}


def _visible(request, tournament_id: int, invite: str | None) -> Tournament:
    """The tournament, or the same 404 whether it is missing or private to this account."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None or not selectors.can_view(tournament, request.user, invite):
        raise ServiceError("not_found", "There is no such tournament, or it is private.")
    return tournament


def tournament_read(request, tournament_id: int, invite: str | None = None) -> dict[str, Any]:
    """The tournament (settings and counts), its standings and games in play as its live page
    has them, and ``you``: in it or not, paused, your game in play."""
    tournament = _visible(request, tournament_id, invite)
    state = tournament_state(tournament_id=tournament.pk)
    players = Entry.objects.filter(tournament=tournament, withdrawn=False).count()
    return {"tournament": tournament_json(tournament, players), "version": state["version"],
            "standings": state["standings"], "playing": state["playing"],
            "you": viewer_part(state, request.user.pk)}


def _entry_json(tournament_id: int, user) -> dict[str, Any]:
    entry = Entry.objects.filter(tournament_id=tournament_id, player=user).first()
    return {"ok": True, "joined": entry is not None and not entry.withdrawn,
            "paused": entry is not None and entry.paused}


def tournament_join(request, tournament_id: int, body: TournamentJoinIn) -> dict[str, Any]:
    """Join as the page's Join does: before the start; a Swiss also while it runs (until half
    its rounds have begun), an arena until it ends (joining a running arena pairs you at once:
    open the event stream first). A private tournament needs ``invite``, or ``password`` if it
    has one."""
    _visible(request, tournament_id, body.invite)
    formats.tournament_join(tournament_id=tournament_id, user=request.user, invite=body.invite,
                            password=body.password)
    return _entry_json(tournament_id, request.user)


def tournament_withdraw(request, tournament_id: int) -> dict[str, Any]:
    """Withdraw as the page's Withdraw does: before the start, or from a running Swiss or arena
    (your results stay)."""
    _visible(request, tournament_id, None)
    formats.tournament_withdraw(tournament_id=tournament_id, user=request.user)
    return _entry_json(tournament_id, request.user)


def arena_pause(request, tournament_id: int) -> dict[str, Any]:
    """Pause in a running arena: no new pairings (a game in play goes on and counts)."""
    _visible(request, tournament_id, None)
    arena.arena_pause(tournament_id=tournament_id, user=request.user)
    return _entry_json(tournament_id, request.user)


def arena_resume(request, tournament_id: int, body: TournamentJoinIn) -> dict[str, Any]:
    """Come back to an arena after a pause (yours, or the one a missed pairing made) or a
    withdrawal, with your score; as the page's Resume. A private arena needs ``invite``."""
    _visible(request, tournament_id, body.invite)
    arena.arena_join(tournament_id=tournament_id, user=request.user, invite=body.invite)
    return _entry_json(tournament_id, request.user)
