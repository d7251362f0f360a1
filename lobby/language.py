"""The player's language: the footer's menu sets it (``language_set``), the language cookie
keeps it for the browser, and a signed-in account keeps it too (``User.language``), so it
follows the player to another browser and to what reaches them with the page closed.

Django's ``LocaleMiddleware`` reads the cookie, else the browser's ``Accept-Language``;
signing in sets the cookie to the account's choice (``language_on_login``, ``AccountLanguage``).
Sockets take the same from their handshake (``live.language``, the account first);
notifications from the account (``notify``).
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


def language_on_login(*, request, user, **_) -> None:
    """Signing in (Django's ``user_logged_in``): the account's language, if it chose one,
    becomes this request's and, through ``AccountLanguage``, the browser's cookie."""
    chosen = account_language(user)
    if chosen is not None and request is not None:
        translation.activate(chosen)
        request.LANGUAGE_CODE = chosen
        request.language_of_account = chosen


class AccountLanguage:
    """Sets the language cookie to a signing-in account's language (``language_on_login``),
    so that another browser the account signs in on follows the account's choice. It reads
    nothing of the session itself: a page that never touches the session (an embedded board)
    stays free of ``Vary: Cookie``."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        chosen = getattr(request, "language_of_account", None)
        if chosen is not None and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != chosen:
            set_cookie(response, chosen)
        return response


def set_cookie(response, language: str) -> None:
    response.set_cookie(settings.LANGUAGE_COOKIE_NAME, language, max_age=settings.LANGUAGE_COOKIE_AGE,
                        path=settings.LANGUAGE_COOKIE_PATH, domain=settings.LANGUAGE_COOKIE_DOMAIN,
                        secure=settings.LANGUAGE_COOKIE_SECURE, httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
                        samesite=settings.LANGUAGE_COOKIE_SAMESITE)
