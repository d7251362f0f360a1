"""One HTTP call to a GGP player: only to hosts the operator allows, with a deadline and a
cap on the answer. Never called on a web request's path (``manager`` runs it off it).

The allow-list (``settings.GGP_PLAYER_HOSTS``, default ``localhost:9147-9156``: ten ports of
the local machine) holds host names, IP addresses and networks (``10.1.0.0/16``), each with
the ports it allows (``host:9147``, ``host:9000-9100``; none written: every port). An address
is parsed once, strictly (``check_url``: nothing outside printable ASCII, no space, port 1 to
65535, a real host name or address), and checked
twice: at registration (the scheme, the host by name or address, the port) and at every
call (``call``): the host is resolved then, every address it resolves to must be allowed,
and the connection goes to that checked address, so a name that resolves elsewhere later
(DNS rebinding) reaches nothing it should not. ``localhost`` allows the loopback addresses;
an allowed host name may resolve to public addresses or to an address the list allows.
Redirects are never followed: a 3xx answer is a failed call.

The deadline is one for the whole call: connecting, sending, the answer's headers and body.
Before every send and every receive the socket's timeout is set to the time left
(``_DeadlineSocket``), so a player that trickles its answer a byte at a time (each byte in
time, the whole late) is cut off at the deadline all the same.
"""

from __future__ import annotations

import http.client
import io
import ipaddress
import logging
import re
import socket
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from games.ggp import protocol

logger = logging.getLogger(__name__)

MAX_URL_CHARS = 200
LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))
getaddrinfo = socket.getaddrinfo  # the resolver of every call (tests replace it here, not process-wide)


class Refused(ValueError):
    """An address Boardhall will not call (scheme, host or resolved address not allowed)."""


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}{self.path}"


@dataclass(frozen=True)
class Answer:
    """What a call gave: the answer's text, or the failure (``timeout``, ``refused``,
    ``unreachable``, ``too_large``, ``bad_status``) in words; and how long it took."""

    text: str | None
    failure: str | None
    seconds: float

    @property
    def ok(self) -> bool:
        return self.failure is None


@dataclass(frozen=True)
class Rule:
    """One entry of the allow-list: a host name or a network, and the ports it allows (None:
    every port). ``localhost`` is the loopback networks, by name too."""

    names: frozenset[str]
    networks: tuple
    ports: tuple[int, int] | None

    def allows_port(self, port: int) -> bool:
        return self.ports is None or self.ports[0] <= port <= self.ports[1]


def _rule(entry: str) -> Rule | None:
    """An allow-list entry read: ``host``, ``host:port``, ``host:low-high``, an address or a
    network (``10.1.0.0/16``, ``[::1]:9147``). None for an empty entry; ValueError if garbled."""
    entry = entry.strip().lower()
    if not entry:
        return None
    host, ports = entry, None
    if entry.startswith("["):
        host, _, rest = entry[1:].partition("]")
        if rest:
            if not rest.startswith(":"):
                raise ValueError(f"GGP_PLAYER_HOSTS: {entry!r} is not [address]:port")
            ports = rest[1:]
    elif entry.count(":") == 1:
        host, ports = entry.split(":")
    span = None
    if ports is not None:
        low, _, high = ports.partition("-")
        span = (int(low), int(high or low))
        if not 1 <= span[0] <= span[1] <= 65535:
            raise ValueError(f"GGP_PLAYER_HOSTS: {entry!r} names ports outside 1-65535")
    host = host.rstrip(".")
    if host == "localhost":
        return Rule(frozenset({host}), LOOPBACK, span)
    try:
        return Rule(frozenset(), (ipaddress.ip_network(host, strict=False),), span)
    except ValueError:
        return Rule(frozenset({host}), (), span)


def _allowed() -> list[Rule]:
    """The allow-list's rules; a garbled entry allows nothing (and is logged)."""
    rules = []
    for entry in settings.GGP_PLAYER_HOSTS:
        try:
            rule = _rule(entry)
        except ValueError as err:
            logger.warning("%s: the entry is ignored", err)
            continue
        if rule is not None:
            rules.append(rule)
    return rules


def _address(host: str):
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _refuse_unusable(url: str) -> None:
    """Refuse, saying why, an address no call could reach as written: characters outside
    printable ASCII (a NUL, a line break, a tab, a space...) anywhere in it. The parser would
    drop some of them silently (``urlsplit`` removes CR, LF and tabs) and the database some
    others (PostgreSQL stores no NUL)."""
    for char in url:
        if char == " ":
            raise Refused("The address has a space in it; an address has none (write %20 in its path).")
        if not " " < char < "\x7f":
            raise Refused(f"The address has a character no address may have ({_shown(char)}).")


def _shown(char: str) -> str:
    names = {"\x00": "a NUL byte", "\r": "a carriage return", "\n": "a line break", "\t": "a tab"}
    return names.get(char, f"U+{ord(char):04X}")


_LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)")
_PATH = re.compile(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*")


def _valid_host_name(host: str) -> bool:
    return len(host) <= 253 and all(_LABEL.fullmatch(label) for label in host.split("."))


def check_url(url: str) -> Target:
    """The target of ``url`` if Boardhall may call it, else ``Refused`` saying why. The
    address is parsed once and kept in its normal form (``Target.url``): scheme and host in
    lower case, the port written out.

    >>> check_url("http://localhost:9147/").port
    9147
    """
    url = (url or "").strip()
    if len(url) > MAX_URL_CHARS:
        raise Refused(f"The address is longer than {MAX_URL_CHARS} characters.")
    _refuse_unusable(url)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise Refused("That is not an address (http://host:port/): its port is not a number from 1 to 65535.") from None
    if parts.scheme not in {"http", "https"}:
        raise Refused("Only http:// and https:// addresses can be called.")
    if parts.username is not None or parts.password is not None or not parts.hostname:
        raise Refused("The address needs a host, and no user name or password in it.")
    if parts.query or parts.fragment or "?" in url or "#" in url:
        raise Refused("The address may not have a query or a fragment.")
    if port == 0:
        raise Refused("Port 0 cannot be called: write the port the player listens on (1 to 65535).")
    if not _PATH.fullmatch(parts.path):
        raise Refused("The address's path has characters an address may not have.")
    host = parts.hostname.lower().rstrip(".")
    literal = _address(host)
    if literal is None and not _valid_host_name(host):
        raise Refused(f"{host!r} is not a host name or an IP address.")
    port = port or (443 if parts.scheme == "https" else 80)
    rules = _allowed()
    if not any(rule.allows_port(port) and (host in rule.names if literal is None
                                           else any(literal in n for n in rule.networks)) for rule in rules):
        raise Refused(f"This server calls only the hosts and ports its operator allows "
                      f"({', '.join(settings.GGP_PLAYER_HOSTS) or 'none'}); {host} port {port} is not one of them.")
    return Target(parts.scheme, host, port, parts.path or "/")


def resolve(target: Target) -> str:
    """The address to connect to for ``target``, resolved now: every address the host
    resolves to must be allowed with the target's port (a loopback or private address only
    where the list allows it by address or network), else ``Refused``."""
    rules = [rule for rule in _allowed() if rule.allows_port(target.port)]
    try:
        infos = getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise Refused(f"{target.host} does not resolve.") from None
    addresses = [ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos]
    by_name = target.host != "localhost" and any(target.host in rule.names for rule in rules)
    for address in addresses:
        if not any(address in n for rule in rules for n in rule.networks) and not (by_name and address.is_global):
            raise Refused(f"{target.host} resolves to {address}, which this server may not call.")
    if not addresses:
        raise Refused(f"{target.host} does not resolve.")
    return str(addresses[0])


def _time_left(deadline: float) -> float:
    """Seconds until ``deadline`` (``time.monotonic``); ``TimeoutError`` once it has passed."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the call's deadline has passed")
    return left


class _DeadlineSocket:
    """A connected socket that every send and receive may use only until ``deadline``: the
    timeout is set to the time left before each. What ``http.client`` uses of a socket:
    ``sendall``, ``makefile("rb")`` (the answer is read through it) and ``close``; closed, it
    lets go of the socket once the answer's reader is closed too, as a socket's makefile does."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self._sock, self._deadline = sock, deadline
        self._readers, self._closed = 0, False

    def sendall(self, data) -> None:
        view = memoryview(data).cast("B")
        while view:
            self._sock.settimeout(_time_left(self._deadline))
            view = view[self._sock.send(view):]

    def recv_into(self, buffer) -> int:
        self._sock.settimeout(_time_left(self._deadline))
        return self._sock.recv_into(buffer)

    def makefile(self, mode: str = "rb", *args, **kwargs) -> io.BufferedReader:
        if mode != "rb":
            raise ValueError(f"a GGP call's socket is read as bytes, not {mode!r}")
        self._readers += 1
        return io.BufferedReader(_DeadlineReader(self))

    def reader_closed(self) -> None:
        self._readers -= 1
        self._let_go()

    def close(self) -> None:
        self._closed = True
        self._let_go()

    def _let_go(self) -> None:
        if self._closed and self._readers == 0:
            self._sock.close()


class _DeadlineReader(io.RawIOBase):
    """The answer's bytes as they come, each receive within the call's deadline."""

    def __init__(self, sock: _DeadlineSocket) -> None:
        super().__init__()
        self._deadline_sock = sock

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        return self._deadline_sock.recv_into(buffer)

    def close(self) -> None:
        if not self.closed:
            self._deadline_sock.reader_closed()
        super().close()


class _Connection(http.client.HTTPConnection):
    """A connection to an address already checked, sending the player's own host name, all
    of it (the TLS handshake too) within ``deadline``."""

    def __init__(self, target: Target, address: str, deadline: float) -> None:
        super().__init__(address, target.port)
        self._target, self._deadline = target, deadline

    def connect(self) -> None:
        self.timeout = _time_left(self._deadline)
        super().connect()
        if self._target.scheme == "https":
            self.sock.settimeout(_time_left(self._deadline))
            context = ssl.create_default_context()
            self.sock = context.wrap_socket(self.sock, server_hostname=self._target.host)
        self.sock = _DeadlineSocket(self.sock, self._deadline)


def call(url: str, message: str, *, seconds: float, max_bytes: int | None = None) -> Answer:
    """POST ``message`` to the player at ``url`` and read its answer within ``seconds`` in all
    (connecting, sending, reading), at most ``max_bytes`` (``GGP_ANSWER_BYTES``)."""
    started = time.monotonic()
    cap = max_bytes or settings.GGP_ANSWER_BYTES

    def failed(why: str) -> Answer:
        return Answer(None, why, time.monotonic() - started)

    try:
        target = check_url(url)
        address = resolve(target)
    except Refused as err:
        return failed(f"refused: {err}")
    connection = _Connection(target, address, deadline=started + seconds)
    body = message.encode()
    response = None
    try:
        connection.putrequest("POST", target.path, skip_host=True, skip_accept_encoding=True)
        default_port = 443 if target.scheme == "https" else 80
        host = f"[{target.host}]" if ":" in target.host else target.host
        connection.putheader("Host", host if target.port == default_port else f"{host}:{target.port}")
        connection.putheader("Content-Type", protocol.CONTENT_TYPE)
        connection.putheader("Accept", "text/delim")
        connection.putheader("Sender", "GAMESERVER")
        connection.putheader("Receiver", f"{host}:{target.port}")
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        if response.status != 200:
            return failed(f"bad_status: HTTP {response.status}"
                          + (" (redirects are not followed)" if 300 <= response.status < 400 else ""))
        chunks, size = [], 0
        while chunk := response.read1(8192):
            size += len(chunk)
            if size > cap:
                return failed(f"too_large: more than {cap} bytes")
            chunks.append(chunk)
    except (TimeoutError, socket.timeout):
        return failed("timeout")
    except (OSError, http.client.HTTPException) as err:
        return failed(f"unreachable: {type(err).__name__}")
    finally:
        if response is not None:
            response.close()  # the socket goes now, not when the answer is collected
        connection.close()
    if time.monotonic() - started > seconds:
        return failed("timeout")
    return Answer(b"".join(chunks).decode("utf-8", "replace"), None, time.monotonic() - started)
