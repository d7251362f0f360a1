"""config/slowclients.py: a request whose headers or body come too slowly is answered 408 and
closed, in the server itself; one sent in time is served; the open-file limit is raised at start."""

import socket
import subprocess
import sys
import time

import pytest

import config.asgi  # noqa: F401  (installs the patch, as the server does)
from config.slowclients import PATCH
from tests.support.live import ROOT, live_server

pytestmark = pytest.mark.django_db(transaction=True)

DEADLINES = {"REQUEST_HEAD_SECONDS": "1", "REQUEST_BODY_SECONDS": "1"}


def dribble(port: int, parts: list[bytes], pause: float) -> bytes:
    """Send ``parts`` one at a time, ``pause`` seconds apart, while reading what comes back,
    until the server closes (a slow client that stops when it is answered)."""
    answer = b""
    with socket.create_connection(("127.0.0.1", port), 30) as sock:
        sock.settimeout(pause)
        for part in parts:
            try:
                sock.sendall(part)
            except OSError:  # closed on us: read what it said
                break
            try:
                data = sock.recv(65536)
            except TimeoutError:
                continue
            answer += data
            if not data:
                return answer
        sock.settimeout(30)
        try:
            while data := sock.recv(65536):
                answer += data
        except ConnectionResetError:
            pass
    return answer


def test_the_patch_was_written_for_the_installed_twisted():
    from twisted.web import http

    PATCH.check()
    assert http.HTTPChannel.request_deadlines


def test_slow_heads_and_bodies_are_answered_408_and_quick_ones_served_live():
    with live_server(env=DEADLINES) as server:
        began = time.monotonic()
        slow_head = dribble(server.port, [b"GET / HTTP/1.1\r\n"] + [b"X-A: b\r\n"] * 40, 0.2)
        head_took = time.monotonic() - began
        silent = dribble(server.port, [b""], 0.2)  # connects and sends nothing
        body = b"name=" + b"x" * 60
        slow_body = dribble(server.port, [b"POST /signup/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n"
                                          b"Content-Type: application/x-www-form-urlencoded\r\n\r\n" % len(body)]
                            + [bytes([c]) for c in body], 0.2)
        slow_handshake = dribble(server.port, [b"GET /ws/lobby/ HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"]
                                 + [b"Connection: Upgrade\r\n"] * 40, 0.2)
        quick = dribble(server.port, [b"GET /static/favicon.svg HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"],
                        0.2)
    for answer in (slow_head, silent, slow_body, slow_handshake):
        assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), answer[:200]
        assert answer.endswith(b"The request was not sent in time.\n") and b"Connection: close" in answer
    assert head_took < 6  # cut at its deadline, not when it finished (8 s)
    assert quick.startswith(b"HTTP/1.1 200 OK"), quick[:200]


def run(code: str, soft: int, hard: int) -> subprocess.CompletedProcess:
    """``code`` in a new interpreter whose open-file limit starts at (``soft``, ``hard``)."""
    limit = f"import resource; resource.setrlimit(resource.RLIMIT_NOFILE, ({soft}, {hard}))\n"
    return subprocess.run([sys.executable, "-W", "always", "-c", limit + code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)


def test_the_open_file_limit_is_raised_to_the_hard_limit_and_few_are_warned_of():
    code = ("import resource\nfrom config.slowclients import raise_open_files\n"
            "print(raise_open_files(), resource.getrlimit(resource.RLIMIT_NOFILE)[0])")
    raised = run(code, 256, 8192)
    assert raised.stdout.split() == ["8192", "8192"], raised.stderr
    assert "few for a server" not in raised.stderr
    few = run(code, 256, 1024)
    assert few.stdout.split() == ["1024", "1024"], few.stderr
    assert "may open only 1024 files" in few.stderr and "ulimit -Hn" in few.stderr
