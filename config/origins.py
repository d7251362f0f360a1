"""The websocket origin check: browsers send cookies on cross-site websockets, so this is the
sockets' CSRF defence.

A socket is accepted only when its ``Origin`` is exactly (scheme, host, port) the origin of the
page that opens it, i.e. the ``Host`` it connects to (a host in ALLOWED_HOSTS), or an origin
listed in ALLOWED_ORIGINS. Channels' ``AllowedHostsOriginValidator`` compares host names only,
so any page on another port or scheme of an allowed host could act for a signed-in user.

Example::

    >>> origin_key("HTTP://LocalHost:80")
    ('http', 'localhost', 80)
"""

from __future__ import annotations

from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

DEFAULT_PORTS = {"http": 80, "https": 443}
Origin = tuple[str, str, int]


def origin_key(origin: str) -> Origin | None:
    """``origin`` as (scheme, host, port) with the scheme's default port filled in, or None."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname or parts.path not in ("", "/") or parts.query:
        return None
    return scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme]


def _headers(scope) -> dict[bytes, bytes]:
    return dict(scope.get("headers") or ())


def served_origin(scope) -> Origin | None:
    """The origin of a page on the host this socket connected to, when that host is allowed."""
    headers = _headers(scope)
    host = headers.get(b"host", b"").decode("latin-1")
    domain, _ = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return None
    secure = scope.get("scheme") == "wss"
    if settings.BEHIND_TLS_PROXY:
        secure = headers.get(b"x-forwarded-proto", b"").decode("latin-1").lower() == "https"
    return origin_key(f"{'https' if secure else 'http'}://{host}")


class SameOriginValidator:
    """ASGI middleware: deny a websocket whose origin is neither its own nor an allowed one."""

    def __init__(self, application, allowed_origins: list[str]) -> None:
        self.application = application
        self.allowed = {key for key in map(origin_key, allowed_origins) if key}

    def accepts(self, scope) -> bool:
        origin = origin_key(_headers(scope).get(b"origin", b"").decode("latin-1"))
        return origin is not None and (origin == served_origin(scope) or origin in self.allowed)

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not self.accepts(scope):
            return await WebsocketDenier.as_asgi()(scope, receive, send)
        return await self.application(scope, receive, send)
