"""Who a socket belongs to, read once when it opens.

Channels' ``AuthMiddlewareStack`` reads the same, but it also wraps every message a socket
sends, to save a changed session, which only an HTTP response can carry; at a loaded server
that check on each state message cost about 3% of the process. Sockets never change the
session, so this reads the cookie, the session and its user once, with Django's own
``auth.get_user`` (its checks: a flushed, expired or password-changed session signs nobody
in), and hands sends straight to the server. ``scope["user"]`` is the user itself
(``AnonymousUser`` when signed out), not a lazy object.

Channels runs ``get_user`` on its one shared thread: when hundreds of pages open at once
their session and user reads (two round trips each on PostgreSQL) queued there one after
another, most of a page's wait in the arrivals benchmark. They run on the database threads
(``games.runtime.dbthreads``) instead, several side by side on PostgreSQL.
"""

from __future__ import annotations

import asyncio
from importlib import import_module
from types import SimpleNamespace

from django.conf import settings
from django.contrib import auth
from django.http.cookie import parse_cookie

from games.runtime import outages
from games.runtime.dbthreads import db


def _user_of(scope):
    """Django's ``auth.get_user``, which reads nothing of a request but its session."""
    return auth.get_user(SimpleNamespace(session=scope["session"]))


read_user = db(_user_of)
# How long a socket's handshake waits for its session and user. Daphne drops a handshake that
# has no answer after 5 s (``websocket_handshake_timeout``) with no HTTP response at all; while
# the database is away each read waits up to the pool's 4 s for a connection, and reads queued
# behind others on the database threads wait longer. Past this, the page is told to try again.
SESSION_READ_SECONDS = 3.0


def _retrieve(task: asyncio.Future) -> None:
    """A read given up on still ends on its thread: collect its outcome, so it is not logged."""
    if not task.cancelled():
        task.exception()


class SocketUserMiddleware:
    def __init__(self, inner) -> None:
        self.inner = inner
        self.session_store = import_module(settings.SESSION_ENGINE).SessionStore

    async def __call__(self, scope, receive, send):
        cookies: dict[str, str] = {}
        for name, value in scope.get("headers", ()):
            if name == b"cookie":
                cookies = parse_cookie(value.decode("latin1"))
                break
        scope = dict(scope, cookies=cookies,
                     session=self.session_store(session_key=cookies.get(settings.SESSION_COOKIE_NAME)))
        reading = asyncio.ensure_future(read_user(scope))
        # Not ``wait_for``: cancelled, a read on a thread still waits for that thread to finish.
        await asyncio.wait({reading}, timeout=SESSION_READ_SECONDS)
        if not reading.done():
            reading.add_done_callback(_retrieve)
            outages.report("reading a socket's session", TimeoutError(f"no answer in {SESSION_READ_SECONDS} s"))
            return await outages.refuse_for_now(receive, send)
        try:
            scope["user"] = reading.result()
        except outages.SERVICE_DOWN as err:  # the database is away: "try again later", not a failed handshake
            outages.report_or_raise("reading a socket's session", err)
            return await outages.refuse_for_now(receive, send)
        return await self.inner(scope, receive, send)
