"""Several hosts at once, as far as one job is concerned: the same management command started
in separate OS processes (``tests.support.hostchild``) that share nothing but the test's
PostgreSQL database and a Redis of the test's own, and that start the command at the same
moment. What each did comes back as the units of work it recorded.

A Redis of the test's own (``services.own_redis``): publish/subscribe channels such as the
computer workers' ``computer`` are one namespace for every database number and prefix of a
Redis server, so on the machine's shared Redis another test run's workers would hear this
test's messages, and this test's workers theirs.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import ExitStack, contextmanager
from typing import Iterator

import redis
from django.conf import settings
from django.db import connection

from tests.support.hostchild import keys
from tests.support.live import ROOT, STARTUP_SECONDS, stop_process, test_database_url
from tests.support.waits import EVENT_SECONDS, POLL_SECONDS


class Hosts:
    def __init__(self, redis_url: str, token: str) -> None:
        self.redis = redis.Redis.from_url(redis_url)
        self.token = token
        self.processes: list[subprocess.Popen] = []
        self.logs: list = []

    def records(self) -> list[tuple[str, int]]:
        """Every unit of work recorded so far, with the pid of the host that did it."""
        _, _, done = keys(self.token)
        units = [entry.decode().rsplit(" ", 1) for entry in self.redis.lrange(done, 0, -1)]
        return [(unit, int(pid)) for unit, pid in units]

    def counts(self) -> Counter:
        """How many times each unit of work was done, all hosts together."""
        return Counter(unit for unit, _ in self.records())

    def by_host(self) -> Counter:
        """How many units of work each host (pid) did."""
        return Counter(pid for _, pid in self.records())

    def log_text(self, index: int) -> str:
        with open(self.logs[index].name) as log:
            return log.read()

    def logs_text(self) -> str:
        return "\n".join(f"--- host {p.pid} ---\n{self.log_text(i)[-3000:]}" for i, p in enumerate(self.processes))

    def wait_all(self, seconds: float = EVENT_SECONDS) -> None:
        """Until every host's command has returned (a sweep), each with status 0."""
        deadline = time.monotonic() + seconds
        for process in self.processes:
            try:
                process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                raise AssertionError(f"a host did not finish within {seconds} s\n{self.logs_text()}") from None
        failed = [p.pid for p in self.processes if p.returncode != 0]
        assert not failed, f"hosts {failed} failed\n{self.logs_text()}"

    def until(self, condition, what: str, seconds: float = EVENT_SECONDS):
        """Poll ``condition`` until true, failing at once if a host exited."""
        deadline = time.monotonic() + seconds
        while not (value := condition()):
            exited = [p.pid for p in self.processes if p.poll() is not None]
            assert not exited, f"hosts {exited} exited while waiting for {what}\n{self.logs_text()}"
            assert time.monotonic() < deadline, f"{what}: not within {seconds} s\n{self.logs_text()}"
            time.sleep(POLL_SECONDS)
        return value


@contextmanager
def hosts_running(command: list[str], *, redis_url: str, count: int = 2, record: tuple[str, ...] = (),
                  env: dict[str, str] | None = None) -> Iterator[Hosts]:
    """Start ``manage.py <command>`` on ``count`` hosts at once, each recording the units of
    work named in ``record`` (``hostchild.RECORDERS``); stopped on the way out."""
    connection.close()  # every row the test wrote is committed and visible to the hosts
    token = secrets.token_hex(6)
    hosts = Hosts(redis_url, token)
    child_env = {**os.environ, "DATABASE_URL": test_database_url(), "DJANGO_SETTINGS_MODULE": "config.settings",
                 "REDIS_URL": redis_url, "CHANNEL_LAYER_PREFIX": settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"],
                 "CLOCK_SWEEP_SECONDS": "0", "GGP_RESUME_SECONDS": "0", **(env or {})}
    child_env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    with ExitStack() as stack:
        for _ in range(count):
            log = stack.enter_context(tempfile.NamedTemporaryFile("w", prefix="boardhall-host-", suffix=".log"))
            process = subprocess.Popen(
                [sys.executable, "-m", "tests.support.hostchild", token, ",".join(record), *command],
                cwd=ROOT, env=child_env, stdout=log, stderr=subprocess.STDOUT)
            stack.callback(stop_process, process)
            hosts.processes.append(process)
            hosts.logs.append(log)
        ready, go, _ = keys(token)
        hosts.until(lambda: hosts.redis.llen(ready) == count, f"{count} hosts ready", STARTUP_SECONDS)
        hosts.redis.rpush(go, *["go"] * count)
        yield hosts
