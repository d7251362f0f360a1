"""Give a client time to answer the server's close before the connection is reset, and a close
frame, not a dropped connection, when its frames break the websocket protocol.

When the server closes a websocket (4503 "try again later", 4403, 4404, 4429, 1001), autobahn
sends the close frame and waits ``closeHandshakeTimeout`` for the client's answering close,
then aborts the connection: a TCP reset, and the kernel drops whatever it had not delivered.
Daphne leaves that timeout at autobahn's 1 s, and autobahn's timers are txaio's batched ones,
which round the due time down to a whole second of the clock: the "1 s" ran out anywhere
between 0 and 1 s after the close frame (46 ms in one trace). A client that read the message
and the close a little late then answered into a reset connection; the websockets client of
the live tests drops the messages it read with that close (the PostgreSQL outage test got its
4503 with no message before it, under load). Here Daphne's websocket factory waits
``CLOSE_HANDSHAKE_SECONDS`` (so, rounded down, at least one second less).

When a client's frame breaks the protocol (a text frame that is not UTF-8, a message over
Daphne's 1 MiB, a bad opcode), autobahn by default drops the TCP connection (``failByDrop``):
the client cannot tell what it did from a network fault. Here it fails the connection the way
RFC 6455 section 7.1.7 prefers, with a close frame: 1007 (invalid payload), 1009 (too big) or
1002 (protocol error), its reason in words. The frame is not handed to the application, so
nothing of it is played.
"""

from __future__ import annotations

from config.patches import Patch, Private, replace

CLOSE_HANDSHAKE_SECONDS = 5


def wait_for_closing_clients() -> bool:
    """Install the longer wait (once), if Daphne is the one in ``PATCH``; True when installed."""
    return PATCH.install()


def _install() -> None:
    from daphne.ws_protocol import WebSocketFactory  # noqa: PLC0415

    made = WebSocketFactory.__init__
    if getattr(made, "waits_for_closing_clients", False):
        return

    def __init__(self, server_class, *args, **kwargs) -> None:  # noqa: N807 (the method it replaces)
        made(self, server_class, *args, **kwargs)
        self.setProtocolOptions(closeHandshakeTimeout=CLOSE_HANDSHAKE_SECONDS, failByDrop=False)

    __init__.waits_for_closing_clients = True
    replace(WebSocketFactory, "__init__", __init__)


PATCH = Patch(
    unpatched="A client gets 0-1 s to answer the server's close before its connection is reset, and a frame "
              "that breaks the protocol drops its connection without a close frame",
    library="Daphne", module="daphne", versions=("4.2.",),
    uses=(Private("daphne.ws_protocol:WebSocketFactory", "__init__", "config/closehandshake.py",
                  params=("self", "server_class", "args", "kwargs")),
          Private("autobahn.websocket.protocol:WebSocketServerFactory", "setProtocolOptions",
                  "config/closehandshake.py", named_in="daphne.server:Server.run"),
          Private("autobahn.websocket.protocol:WebSocketProtocol", "closeHandshakeTimeout",
                  "config/closehandshake.py", named_in="autobahn.websocket.protocol:WebSocketProtocol.sendCloseFrame"),
          Private("autobahn.websocket.protocol:WebSocketProtocol", "failByDrop",
                  "config/closehandshake.py", named_in="autobahn.websocket.protocol:WebSocketProtocol._fail_connection")),
    benchmark="not a speed-up, a fix: docs/testing.md's flakes table (the PostgreSQL outage test's socket closed "
              "with 4503 and no message; a trace of the live server showed the reset 46 ms after the close frame)",
    apply=_install,
)
