"""Sharing a match outside Boardhall: the embeddable board (``/embed/<id>/``) and the picture of
a position for link previews (``/matches/<id>/position.png``).

The embed page may be framed by any site (``X-Frame-Options`` left out and CSP
``frame-ancestors *``, on this route alone; every other page refuses framing), so it is made to
be harmless anywhere: it reads no cookie and no session and sets none (no ``request.user``, no
CSRF token, its template extends nothing that has a form), and it offers no action. A live match
follows its moves over the read-only socket ``/ws/embed/<id>/`` (``live.consumers.embed``); a
finished one has the replay's controls. Private matches are never embedded, even with their
invite: a link in another site's page is no secret. Their page is a 404 like a missing match's.
"""

from csp.decorators import csp_replace
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_safe

from games import selectors
from games.history.selectors import match_replay
from games.match.rulesets import known_rules
from games.models import Match
from games.selectors import rows
from games.selectors.sharing import position_picture

FRAMED_BY_ANYONE = {"frame-ancestors": ["*"]}
PICTURE_CACHE_SECONDS = 60  # a live match moves on: previews fetch the picture again after this


@require_safe
@xframe_options_exempt
@csp_replace(FRAMED_BY_ANYONE)
def match_embed(request, match_id: int):
    match = rows.match_by_id(match_id)
    if match is None or match.is_private or known_rules(match.game) is None:
        return render(request, "games/embed.html", {"missing": True}, status=404)
    context = {"match": match, "match_url": request.build_absolute_uri(f"/matches/{match.pk}/")}
    if match.status in (Match.Status.FINISHED, Match.Status.ABORTED):
        replay = match_replay(match=match)
        last = len(replay["moves"])
        context.update(replay=replay, last=last, replay_data={"views": replay["views"], "moves": replay["moves"],
                                                                "ply": last, "analysis": None})
    else:
        context["snapshot"] = selectors.match_snapshot(match=match)
    return render(request, "games/embed.html", context)


@require_safe
def match_picture(request, match_id: int):
    """The current position of a public match as a PNG (``og:image``); 404 for any other id."""
    found = position_picture(match_id=match_id)
    if found is None:
        raise Http404("No such public match.")
    picture, version = found
    response = HttpResponse(picture, content_type="image/png")
    response["Cache-Control"] = f"public, max-age={PICTURE_CACHE_SECONDS}"
    response["ETag"] = f'"{match_id}-{version}"'
    return response
