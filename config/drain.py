"""Stop gracefully on SIGTERM, so that one Daphne of several behind nginx can be restarted while
matches are played (a rolling restart, docs/operations.md: ``bin/scaled``).

Daphne on its own stops at once on SIGTERM: it cancels every consumer, a move halfway through
included, and drops its sockets without a close frame. Here a SIGTERM instead

1. stops listening, so that nginx sends new sockets and requests to the other processes, and
   closes the kept-alive HTTP connections that carry no request;
2. drops what the sockets send from then on (a move not yet handed to a consumer is not made:
   its page, unanswered, resynchronises and the player moves again), lets each consumer finish
   the message it is handling (a move in flight is committed and broadcast, its mover answered)
   and then closes the socket with 1001 ("going away"), so that the state a page gets from
   another process already holds every move this one will make; pages reconnect at once,
   through nginx, to another process;
3. waits for the consumers' disconnect handlers, for at most ``DRAIN_SECONDS`` in all;
4. then stops the reactor as Daphne would have. A second SIGTERM stops it at once.

It leans on Daphne 4.2's insides (``Server.connections``, its factories' ``server``, autobahn's
``sendCloseFrame``, all listed in ``PATCH``): ``drain_on_sigterm`` checks them and otherwise
warns and leaves Daphne's own SIGTERM handling alone.
"""

from __future__ import annotations

import logging
import signal
import time

from config.patches import Mismatch, Patch, Private

logger = logging.getLogger(__name__)

DAPHNE_VERSIONS = ("4.2.",)
DRAIN_SECONDS = 10.0
GOING_AWAY = 1001

# Per Daphne connection queue: the messages its consumer received and has not yet handled.
_unhandled: dict = {}


class TrackHandling:
    """ASGI middleware for the websockets: counts the messages each connection's consumer
    received and has not yet handled, so that a drain closes a socket between messages. The
    consumer says when it has handled one by calling ``scope["message_handled"]()``
    (``live.sockets.Socket`` does); a socket whose consumer does not is closed halfway
    through the drain's time."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        queue = getattr(receive, "__self__", None)  # Daphne passes its queue's get
        _unhandled[queue] = 0

        async def counting_receive():
            message = await receive()
            if message["type"] == "websocket.receive":
                _unhandled[queue] += 1
            return message

        def handled() -> None:
            _unhandled[queue] -= 1

        try:
            return await self.app({**scope, "message_handled": handled}, counting_receive, send)
        finally:
            _unhandled.pop(queue, None)


DidNotInstall = Mismatch  # the library is not the one this was written against


def _check(daphne_module, server_class, socket_class) -> None:
    """``PATCH.check`` with stand-ins for Daphne, its server class and its websocket's."""
    PATCH.check({"daphne": daphne_module, _SERVER: server_class, _SOCKET: socket_class})


def drain_on_sigterm() -> bool:
    """Install the graceful SIGTERM once the reactor runs (Twisted installs its own handlers as
    it starts). True when it will be installed."""
    return PATCH.install()


def _install() -> None:
    from twisted.internet import reactor  # noqa: PLC0415 (Daphne's reactor is installed first)

    reactor.callWhenRunning(signal.signal, signal.SIGTERM, _on_sigterm)


def _on_sigterm(signum, frame) -> None:
    from twisted.internet import reactor  # noqa: PLC0415

    if getattr(_on_sigterm, "draining", False):
        reactor.callFromThread(reactor.stop)
        return
    _on_sigterm.draining = True
    reactor.callFromThread(_drain_or_stop)


def _drain_or_stop() -> None:
    from twisted.internet import reactor  # noqa: PLC0415

    try:
        drain()
    except Exception:  # Daphne's insides changed under the check: stop as Daphne would
        logger.exception("SIGTERM: could not drain; stopping at once")
        reactor.stop()


def drain(deadline_seconds: float = DRAIN_SECONDS) -> None:
    """Steps 1 to 4 of the module's docstring, on the reactor's thread."""
    from daphne.ws_protocol import WebSocketProtocol  # noqa: PLC0415
    from twisted.internet import reactor, tcp  # noqa: PLC0415

    readers = reactor.getReaders()
    ports = [reader for reader in readers if isinstance(reader, tcp.Port)]
    servers = {port.factory.server for port in ports if hasattr(port.factory, "server")}
    for port in ports:
        port.stopListening()
    for reader in readers:
        protocol = getattr(reader, "protocol", None)
        if isinstance(reader, tcp.Server) and getattr(protocol, "requests", None) == []:
            reader.loseConnection()  # an idle kept-alive HTTP connection: nginx opens another elsewhere

    def close_open_sockets(*, at_once: bool) -> int:  # also those whose handshake ends while draining
        sockets = [protocol for server in servers for protocol in list(server.connections)
                   if isinstance(protocol, WebSocketProtocol) and protocol.state == protocol.STATE_OPEN]
        closed = 0
        for protocol in sockets:
            protocol.onMessage = _dropped
            queue = getattr(protocol, "application_queue", None)
            if at_once or queue is None or (queue.empty() and not _unhandled.get(queue)):
                protocol.sendCloseFrame(code=GOING_AWAY)  # (autobahn's sendClose refuses 1001 as an application's)
                closed += 1
        return closed

    def busy() -> bool:
        return any(details.get("application_instance") is not None and not details["application_instance"].done()
                   for server in servers for details in list(server.connections.values()))

    def stop_when_done() -> None:
        close_open_sockets(at_once=time.monotonic() > deadline - deadline_seconds / 2)
        if busy() and time.monotonic() < deadline:
            reactor.callLater(0.05, stop_when_done)
        else:
            reactor.stop()

    deadline = time.monotonic() + deadline_seconds
    logger.warning("SIGTERM: stopped listening, closing sockets with %d (%d at once); stopping once their "
                   "work is done", GOING_AWAY, close_open_sockets(at_once=False))
    stop_when_done()


def _dropped(payload: bytes, is_binary: bool) -> None:
    """What a draining socket does with a message: nothing (its page resynchronises)."""


_SERVER = "daphne.server:Server"
_SOCKET = "daphne.ws_protocol:WebSocketProtocol"


def _uses(owner: str, *names: str, **expected) -> tuple[Private, ...]:
    return tuple(Private(owner, name, "config/drain.py", **expected) for name in names)


PATCH = Patch(
    unpatched="A SIGTERM stops Daphne at once, without draining",
    library="Daphne", module="daphne", versions=DAPHNE_VERSIONS,
    uses=(*_uses(_SERVER, "kill_all_applications", "protocol_connected"),
          *_uses(_SERVER, "connections", named_in=f"{_SERVER}.run"),
          *_uses(_SOCKET, "sendCloseFrame", params=("self", "code", "reasonUtf8", "isReply")),
          *_uses(_SOCKET, "STATE_OPEN"),
          *_uses(_SOCKET, "onMessage", params=("self", "payload", "isBinary")),
          *_uses(_SOCKET, "application_queue", named_in=f"{_SOCKET}.applicationCreateWorked"),
          *_uses("daphne.http_protocol:HTTPFactory", "server", named_in="daphne.http_protocol:HTTPFactory.__init__"),
          *_uses("twisted.web.http:HTTPChannel", "requests", named_in="twisted.web.http:HTTPChannel.__init__")),
    benchmark="no speed figure: tests/config/test_rolling_restart.py restarts one of two Daphnes under play "
              "and loses no move (docs/resilience.md, \"Rolling restart\")",
    apply=_install,
)
