"""The one websocket path open to every origin: the embedded board's (``/ws/embed/...``).

Every other socket must come from its own site's pages (``config.origins``): browsers send
cookies on cross-site websockets, so the origin check is what keeps another site from acting
for a signed-in player. The embedded board's socket is shown inside other sites' pages (and a
site may open it itself), so its origin cannot be checked; instead it is made unable to act
for anyone: its ``Cookie`` header is dropped here, before anything could read a session, its
user is the anonymous one, and its consumer (``live.consumers.embed``) only reads. The ``Host``
must still be one of ALLOWED_HOSTS, as for every request.
"""

from __future__ import annotations

from channels.security.websocket import WebsocketDenier
from django.contrib.auth.models import AnonymousUser

from config.origins import served_origin

EMBED_PREFIX = "/ws/embed/"


def without_cookies(scope) -> dict:
    """``scope`` with no cookie, no session and the anonymous user."""
    headers = [(name, value) for name, value in scope.get("headers", ()) if name.lower() != b"cookie"]
    return dict(scope, headers=headers, cookies={}, session=None, user=AnonymousUser())


class OpenToAnyOrigin:
    """ASGI middleware: a websocket under ``EMBED_PREFIX`` goes to ``embedded`` from any origin,
    without its cookies; every other goes to ``guarded`` (the origin check and the session)."""

    def __init__(self, *, embedded, guarded) -> None:
        self.embedded = embedded
        self.guarded = guarded

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket" or not scope.get("path", "").startswith(EMBED_PREFIX):
            return await self.guarded(scope, receive, send)
        if served_origin(scope) is None:  # a Host this site does not answer to
            return await WebsocketDenier.as_asgi()(scope, receive, send)
        return await self.embedded(without_cookies(scope), receive, send)
