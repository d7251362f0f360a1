"""Refuse a request body over the limit as it arrives, before Daphne has read it.

Daphne hands a request to the application only once Twisted has received its whole body, and
then queues all of it for the application at once: a 100 MB POST grew a process by 1.4 GB
before Django could refuse it, whatever the settings said. So the refusal happens in Daphne's
request (``daphne.http_protocol.WebRequest``, a Twisted ``http.Request``) as the bytes come:
a declared length over the limit is answered at the end of the headers (``gotLength``), a
chunked body as soon as its running total passes it (``handleContentChunk``). The answer is a
413 page at once, with ``Connection: close``; what the client still sends is read and dropped
for at most ``LINGER_SECONDS`` so that it sees the answer (closing with unread data would
reset the connection under it, as nginx's lingering close also avoids), and the request never
reaches the application.

The same patched ``requestReceived`` turns off Twisted's own parsing of form bodies
(``_parsePOSTFormSubmission``): Twisted parses a ``multipart/form-data`` or urlencoded POST into
``request.args``, which Daphne never reads, on the server's one event-loop thread before Django
sees the request. A 2.3 MB body of 45,000 empty fields held every socket, move and clock of the
process for 5.5 to 6.1 s (Django's own parser refuses it in 0.13 s: too many fields), and a
malformed multipart body was answered with Twisted's bare 400 and a cut connection instead of
the site's page. Django parses what it needs, within its limits.

A body declared at 100 KB or more is kept in memory until that much of it has arrived, not in a
temporary file opened at its headers (Twisted's way): a slow client holds one open file, its
socket, not two (``_content_file``).

The patch leans on Daphne 4.2 and on the names listed in ``PATCH`` (``config.patches.Patch``):
``limit_bodies`` checks them and, when they changed, warns and leaves Daphne as it is (Django's
own limits and nginx's ``client_max_body_size`` still refuse, after reading).
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Callable

from config.patches import Mismatch, Patch, Private, replace

DAPHNE_VERSIONS = ("4.2.",)  # the versions whose request class this was written against
# Twisted's request methods replaced here, with the parameters they take; Daphne must not
# define its own.
PATCHED = {"gotLength": ("self", "length"), "handleContentChunk": ("self", "data"),
           "requestReceived": ("self", "command", "path", "version")}
LINGER_SECONDS = 5.0
IN_MEMORY_BYTES = 100_000  # Twisted's own threshold for keeping a body in memory


DidNotInstall = Mismatch  # the library is not the one this patch was written against


def _check(daphne_module, request_class, twisted_request) -> None:
    """``PATCH.check`` with stand-ins for Daphne, its request class and Twisted's."""
    PATCH.check({"daphne": daphne_module, "daphne.http_protocol:WebRequest": request_class,
                 "twisted.web.http:Request": twisted_request})


def limit_bodies(*, max_bytes: int, page: Callable[[bytes], tuple[bytes, bytes]]) -> bool:
    """Make Daphne refuse bodies over ``max_bytes`` while they arrive; ``page(path)`` gives
    the 413 answer for a request path: its content type and body (the site's page, or the
    bot API's JSON refusal). True when installed (or already was)."""
    from daphne.http_protocol import WebRequest  # noqa: PLC0415 (Daphne's reactor is installed first)

    if getattr(WebRequest, "body_limit", None) is not None:
        return True
    return PATCH.install(max_bytes=max_bytes, page=page)


def _install(*, max_bytes: int, page: Callable[[bytes], tuple[bytes, bytes]]) -> None:
    from daphne.http_protocol import WebRequest  # noqa: PLC0415
    from twisted.web import http  # noqa: PLC0415

    def refuse(request) -> None:
        from twisted.internet import reactor  # noqa: PLC0415 (the server's, installed by then)

        request.body_refused = True
        request.content.close()
        request.content = _Dropped()
        request.channel.persistent = False
        transport = request.channel.transport
        content_type, body = page(getattr(request.channel, "_path", b""))  # the request line's path, if kept there
        transport.write(_response_head(len(body), content_type) + body)
        if hasattr(transport, "loseWriteConnection"):
            transport.loseWriteConnection()
            reactor.callLater(LINGER_SECONDS, _close, transport)
        else:
            transport.loseConnection()

    def gotLength(self, length):  # noqa: N802 (Twisted's name)
        self.body_seen = 0
        self.body_refused = False
        self.content = _content_file(length)
        if length is not None and length > max_bytes:
            refuse(self)

    def handleContentChunk(self, data):  # noqa: N802
        if self.body_refused:
            return
        self.body_seen += len(data)
        if self.body_seen > max_bytes:
            refuse(self)
        else:
            http.Request.handleContentChunk(self, data)

    def requestReceived(self, command, path, version):  # noqa: N802
        if self.body_refused:  # the client sent it all anyway: nothing is left unread
            self.channel.transport.loseConnection()
        else:
            self._parsePOSTFormSubmission = False  # Django parses bodies; Twisted's request.args goes unread
            http.Request.requestReceived(self, command, path, version)

    for method in (gotLength, handleContentChunk, requestReceived):
        replace(WebRequest, method.__name__, method)
    WebRequest.body_limit = max_bytes


def _content_file(length: int | None):
    """Where a body is kept while it arrives. Twisted opens a temporary file as soon as a
    request declares a body of 100 KB or more: with a slow client, a second open file held for
    as long as its socket (500 slow clients held 1,000 of a process's 1,024). Here a body stays
    in memory until that much of it has actually arrived."""
    if length is not None and length < IN_MEMORY_BYTES:
        return io.BytesIO()
    return tempfile.SpooledTemporaryFile(max_size=IN_MEMORY_BYTES)


def _response_head(length: int, content_type: bytes) -> bytes:
    from csp.utils import build_policy  # noqa: PLC0415

    return (b"HTTP/1.1 413 Content Too Large\r\n"
            b"Content-Type: %s\r\n"
            b"Content-Length: %d\r\n"
            b"Content-Security-Policy: %s\r\n"
            b"X-Content-Type-Options: nosniff\r\n"
            b"X-Frame-Options: DENY\r\n"
            b"Connection: close\r\n\r\n") % (content_type, length, build_policy().encode())


def _close(transport) -> None:
    """The end of lingering: whatever the client still sends is not worth reading."""
    if transport.connected:
        transport.abortConnection()


class _Dropped:
    """Where a refused body goes: nowhere."""

    closed = False

    def write(self, data: bytes) -> None:
        pass

    def read(self, size: int = -1) -> bytes:
        return b""

    def seek(self, offset: int, whence: int = 0) -> int:
        return 0

    def tell(self) -> int:
        return 0

    def close(self) -> None:
        self.closed = True


def _request(name: str, params: tuple[str, ...]) -> tuple[Private, Private]:
    """Twisted's request method ``name`` as the patch replaces it, not Daphne's own."""
    return (Private("daphne.http_protocol:WebRequest", name, "config/bodylimit.py", inherited=True),
            Private("twisted.web.http:Request", name, "config/bodylimit.py", params=params))


PATCH = Patch(
    unpatched="Request bodies are not limited as they arrive",
    library="Daphne", module="daphne", versions=DAPHNE_VERSIONS,
    uses=(*(private for name, params in PATCHED.items() for private in _request(name, params)),
          Private("twisted.web.http:HTTPChannel", "persistent", "config/bodylimit.py"),
          Private("twisted.web.http:Request", "_parsePOSTFormSubmission", "config/bodylimit.py",
                  named_in="twisted.web.http:Request.requestReceived"),
          Private("twisted.web.http:HTTPChannel", "_path", "config/bodylimit.py",
                  named_in="twisted.web.http:HTTPChannel.lineReceived")),
    benchmark="tests/config/test_bodylimit.py prints the process's memory: sixteen 100 MB bodies grow it by "
              "0.08 MB (one 100 MB POST grew it by 1.4 GB unpatched; docs/hostile-input.md)",
    apply=_install,
)
