"""A deadline for a request's head and body, answered with 408, and the open-file limit raised.

Twisted's HTTP channel (under Daphne) has only an idle timeout, reset by every byte received:
a client that sends its request a byte a second holds its socket for as long as it likes, and
Daphne's ``--websocket_connect_timeout`` starts only once a websocket's request is read. 500
such clients, with the common limit of 1,024 open files, made 17 of 18 new page loads fail
with "Too many open files". Here each request has a deadline measured from its first byte (or
from the connection, for the first): ``REQUEST_HEAD_SECONDS`` until its headers are in (a
websocket's handshake request included) and ``REQUEST_BODY_SECONDS`` more for its body. A
request that misses one is answered ``408 Request Timeout`` with ``Connection: close`` and
closed; it never reaches Django. An idle kept-alive connection between two requests keeps
Twisted's idle timeout.

``raise_open_files`` lifts the process's soft limit of open files to its hard limit at start,
and warns when even that is few for a server (``FEW_OPEN_FILES``).

The patch leans on Twisted 26.10 and the names in ``PATCH`` (``config.patches.Patch``): when
they changed, the server warns once and reads requests as Twisted does, without deadlines.
"""

from __future__ import annotations

import logging
import warnings

from config.patches import Patch, Private, replace

REQUEST_TIMEOUT = b"408 Request Timeout", b"The request was not sent in time.\n"
LINGER_SECONDS = 5.0  # for the answer to leave before the connection is cut whatever the client does
FEW_OPEN_FILES = 4096  # each socket is one, a request's body on disk another
logger = logging.getLogger(__name__)


def request_deadlines(*, head_seconds: float, body_seconds: float) -> bool:
    """Install the deadlines (once); True when installed (or already were)."""
    from twisted.web import http  # noqa: PLC0415 (Daphne's reactor is installed first)

    if getattr(http.HTTPChannel, "request_deadlines", None) is not None:
        return True
    return PATCH.install(head_seconds=head_seconds, body_seconds=body_seconds)


def _install(*, head_seconds: float, body_seconds: float) -> None:
    from twisted.internet import reactor  # noqa: PLC0415 (the server's, installed by then)
    from twisted.web import http  # noqa: PLC0415

    from config.headlimit import response  # noqa: PLC0415

    channel_class = http.HTTPChannel
    connection_made, data_received = channel_class.connectionMade, channel_class.dataReceived
    all_headers, all_content = channel_class.allHeadersReceived, channel_class.allContentReceived
    connection_lost = channel_class.connectionLost

    def arm(channel, seconds: float) -> None:
        disarm(channel)
        channel.request_deadline = reactor.callLater(seconds, missed, channel)

    def disarm(channel) -> None:
        deadline = getattr(channel, "request_deadline", None)
        if deadline is not None:
            channel.request_deadline = None
            if deadline.active():
                deadline.cancel()

    def missed(channel) -> None:
        channel.request_deadline = None
        transport = channel.transport
        if transport is None or not transport.connected:
            return
        channel.persistent = False
        channel.dataReceived = _ignore  # whatever still comes is not read
        transport.write(response(REQUEST_TIMEOUT))
        transport.loseConnection()
        reactor.callLater(LINGER_SECONDS, _cut, transport)

    def connectionMade(self):  # noqa: N802 (Twisted's names)
        connection_made(self)
        arm(self, head_seconds)

    def dataReceived(self, data):  # noqa: N802
        # The first byte of a request after an idle kept-alive connection starts its deadline.
        if not self._handlingRequest and getattr(self, "request_deadline", None) is None:
            arm(self, head_seconds)
        data_received(self, data)

    def allHeadersReceived(self):  # noqa: N802
        disarm(self)
        all_headers(self)
        if self.length != 0 and self.transport is not None and self.transport.connected:
            arm(self, body_seconds)

    def allContentReceived(self):  # noqa: N802
        disarm(self)
        all_content(self)

    def connectionLost(self, reason):  # noqa: N802
        disarm(self)
        connection_lost(self, reason)

    for method in (connectionMade, dataReceived, allHeadersReceived, allContentReceived, connectionLost):
        replace(channel_class, method.__name__, method)
    channel_class.request_deadline = None
    channel_class.request_deadlines = (head_seconds, body_seconds)


def _ignore(data: bytes) -> None:
    pass


def _cut(transport) -> None:
    if transport.connected:
        transport.abortConnection()


def raise_open_files() -> int:
    """Raise the soft limit of open files to the hard limit (as far as the system allows);
    warn when it stays under ``FEW_OPEN_FILES``. Returns the limit now in force."""
    import resource  # noqa: PLC0415 (POSIX only)

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as err:
            logger.warning("Could not raise the limit of open files from %d to %d: %s", soft, target, err)
    if soft < FEW_OPEN_FILES:
        message = (f"This process may open only {soft} files (sockets included), few for a server: "
                   f"raise the hard limit (ulimit -Hn, or LimitNOFILE= in a systemd unit) to at least {FEW_OPEN_FILES}.")
        warnings.warn(message, RuntimeWarning, stacklevel=2)
        logger.warning(message)
    return soft


def _channel(name: str, params: tuple[str, ...]) -> Private:
    return Private("twisted.web.http:HTTPChannel", name, "config/slowclients.py", params=params)


PATCH = Patch(
    unpatched="Requests have no deadline: a client that sends a byte a second holds its socket for good",
    library="Twisted", module="twisted", versions=("26.10.",),
    uses=(_channel("connectionMade", ("self",)),
          _channel("dataReceived", ("self", "data")),
          _channel("allHeadersReceived", ("self",)),
          _channel("allContentReceived", ("self",)),
          _channel("connectionLost", ("self", "reason")),
          Private("twisted.web.http:HTTPChannel", "_handlingRequest", "config/slowclients.py",
                  named_in="twisted.web.http:HTTPChannel.__init__"),
          Private("twisted.web.http:HTTPChannel", "length", "config/slowclients.py"),
          Private("twisted.web.http:HTTPChannel", "persistent", "config/slowclients.py")),
    benchmark="not a speed-up, a fix: `benchmarks/slow_clients.py` (docs/crowds.md): 500 clients sending a byte a "
              "second with 1,024 open files made 17 of 18 page loads fail unpatched",
    apply=_install,
)
