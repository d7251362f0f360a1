"""Moves over real websockets: how long a move takes to reach its player and a spectator.

Two set-ups, measured side by side in one run, each on a fresh database:

  embedded  one Daphne process on SQLite and the in-memory channel layer (the default set-up)
  scaled    two Daphne processes sharing PostgreSQL and Redis; the tables alternate between
            them, each match's players on one process and its spectator on the other

``--tables`` matches are played at the same time, ``--games`` one after the other at each
table: random nine-board games, every player moving the moment its state arrives (no
thinking time, so this is a stress figure, not a human one). For every move it records the
time from the mover's send to (a) the mover receiving the new state and (b) the spectator
receiving it, and prints the median, p95 and p99 in milliseconds and the moves per second.

    .venv/bin/python benchmarks/moves.py [--tables 20] [--games 3] [--setups embedded,scaled]

PostgreSQL and Redis come from PG_URL (default postgres://postgres@127.0.0.1:5432/postgres; a
database ``boardhall_bench`` is made and dropped there) and REDIS_TEST_URL (default
redis://127.0.0.1:6379/0). Not a test: it prints figures for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PG_URL = os.environ.get("PG_URL", "postgres://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("REDIS_TEST_URL", "redis://127.0.0.1:6379/0")
BENCH_DB = "boardhall_bench"
GAME = "nine-board-tictactoe"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--setups", default="embedded,scaled")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_setup(args.child, args.tables, args.games)))
        return

    print(f"{args.tables} tables x {args.games} games of {GAME}, Python {platform.python_version()}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    rows = []
    for setup in args.setups.split(","):
        out = subprocess.run([sys.executable, __file__, "--child", setup, "--tables", str(args.tables),
                              "--games", str(args.games)], cwd=ROOT, capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"{setup} failed:\n{out.stderr[-3000:]}")
        rows.append((setup, json.loads(out.stdout.strip().splitlines()[-1])))
    print("| set-up | moves | moves/s | ack p50 | p95 | p99 | spectator p50 | p95 | p99 | errors |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for setup, r in rows:
        ack, spec = r["ack"], r["spectator"]
        print(f"| {setup} | {r['moves']} | {r['moves_per_s']:.0f} | {ack[0]:.1f} | {ack[1]:.1f} | {ack[2]:.1f} "
              f"| {spec[0]:.1f} | {spec[1]:.1f} | {spec[2]:.1f} | {r['errors']} |")


# -- one set-up, in its own process (Django is set up once per process) ------------------------

def run_setup(setup: str, tables: int, games: int) -> dict:
    workdir = tempfile.mkdtemp(prefix="boardhall-moves-bench-")
    env = {"DEBUG": os.environ.get("BENCH_DEBUG", "0"), "DJANGO_SETTINGS_MODULE": "config.settings", "LOG_LEVEL": "ERROR",
           # Players here move as fast as the server answers; lift the per-connection limit.
           "WS_RATE_PER_SECOND": "1000", "WS_RATE_BURST": "1000",
           "SECRET_KEY": "benchmark-only-secret-key-0123456789abcdef0123456789abcdef",
           "SECURE_SSL_REDIRECT": "0"}
    if setup == "embedded":
        env["DATABASE_URL"] = f"sqlite:///{workdir}/bench.sqlite3"
    elif setup == "scaled":
        env["DATABASE_URL"] = fresh_postgres_database()
        env["REDIS_URL"] = REDIS_URL
        env["CHANNEL_LAYER_PREFIX"] = f"bench-{os.getpid()}"
    else:
        sys.exit(f"unknown set-up {setup!r}: embedded or scaled")
    os.environ.update(env)
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    from tests.support.live import LiveServer  # Daphne in a child process, as the tests run it

    call_command("migrate", verbosity=0)
    tables_spec = make_matches(tables, games)

    servers = [LiveServer(env=env).start() for _ in range(1 if setup == "embedded" else 2)]
    try:
        result = asyncio.run(play_all(tables_spec, [server.url for server in servers]))
    finally:
        for server in servers:
            server.stop()
        if setup == "scaled":
            drop_postgres_database()
    return result


def make_matches(tables: int, games: int) -> list[list[tuple[int, list[str], str]]]:
    """Per table, its matches: (match id, session cookies of the players in role order, spectator's)."""
    from tests.support.players import make_players, session_cookie, start_match

    spec = []
    for t in range(tables):
        players = make_players(2, prefix=f"table {t}")
        watcher, = make_players(1, prefix=f"table {t} watcher")
        cookies, watcher_cookie = [session_cookie(p) for p in players], session_cookie(watcher)
        spec.append([(start_match(GAME, players).pk, cookies, watcher_cookie) for _ in range(games)])
    return spec


async def play_all(tables_spec, urls: list[str]) -> dict:
    acks: list[float] = []
    deliveries: list[float] = []
    errors: list[dict] = []

    async def table(matches, seed: int) -> None:
        rng = random.Random(seed)
        # With two servers, tables alternate: players on one, the spectator on the other.
        player_url, spectator_url = urls[seed % len(urls)], urls[(seed + 1) % len(urls)]
        for match_id, cookies, watcher_cookie in matches:
            await play_match(match_id, cookies, watcher_cookie, player_url, spectator_url, rng,
                             acks, deliveries, errors)

    started = time.perf_counter()
    await asyncio.gather(*(table(matches, n) for n, matches in enumerate(tables_spec)))
    elapsed = time.perf_counter() - started
    return {"moves": len(acks), "seconds": elapsed, "moves_per_s": len(acks) / elapsed,
            "ack": percentiles(acks), "spectator": percentiles(deliveries), "errors": len(errors)}


async def play_match(match_id, cookies, watcher_cookie, player_url, spectator_url, rng,
                     acks, deliveries, errors) -> None:
    from websockets.asyncio.client import connect

    def open_socket(base: str, cookie: str):
        return connect(f"ws{base[4:]}/ws/matches/{match_id}/", origin=base,
                       additional_headers={"Cookie": f"sessionid={cookie}"}, open_timeout=30)

    sent: dict[int, float] = {}  # version a move leads to -> when it was sent
    async with open_socket(spectator_url, watcher_cookie) as spectator:
        await next_state(spectator)  # watching before the first move
        sockets = [await open_socket(player_url, cookie).__aenter__() for cookie in cookies]
        try:
            async def player(ws) -> None:
                while True:
                    message = await next_state(ws, errors)
                    version, now = message["version"], time.perf_counter()
                    if version in sent and message["last_move"] and message["you"]["roles"] == [message["last_move"]["role"]]:
                        acks.append(now - sent[version])
                    if message["match"]["status"] != "active":
                        return
                    legal = [a for actions in message["you"]["legal"].values() for a in actions]
                    if legal:
                        sent[version + 1] = time.perf_counter()
                        await ws.send(json.dumps({"type": "action", "action": rng.choice(legal), "version": version}))

            async def watch() -> None:
                while True:
                    message = await next_state(spectator)
                    if message["version"] in sent:
                        deliveries.append(time.perf_counter() - sent[message["version"]])
                    if message["match"]["status"] != "active":
                        return

            await asyncio.wait_for(asyncio.gather(watch(), *(player(ws) for ws in sockets)), 300)
        finally:
            for ws in sockets:
                await ws.close()


async def next_state(ws, errors: list | None = None) -> dict:
    """The next state message, skipping presence updates (errors are counted)."""
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == "state":
            return message
        if message["type"] == "error" and errors is not None:
            errors.append(message)


def percentiles(samples: list[float]) -> tuple[float, float, float]:
    """Median, p95 and p99 in milliseconds."""
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return statistics.median(samples) * 1000, cuts[94] * 1000, cuts[98] * 1000


# -- PostgreSQL ----------------------------------------------------------------------------------

def _admin():
    import psycopg

    return psycopg.connect(PG_URL, autocommit=True)


def fresh_postgres_database() -> str:
    with _admin() as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {BENCH_DB}")
    return PG_URL.rsplit("/", 1)[0] + f"/{BENCH_DB}"


def drop_postgres_database() -> None:
    from django.db import connections

    connections.close_all()
    with _admin() as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB} WITH (FORCE)")


if __name__ == "__main__":
    main()
