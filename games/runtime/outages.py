"""While Redis or the database is away: one warning line per kind of failure, and a socket that
cannot be served is accepted and closed with "try again later" instead of failing its handshake.

A socket that fails because a service is down fails the same way for every message and every
page: a traceback each would fill the log (an outage of a minute logged dozens) and say
nothing new. Each kind is logged once per ``REPEAT_SECONDS``, with how many were left out.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time

import orjson
import psycopg
import psycopg_pool
from django.db import InterfaceError, OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

TRY_AGAIN_LATER = 4503  # "try again later" (1013 itself is not a code an application may send)
UNAVAILABLE = {"type": "error", "code": "unavailable",
               "message": "Live updates interrupted: the server cannot reach its services right now. Reconnecting…"}
# What a failing service raises: builtin socket errors, redis-py's and the database's own (of
# which only some mean the database is away: ``database_away``). A place that catches these to
# wait an outage out asks ``down`` (``report_or_raise``, ``report_or_log``) before it does.
SERVICE_DOWN = (OSError, RedisConnectionError, RedisTimeoutError, OperationalError, InterfaceError)
# The drivers' codes for a database that cannot be reached now. PostgreSQL's SQLSTATE: class 08
# (connection exception) and 57P01-57P03 (shut down by an administrator, crashed, starting up).
# SQLite's result codes: the file cannot be opened, or another writer held it past the busy
# timeout ("database is locked": a moment, as a restart is; a second process or a management
# command writing at length).
POSTGRESQL_AWAY = ("08", "57P01", "57P02", "57P03")
SQLITE_AWAY = (sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_BUSY)
REPEAT_SECONDS = 60.0

logger = logging.getLogger(__name__)
_lock = threading.Lock()
_logged: dict[str, float] = {}  # kind -> when last logged
_left_out: dict[str, int] = {}  # kind -> failures not logged since


def report(kind: str, error: BaseException) -> None:
    """Log that ``kind`` (what failed: "publishing", "opening a match page") failed because a
    service is down, or did not answer in time (``timed_out``): one warning line, at most once
    per ``REPEAT_SECONDS`` for each kind."""
    now = time.monotonic()
    with _lock:
        last = _logged.get(kind)
        if last is not None and now - last < REPEAT_SECONDS:
            _left_out[kind] = _left_out.get(kind, 0) + 1
            return
        _logged[kind] = now
        left_out = _left_out.pop(kind, 0)
    more = f" ({left_out} more since the last line)" if left_out else ""
    cause = ("no answer in time, the server or a service is overloaded (not an outage)" if timed_out(error)
             else "a service is down")
    logger.warning("%s failed, %s: %s: %s%s", kind, cause, type(error).__name__,
                   str(error).splitlines()[0] if str(error) else "", more)


def timed_out(error: BaseException) -> bool:
    """Whether ``error`` is a wait that ran out rather than a service refusing or gone: a timer
    of the code's (``asyncio.timeout``), a socket's or redis-py's read timeout, the database
    pool's wait for a free connection, SQLite's busy timeout. A process too loaded to read its
    answers in time meets these with every service up: 5,000 pages opening at once on one
    process logged 170 of them, blamed on an outage that was not there."""
    if isinstance(error, (TimeoutError, RedisTimeoutError)):
        return True
    driver = error.__cause__ if isinstance(error, OperationalError) else None
    if isinstance(driver, psycopg_pool.PoolTimeout):
        return True
    if isinstance(driver, sqlite3.Error):
        code = getattr(driver, "sqlite_errorcode", None)
        return code is not None and (code & 0xFF) == sqlite3.SQLITE_BUSY
    return False


class OnceAMinute(logging.Filter):
    """A logging filter: a library's record of one kind (its message before arguments) passes
    once per ``REPEAT_SECONDS``; the ones between are left out (a pool's reconnect attempts)."""

    def filter(self, record: logging.LogRecord) -> bool:
        now = time.monotonic()
        kind = f"{record.name}:{record.msg}"
        with _lock:
            last = _logged.get(kind)
            if last is not None and now - last < REPEAT_SECONDS:
                return False
            _logged[kind] = now
        return True


def database_away(error: BaseException) -> bool:
    """Whether a database error means the database cannot be reached or is busy right now (so
    trying again in a moment may work), not a fault of the code or the data (SQLite's "no such
    table", a deadlock, a cancelled statement: a bug, to be logged with its traceback).

    Told by the code of the driver's error that Django's is raised from (``__cause__``), never by
    its words: psycopg's with no SQLSTATE (no server answered it: refused, closed, lost, or no
    connection free in the pool in time) or one in ``POSTGRESQL_AWAY``; sqlite3's in
    ``SQLITE_AWAY``. An ``InterfaceError`` never is: psycopg 3 raises it for a misuse (a closed
    cursor), and a connection's failures as ``OperationalError``.
    """
    if not isinstance(error, OperationalError):
        return False
    driver = error.__cause__
    if isinstance(driver, psycopg.Error):
        return driver.sqlstate is None or driver.sqlstate.startswith(POSTGRESQL_AWAY)
    if isinstance(driver, sqlite3.Error):
        code = getattr(driver, "sqlite_errorcode", None)  # extended: the primary code in its low byte
        return code is not None and (code & 0xFF) in SQLITE_AWAY
    return False


def down(error: BaseException) -> bool:
    """Whether ``error`` means that a service is away: Redis or the network, or the database
    (``database_away``)."""
    if isinstance(error, (OperationalError, InterfaceError)):
        return database_away(error)
    return isinstance(error, SERVICE_DOWN)


def report_or_log(kind: str, error: BaseException, log: logging.Logger) -> None:
    """``report`` a service that is down; log anything else with its traceback on ``log``."""
    if down(error):
        report(kind, error)
    else:
        log.error("%s failed", kind, exc_info=error)


def report_or_raise(kind: str, error: BaseException) -> None:
    """In an ``except SERVICE_DOWN`` that waits an outage out (tries again, tells the page to):
    ``report`` a service that is down; raise anything else again (a database error of the code
    or the data), for the caller's normal error path and its traceback, never waited out."""
    if not down(error):
        raise error
    report(kind, error)


def recovered(service: str) -> None:
    """``service`` answers again: say so once, and let the next outage's failures be logged."""
    with _lock:
        had = bool(_logged)
        _logged.clear()
        _left_out.clear()
    if had:
        logger.warning("%s answers again", service)


def forget() -> None:
    """Tests: start with nothing logged."""
    with _lock:
        _logged.clear()
        _left_out.clear()


async def refuse_for_now(receive, send) -> None:
    """Answer a websocket handshake that cannot be served now (the channel layer or the
    database is down): accept it, say why, and close it with ``TRY_AGAIN_LATER``, so that the
    page shows it is reconnecting and tries again, instead of a failed handshake (a 500)."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": orjson.dumps(UNAVAILABLE).decode()})
    await send({"type": "websocket.close", "code": TRY_AGAIN_LATER})
