"""An arena's page (its buttons call ``tournaments.formats``, which hands them to the arena's
writes). Thin: the page is its state (``tournaments.state``), drawn and then kept live by
``static/js/tournament.js`` over ``/ws/tournaments/<id>/``."""

from __future__ import annotations

from django.shortcuts import render

from games.rules import get_game
from tournaments import arena_scoring
from tournaments.state import tournament_state, viewer_part


def arena_page(request, tournament, invite: str | None):
    state = tournament_state(tournament_id=tournament.pk)
    user = request.user
    state["you"] = viewer_part(state, user.pk if user.is_authenticated else None)
    return render(request, "tournaments/arena.html", {
        "tournament": tournament, "state": state, "invite": invite if tournament.is_private else None,
        "game_name": get_game(tournament.game).name, "time_control": state["time_control"],
        "may_join": user.is_authenticated and not user.is_guest,
        "is_creator": user.is_authenticated and tournament.created_by_id == user.pk,
        "rules": {"win": arena_scoring.WIN, "draw": arena_scoring.DRAW, "berserk_plies": arena_scoring.BERSERK_MIN_PLIES,
                  "early_draw": arena_scoring.EARLY_DRAW_PLIES, "draw_streak": arena_scoring.DRAW_STREAK_PLIES},
        "invite_url": request.build_absolute_uri(f"{request.path}?invite={tournament.invite_secret}")
        if tournament.is_private and user.is_authenticated and tournament.created_by_id == user.pk else None,
    })
