"""The account page (API tokens, the bot upgrade), the GGP players' page and the API's documentation page.

A new token's secret is kept in the session between the POST that made it and the redirect's
GET, which takes it out as it shows it (never in the messages or a redirect's address): a reload
shows it no more and makes no second token.
"""

import random

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from botapi import services
from botapi.api import api
from botapi.models import ApiToken
from games import services as match_services
from games.match import clocks
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.rules import GAMES
from games.services import ServiceError

GAMES_BY_SLUG = {game.slug: game for game in GAMES}


NEW_TOKEN_KEY = "botapi_new_token"


@never_cache
@login_required
def account(request):
    if request.method == "POST":
        try:
            _, secret = services.token_create(user=request.user, name=request.POST.get("name", ""),
                                              scopes=set(request.POST.getlist("scopes")))
        except ServiceError as err:
            messages.error(request, err.message)
        else:
            request.session[NEW_TOKEN_KEY] = secret
        return redirect("botapi:account")
    return render(request, "botapi/account.html", {
        "secret": request.session.pop(NEW_TOKEN_KEY, None),
        "tokens": ApiToken.objects.filter(user=request.user, revoked_at__isnull=True).order_by("-created_at"),
        "scopes": ApiToken.Scope.choices,
    })


@require_POST
@login_required
def token_revoke(request, token_id: int):
    try:
        token = services.token_revoke(user=request.user, token_id=token_id)
    except ServiceError as err:
        messages.error(request, err.message)
    else:
        messages.success(request, f"The token {token.name} is revoked.")
    return redirect("botapi:account")


@require_POST
@login_required
def bot_upgrade(request):
    try:
        services.bot_upgrade(user=request.user)
    except ServiceError as err:
        messages.error(request, err.message)
    else:
        messages.success(request, "Your account is a bot account now.")
    return redirect("botapi:account")


@never_cache
def ggp_players(request):
    """Every registered GGP player with its status; a signed-up person registers one here."""
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.path)
        try:
            player = match_services.ggp_player_register(owner=request.user, name=request.POST.get("name", ""),
                                                        url=request.POST.get("url", ""))
        except ServiceError as err:
            messages.error(request, err.message)
        else:
            messages.success(request, f"{player.account} is registered; Boardhall is asking it for INFO.")
            return redirect("botapi:ggp_players")
    mine = match_services.ggp_players_of(request.user) if request.user.is_authenticated else []
    per_move = [(code, label) for code, label in clocks.choices() if TimeControl.parse(code).play]
    return render(request, "botapi/ggp.html", {
        "players": match_services.ggp_players_listed(), "mine": mine,
        "may_register": request.user.is_authenticated and not request.user.is_guest and not request.user.is_bot,
        "hosts": settings.GGP_PLAYER_HOSTS, "form": request.POST if request.method == "POST" else {},
        "games": GAMES, "per_move": per_move,
        "max_per_owner": match_services.GGP_MAX_PER_OWNER, "removed_counts_days": match_services.GGP_REMOVED_COUNTS_DAYS,
    })


@require_POST
def ggp_player_play(request, player_id: int):
    """A match against the GGP player ``player_id``, seated at once as the computer is: the
    person takes a random seat, the player the next one, the other seat (three players) waits
    for people, goes to the computer, or to a second GGP player (``rest``: ``people``,
    ``computer``, ``ggp:<id>``; a two-player rule set has no such seat).
    ``seat`` ``ggp:<id>`` gives the person's seat to another GGP player instead: programs meet
    and the person watches (``match_create``'s ``watch``); ``me`` (the default) keeps it.
    The per-move clock is the GGP way."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.path)
    game = GAMES_BY_SLUG.get(request.POST.get("game", ""))
    try:
        control = TimeControl.parse(request.POST.get("clock", ""))
    except ValueError as err:
        messages.error(request, str(err))
        return redirect("botapi:ggp_players")
    if game is None:
        messages.error(request, "Choose a rule set.")
        return redirect("botapi:ggp_players")
    roles = list(game.roles)
    role = random.choice(roles)
    ggp_role = roles[(roles.index(role) + 1) % len(roles)]
    seated, rest, seat = {ggp_role: player_id}, request.POST.get("rest", ""), request.POST.get("seat", "me")
    if seat != "me":  # the person's seat to a second program: the person watches
        other = _ggp_choice(seat)
        if other is None:
            messages.error(request, "Choose your seat from the list.")
            return redirect("botapi:ggp_players")
        seated[role] = other
    if len(roles) > 2 and rest.startswith("ggp:"):  # a program in the third seat: programs meet
        other = _ggp_choice(rest)
        if other is None:
            messages.error(request, "Choose the third seat from the list.")
            return redirect("botapi:ggp_players")
        seated[roles[(roles.index(role) + 2) % len(roles)]] = other
    try:
        match = match_services.match_create(
            user=request.user, settings=MatchSettings(game.slug, request.POST.get("rated") == "on", control),
            role=role, ggp_players=seated, against_computer=len(roles) > 2 and rest == "computer",
            watch=seat != "me")
    except ServiceError as err:
        messages.error(request, err.message)
        return redirect("botapi:ggp_players")
    return redirect("games:match", match_id=match.pk)


def _ggp_choice(value: str) -> int | None:
    """The GGP player id of a choice ``ggp:<id>``, or None for anything else."""
    number = value.removeprefix("ggp:")
    return int(number) if value.startswith("ggp:") and number.isdigit() and len(number) <= 18 else None


@require_POST
@login_required
def ggp_player_recheck(request, player_id: int):
    return _on_own_ggp_player(request, match_services.ggp_player_recheck, player_id)


@require_POST
@login_required
def ggp_player_remove(request, player_id: int):
    return _on_own_ggp_player(request, match_services.ggp_player_remove, player_id,
                              done="The GGP player is removed.")


def _on_own_ggp_player(request, service, player_id: int, *, done: str = ""):
    """Call ``service`` on the requester's GGP player ``player_id`` (the service refuses
    anyone else's) and go back to the GGP players' page, which shows the refusal or ``done``."""
    try:
        service(owner=request.user, player_id=player_id)
    except ServiceError as err:
        messages.error(request, err.message)
    else:
        if done:
            messages.success(request, done)
    return redirect("botapi:ggp_players")


def api_docs(request):
    """The OpenAPI description (``/api/openapi.json``) rendered on the server: every call with
    its method, path, scope, parameters and body fields. No script, nothing from elsewhere."""
    schema = api.get_openapi_schema()
    components = schema.get("components", {}).get("schemas", {})
    operations = []
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
            fields = components.get(body.get("$ref", "").rsplit("/", 1)[-1], {}).get("properties", {})
            operations.append({
                "method": method.upper(), "path": path,
                "description": _text_and_code(operation.get("description") or operation.get("summary", "")),
                "tag": (operation.get("tags") or [""])[0],
                "params": [p["name"] for p in operation.get("parameters", [])],
                "fields": [(name, f.get("type", "")) for name, f in fields.items()],
            })
    return render(request, "botapi/docs.html", {"operations": operations, "title": schema["info"]["title"]})


def _text_and_code(description: str) -> list[tuple[str, bool]]:
    """A call's docstring as (text, is code) pieces: what it writes between double backticks
    (``stale_version``) is code, shown as such instead of with its backticks."""
    return [(piece, index % 2 == 1) for index, piece in enumerate(description.split("``")) if piece]
