"""Answer a request line or headers over Twisted's limits with a status, not a cut connection.

Twisted's HTTP channel (under Daphne) reads the request line and each header line with a
limit of 16 KiB a line (``MAX_LENGTH``) and 16 KiB for all of them (``totalHeadersSize``).
A line over it was answered with nothing at all: ``LineReceiver.lineLengthExceeded`` closes
the connection, so a client with an over-long address saw a network fault, not an answer. All
the lines together over it got a bare ``400 Bad Request``. Here both get the status HTTP has
for them, with a short text and ``Connection: close``: ``414 URI Too Long`` for a request line,
``431 Request Header Fields Too Large`` for headers. The request never reaches Django.

The patch leans on Twisted 26.10 and the names in ``PATCH`` (``config.patches.Patch``): when
they changed, the server warns once and answers as Twisted does.
"""

from __future__ import annotations

from config.patches import Patch, Private, replace

URI_TOO_LONG = b"414 URI Too Long", b"The address is too long.\n"
HEADERS_TOO_LARGE = b"431 Request Header Fields Too Large", b"The request's headers are too large.\n"


def answer_long_heads() -> bool:
    """Install the answers (once); True when installed."""
    from twisted.web import http  # noqa: PLC0415 (Daphne's reactor is installed first)

    if getattr(http.HTTPChannel, "answers_long_heads", False):
        return True
    return PATCH.install()


def response(status_and_text: tuple[bytes, bytes]) -> bytes:
    status, text = status_and_text
    return (b"HTTP/1.1 %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\n"
            b"Connection: close\r\n\r\n%s") % (status, len(text), text)


def _install() -> None:
    from twisted.web import http  # noqa: PLC0415

    line_received = http.HTTPChannel.lineReceived

    def refuse(channel) -> None:
        # No line of this request read yet: the line over the limit is the request line (its target).
        channel.transport.write(response(URI_TOO_LONG if channel._receivedHeaderSize == 0 else HEADERS_TOO_LARGE))
        channel.loseConnection()

    def lineLengthExceeded(self, line):  # noqa: N802 (Twisted's name)
        refuse(self)

    def lineReceived(self, line):  # noqa: N802
        # Twisted's own check, answered with 431 (414 if the request line alone is over it).
        if self._receivedHeaderSize + len(line) > self.totalHeadersSize:
            refuse(self)
            return
        line_received(self, line)

    replace(http.HTTPChannel, "lineLengthExceeded", lineLengthExceeded)
    replace(http.HTTPChannel, "lineReceived", lineReceived)
    http.HTTPChannel.answers_long_heads = True


PATCH = Patch(
    unpatched="A request line or header over 16 KiB is answered by a cut connection, all headers over 16 KiB by a bare 400",
    library="Twisted", module="twisted", versions=("26.10.",),
    uses=(Private("twisted.protocols.basic:LineReceiver", "lineLengthExceeded", "config/headlimit.py",
                  params=("self", "line")),
          Private("twisted.web.http:HTTPChannel", "lineLengthExceeded", "config/headlimit.py", inherited=True),
          Private("twisted.web.http:HTTPChannel", "lineReceived", "config/headlimit.py", params=("self", "line")),
          Private("twisted.web.http:HTTPChannel", "totalHeadersSize", "config/headlimit.py"),
          Private("twisted.web.http:HTTPChannel", "_receivedHeaderSize", "config/headlimit.py"),
          Private("twisted.web.http:HTTPChannel", "loseConnection", "config/headlimit.py", params=("self",))),
    benchmark="not a speed-up, a fix: a GET with a 20,000-byte path got no answer at all, the connection cut "
              "(tests/config/test_headlimit.py; docs/hostile-input.md)",
    apply=_install,
)
