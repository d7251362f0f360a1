"""config/bodylimit.py: a body over the limit is refused as it arrives, by a real Daphne, and
the process's memory stays flat; the patch refuses to install on a Daphne it does not know."""

import json
import select
import socket
import threading
import warnings

import pytest
from django.conf import settings

from config import bodylimit
from tests.support.live import live_server

HUNDRED_MB = 100_000_000
BLOCK = b"\0" * 65536


def post(port: int, path: str, size: int, *, declared: bool) -> tuple[int, bytes, int]:
    """POST ``size`` bytes as a client that stops sending once an answer comes, as browsers and
    curl do: (status, page, bytes sent). ``declared``: with a Content-Length, else chunked."""
    sock = socket.create_connection(("127.0.0.1", port), 10)
    framing = f"Content-Length: {size}" if declared else "Transfer-Encoding: chunked"
    sock.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
                 f"{framing}\r\n\r\n".encode())
    sent = 0
    while sent < size:
        readable, writable, _ = select.select([sock], [sock], [], 10)
        if readable:
            break
        if writable:
            block = BLOCK[:size - sent]
            try:
                sock.sendall(block if declared else b"%x\r\n%s\r\n" % (len(block), block))
            except (BrokenPipeError, ConnectionResetError):
                break
            sent += len(block)
    if sent >= size and not declared:
        sock.sendall(b"0\r\n\r\n")
    answer = b""
    while data := sock.recv(65536):
        answer += data
        if b"\r\n\r\n" in answer and b"</html>" in answer:
            break
    sock.close()
    head, _, page = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), page, sent


def memory_kb(pid: int) -> dict[str, int]:
    """The process's resident memory now (VmRSS) and at its peak since the last reset (VmHWM)."""
    with open(f"/proc/{pid}/status") as status:
        fields = dict(line.split(":", 1) for line in status)
    return {name: int(fields[name].split()[0]) for name in ("VmRSS", "VmHWM")}


def reset_peak(pid: int) -> None:
    with open(f"/proc/{pid}/clear_refs", "w") as clear:
        clear.write("5")


def four_at_once(port: int, path: str, *, declared: bool) -> list[tuple[int, bytes, int]]:
    results: list = [None] * 4

    def send(i: int) -> None:
        results[i] = post(port, path, HUNDRED_MB, declared=declared)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return results


@pytest.mark.django_db(transaction=True)
def test_huge_bodies_are_refused_as_they_arrive_and_memory_stays_flat():
    with live_server() as server:
        pid = server.process.pid
        for declared in (True, False):  # the first refusals render the page and warm everything up
            assert post(server.port, "/matches/new/", 3_000_000, declared=declared)[0] == 413
        before = memory_kb(pid)["VmRSS"]
        reset_peak(pid)
        answers = []
        for declared in (True, False):
            for path in ("/history/import/", "/matches/new/"):
                answers += [(path, declared, *answer) for answer in four_at_once(server.port, path, declared=declared)]
        after = memory_kb(pid)
        print(f"\nDaphne resident memory: {before} kB before, {after['VmHWM']} kB at peak, "
              f"{after['VmRSS']} kB after 16 bodies of 100 MB")
        for path, declared, status, page, sent in answers:
            assert status == 413, (path, declared)
            message = "The file is larger than 1000 kB." if path == "/history/import/" else "at most 2.5 MB"
            assert message.encode() in page and b'data-testid="error-page"' in page
            assert sent < 20_000_000, "the answer came only after the body"  # (kernel buffers take a few MB)
        assert after["VmHWM"] - before < 8_000 and after["VmRSS"] - before < 8_000


@pytest.mark.django_db(transaction=True)
def test_a_huge_body_to_the_bot_api_is_refused_as_json_like_every_refusal_of_it():
    with live_server() as server:
        for declared in (True, False):
            status, answer, sent = post(server.port, "/api/matches/1/move", 10_000_000, declared=declared)
            assert status == 413 and sent < 10_000_000, declared
            assert json.loads(answer) == {"code": "too_large", "message": "A request may carry at most 2.5 MB."}
        status, page, _ = post(server.port, "/matches/new/", 3_000_000, declared=True)
        assert status == 413 and b'data-testid="error-page"' in page


@pytest.mark.django_db(transaction=True)
def test_bodies_within_the_limit_still_reach_the_site():
    size = settings.REQUEST_MAX_BYTES - 100_000
    with live_server() as server:
        for declared in (True, False):
            status, page, sent = post(server.port, "/history/import/", size, declared=declared)
            assert sent >= size and status == 403, declared  # Django's CSRF check read it


def raw_post(port: int, path: str, content_type: str, body: bytes) -> tuple[bytes, bytes]:
    """One POST of ``body`` as it is, then the whole answer: (head, page)."""
    with socket.create_connection(("127.0.0.1", port), 30) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {content_type}\r\n"
                     f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
        answer = b""
        while data := sock.recv(65536):
            answer += data
    head, _, page = answer.partition(b"\r\n\r\n")
    return head, page


@pytest.mark.django_db(transaction=True)
def test_form_bodies_are_left_to_django_not_parsed_by_twisted():
    # Twisted answered a malformed multipart body itself, with a bare 400 and a cut connection,
    # after parsing it on the event loop's thread; Django's CSRF check now reads it and answers
    # with the site's page, as for any other POST without a token.
    fields = b"".join(b'--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n\r\n' for _ in range(3)) + b"--x--\r\n"
    with live_server() as server:
        for content_type, body in (("multipart/form-data; boundary=x", b"garbage"),
                                   ("multipart/form-data", fields),  # no boundary
                                   ("multipart/form-data; boundary=x", fields)):
            head, page = raw_post(server.port, "/history/import/", content_type, body)
            assert head.startswith(b"HTTP/1.1 403"), (content_type, body[:20], head)
            assert b'data-testid="error-page"' in page and b"Content-Security-Policy" in head


def test_the_patch_refuses_a_daphne_it_does_not_know(monkeypatch):
    import daphne
    from daphne.http_protocol import WebRequest

    import config.asgi  # noqa: F401 (installed, as the server does)

    installed = {name: vars(WebRequest)[name] for name in bodylimit.PATCHED}
    for name in (*bodylimit.PATCHED, "body_limit"):
        monkeypatch.delattr(WebRequest, name)
    monkeypatch.setattr(daphne, "__version__", "5.0.0")
    with pytest.warns(RuntimeWarning, match="Daphne 5.0.0"):
        assert bodylimit.limit_bodies(max_bytes=10, page=lambda path: b"") is False
    assert not any(name in vars(WebRequest) for name in installed)  # Daphne left as it is
    monkeypatch.undo()
    assert {name: vars(WebRequest)[name] for name in bodylimit.PATCHED} == installed


def test_the_patch_refuses_when_daphne_or_twisted_changed_the_methods_it_replaces():
    from twisted.web import http

    class OwnLength:
        def gotLength(self, length):  # noqa: N802
            pass

    class Daphne:
        __version__ = "4.2.9"

    with pytest.raises(bodylimit.DidNotInstall, match="defines its own gotLength"):
        bodylimit._check(Daphne, OwnLength, http.Request)

    class NewTwisted(http.Request):
        def handleContentChunk(self, data, final):  # noqa: N802
            pass

    with pytest.raises(bodylimit.DidNotInstall, match="handleContentChunk"):
        bodylimit._check(Daphne, object, NewTwisted)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bodylimit._check(Daphne, object, http.Request)  # the library as it is: no complaint


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_nginx_in_the_scaled_set_up_refuses_the_same_bodies_with_the_same_page():
    from tests.support.nginx import nginx_in_front

    with live_server() as server, nginx_in_front([server]) as front:
        port = int(front.url.rsplit(":", 1)[1])
        for declared in (True, False):
            for path in ("/history/import/", "/matches/new/"):
                status, page, sent = post(port, path, HUNDRED_MB, declared=declared)
                assert status == 413 and b"at most 2.5 MB" in page and b'data-testid="error-page"' in page
                assert sent < 20_000_000, (path, declared, sent)
            status, _, sent = post(port, "/history/import/", settings.REQUEST_MAX_BYTES - 100_000, declared=declared)
            assert status == 403 and sent == settings.REQUEST_MAX_BYTES - 100_000  # passed on to the site
