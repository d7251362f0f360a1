"""History pages: parse the request, call one selector or service, render."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.views.decorators.http import require_POST, require_safe

from games.history import selectors, services
from games.history.forms import HistoryFilterForm, ImportForm
from games.match import clocks, guide, ratings
from games.models import Match
from games.rules import GAMES
from games.rules.base import RulesError
from games.selectors import match_can_view
from games.selectors.analysis import analysis_of, analysis_thresholds
from games.selectors.pairs import games_over_pair_limit
from games.selectors.sharing import link_preview
from games.services import ServiceError, analysis_request, blocked_between, can_answer_challenges

# The file plus the form's other fields and multipart framing.
IMPORT_MAX_REQUEST_BYTES = services.IMPORT_MAX_BYTES + 64_000


def _visible_match(request, match_id: int) -> tuple[Match, str | None]:
    """The match, if this request may see it, and the invite token to carry on in its links
    (a private match seen through its invite link), or None."""
    match = get_object_or_404(Match, pk=match_id)
    invite = request.GET.get("invite") or None
    if not match_can_view(match=match, user=request.user, invite_token=invite):
        raise Http404("No such match, or it is private.")
    return match, invite if match.is_private and invite == match.invite_token else None


def history_list(request):
    form = HistoryFilterForm(request.GET)
    form.is_valid()
    filters = form.filters()
    player = selectors.player_get(user_id=filters.player_id) if filters.player_id else None
    if filters.player_id and player is None:
        form.no_such_player()
        filters = form.filters()
    page, rows = selectors.history_page(user=request.user, filters=filters, page=request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "history/list.html", {
        "form": form, "page": page, "rows": rows, "player": player, "query": query.urlencode(),
    })


def player_page(request, user_id: int):
    player = selectors.player_get(user_id=user_id)
    if player is None:
        raise Http404("No such player.")
    filters = selectors.HistoryFilters(player_id=player.pk)
    page, rows = selectors.history_page(user=request.user, filters=filters, page=request.GET.get("page"))
    can_challenge = (request.user.is_authenticated and request.user.pk != player.pk
                     and can_answer_challenges(player) and not blocked_between(request.user.pk, player.pk))
    limited = (games_over_pair_limit(player_ids=[request.user.pk, player.pk], games=[g.slug for g in GAMES])
               if can_challenge and not request.user.is_guest and not player.is_guest else [])
    return render(request, "history/player.html", {
        "player": player, "record": selectors.player_record(player=player, viewer=request.user),
        "ratings": selectors.player_ratings(player=player), "page": page, "rows": rows, "games": guide.guide_games(),
        "clock_choices": clocks.choices(), "can_challenge": can_challenge,
        "pair_limited": [guide.game_name(g.slug) for g in GAMES if g.slug in limited],
    })


def leaderboard(request):
    slugs = [info.slug for info in GAMES]
    game = request.GET.get("game") if request.GET.get("game") in slugs else slugs[0]
    page, rows = selectors.leaderboard_page(game=game, page=request.GET.get("page"))
    return render(request, "history/leaderboard.html", {
        "games": guide.guide_games(), "game": game, "game_name": guide.game_name(game), "page": page, "rows": rows,
        "query": f"game={game}", "days": selectors.LEADERBOARD_ACTIVE_DAYS,
        "min_games": selectors.LEADERBOARD_MIN_GAMES, "min_opponents": selectors.LEADERBOARD_MIN_OPPONENTS,
        "pair_results": ratings.PAIR_RESULTS_PER_DAY,
        "pair_hours": round(ratings.PAIR_WINDOW.total_seconds() / 3600),
    })


def match_replay(request, match_id: int):
    match, invite = _visible_match(request, match_id)
    replay = selectors.match_replay(match=match)
    last = len(replay["moves"])
    try:
        ply = min(max(int(request.GET.get("ply", last)), 0), last)
    except ValueError:
        ply = last
    analysis = selectors.replay_analysis(match=match)
    for move, judged in zip(replay["moves"], (analysis or {}).get("moves", [])):
        move["mark"] = judged["mark"]
    names = {seat["role"]: seat["name"] for seat in replay["seats"]}
    for row in (analysis or {}).get("summary", []):
        row["name"] = names.get(row["role"]) or "nobody"
    return render(request, "history/replay.html", {
        "match": match, "replay": replay, "ply": ply, "last": last, "invite": invite,
        "preview": link_preview(match=match, names=names, to_move=replay["views"][-1].get("to_move"),
                                page_url=request.build_absolute_uri(request.path), site=request.build_absolute_uri("/")),
        "analysis": analysis, "thresholds": analysis_thresholds(),
        "replay_data": {"views": replay["views"], "moves": replay["moves"], "ply": ply,
                        "analysis": _analysis_data(request, match, invite, analysis)},
    })


def _analysis_data(request, match: Match, invite: str | None, analysis: dict | None) -> dict | None:
    """What replay.js needs of the analysis: its status, where to follow its progress, per move
    its mover, mark, loss and better move (with the board after it and the line from it), per
    position the expected scores and the best move."""
    if analysis is None:
        return None
    url = reverse("history:analysis_json", args=[match.pk]) + (f"?invite={invite}" if invite else "")
    labels = {row["role"]: row["role_label"] for row in analysis.get("summary", [])}
    return {"status": analysis["status"], "url": url,
            "moves": [{key: m.get(key) for key in ("ply", "role", "mark", "loss", "better", "better_label", "better_view",
                                                   "better_line")}
                      for m in analysis.get("moves", [])],
            "positions": [{"scores": [{"label": labels[role], "points": round(score * 100)}
                                      for role, score in p["scores"].items()], "best_label": p["best_label"]}
                          for p in analysis.get("positions", [])]}


@require_POST
def analysis_ask(request, match_id: int):
    """The replay's "Analyse this match" button: queue it (or reuse it), back to the replay."""
    match, invite = _visible_match(request, match_id)
    back = reverse("history:replay", args=[match.pk]) + (f"?invite={invite}" if invite else "")
    try:
        analysis_request(match_id=match.pk, user=request.user)
    except ServiceError as err:
        messages.error(request, _with_link_to_its_match(request, err))
    return redirect(back)


def _with_link_to_its_match(request, err: ServiceError) -> str:
    """The refusal; one that names the player's analysis under way links to its replay, when
    they may see it there without an invite ("... (one at a time per player). See it")."""
    match_id = err.extra.get("match_id")
    busy = Match.objects.filter(pk=match_id).first() if match_id is not None else None
    if busy is None or not match_can_view(match=busy, user=request.user, invite_token=None):
        return err.message
    return format_html('{} <a href="{}">See it</a>', err.message, reverse("history:replay", args=[busy.pk]))


@require_safe
def analysis_json(request, match_id: int):
    """The analysis as JSON (the page follows its progress here): 409 while the match is in play,
    or while a live match stands at one of an imported match's positions; 404 for a match of rules
    this site no longer has."""
    match, _ = _visible_match(request, match_id)
    try:
        return JsonResponse(analysis_of(match=match) or {"status": "none"})
    except ServiceError as err:  # analysis_in_play, analysis_live_position: fair play; unknown_rules: gone
        return JsonResponse({"code": err.code, "message": err.message}, status=404 if err.code == "unknown_rules" else 409)


def match_export(request, match_id: int):
    match, _ = _visible_match(request, match_id)
    try:
        data = selectors.match_export(match=match)
    except RulesError:
        return render(request, "409.html", {"message": "A stored move of this match is not one the rules accept, "
                                                      "so it cannot be exported; its replay shows the moves up to there."},
                      status=409)
    response = JsonResponse(data, json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="boardhall-{match.game}-{match.pk}.json"'
    return response


def _refused_unread(declared: str | None) -> tuple[int, str] | None:
    """Why an upload is refused before its body is read (status, message), from the length it
    declares: too large, or a length that is not a number."""
    try:
        length = int(declared or 0)
    except ValueError:
        return 400, "The upload's declared length is not a number; send the file again."
    return (413, services.IMPORT_TOO_LARGE) if length > IMPORT_MAX_REQUEST_BYTES else None


@login_required
def history_import(request):
    if request.method == "POST":
        refused = _refused_unread(request.META.get("CONTENT_LENGTH"))
        if refused:
            form = ImportForm(data={})
            form.errors["file"] = form.error_class([refused[1]])
            return render(request, "history/import.html", {"form": form}, status=refused[0])
    form = ImportForm(*(request.POST, request.FILES) if request.method == "POST" else (None, None))
    if request.method == "POST" and form.is_valid():
        try:
            match = services.match_import(user=request.user, content=form.cleaned_data["file"].read(services.IMPORT_MAX_BYTES + 1))
        except ServiceError as err:
            if err.code == "already_imported":
                messages.info(request, err.message)
                return redirect("history:replay", match_id=err.extra["match_id"])
            form.add_error("file", err.message)
        else:
            messages.success(request, "The match was checked move by move and imported.")
            return redirect("history:replay", match_id=match.pk)
    return render(request, "history/import.html", {"form": form}, status=400 if form.errors else 200)
