"""The notification settings page, the push subscription calls its script makes, the links
sent out (unsubscribe, confirm an address; no login needed) and the service worker, served
from the site's root so that its scope is the whole site."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.staticfiles import finders
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from notify import services
from notify.events import KINDS
from notify.mail import email_enabled
from notify.models import PushSubscription
from notify.push import vapid_key
from notify.services import NotifyError
from notify.texts import WHAT

EVENT_LABELS = {"turn": gettext_lazy("Your turn in a correspondence match"), "challenge": gettext_lazy("A challenge"),
                "rematch": gettext_lazy("A rematch offer"),
                "followed": gettext_lazy("A player you follow starts a public match"),
                "tournament": gettext_lazy("A tournament you entered is about to start")}


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def settings_page(request):
    if request.method == "POST":
        try:
            services.preference_update(user=request.user, choices=set(request.POST.getlist("choices")),
                                       email=request.POST.get("email", ""))
        except NotifyError as err:
            messages.error(request, err.message)
        else:
            messages.success(request, _("Your notification settings are saved."))
        return redirect("notify:settings")
    person = not request.user.is_guest
    preference = services.preference_of(request.user)
    rows = [{"kind": kind, "label": EVENT_LABELS[kind],
             "email": preference.wants("email", kind), "push": preference.wants("push", kind)} for kind in KINDS]
    return render(request, "notify/settings.html", {
        "person": person, "preference": preference, "rows": rows, "email_enabled": email_enabled(),
        "browsers": PushSubscription.objects.filter(user=request.user).count() if person else 0,
        "push_data": {"publicKey": vapid_key().public_key} if person else None,
    })


def _json_body(request) -> dict:
    try:
        body = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise NotifyError("malformed", _("The request was not JSON.")) from None
    if not isinstance(body, dict):
        raise NotifyError("malformed", _("The request was not a JSON object."))
    return body


@never_cache
@require_POST
@login_required
def push_subscribe(request):
    try:
        body = _json_body(request)
        keys = body.get("keys") if isinstance(body.get("keys"), dict) else {}
        services.push_subscribe(user=request.user, endpoint=body.get("endpoint"),
                                p256dh=keys.get("p256dh", ""), auth=keys.get("auth", ""))
    except NotifyError as err:
        return JsonResponse({"error": err.code, "message": err.message}, status=400)
    return JsonResponse({"ok": True})


@never_cache
@require_POST
@login_required
def push_unsubscribe(request):
    try:
        endpoint = _json_body(request).get("endpoint")
    except NotifyError as err:
        return JsonResponse({"error": err.code, "message": err.message}, status=400)
    removed = services.push_unsubscribe(user=request.user, endpoint=endpoint) if isinstance(endpoint, str) else 0
    return JsonResponse({"ok": True, "removed": removed})


@never_cache
@csrf_exempt  # a mail reader's one-click button posts without the site's cookie (RFC 8058)
@require_http_methods(["GET", "POST"])
def unsubscribe(request, token: str):
    try:
        done = services.unsubscribe(token=token)
    except NotifyError as err:
        return render(request, "notify/link.html", {"title": _("This link does not work"), "message": err.message},
                      status=400)
    what = {"event": WHAT[done.kind]}
    if done.channel == "email":
        said = (_("You will no longer get emails when %(event)s.") if done.was_on
                else _("You were already not getting emails when %(event)s.")) % what
    else:
        said = (_("You will no longer get push notifications when %(event)s.") if done.was_on
                else _("You were already not getting push notifications when %(event)s.")) % what
    return render(request, "notify/link.html", {"title": _("Unsubscribed"), "message": said})


@never_cache
@require_GET
def confirm(request, token: str):
    try:
        preference = services.email_confirm(token=token)
    except NotifyError as err:
        return render(request, "notify/link.html", {"title": _("This link does not work"), "message": err.message},
                      status=400)
    return render(request, "notify/link.html", {
        "title": _("Address confirmed"),
        "message": _("Notifications you choose will be emailed to %(address)s.") % {"address": preference.email}})


@cache
def _worker_source() -> bytes:
    return Path(finders.find("js/sw.js")).read_bytes()


@require_GET
def service_worker(request):
    """The service worker, at /sw.js: a worker's scope is at most its script's folder, so it
    is served here rather than under /static/ (where WhiteNoise serves the rest)."""
    response = HttpResponse(_worker_source(), content_type="text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    response["Cache-Control"] = "no-cache"
    return response
