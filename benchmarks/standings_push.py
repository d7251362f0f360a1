"""A standings change pushed to the pages watching a tournament: the time from the change to
the last of --watchers sockets (``/ws/tournaments/<id>/``) receiving the new state.

    .venv/bin/python benchmarks/standings_push.py [--watchers 1000] [--changes 20] [--setup embedded] [--json]

One Daphne (``embedded``: SQLite and the in-memory layer; ``pg``: PostgreSQL and Redis, as
``benchmarks/crowd.py`` makes them). An upcoming arena is watched by --watchers anonymous pages,
all open (their first state received) before the first change. Each change is one more account
joining it through its Join button (an HTTP POST): the join raises the tournament's version and
after commit ``tournaments.push`` tells the group; the process reads the state once for all its
sockets (``live.tournament_states``) and each socket sends it. The clock starts as the POST is
sent, so the join itself is in the figure. The changes follow one another, each once every
socket has the one before. The watchers run in this process, beside the one that joins.

Prints, over the changes: the median and p99 of the time to the last socket, and the median and
p99 of every socket's own time; the server's CPU seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OPENING_AT_ONCE = 50  # handshakes in flight while the watchers open
WAIT_SECONDS = 120  # for every socket to have a change: a ceiling only a broken run reaches
PING_SECONDS = 20
TRY_AGAIN_LATER = 4503  # games.runtime.outages: the server could not read the state just now


def pct(samples: list[float], q: int) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


class Watcher:
    """One page's socket: when it first saw each version."""

    def __init__(self) -> None:
        self.seen: dict[int, float] = {}
        self.version = -1
        self.retries = 0

    async def open(self, url: str, tournament_id: int, opened: asyncio.Semaphore, stop: asyncio.Event) -> None:
        """Follow the tournament until ``stop``; as a page does, a socket told to try again later
        (4503: the server could not read or send just then) opens again and gets the state."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed

        while not stop.is_set():
            async with opened:
                ws = await connect(f"ws{url[4:]}/ws/tournaments/{tournament_id}/", origin=url, open_timeout=60,
                                   max_queue=None)
            try:
                await self._follow(ws, stop)
            except ConnectionClosed as closed:
                if closed.rcvd is None or closed.rcvd.code != TRY_AGAIN_LATER:
                    raise
                self.retries += 1
            finally:
                await ws.close()

    async def _follow(self, ws, stop: asyncio.Event) -> None:
        pinging = asyncio.ensure_future(self._keep_alive(ws))
        stopping = asyncio.ensure_future(stop.wait())
        try:
            while True:
                receiving = asyncio.ensure_future(ws.recv())
                done, _ = await asyncio.wait([receiving, stopping], return_when=asyncio.FIRST_COMPLETED)
                if stopping in done:
                    receiving.cancel()
                    return
                await self._receive(receiving.result())
        finally:
            pinging.cancel()
            stopping.cancel()

    async def _receive(self, text: str) -> None:
        at = time.perf_counter()
        message = json.loads(text)
        if message["type"] == "tournament" and message["version"] > self.version:
            self.version = message["version"]
            self.seen[self.version] = at

    @staticmethod
    async def _keep_alive(ws) -> None:
        while True:
            await asyncio.sleep(PING_SECONDS)
            await ws.send('{"type": "ping"}')


async def measure(url: str, tournament_id: int, joiners: list, watchers: int) -> dict:
    pages = [Watcher() for _ in range(watchers)]
    stop, opened = asyncio.Event(), asyncio.Semaphore(OPENING_AT_ONCE)
    tasks = [asyncio.ensure_future(page.open(url, tournament_id, opened, stop)) for page in pages]
    await _until(lambda: all(page.version >= 0 for page in pages) or any(t.done() for t in tasks), "every page open")
    for task in tasks:
        if task.done():
            task.result()  # a page that could not open: say why
    last, each = [], []
    for visitor in joiners:
        target = max(page.version for page in pages) + 1
        began = time.perf_counter()
        answer = await asyncio.to_thread(visitor.post, f"/tournaments/{tournament_id}/join/", {})
        if answer.status != 302:
            raise RuntimeError(f"the join answered {answer.status}")
        await _until(lambda: all(page.version >= target for page in pages), f"every page at version {target}")
        times = [min(at for version, at in page.seen.items() if version >= target) - began for page in pages]
        last.append(max(times))
        each.extend(times)
    stop.set()
    await asyncio.gather(*tasks)
    return {"reopened": sum(page.retries for page in pages), "last_ms": [round(t * 1000, 1) for t in last], "each_ms": [round(t * 1000, 1) for t in each]}


async def _until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not within {WAIT_SECONDS} s")
        await asyncio.sleep(0.002)  # polling interval of the watchers' own loop


def run(args) -> dict:
    from benchmarks.load import runner

    workdir = Path(os.environ.get("TMPDIR", "/tmp")) / f"boardhall-push-{os.getpid()}"
    workdir.mkdir(exist_ok=True)
    env = {"DEBUG": "0", "DJANGO_SETTINGS_MODULE": "config.settings", "LOG_LEVEL": "WARNING",
           "WS_RATE_PER_SECOND": "100000", "WS_RATE_BURST": "100000", "WS_MAX_SOCKETS": "100000",
           "SECRET_KEY": "benchmark-only-secret-key-0123456789abcdef0123456789abcdef", "SECURE_SSL_REDIRECT": "0"}
    prefix = f"wt-push-{os.getpid()}"
    if args.setup == "pg":
        env.update(DATABASE_URL=runner.fresh_postgres_database(), REDIS_URL=runner.REDIS_URL,
                   CHANNEL_LAYER_PREFIX=prefix)
    else:
        env["DATABASE_URL"] = f"sqlite:///{workdir}/push.sqlite3"
    os.environ.update(env)
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    import django

    django.setup()
    from datetime import timedelta

    from django.core.management import call_command
    from django.utils import timezone

    from games.match.clocks import TimeControl
    from tests.support.httpclient import Visitor
    from tests.support.live import LiveServer
    from tests.support.players import make_accounts, session_cookie
    from tournaments import arena

    server = None
    try:
        call_command("migrate", verbosity=0)
        creator, *others = make_accounts(args.changes + 1, prefix=f"push{os.getpid()}p")
        tournament = arena.arena_create(user=creator, name="Watched arena", game=runner.GAME,
                                        time_control=TimeControl(base=180, increment=2), minutes=30,
                                        starts_at=timezone.now() + timedelta(hours=1))
        server = LiveServer(env=env).start()
        joiners = [Visitor(server, cookie=session_cookie(user)) for user in others]
        cpu0 = runner.cpu_seconds([server.process.pid])
        figures = asyncio.run(measure(server.url, tournament.pk, joiners, args.watchers))
        cpu = runner.cpu_seconds([server.process.pid]) - cpu0
        return {"setup": args.setup, "watchers": args.watchers, "changes": args.changes,
                "last_p50_ms": statistics.median(figures["last_ms"]), "last_p99_ms": pct(figures["last_ms"], 99),
                "each_p50_ms": statistics.median(figures["each_ms"]), "each_p99_ms": pct(figures["each_ms"], 99),
                "server_cpu_s": round(cpu, 1), "reopened": figures["reopened"], "last_ms": figures["last_ms"]}
    finally:
        if server is not None:
            server.close()
        if args.setup == "pg":
            runner.drop_postgres_database()
            runner.forget_redis_keys(prefix)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--setup", choices=("embedded", "pg"), default="embedded")
    parser.add_argument("--json", action="store_true", help="one JSON line instead of the table")
    args = parser.parse_args()
    figures = run(args)
    if args.json:
        print(json.dumps(figures))
        return
    print(f"{args.watchers:,} watchers ({figures['reopened']} opened again when told to retry), {args.changes} "
          f"changes, {args.setup}; server CPU {figures['server_cpu_s']} s")
    print("| to the last socket p50 ms | p99 ms | each socket p50 ms | p99 ms |")
    print("| ---: | ---: | ---: | ---: |")
    print(f"| {figures['last_p50_ms']:.0f} | {figures['last_p99_ms']:.0f} | {figures['each_p50_ms']:.0f} "
          f"| {figures['each_p99_ms']:.0f} |")


if __name__ == "__main__":
    main()
