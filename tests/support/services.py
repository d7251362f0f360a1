"""A redis-server and a PostgreSQL cluster of a test's own, to stop and start under a live Daphne
(the machine's shared ones serve other people: never stop those). Each cleans up after itself,
also when the test fails."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from contextlib import contextmanager
from typing import Iterator

import pytest

from tests.support.live import free_port


def wait_for_port(port: int, up: bool = True, seconds: float = 30) -> None:
    """Until something listens on ``port`` (or, with ``up=False``, nothing does)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            listening = True
        except OSError:
            listening = False
        if listening == up:
            return
        time.sleep(0.05)
    raise RuntimeError(f"port {port} did not {'open' if up else 'close'} within {seconds} s")


class OwnRedis:
    def __init__(self, directory: str) -> None:
        self.binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        if not os.path.exists(self.binary):
            pytest.skip("redis-server is not installed")
        self.port, self.directory, self.process = free_port(), directory, None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.directory], stdout=subprocess.DEVNULL)
        wait_for_port(self.port)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None
        wait_for_port(self.port, up=False)


@contextmanager
def own_redis() -> Iterator[OwnRedis]:
    with tempfile.TemporaryDirectory(prefix="boardhall-redis-") as directory:
        redis = OwnRedis(directory)
        redis.start()
        try:
            yield redis
        finally:
            redis.stop()


def _pg_bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        pytest.skip("PostgreSQL's server programs are not installed")
    return found[-1]


class OwnPostgres:
    """A cluster in a temporary directory, on a free port, run as ``postgres`` when the tests run
    as root (PostgreSQL refuses root). Stopped "fast": every connection is cut, as in a restart."""

    def __init__(self, directory: str) -> None:
        self.directory, self.port = directory, free_port()
        self.data = os.path.join(directory, "data")
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, *command: str) -> None:
        subprocess.run([*self.as_user, *command], check=True, capture_output=True, timeout=120)

    def create(self) -> None:
        if self.as_user:
            shutil.chown(self.directory, "postgres")
        self._run(_pg_bin("initdb"), "-D", self.data, "-A", "trust", "-U", "postgres", "--no-sync")

    def start(self) -> None:
        self._run(_pg_bin("pg_ctl"), "-D", self.data, "-l", os.path.join(self.directory, "log"), "-w", "-o",
                  f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off", "start")

    def stop(self) -> None:
        self._run(_pg_bin("pg_ctl"), "-D", self.data, "-m", "fast", "-w", "stop")

    def running(self) -> bool:
        return os.path.exists(os.path.join(self.data, "postmaster.pid"))

    def copy_database(self, source_url: str, database: str) -> None:
        """``database`` here, a copy of ``source_url``'s (schema and rows)."""
        self._run(_pg_bin("createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", database)
        dump = subprocess.run([_pg_bin("pg_dump"), "--no-owner", source_url], check=True, capture_output=True,
                              timeout=120).stdout
        subprocess.run([_pg_bin("psql"), "-q", "-v", "ON_ERROR_STOP=1", self.url(database)], input=dump,
                       check=True, capture_output=True, timeout=120)


@contextmanager
def own_postgres() -> Iterator[OwnPostgres]:
    directory = tempfile.mkdtemp(prefix="boardhall-pg-")
    cluster = OwnPostgres(directory)
    try:
        cluster.create()
        cluster.start()
        yield cluster
    finally:
        if cluster.running():
            subprocess.run([*cluster.as_user, _pg_bin("pg_ctl"), "-D", cluster.data, "-m", "immediate", "-w",
                            "stop"], capture_output=True, timeout=60)
        shutil.rmtree(directory, ignore_errors=True)
