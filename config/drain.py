"""Stop gracefully on SIGTERM, so that one Daphne of several behind nginx can be restarted while
matches are played (a rolling restart, README: ``bin/scaled``).

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
``sendCloseFrame``): ``drain_on_sigterm`` checks them and otherwise warns and leaves Daphne's own
SIGTERM handling alone.
"""

from __future__ import annotations

import logging
import signal
import time
import warnings

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
    (``games.sockets.Socket`` does); a socket whose consumer does not is closed halfway
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


class DidNotInstall(Exception):
    """The library is not the one this was written against."""


def _check(daphne_module, server_class, socket_class) -> None:
    version = getattr(daphne_module, "__version__", "")
    if not version.startswith(DAPHNE_VERSIONS):
        raise DidNotInstall(f"Daphne {version or '(unknown version)'} is not one of {DAPHNE_VERSIONS}")
    for owner, name in ((server_class, "kill_all_applications"), (server_class, "protocol_connected"),
                        (socket_class, "sendCloseFrame"), (socket_class, "STATE_OPEN"),
                        (socket_class, "onMessage")):
        if not hasattr(owner, name):
            raise DidNotInstall(f"{owner.__name__} has no {name}")


def drain_on_sigterm() -> bool:
    """Install the graceful SIGTERM once the reactor runs (Twisted installs its own handlers as
    it starts). True when it will be installed."""
    import daphne  # noqa: PLC0415 (Daphne's reactor is installed first)
    from daphne.server import Server  # noqa: PLC0415
    from daphne.ws_protocol import WebSocketProtocol  # noqa: PLC0415
    from twisted.internet import reactor  # noqa: PLC0415

    try:
        _check(daphne, Server, WebSocketProtocol)
    except DidNotInstall as reason:
        message = f"A SIGTERM stops Daphne at once, without draining: {reason}."
        warnings.warn(message, RuntimeWarning, stacklevel=2)
        logger.warning(message)
        return False
    reactor.callWhenRunning(signal.signal, signal.SIGTERM, _on_sigterm)
    return True


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
