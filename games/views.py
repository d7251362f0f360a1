"""Match pages: parse, call one service or selector, render or redirect."""

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.html import escape, format_html
from django.utils.http import urlencode
from django.views.decorators.http import require_POST

from games import selectors, services
from games.computer.search import LEVELS
from games.ggp.gdl.sheets import SHEET_VERSION, sheet_meta, sheet_text
from games.history.selectors import match_replay
from games.match import guide, invites
from games.match.clocks import TimeControl
from games.match.labels import pair_limit_note
from games.models import Match
from games.rules import SLUGS
from games.selectors.invites import invite_ended_view
from games.selectors.pairs import match_pairs_over_limit
from games.selectors.sharing import link_preview
from games.services import ServiceError


def refuse(request, err: ServiceError) -> None:
    """Show a refusal on the next page; one that names the match it is about links to it
    ("You are already playing a real-time match: finish it first. Go to that match")."""
    match_id = err.extra.get("match")
    if match_id is None:
        messages.error(request, err.message)
    else:
        messages.error(request, format_html('{} <a href="/matches/{}/">Go to that match</a>', err.message, match_id))


def match_page(request, match_id: int):
    match = get_object_or_404(Match, pk=match_id)
    invite = request.GET.get("invite")
    if not selectors.match_can_view(match=match, user=request.user, invite_token=invite):
        raise Http404("No such match, or it is private.")
    if match.status == Match.Status.WAITING and services.waiting_matches_expire(match_id=match.pk):
        match.refresh_from_db()  # its time was up: the page says so from its first paint
    snapshot = selectors.match_snapshot(match=match)
    roles = selectors.viewer_roles(snapshot=snapshot, user=request.user)
    seats = snapshot["seats"]
    names = {s["role"]: s["player"]["name"] if s["player"] else None for s in seats}
    return render(request, "games/match.html", {
        "match": match,
        "snapshot": snapshot,
        # In the page's language (the snapshot keeps the English, one for every watcher).
        "game_name": guide.game_name(snapshot["game"]),
        "time_words": TimeControl.of(match).words,
        "pair_limit": pair_limit_note(
            match_pairs_over_limit(match=match, seats=seats),
            {s["role"]: s["player"]["name"] for s in seats if s["player"]}, seats=len(seats),
            finished=match.status == Match.Status.FINISHED),
        "preview": link_preview(match=match, names=names, to_move=snapshot["view"].get("to_move"),
                                page_url=request.build_absolute_uri(request.path), site=request.build_absolute_uri("/")),
        "embed_code": None if match.is_private else embed_code(
            request.build_absolute_uri(f"/embed/{match.pk}/"), snapshot["game_name"],
            replay=match.status in (Match.Status.FINISHED, Match.Status.ABORTED)),
        "computer_levels": [level.name for level in LEVELS],  # a waiting match's creator may seat it
        "invite": invite if match.is_private else None,
        "invite_url": request.build_absolute_uri(f"{request.path}?invite={match.invite_token}")
        if match.is_private and roles else None,
        "invite_grace": invites.grace_words(settings.INVITE_GRACE_SECONDS),
        "invite_ended": invite_ended_view(match=match, user=request.user),
    })


def embed_code(url: str, game_name: str, *, replay: bool) -> str:
    """The HTML that shows a match's board in another site's page (``games.embed``); a
    finished match's has room for the replay's controls."""
    return (f'<iframe src="{escape(url)}" width="400" height="{580 if replay else 500}" style="border: 0" '
            f'title="{escape(game_name)} on Boardhall"></iframe>')


def match_positions(request, match_id: int):
    """Every position of the match so far (``views[n]``: after n moves), for looking back on
    the match page while the game goes on. The same visibility as the page (invite links too)."""
    match = get_object_or_404(Match, pk=match_id)
    if not selectors.match_can_view(match=match, user=request.user, invite_token=request.GET.get("invite")):
        raise Http404("No such match, or it is private.")
    return JsonResponse({"views": match_replay(match=match)["views"]})


def _visible_match(request, match_id: int) -> Match:
    """The match, or the same 404 whether it is missing or private to this visitor (no oracle)."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None or not selectors.match_can_view(match=match, user=request.user,
                                                      invite_token=request.POST.get("invite")):
        raise Http404("No such match, or it is private.")
    return match


@require_POST
def match_join(request, match_id: int):
    return _act(request, _visible_match(request, match_id), services.seat_join, role=request.POST.get("role") or None)


@require_POST
def match_give_to_computer(request, match_id: int):
    level = request.POST.get("level", "")
    return _act(request, _visible_match(request, match_id), services.seat_give_to_computer,
                role=request.POST.get("role", ""), level=int(level) if level.isdecimal() else 0)


@require_POST
def match_abort(request, match_id: int):
    return _act(request, _visible_match(request, match_id), services.match_abort)


@require_POST
def match_rematch(request, match_id: int):
    match = _visible_match(request, match_id)
    try:
        new = services.rematch_offer(match_id=match.pk, user=request.user)
    except ServiceError as err:
        refuse(request, err)
        return redirect("games:match", match_id=match.pk)
    return redirect("games:match", match_id=new.pk)


@require_POST
def match_rematch_decline(request, match_id: int):
    return _act(request, _visible_match(request, match_id), services.rematch_decline)


def _act(request, match: Match, service, **kwargs):
    try:
        service(match_id=match.pk, user=request.user, **kwargs)
    except ServiceError as err:
        refuse(request, err)
    url = f"/matches/{match.pk}/"
    invite = request.POST.get("invite")
    return redirect(f"{url}?{urlencode({'invite': invite})}" if invite else url)


def rules_index(request):
    return render(request, "rules/index.html", {"games": guide.guide_games()})


def rules_page(request, slug: str):
    """How to play one game, for everyone; a variant's rules are on its game's page."""
    page = guide.guide_slug(slug)
    if page is None:
        raise Http404("There is no such game.")
    if page != slug:
        return redirect(f"/rules/{page}/#variants")
    return render(request, f"rules/{slug}.html", {"guide": guide.game_guide(slug=slug)})


def rules_meta(request, slug: str, version: int):
    """The rule set's GGP game address (``gameMetaURL``): its metadata as ggp.org's game
    repository serves it, the sheet beside it (``rules_meta_sheet``); only the current version."""
    if slug not in SLUGS or version != SHEET_VERSION:
        raise Http404("There is no such rule set or version.")
    return JsonResponse(sheet_meta(slug))


def rules_meta_sheet(request, slug: str, version: int):
    """The sheet named by the metadata of ``rules_meta``."""
    if version != SHEET_VERSION:
        raise Http404("There is no such version.")
    return rules_sheet(request, slug)


def rules_sheet(request, slug: str):
    """The rule set's GDL sheet (games/ggp/gdl/sheets/), the text a GGP player receives at START."""
    if slug not in SLUGS:
        raise Http404("There is no such rule set.")
    return HttpResponse(sheet_text(slug), content_type="text/plain; charset=utf-8")
