"""The GGP arena's pages: the page (running matches, the ladder, each program's record and
strikes; an owner's programs with their opt-in) and the owner's opt-in toggle."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from games.match.errors import ServiceError
from games.rules import GAMES
from ggparena import selectors, services

NAMES = {game.slug: game.name for game in GAMES}
BACK = {"arena": "ggparena:page", "ggp": "botapi:ggp_players"}


def arena_page(request):
    running = selectors.arena_running()
    for row in running:
        row["game_name"] = NAMES.get(row["game"], row["game"])
    mine = selectors.arena_programs_of(request.user) if request.user.is_authenticated else []
    return render(request, "ggparena/arena.html", {
        "running": running, "ladder": selectors.arena_ladder(), "mine": mine,
        "games": [NAMES[slug] for slug in services.arena_games()],
    })


@require_POST
def arena_opt(request, player_id: int):
    """The owner puts their program in the arena (``arena=in``; again after a pause) or takes it out."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.path)
    opted_in = request.POST.get("arena") == "in"
    try:
        entry = services.arena_opt_in(owner=request.user, player_id=player_id, opted_in=opted_in)
    except ServiceError as err:
        messages.error(request, err.message)
    else:
        name = entry.player.account
        messages.success(request, f"{name} is in the arena: it is scheduled while it answers INFO available."
                         if opted_in else f"{name} is out of the arena.")
    return redirect(BACK.get(request.POST.get("back", ""), "ggparena:page"))
