"""Following and blocking pages: parse the request, call one service or selector, render."""

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST, require_safe

from games.match.errors import ServiceError
from social import selectors, services


@require_safe
def following(request):
    """The players you follow: who is online, what each plays now (watch it), challenge them."""
    if not request.user.is_authenticated or request.user.is_guest:
        return render(request, "social/following.html", {"needs_account": True})
    return render(request, "social/following.html", {"rows": selectors.following_list(user=request.user)})


def _act(request, player_id: int, service, done: str):
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("history:player", args=[player_id]))
    try:
        service(user=request.user, player_id=player_id)
    except ServiceError as err:
        if err.code == "no_such_player":
            raise Http404(err.message) from err
        messages.error(request, err.message)
    else:
        messages.success(request, done)
    return redirect("history:player", player_id)


@require_POST
def follow(request, player_id: int):
    return _act(request, player_id, services.follow_create, _("You follow this player: see them under Following."))


@require_POST
def unfollow(request, player_id: int):
    return _act(request, player_id, services.follow_delete, _("You no longer follow this player."))


@require_POST
def block(request, player_id: int):
    return _act(request, player_id, services.block_create,
                _("Blocked: neither of you can challenge the other, and quick games never pair you."))


@require_POST
def unblock(request, player_id: int):
    return _act(request, player_id, services.block_delete, _("Unblocked."))
