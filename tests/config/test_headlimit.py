"""config/headlimit.py: a request line or headers over Twisted's 16 KiB limits are answered with
414 or 431 and a text, not a connection cut without an answer; requests within them are served."""

import pytest

import config.asgi  # noqa: F401  (installs the patch, as the server does)
from benchmarks.form_bodies import exchange  # a raw request and its whole answer
from config.headlimit import PATCH
from tests.support.live import live_server

pytestmark = pytest.mark.django_db(transaction=True)


def status(answer: bytes) -> bytes:
    return answer.split(b"\r\n", 1)[0]


def test_the_patch_was_written_for_the_installed_twisted():
    from twisted.web import http

    PATCH.check()
    assert http.HTTPChannel.answers_long_heads


def test_over_long_heads_get_a_status_and_a_text_live():
    with live_server() as server:
        long_target = exchange(server.port, b"GET /" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        long_header = exchange(server.port, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20_000 + b"\r\n\r\n")
        many_headers = exchange(server.port, b"GET / HTTP/1.1\r\nHost: x\r\n"
                                + b"".join(b"X-%d: %s\r\n" % (n, b"a" * 100) for n in range(200)) + b"\r\n")
        served = exchange(server.port, b"GET /" + b"a" * 8_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    assert status(long_target) == b"HTTP/1.1 414 URI Too Long"
    assert long_target.endswith(b"The address is too long.\n")
    assert status(long_header) == b"HTTP/1.1 431 Request Header Fields Too Large"
    assert status(many_headers) == b"HTTP/1.1 431 Request Header Fields Too Large"
    assert b"headers are too large" in many_headers
    assert status(served) == b"HTTP/1.1 404 Not Found"  # within the limits: Django answers
