"""The language a socket speaks in. Django's ``LocaleMiddleware`` runs for pages, not for
sockets: each socket reads its page's language from its handshake, as the page was chosen
(``lobby.language``): the signed-in account's choice, else the language cookie, else the
browser's ``Accept-Language``, else the site's default. ``live.sockets.Socket`` handles every
message in it."""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import trans_real

from lobby.language import account_language, supported


def scope_language(scope) -> str:
    """The language of the page that opened the socket of ``scope``."""
    chosen = account_language(scope.get("user"))
    if chosen is not None:
        return chosen
    cookie = supported((scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME))
    if cookie is not None:
        return cookie
    for name, value in scope.get("headers") or ():
        if name == b"accept-language":
            for code, _quality in trans_real.parse_accept_lang_header(value.decode("latin-1")):
                if code != "*" and (found := supported(code)) is not None:
                    return found
    return settings.LANGUAGE_CODE
