"""Refusals that Django answers with an empty body get the site's own page too; a method the
site has no use for is refused before any view; a body over the limit gets a 413 page; a page
that cannot reach the database says so (503) instead of failing, and so does a page of a match
whose rules this site no longer has (404)."""

import json
from functools import cache

from django.conf import settings
from django.http import HttpResponse, HttpResponseNotAllowed
from django.template.loader import render_to_string
from django.urls import reverse

from games.history.services import IMPORT_TOO_LARGE
from games.match.errors import ServiceError
from games.runtime import outages

BLANK_REFUSALS = {405: "405.html"}


SITE_METHODS = ("GET", "HEAD", "POST")  # pages and forms; nothing here takes PUT, DELETE, TRACE...


class KnownMethodsOnly:
    """Middleware: any other method is a 405 naming the ones allowed (a function view answers
    every method as GET; a TRACE got the page)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method not in SITE_METHODS:
            return HttpResponseNotAllowed(SITE_METHODS)
        return self.get_response(request)


class BlankRefusalPages:
    """Middleware: a 405 (a GET on a form's address, from ``require_POST``) becomes a page
    with a way back, like the 400/403/404 that Django renders from templates itself."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        template = BLANK_REFUSALS.get(response.status_code)
        if template and not response.content:
            response.content = render_to_string(template, request=request)
            response["Content-Type"] = "text/html; charset=utf-8"
        return response



def too_large_message(path: str) -> str:
    """Why a body sent to ``path`` is refused: the form's own message where a form posts there."""
    if path == reverse("history:import"):
        return IMPORT_TOO_LARGE
    return f"A request may carry at most {settings.REQUEST_MAX_BYTES / 1e6:g} MB."


@cache
def _too_large_html(message: str) -> bytes:
    return render_to_string("413.html", {"message": message}).encode()


def too_large_page(path: bytes) -> bytes:
    """The 413 page for a request path, as Daphne sends it before any view (config/bodylimit.py)
    and nginx for any path (``b""``: deploy/nginx.py); rendered once per message."""
    return _too_large_html(too_large_message(path.split(b"?", 1)[0].decode("latin-1")))


def too_large_answer(path: bytes) -> tuple[bytes, bytes]:
    """The 413 answer Daphne sends before any view (config/bodylimit.py): its content type and
    body. The bot API's refusals are all JSON ``{code, message}``, this one too; every other
    path gets the site's page."""
    path = path.split(b"?", 1)[0]
    if path.startswith(b"/api/"):
        return b"application/json", _too_large_json()
    return b"text/html; charset=utf-8", too_large_page(path)


@cache
def _too_large_json() -> bytes:
    return json.dumps({"code": "too_large", "message": too_large_message("/api/")}).encode()


RETRY_AFTER_SECONDS = 10


class DatabaseAwayPage:
    """Middleware: a view that cannot reach the database (it restarts, the network dropped, a
    long write holds SQLite: ``outages.database_away``) answers the site's 503 page, which asks
    to try again in a moment, with one warning line in the log rather than a 500 and a traceback
    per request. Any other database error is a bug, a 500 logged with its traceback like any
    other. The page reads nothing (no session, no user), so it renders with the database away;
    Django's pool replaces broken connections by itself once the database is back."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not outages.database_away(exception):
            return None
        outages.report("a page (answered 503)", exception)
        response = HttpResponse(render_to_string("503.html"), status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        response._has_been_logged = True  # by ``report``: Django would add a line per request
        return response


class UnknownRulesPage:
    """Middleware: a page of a stored match whose rule set this site no longer has (removed
    since, or a damaged row: ``games.match.rulesets.stored_rules``) is the 404 page saying so,
    whichever page it is (the match, its positions, replay, export), instead of a 500."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not (isinstance(exception, ServiceError) and exception.code == "unknown_rules"):
            return None
        return HttpResponse(render_to_string("404.html", {"message": exception.message}, request=request), status=404)
