"""Refusals that Django answers with an empty body get the site's own page too; a method the
site has no use for is refused before any view; a body over the limit gets a 413 page."""

from functools import cache

from django.conf import settings
from django.http import HttpResponseNotAllowed
from django.template.loader import render_to_string
from django.urls import reverse

from games.history.services import IMPORT_TOO_LARGE

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

