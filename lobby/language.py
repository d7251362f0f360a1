"""The player's language: the footer's menu sets it (``language_set``), the language cookie
keeps it for the browser, and a signed-in account keeps it too (``User.language``), so it
follows the player to another browser and to what reaches them with the page closed.

Django's ``LocaleMiddleware`` reads the cookie, else the browser's ``Accept-Language``;
``AccountLanguage`` then puts a signed-in account's choice over both. Sockets take the same
from their handshake (``live.language``); notifications from the account (``notify``).
"""

from __future__ import annotations

from django.conf import settings
from django.utils import translation


def supported(code: str | None) -> str | None:
    """``code`` as one of ``settings.LANGUAGES`` (a regional variant falls back to its
    language: "de-at" is "de"), or None."""
    if not code:
        return None
    try:
        return translation.get_supported_language_variant(code)
    except LookupError:
        return None


def account_language(user) -> str | None:
    """The language a signed-in account chose, if this site still offers it."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return supported(getattr(user, "language", ""))


class AccountLanguage:
    """After ``AuthenticationMiddleware``: a signed-in account that chose a language gets its
    pages in it whatever the cookie says (another browser, a new sign-in), and the cookie is
    set to it, so the browser's next pages and its sockets agree."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        chosen = account_language(getattr(request, "user", None))
        if chosen is None or chosen == request.LANGUAGE_CODE:
            return self.get_response(request)
        translation.activate(chosen)
        request.LANGUAGE_CODE = chosen
        response = self.get_response(request)
        if request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != chosen:
            set_cookie(response, chosen)
        response.headers.setdefault("Content-Language", chosen)
        return response


def set_cookie(response, language: str) -> None:
    response.set_cookie(settings.LANGUAGE_COOKIE_NAME, language, max_age=settings.LANGUAGE_COOKIE_AGE,
                        path=settings.LANGUAGE_COOKIE_PATH, domain=settings.LANGUAGE_COOKIE_DOMAIN,
                        secure=settings.LANGUAGE_COOKIE_SECURE, httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
                        samesite=settings.LANGUAGE_COOKIE_SAMESITE)
