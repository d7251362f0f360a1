"""Daphne in a child process against the test database, for restart, scale and browser tests.

Use from a test marked ``django_db(transaction=True)`` so rows are committed and visible to
the child. The child gets the test database's real name through DATABASE_URL/TEST settings.
"""

from __future__ import annotations

import os
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

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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


class LiveServer:
    def __init__(self, port: int | None = None, env: dict[str, str] | None = None) -> None:
        self.port = port or free_port()
        self.extra_env = env or {}
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> "LiveServer":
        connection.close()  # SQLite: let the child see every committed row
        env = {**os.environ, "DATABASE_URL": test_database_url(), "DEBUG": "1",
               "DJANGO_SETTINGS_MODULE": "config.settings", **self.extra_env}
        env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        if settings.REDIS_URL and \
                "REDIS_URL" not in self.extra_env:
            env["REDIS_URL"] = os.environ["REDIS_URL"]
            env["CHANNEL_LAYER_PREFIX"] = settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"]
        self.log = open(Path(tempfile.gettempdir()) / f"boardhall-daphne-{self.port}.log", "w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), "config.asgi:application"],
            cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited early; see {self.log.name}")
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("daphne did not start within 30 s")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        if getattr(self, "log", None):
            self.log.close()


@contextmanager
def live_server(**kwargs) -> Iterator[LiveServer]:
    server = LiveServer(**kwargs).start()
    try:
        yield server
    finally:
        server.stop()
