"""The base of the app's websocket consumers: counted against their client's limits
(``games.runtime.throttle``), no thread hop per message, and a lighter loop between the client, the
channel layer and the handlers.

Channels' consumers hop to a thread before every message they handle, group messages included,
to close stale database connections (``aclose_old_connections``). Ours never touch the
database on the event loop: every call goes through ``games.runtime.dbthreads.db``, which closes stale
connections on its own threads. So the hop is dropped: with four sockets on a match it was
four thread round trips per move.

Channels' loop (``await_many_dispatch``) waits on both sources with ``asyncio.wait`` and makes
a new task for every message, about 4% of a loaded server. Here each source has one long-lived
task that moves its messages into one queue, and the socket handles that queue's messages one
at a time, in the order they came, as before.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Any

from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.utils import translation
from django.utils.translation import gettext as _

from games import selectors
from games.runtime import outages, presence, throttle
from games.runtime.dbthreads import db
from games.runtime.outages import SERVICE_DOWN, TRY_AGAIN_LATER
from games.selectors import snapshots
from games.services import broadcast
from live import language, protocol
from lobby import sessions

CLOSED_ABNORMALLY = 1006  # the websocket standard's code for a connection that ended without a close
SERVER_ERROR = 1011  # the standard's "unexpected condition": a fault, not an outage (the page reconnects)
TOO_MANY = 4429
SIGNED_OUT = 4403  # the page's player logged out (or may no longer act): the page reloads, no retry
NOT_FOUND = 4404  # a match page that cannot be served (no such match, or its rules are gone): the page stops
READS = frozenset({"ping", "sync"})  # the messages that change nothing; every other is a write
logger = logging.getLogger(__name__)


class Socket(AsyncWebsocketConsumer):
    client: str | None = None  # the client this socket is counted against, once admitted
    session_group: str | None = None  # its session's group, while it listens there (a signed-in page)
    signed_out = False  # its session logged out, or its player may no longer act: it writes nothing
    retrying = False  # told to retry (a service is down) and closing
    closed_down = False  # ``disconnect`` has run
    shapes = protocol.SHAPES  # the messages a client may send on this socket
    # Writes whose own trip to the database checks the sender (a move: ``live.movequeue``).
    checked_with_the_write: frozenset[str] = frozenset()
    language: str | None = None  # the page's, read from the handshake (``live.language``)

    async def __call__(self, scope, receive, send) -> None:
        """Channels' ``AsyncConsumer.__call__`` with the lighter loop (``pump``)."""
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        try:
            self.channel_name = await self.channel_layer.new_channel()
        except SERVICE_DOWN as err:  # Redis is away: the page is told to retry, not a failed handshake
            outages.report_or_raise("opening a socket", err)
            await outages.refuse_for_now(receive, send)
            return
        self.channel_receive = functools.partial(self.channel_layer.receive, self.channel_name)
        self.base_send = functools.partial(send_unless_closing, send)
        try:
            await pump([receive, self.channel_receive], self.dispatch)
        except StopConsumer:
            pass
        finally:
            # However the loop ended (a handler failed, Daphne cancelled it), the page's count,
            # group and presence are given back: a crashed socket must not hold them for good.
            if not self.closed_down:
                await self.disconnect(CLOSED_ABNORMALLY)

    def receiving(self) -> bool:
        """Whether the socket takes messages now (a match page: once it may watch the match)."""
        return self.client is not None

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        """Check the frame's shape once (``live.protocol``) and hand it to ``_on_<kind>``; every
        refusal or failure is one error message to this socket, which stays open."""
        if not self.receiving() or self.retrying:
            return  # a message that reaches a closing page changes nothing; the page resyncs
        kind = "message"
        try:
            if not await self.within_budget():
                return
            try:
                kind, fields = self.parse(text_data, bytes_data)
            except protocol.Malformed as err:
                await self._error("malformed", str(err))
                return
            if kind not in READS | self.checked_with_the_write and not await self.sender_may_act():
                await self.sign_out()
                return
            await self.handle(kind, fields)
        except Exception as err:
            if outages.down(err):  # Redis or the database went away: the page shows "reconnecting"
                outages.report(f"handling a {kind!r} message on a socket", err)
                await self.ask_to_retry()
                return
            logger.exception("%s: %s failed", self, kind)
            await self._error("server_error", _("Something went wrong on our side; nothing was changed. Try again."))

    def parse(self, text_data: str | None, bytes_data: bytes | None) -> tuple[str, dict[str, Any]]:
        """The frame as (kind, fields) by this socket's ``shapes``; ``protocol.Malformed`` if not."""
        return protocol.parse(text_data, bytes_data, self.shapes)

    def presence_key(self) -> int:
        """The key of this socket's page in ``games.runtime.presence`` (a match id, or ``presence.SITE``)."""
        raise NotImplementedError

    async def _on_ping(self) -> None:
        """Keep-alive: the page's presence and its place in the client's socket count stay fresh."""
        store = presence.store()
        if store.blocking:
            await db(store.touch)(self.presence_key(), self.channel_name)
        else:
            store.touch(self.presence_key(), self.channel_name)
        await throttle.limits().touch(self.client, self.channel_name)
        await self.send_json_text({"type": "pong"})

    async def handle(self, kind: str, fields: dict[str, Any]) -> None:
        """Act on a well-formed message: ``_on_<kind>(**fields)``."""
        await getattr(self, f"_on_{kind}")(**fields)

    async def _error(self, code: str, message: str, **extra: Any) -> None:
        await self.send_json_text({"type": "error", "code": code, "message": str(message), **extra})

    # Channels assigns ``channel_receive`` (the channel layer's receive) and lets its failure
    # end the consumer, which Daphne reports as close 1011. Here it becomes a message instead:
    # the page is told and closed with 4503, and its retry finds the layer back.
    @property
    def channel_receive(self):
        return self._receive_from_layer

    @channel_receive.setter
    def channel_receive(self, receive) -> None:
        self._layer_receive = receive

    async def _receive_from_layer(self) -> dict:
        if self.retrying:
            await asyncio.sleep(1)  # closing; do not spin on a layer that keeps failing
            return {"type": "socket.layer_down"}
        try:
            return await self._layer_receive()
        except Exception as err:
            outages.report("a socket's channel", err)
            return {"type": "socket.layer_down"}

    async def socket_layer_down(self, message: dict) -> None:
        """The channel layer lost Redis (``live.layers``) or failed under this socket."""
        if not self.retrying:
            await self.ask_to_retry()

    async def ask_to_retry(self) -> None:
        """Redis or the database cannot be reached: tell the page, and close it so that it shows
        "reconnecting" and comes back on its own (and resyncs by version). What it sends from
        here on changes nothing."""
        self.retrying = True
        await self.before_retry()
        await self.send_json_text(outages.UNAVAILABLE)
        await self.close(code=TRY_AGAIN_LATER)

    async def open_failed(self, doing: str, error: BaseException) -> None:
        """Opening this page (``doing``) failed. A service away: one line, and the page is told
        to retry (``ask_to_retry``). Anything else is a fault: logged with its traceback, the
        page told so and closed with ``SERVER_ERROR``; it reconnects as after any lost
        connection, not told to wait out an outage that is not there."""
        if outages.down(error):
            outages.report(doing, error)
            await self.ask_to_retry()
            return
        logger.error("%s: %s failed", self, doing, exc_info=error)
        self.retrying = True  # closing: what it sends from here on changes nothing
        await self._error("server_error", _("Something went wrong on our side. Reload the page to try again."))
        await self.close(code=SERVER_ERROR)

    async def before_retry(self) -> None:
        """What a page must hear before it is closed to retry (a match page: its own move)."""

    async def admit(self) -> bool:
        """Count this (accepted) socket against its client's open sockets, and listen to its
        session's group if it is signed in. Over the cap it is told so and closed, and False
        is returned."""
        client = throttle.client_key(self.scope)
        if not await throttle.limits().open(client, self.channel_name):
            await self.send_json_text({"type": "error", "code": "too_many_sockets",
                                       "message": _("Too many pages open at once: close some and reload this one.")})
            await self.close(code=TOO_MANY)
            return False
        self.client = client
        key = getattr(self.scope.get("session"), "session_key", None)
        if key and self.signed_in_user() is not None:
            self.session_group = broadcast.session_group(sessions.digest(key))
            await self.channel_layer.group_add(self.session_group, self.channel_name)
        return True

    async def release(self) -> None:
        """Uncount this socket and stop listening to its session. A failure is logged, never
        raised: the rest of closing a page (its group, its presence) must still happen, and the
        count ages out by itself."""
        if self.session_group is not None:
            group, self.session_group = self.session_group, None
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except Exception:
                logger.exception("%s: could not leave its session's group; the group forgets it", self)
        if self.client is not None:
            client, self.client = self.client, None
            try:
                await throttle.limits().close(client, self.channel_name)
            except Exception as err:
                outages.report_or_log("uncounting a closing socket (it ages out)", err, logger)

    async def within_budget(self) -> bool:
        """Take one message from the client's budget. If it is spent, the client is told and
        False is returned: the message changes nothing."""
        if self.client is not None and await throttle.limits().take(self.client):
            return True
        await self._error("rate_limited", _("Too many messages: slow down and try again in a moment."))
        return False

    # -- who may write ---------------------------------------------------------------------------
    def signed_in_user(self):
        """The player this page was opened by (``scope["user"]``, read once at connect), or None."""
        user = self.scope.get("user")
        return user if user is not None and user.is_authenticated else None

    async def sender_may_act(self) -> bool:
        """Whether a write from this page is still its player's: its session has not logged out
        (``session_ended``) and the account is still active (a guest that logged out is not),
        read again for every write. A visitor's writes are the services' to refuse."""
        user = self.signed_in_user()
        if user is None:
            return True
        if not self.signed_out and not await db(selectors.player_active)(user_id=user.pk):
            self.signed_out = True
        return not self.signed_out

    async def session_ended(self, event) -> None:
        """This page's browser logged out (in this tab or another): the page is told, and closed."""
        await self.sign_out()

    async def sign_out(self) -> None:
        self.signed_out = True
        await self.send_json_text({"type": "signed_out"})
        await self.close(code=SIGNED_OUT)

    async def send_text(self, text: str) -> None:
        """One text frame to the client: Channels' ``send``, less its two layers of calls."""
        await self.base_send({"type": "websocket.send", "text": text})

    async def send_json_text(self, content: dict[str, Any]) -> None:
        await self.send_text(snapshots.encode(content))

    async def websocket_disconnect(self, message: dict) -> None:
        """Channels' own, less its hop to the shared thread to close stale database connections
        when each socket closes: ours never use the database on the event loop, and the
        database threads close stale connections themselves. (No class-level ``groups`` here.)"""
        self.closed_down = True
        await self.disconnect(message["code"])
        raise StopConsumer()

    async def dispatch(self, message: dict) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        if self.language is None:
            self.language = language.scope_language(self.scope)
        try:
            # Every message is handled in the page's language: what this socket says (and the
            # services it calls on the database threads, which carry the context) reads in it.
            with translation.override(self.language):
                await handler(message)
        finally:
            if message["type"] == "websocket.receive":  # a restart closes the socket between two (config/drain.py)
                self.scope.get("message_handled", _nothing)()


def _nothing() -> None:
    pass


async def send_unless_closing(send, message: dict) -> None:
    """Daphne's ``send``, less its failure on a socket whose client has begun to close: there
    autobahn raises ``Disconnected`` before Daphne marks the socket closed (django/channels#1820),
    and the exception would end the socket's loop. Such a message is dropped, as Daphne drops
    the ones sent once it knows; the client's close arrives next, as ``websocket.disconnect``."""
    try:
        await send(message)
    except Disconnected:
        pass


async def pump(sources, dispatch) -> None:
    """Hand every message of the ``sources`` (async callables, each returning its next message)
    to ``dispatch``, one at a time, in arrival order, until ``dispatch`` raises. A source that
    fails ends the loop with its exception, as in Channels."""
    inbox: asyncio.Queue = asyncio.Queue()

    async def drain(receive) -> None:
        try:
            while True:
                inbox.put_nowait(await receive())
        except asyncio.CancelledError:
            raise
        except BaseException as err:  # re-raised by the loop below
            inbox.put_nowait(_Failed(err))

    tasks = [asyncio.ensure_future(drain(receive)) for receive in sources]
    try:
        while True:
            message = await inbox.get()
            if type(message) is _Failed:
                raise message.error
            await dispatch(message)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


class _Failed:
    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error
