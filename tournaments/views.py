"""The tournaments' pages: thin, each parses the request, calls one service or selector and
renders. A refused request says why on the next page and changes nothing."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_POST

from games.match.errors import ServiceError
from tournaments import arena, arena_views, exports, formats, selectors, services, swiss, swiss_selectors
from tournaments.forms import TournamentCreateForm
from tournaments.models import Tournament


def tournament_list(request):
    return _list(request, TournamentCreateForm())


def _list(request, form, status: int = 200):
    may_create = request.user.is_authenticated and not request.user.is_guest
    return render(request, "tournaments/list.html", {"lists": selectors.tournament_lists(), "form": form,
                                                     "may_create": may_create}, status=status)


@require_POST
def tournament_create(request):
    form = TournamentCreateForm(request.POST)
    if not form.is_valid():
        return _list(request, form, status=400)
    try:
        create = arena.arena_create if form.is_arena else services.tournament_create
        tournament = create(user=request.user, **form.service_arguments())
    except ServiceError as err:
        form.add_error(None, err.message)
        return _list(request, form, status=400)
    return redirect(_page_url(tournament))


def _page_url(tournament: Tournament) -> str:
    url = reverse("tournaments:page", args=[tournament.pk])
    return f"{url}?{urlencode({'invite': tournament.invite_secret})}" if tournament.is_private else url


def _visible(request, tournament_id: int, invite: str | None) -> Tournament:
    """The tournament, or the same 404 whether it is missing or private to this visitor."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None or not selectors.can_view(tournament, request.user, invite):
        raise Http404("No such tournament, or it is private.")
    return tournament


def tournament_page(request, tournament_id: int):
    invite = request.GET.get("invite")
    tournament = _visible(request, tournament_id, invite)
    if tournament.format == Tournament.Format.ARENA:
        return arena_views.arena_page(request, tournament, invite)
    page = _page(tournament)
    user = request.user
    return render(request, "tournaments/page.html", {
        "tournament": tournament, "invite": invite if tournament.is_private else None, **page,
        "joined": user.is_authenticated and user.pk in page["players"],
        "is_creator": user.is_authenticated and tournament.created_by_id == user.pk,
        "invite_url": request.build_absolute_uri(_page_url(tournament))
        if tournament.is_private and user.is_authenticated and tournament.created_by_id == user.pk else None,
    })


def _act(request, tournament_id: int, action, **arguments):
    invite = request.POST.get("invite") or None
    tournament = _visible(request, tournament_id, invite)
    try:
        action(tournament_id=tournament.pk, user=request.user, **arguments)
    except ServiceError as err:
        messages.error(request, err.message)
    url = reverse("tournaments:page", args=[tournament.pk])
    return redirect(f"{url}?{urlencode({'invite': invite})}" if invite else url)


@require_POST
def tournament_join(request, tournament_id: int):
    return _act(request, tournament_id, formats.tournament_join, invite=request.POST.get("invite") or None,
                password=request.POST.get("password") or None)


@require_POST
def tournament_withdraw(request, tournament_id: int):
    return _act(request, tournament_id, formats.tournament_withdraw)


@require_POST
def tournament_start(request, tournament_id: int):
    return _act(request, tournament_id, formats.tournament_start)


def _page(tournament: Tournament) -> dict:
    return (swiss_selectors.swiss_page if swiss.is_swiss(tournament) else selectors.tournament_page)(tournament)


def tournament_download(request, tournament_id: int):
    """The whole tournament, standings and every game, as one JSON file."""
    tournament = _visible(request, tournament_id, request.GET.get("invite"))
    page = exports.arena_page(tournament) if tournament.format == Tournament.Format.ARENA else _page(tournament)
    response = JsonResponse(exports.tournament_export(tournament, page), json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="boardhall-tournament-{tournament.pk}.json"'
    return response


@require_POST
def arena_pause(request, tournament_id: int):
    return _act(request, tournament_id, arena.arena_pause)


@require_POST
def arena_berserk(request, tournament_id: int, match_id: int):
    """From the arena game's match page: back there, with the clock halved (or why not)."""
    tournament = _visible(request, tournament_id, request.POST.get("invite") or None)
    try:
        arena.arena_berserk(tournament_id=tournament.pk, match_id=match_id, user=request.user)
    except ServiceError as err:
        messages.error(request, err.message)
    return redirect(request.POST.get("back") if request.POST.get("back", "").startswith("/matches/")
                    else reverse("tournaments:page", args=[tournament.pk]))
