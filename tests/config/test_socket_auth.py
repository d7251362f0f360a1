"""Who a socket belongs to: the session and the user are read with SQL written out
(``lobby.sessions``, ``lobby.auth``), with Django's checks kept: an unknown, expired, inactive
or password-changed session opens a signed-out socket, and sessions made before the written-out
backend still sign their player in."""

import asyncio
import threading
from importlib import import_module

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.models import Session
from django.core.cache import caches
from django.test import Client
from django.utils import timezone

from config.asgi import application
from config.socketauth import SocketUserMiddleware
from tests.live.consumers.test_consumers import HOST, ORIGIN
from tests.support.players import make_accounts
from tests.support.waits import EVENT_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)
SIGNED_OUT = 4403


def cookie_of(user, backend: str | None = None) -> str:
    client = Client()
    client.force_login(user, backend=backend)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


async def site_socket(cookie: str) -> tuple[WebsocketCommunicator, dict]:
    """The site socket with this session cookie, and its first message (the challenge list
    for a signed-in player, the close for a signed-out one)."""
    comm = WebsocketCommunicator(application, "/ws/site/",
                                 headers=[ORIGIN, HOST, (b"cookie", f"sessionid={cookie}".encode())])
    connected, _ = await comm.connect()
    assert connected
    return comm, await comm.receive_output(timeout=EVENT_SECONDS)


async def test_a_session_signs_its_player_in_whichever_backend_made_it():
    (ada,) = await database_sync_to_async(make_accounts)(1)
    for backend in ("lobby.auth.Backend", "django.contrib.auth.backends.ModelBackend"):
        cookie = await database_sync_to_async(cookie_of)(ada, backend)
        comm, first = await site_socket(cookie)
        assert first["type"] == "websocket.send" and '"challenges"' in first["text"], backend
        await comm.disconnect()
        await database_sync_to_async(caches[settings.SESSION_CACHE_ALIAS].clear)()  # read from the database too
        comm, first = await site_socket(cookie)
        assert first["type"] == "websocket.send" and '"challenges"' in first["text"], backend
        await comm.disconnect()


@pytest.mark.parametrize("spoil", ["unknown", "expired", "inactive", "password"])
async def test_a_spoiled_session_opens_a_signed_out_socket(spoil):
    (ada,) = await database_sync_to_async(make_accounts)(1)
    cookie = await database_sync_to_async(cookie_of)(ada)

    @database_sync_to_async
    def do_spoil():
        if spoil == "expired":
            Session.objects.filter(session_key=cookie).update(expire_date=timezone.now())
        elif spoil == "inactive":
            type(ada).objects.filter(pk=ada.pk).update(is_active=False)
        elif spoil == "password":
            ada.set_password("another long enough password")
            ada.save()
        caches[settings.SESSION_CACHE_ALIAS].clear()  # as a fresh process: the session is read from the database

    await do_spoil()
    comm, first = await site_socket("x" * 32 if spoil == "unknown" else cookie)
    assert first["type"] == "websocket.send" and '"not_signed_in"' in first["text"], first
    assert await comm.receive_output(timeout=EVENT_SECONDS) == {"type": "websocket.close", "code": SIGNED_OUT}


FORGED = ["\x00abcdefghijk", "abcdefgh\x00", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "x" * 41, "abc-defg.hij", "\x7f" * 32]


@pytest.mark.parametrize("forged", FORGED)
async def test_a_session_key_django_could_not_have_made_opens_a_signed_out_socket(forged):
    """It never reaches the database: PostgreSQL fails a query with a NUL in its text."""
    comm, first = await site_socket(forged)
    assert first["type"] == "websocket.send" and '"not_signed_in"' in first["text"], first
    assert await comm.receive_output(timeout=EVENT_SECONDS) == {"type": "websocket.close", "code": SIGNED_OUT}


@pytest.mark.parametrize("forged", FORGED)
def test_a_session_key_django_could_not_have_made_is_a_signed_out_visit(forged):
    client = Client(raise_request_exception=False)
    client.cookies[settings.SESSION_COOKIE_NAME] = forged
    page = client.get("/")
    assert page.status_code == 200
    assert not page.wsgi_request.user.is_authenticated


@pytest.mark.parametrize("signed_in", [True, False])
async def test_the_socket_middleware_reads_the_user_once_and_leaves_sends_alone(signed_in):
    (ada,) = await database_sync_to_async(make_accounts)(1)
    cookie = await database_sync_to_async(cookie_of)(ada) if signed_in else "x" * 32
    seen = {}

    async def inner(scope, receive, send):
        seen.update(scope=scope, send=send)

    async def server_send(message):
        pass

    scope = {"type": "websocket", "headers": [(b"cookie", f"sessionid={cookie}; other=1".encode())]}
    await SocketUserMiddleware(inner)(scope, None, server_send)
    assert seen["send"] is server_send  # nothing wraps each message the socket sends
    assert seen["scope"]["cookies"] == {"sessionid": cookie, "other": "1"}
    user = seen["scope"]["user"]
    assert type(user) is (type(ada) if signed_in else AnonymousUser)  # the user itself, not a lazy object
    assert user.pk == (ada.pk if signed_in else None)


async def test_sockets_read_their_sessions_on_the_database_threads_side_by_side():
    """Not on Channels' one shared thread: with several database threads (PostgreSQL) the
    reads of pages opening together overlap."""
    threads = settings.DB_THREADS
    barrier = threading.Barrier(min(threads, 2), timeout=EVENT_SECONDS)  # passes only if the reads overlap
    names = []
    store = import_module(settings.SESSION_ENGINE).SessionStore

    class WatchedStore(store):
        def load(self):
            names.append(threading.current_thread().name)
            barrier.wait()
            return {}

    users = []

    async def inner(scope, receive, send):
        users.append(scope["user"])

    middleware = SocketUserMiddleware(inner)
    middleware.session_store = WatchedStore
    scopes = [{"type": "websocket", "headers": [(b"cookie", f"sessionid={key * 32}".encode())]} for key in "ab"]
    await asyncio.gather(*(middleware(scope, None, None) for scope in scopes))
    assert [user.is_authenticated for user in users] == [False, False]
    assert all(name.startswith("db") for name in names)
