"""The websocket origin check (config/origins.py) through the real ASGI stack: only the exact
origin (scheme, host, port) of the page, or one the operator lists, may open a socket."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from config import asgi
from config.origins import SameOriginValidator, origin_key
from tests.support.players import make_players, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


async def connects(origin: str | None, host: str | None, cookie: str | None = None, app=asgi.application,
                   scheme: str = "ws", extra=()) -> bool:
    headers = [(b"origin", origin.encode())] if origin is not None else []
    if host is not None:
        headers.append((b"host", host.encode()))
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    comm = WebsocketCommunicator(app, "/ws/lobby/", headers=[*headers, *extra])
    comm.scope["scheme"] = scheme
    connected, _ = await comm.connect()
    await comm.disconnect()
    return connected


@pytest.fixture
async def cookie():
    user, = await database_sync_to_async(make_players)(1)
    return await database_sync_to_async(session_cookie)(user)


async def test_the_pages_own_origin_is_accepted(cookie):
    assert await connects("http://localhost:8000", "localhost:8000", cookie)
    assert await connects("http://127.0.0.1", "127.0.0.1:80", cookie)
    assert await connects("https://localhost", "localhost", cookie, scheme="wss")
    assert await connects("http://[::1]:8000", "[::1]:8000", cookie)


@pytest.mark.parametrize("origin,host,scheme", [
    ("http://localhost:9999", "localhost:8000", "ws"),  # another port of the same host
    ("https://localhost:8000", "localhost:8000", "ws"),  # another scheme
    ("http://localhost", "localhost", "wss"),
    ("http://127.0.0.1:8000", "localhost:8000", "ws"),  # another allowed host
    ("http://evil.example:8000", "evil.example:8000", "ws"),  # a host not in ALLOWED_HOSTS
    ("null", "localhost:8000", "ws"),
    ("http://localhost:8000/page", "localhost:8000", "ws"),
    ("http://localhost:99999", "localhost:99999", "ws"),
    ("", "localhost:8000", "ws"),
    (None, "localhost:8000", "ws"),
    ("http://localhost:8000", None, "ws"),
])
async def test_any_other_origin_is_refused_even_with_a_valid_cookie(origin, host, scheme, cookie):
    assert not await connects(origin, host, cookie, scheme=scheme)


def router():
    """The protocol router inside the middlewares that wrap it."""
    app = asgi.application
    while not hasattr(app, "application_mapping"):
        app = app.app
    return app


async def test_listed_origins_are_accepted_exactly():
    sockets = router().application_mapping["websocket"].guarded.application
    app = SameOriginValidator(sockets, ["https://play.example:8443"])
    assert await connects("https://play.example:8443", "localhost:8000", app=app)
    assert not await connects("https://play.example", "localhost:8000", app=app)


async def test_behind_a_tls_proxy_the_forwarded_scheme_counts(settings):
    settings.BEHIND_TLS_PROXY = True
    proto = [(b"x-forwarded-proto", b"https")]
    assert await connects("https://localhost", "localhost", extra=proto)
    assert not await connects("http://localhost", "localhost", extra=proto)


def test_origin_keys():
    assert origin_key("HTTP://LocalHost:80") == origin_key("http://localhost") == ("http", "localhost", 80)
    assert origin_key("https://a.example") == ("https", "a.example", 443)
    assert origin_key("ftp://a.example") is None and origin_key("http://") is None
