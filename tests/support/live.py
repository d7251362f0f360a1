"""Daphne in a child process against the test database, for restart, scale and browser tests.

Use from a test marked ``django_db(transaction=True)`` so rows are committed and visible to
the child. The child gets the test database's real name through DATABASE_URL/TEST settings.

The test process owns the server's port: it binds and listens itself and hands the socket to
each Daphne it starts (``daphne --fd``), so no other process can take the port between
choosing it and using it, nor across a restart. The server counts as started when it has
answered an HTTP request, not when its port accepts a connection.
"""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from django.conf import settings
from django.db import connection

from tests.support.memory import FORGOT

ROOT = Path(__file__).resolve().parents[2]


STARTUP_SECONDS = 90  # Django's start on a loaded two-core machine; a wait for a real event


def free_port() -> int:
    """A port free now. Only for a server that cannot be handed a socket (it may be taken
    before that server binds it): prefer ``listening_socket``."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def listening_socket(port: int = 0) -> socket.socket:
    """A listening TCP socket on 127.0.0.1 (any free port when ``port`` is 0), owned by the caller."""
    sock = socket.socket()
    try:
        sock.bind(("127.0.0.1", port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def wait_until_serving(port: int, process: subprocess.Popen, log_name: str, what: str = "daphne") -> None:
    """Until the server on ``port`` answers an HTTP request (any status), or ``process`` exits."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited early (status {process.returncode}); see {log_name}")
        page = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            page.request("GET", "/static/favicon.svg")
            page.getresponse().read()
            return
        except OSError:
            time.sleep(0.1)  # polling interval, not a wait for something
        finally:
            page.close()
    raise RuntimeError(f"{what} did not answer within {STARTUP_SECONDS} s; see {log_name}")


def test_database_url() -> str:
    """DATABASE_URL for the database this test run uses (pytest-django's test database)."""
    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    user = db.get("USER") or ""
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{host}:{port}/{db['NAME']}"


def stop_process(process: subprocess.Popen, seconds: float = 10) -> None:
    """SIGTERM ``process`` and wait for it; SIGKILL it if it has not exited within ``seconds``."""
    process.terminate()
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class LiveServer:
    """``proxy_headers``: the client's address is X-Forwarded-For's first entry, as bin/scaled's
    Daphnes behind nginx take it (``daphne --proxy-headers``)."""

    def __init__(self, port: int | None = None, env: dict[str, str] | None = None, proxy_headers: bool = False) -> None:
        self.listener = listening_socket(port or 0)
        self.port = self.listener.getsockname()[1]
        self.extra_env = env or {}
        self.proxy_headers = proxy_headers
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> "LiveServer":
        connection.close()  # SQLite: let the child see every committed row
        # the test GGP players listen on any free port of the loopback: allowed here, explicitly
        env = {**os.environ, "DATABASE_URL": test_database_url(), "DEBUG": "1",
               "DJANGO_SETTINGS_MODULE": "config.settings", "GGP_PLAYER_HOSTS": "localhost", **self.extra_env}
        env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        if settings.REDIS_URL and \
                "REDIS_URL" not in self.extra_env:
            env["REDIS_URL"] = os.environ["REDIS_URL"]
            env["CHANNEL_LAYER_PREFIX"] = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
        # A file of its own, read through its own handle: a shared /tmp may be swept meanwhile.
        self.log = tempfile.NamedTemporaryFile("w", prefix=f"boardhall-daphne-{self.port}-", suffix=".log",
                                               delete=False)
        self._log_reader = open(self.log.name)
        self.forgets = 0  # as the new process counts them
        fd = self.listener.fileno()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "daphne", *(["--proxy-headers"] if self.proxy_headers else []), "--fd", str(fd),
             "tests.support.asgi:application"],
            cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT, pass_fds=[fd])
        try:
            wait_until_serving(self.port, self.process, self.log.name)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            stop_process(self.process)
        self.process = None
        if getattr(self, "log", None):
            self.log.close()  # its reader stays open: the test may read the log after the stop

    def drain(self) -> None:
        """SIGTERM the server as a rolling restart does (config/drain.py), with the port given up
        first. In production the Daphne alone holds its listening socket, so once it stops
        listening the port refuses connections and nginx tries another process. Here the test
        holds a copy too (for restarts): left open, the kernel would go on accepting into its
        backlog, where nobody takes them, and nginx would wait there for a handshake that never
        comes. After this the server cannot be started again."""
        self.listener.close()
        self.process.send_signal(signal.SIGTERM)

    def log_text(self) -> str:
        """What the server has written to its log so far (this start's)."""
        self._log_reader.seek(0)
        return self._log_reader.read()

    def forget(self) -> None:
        """Make the server forget what it remembers of earlier tests (their match ids come back
        in the next test) and wait until it has."""
        if not self.process or self.process.poll() is not None:
            return
        self.forgets += 1
        said = f"{FORGOT} {self.forgets}\n"
        self.process.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + STARTUP_SECONDS
        while said not in self.log_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not forget; see {self.log.name}")
            time.sleep(0.02)  # polling interval

    def close(self) -> None:
        """Stop the server and give its port back (``stop`` keeps it, for a restart)."""
        self.stop()
        self.listener.close()

    def __del__(self) -> None:
        if getattr(self, "listener", None) is not None:
            self.listener.close()


@contextmanager
def live_server(**kwargs) -> Iterator[LiveServer]:
    server = LiveServer(**kwargs)
    try:
        yield server.start()
    finally:
        server.close()


@contextmanager
def forgetting(server: LiveServer) -> Iterator[LiveServer]:
    """One test's use of a server that several tests share: afterwards the server forgets what
    the test left in its memory, and the end of its log is printed (pytest shows it only when
    the test failed)."""
    try:
        yield server
    finally:
        try:
            server.forget()
        finally:
            print(server.log_text()[-3000:])


@contextmanager
def computer_worker(env: dict[str, str] | None = None) -> Iterator[subprocess.Popen]:
    """``manage.py runworker computer`` against the test database and channel layer, as
    ``bin/start`` runs it beside the servers; its log in a file of its own (``.log_name``);
    stopped on the way out. It has no port to answer on: wait for what it does."""
    connection.close()
    extra = env or {}
    env = {**os.environ, "DATABASE_URL": test_database_url(), "DJANGO_SETTINGS_MODULE": "config.settings",
           "GGP_PLAYER_HOSTS": "localhost", **extra}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    if settings.REDIS_URL and "REDIS_URL" not in extra:
        env["CHANNEL_LAYER_PREFIX"] = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
    log = tempfile.NamedTemporaryFile("w", prefix="boardhall-worker-", suffix=".log", delete=False)
    process = subprocess.Popen([sys.executable, "manage.py", "runworker", "computer"], cwd=ROOT, env=env,
                               stdout=log, stderr=subprocess.STDOUT)
    process.log_name = log.name
    try:
        yield process
    finally:
        stop_process(process)
        log.close()
