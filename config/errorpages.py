"""Refusals that Django answers with an empty body get the site's own page too; a method the
site has no use for is refused before any view."""

from django.http import HttpResponseNotAllowed
from django.template.loader import render_to_string

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
