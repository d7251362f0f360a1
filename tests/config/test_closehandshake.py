"""config/closehandshake.py: a client that reads the server's last message and close late still
gets both; the server does not reset the connection under it a moment after its close."""

import json
import socket
import threading

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

import config.asgi  # noqa: F401  (installs the wait, as the server does)
from config.closehandshake import CLOSE_HANDSHAKE_SECONDS, PATCH
from tests.support.live import live_server

pytestmark = pytest.mark.django_db(transaction=True)
LATE_SECONDS = 1.5  # later than autobahn's own wait (0-1 s), well inside the one installed here


class LateReader(socket.socket):
    """A client socket whose first read waits until the test lets it go: its reading thread was
    not scheduled while the server's frames arrived (a loaded machine)."""

    go = threading.Event()

    def recv(self, size, *flags):
        self.go.wait(30)
        return super().recv(size, *flags)


def test_the_factory_daphne_makes_waits_for_the_close():
    from daphne.ws_protocol import WebSocketFactory

    PATCH.check()
    assert WebSocketFactory(None).closeHandshakeTimeout == CLOSE_HANDSHAKE_SECONDS


def test_a_client_that_reads_late_gets_the_message_and_the_close_code_live():
    """A visitor's site socket is accepted, told "not signed in" and closed with 4403 at once;
    its client reads all of that ``LATE_SECONDS`` later."""
    with live_server() as server:
        sock = LateReader(socket.AF_INET, socket.SOCK_STREAM)
        sock.connect(("127.0.0.1", server.port))
        timer = threading.Timer(LATE_SECONDS, LateReader.go.set)
        timer.start()
        try:
            with connect(f"{server.ws_url}/ws/site/", sock=sock, origin=server.url, open_timeout=30) as ws:
                heard = []
                with pytest.raises(ConnectionClosed) as closed:
                    while True:
                        heard.append(json.loads(ws.recv(timeout=30)))
        finally:
            timer.cancel()
            LateReader.go.clear()
    assert [m["code"] for m in heard] == ["not_signed_in"]
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403


def _close_code_after(server, send) -> tuple[int, str]:
    """Open a signed-out visitor's lobby socket (accepted, it only sends), ``send`` on it, and
    return the close code and reason the server answers with."""
    with connect(f"{server.ws_url}/ws/lobby/", origin=server.url, open_timeout=30,
                 max_size=None) as ws:
        send(ws)
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                ws.recv(timeout=30)
    assert closed.value.rcvd is not None, "the server dropped the connection without a close frame"
    return closed.value.rcvd.code, closed.value.rcvd.reason


def test_frames_that_break_the_protocol_get_a_close_frame_live():
    """A text frame that is not UTF-8 is closed with 1007 and a message over Daphne's 1 MiB with
    1009, each with the close frame the standard prefers, not a dropped TCP connection."""
    with live_server() as server:
        code, reason = _close_code_after(server, lambda ws: ws.send(b'{"type": "\xff\xfe"}', text=True))
        assert code == 1007 and reason
        code, reason = _close_code_after(server, lambda ws: ws.send("x" * (1024 * 1024 + 1)))
        assert code == 1009 and "exceeds" in reason
