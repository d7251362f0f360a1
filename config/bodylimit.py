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

The patch leans on the names listed in ``PATCHED`` and on Daphne 4.2: ``limit_bodies`` checks
them and, when they changed, warns and leaves Daphne as it is (Django's own limits and nginx's
``client_max_body_size`` still refuse, after reading).
"""

from __future__ import annotations

import inspect
import logging
import warnings
from collections.abc import Callable

logger = logging.getLogger(__name__)

DAPHNE_VERSIONS = ("4.2.",)  # the versions whose request class this was written against
# Twisted's request methods replaced here, with the parameters they take; Daphne must not
# define its own.
PATCHED = {"gotLength": ("self", "length"), "handleContentChunk": ("self", "data"),
           "requestReceived": ("self", "command", "path", "version")}
LINGER_SECONDS = 5.0


class DidNotInstall(Exception):
    """The library is not the one this patch was written against."""


def _check(daphne_module, request_class, twisted_request) -> None:
    version = getattr(daphne_module, "__version__", "")
    if not version.startswith(DAPHNE_VERSIONS):
        raise DidNotInstall(f"Daphne {version or '(unknown version)'} is not one of {DAPHNE_VERSIONS}")
    for name, params in PATCHED.items():
        if name in vars(request_class):
            raise DidNotInstall(f"Daphne's request defines its own {name}")
        method = getattr(twisted_request, name, None)
        if method is None or tuple(inspect.signature(method).parameters) != params:
            raise DidNotInstall(f"Twisted's Request.{name} is not {name}{params}")


def limit_bodies(*, max_bytes: int, page: Callable[[bytes], bytes]) -> bool:
    """Make Daphne refuse bodies over ``max_bytes`` while they arrive; ``page(path)`` gives
    the HTML of the 413 answer for a request path. True when installed (or already was)."""
    import daphne  # noqa: PLC0415 (Daphne's reactor is installed first)
    from daphne.http_protocol import WebRequest  # noqa: PLC0415
    from twisted.web import http  # noqa: PLC0415

    if getattr(WebRequest, "body_limit", None) is not None:
        return True
    try:
        _check(daphne, WebRequest, http.Request)
    except DidNotInstall as reason:
        message = f"Request bodies are not limited as they arrive: {reason}."
        warnings.warn(message, RuntimeWarning, stacklevel=2)
        logger.warning(message)
        return False

    def refuse(request) -> None:
        from twisted.internet import reactor  # noqa: PLC0415 (the server's, installed by then)

        request.body_refused = True
        request.content.close()
        request.content = _Dropped()
        request.channel.persistent = False
        transport = request.channel.transport
        body = page(getattr(request.channel, "_path", b""))  # the request line's path, if Twisted still keeps it there
        transport.write(_response_head(len(body)) + body)
        if hasattr(transport, "loseWriteConnection"):
            transport.loseWriteConnection()
            reactor.callLater(LINGER_SECONDS, _close, transport)
        else:
            transport.loseConnection()

    def gotLength(self, length):  # noqa: N802 (Twisted's name)
        self.body_seen = 0
        self.body_refused = False
        http.Request.gotLength(self, length)
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
            http.Request.requestReceived(self, command, path, version)

    WebRequest.gotLength = gotLength
    WebRequest.handleContentChunk = handleContentChunk
    WebRequest.requestReceived = requestReceived
    WebRequest.body_limit = max_bytes
    return True


def _response_head(length: int) -> bytes:
    from csp.utils import build_policy  # noqa: PLC0415

    return (b"HTTP/1.1 413 Content Too Large\r\n"
            b"Content-Type: text/html; charset=utf-8\r\n"
            b"Content-Length: %d\r\n"
            b"Content-Security-Policy: %s\r\n"
            b"X-Content-Type-Options: nosniff\r\n"
            b"X-Frame-Options: DENY\r\n"
            b"Connection: close\r\n\r\n") % (length, build_policy().encode())


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
