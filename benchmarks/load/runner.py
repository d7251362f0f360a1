"""One measurement: one mode on one set-up, in its own process (Django is set up once per process).

``run(config)`` starts the servers of the set-up, makes the players and matches, hands the load to
``--clients`` client processes (``client.py``), merges their samples and stops everything. It
returns one flat dict of figures; ``benchmarks/moves.py`` runs it again for ``--repeat`` and takes
medians.

Set-ups: ``embedded`` (one Daphne, SQLite, in-memory layer, the computer in a process pool),
``pg`` (one Daphne, PostgreSQL and Redis, the computer in ``manage.py runworker computer``),
``pg2`` (two Daphne on PostgreSQL and Redis; each match's players on one, its spectators on the
other; one computer worker), ``bgio-memory`` and ``bgio-flatfile`` (boardgame.io 0.50.2's server,
saturation and offered load only).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOAD = Path(__file__).resolve().parent
PG_URL = os.environ.get("PG_URL", "postgres://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/4")
BENCH_DB = os.environ.get("BENCH_DB", "wt_bench_run")
GAME = "nine-board-tictactoe"
SETUPS = ("embedded", "pg", "pg2", "bgio-memory", "bgio-flatfile")


def run(config: dict) -> dict:
    if config["setup"].startswith("bgio-"):
        return run_bgio(config)
    return run_boardhall(config)


# -- shared: client processes, figures -------------------------------------------------------------

def with_descendants(pids: list[int]) -> list[int]:
    """These processes and their children, recursively (the embedded computer's process pool)."""
    found, todo = [], list(pids)
    while todo:
        pid = todo.pop()
        found.append(pid)
        for children in Path(f"/proc/{pid}/task").glob("*/children"):
            try:
                todo.extend(int(child) for child in children.read_text().split())
            except OSError:
                pass
    return found


def cpu_seconds(pids: list[int]) -> float:
    """User plus system CPU seconds used so far by these processes and their children (from /proc;
    a child that ends between the two readings takes its seconds with it)."""
    total = 0.0
    for pid in with_descendants(pids):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            pass
    return total


def machine_ticks() -> tuple[int, int]:
    """The whole machine's CPU time so far, in clock ticks of all cores: (busy, all). Idle and
    waiting on I/O are not busy; everything else is (the servers, the clients, PostgreSQL,
    Redis and anything else this machine runs)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:8]]
    return sum(fields) - fields[3] - fields[4], sum(fields)


def listen_overflows() -> int:
    """Connections the kernel dropped so far because a listening socket's queue was full (the
    server did not accept them fast enough): the client's retry waits a second or more."""
    lines = [line.split() for line in Path("/proc/net/netstat").read_text().splitlines() if line.startswith("TcpExt:")]
    return int(dict(zip(lines[0], lines[1], strict=True)).get("ListenOverflows", 0))


def drive(spec: dict, clients: int, server_pids: list[int]) -> dict:
    """Split the slots over ``clients`` processes, start them together, merge their samples."""
    spec = {**spec, "start_at": time.time() + 2 + 0.5 * clients}
    parts = []
    for n in range(clients):
        part = {**spec, "seed": spec.get("seed", 0) * 1000 + n,
                "slots": spec["slots"][n::clients],
                "computer_slots": spec.get("computer_slots", [])[n::clients]}
        process = subprocess.Popen([sys.executable, str(LOAD / "client.py")], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True, cwd=LOAD)
        process.stdin.write(json.dumps(part))
        process.stdin.close()
        parts.append(process)
    time.sleep(max(0.0, spec["start_at"] - time.time()))
    cpu_before, wall_before, machine_before = cpu_seconds(server_pids), time.perf_counter(), machine_ticks()
    # The machine's share is read over the timed play alone (not the matches settling after it).
    machine_after: list[tuple[int, int]] = []
    timer = threading.Timer(spec["seconds"], lambda: machine_after.append(machine_ticks()))
    timer.start()
    overflows_before = listen_overflows()
    outs = []
    for process in parts:
        out = process.stdout.read()
        if process.wait() != 0 or not out.strip():
            raise RuntimeError("a client process failed")
        outs.append(json.loads(out.strip().splitlines()[-1]))
    server_cpu = (cpu_seconds(server_pids) - cpu_before) / (time.perf_counter() - wall_before)
    timer.cancel()
    busy, ticks = machine_after[0] if machine_after else machine_ticks()
    machine_busy = (busy - machine_before[0]) / max(1, ticks - machine_before[1])
    merged = {key: [x for o in outs for x in o[key]] for key in ("acks", "deliveries", "first_state", "error_samples",
                                                                   "acks_steady", "deliveries_steady")}
    for key in ("moves", "errors", "stalls", "failed_handshakes", "exhausted_slots", "computer_side_moves",
                "computer_side_errors"):
        merged[key] = sum(o[key] for o in outs)
    window = max(o["window"] for o in outs)
    return {**figures(merged, window, server_cpu, max(o["client_cpu"] for o in outs)), "machine_busy": machine_busy,
            "listen_overflows": listen_overflows() - overflows_before}


def pct(samples: list[float], q: int) -> float | None:
    """The q-th percentile in milliseconds (None without samples)."""
    if not samples:
        return None
    if len(samples) == 1:
        return samples[0] * 1000
    return statistics.quantiles(samples, n=100, method="inclusive")[q - 1] * 1000


def figures(m: dict, window: float, server_cpu: float, client_cpu: float) -> dict:
    out = {"moves": m["moves"], "moves_per_s": m["moves"] / window if window else 0.0,
           "failed_handshakes": m["failed_handshakes"], "errors": m["errors"], "stalls": m["stalls"],
           "exhausted_slots": m["exhausted_slots"], "server_cpu": server_cpu, "client_cpu": client_cpu,
           "computer_side_moves": m["computer_side_moves"], "sockets_ok": len(m["first_state"]),
           "error_samples": m["error_samples"][:3]}
    for name, key in (("ack", "acks"), ("spec", "deliveries"), ("first", "first_state"),
                      ("ack_steady", "acks_steady"), ("spec_steady", "deliveries_steady")):
        for q in (50, 95, 99):
            out[f"{name}_p{q}"] = pct(m[key], q)
    return out


# -- Boardhall -------------------------------------------------------------------------------------

def run_boardhall(config: dict) -> dict:
    setup, mode = config["setup"], config["mode"]
    workdir = tempfile.mkdtemp(prefix="boardhall-load-")
    env = {"DEBUG": "0", "DJANGO_SETTINGS_MODULE": "config.settings", "LOG_LEVEL": "ERROR",
           # Players here answer as fast as the server does; lift the per-connection limit.
           "WS_RATE_PER_SECOND": "100000", "WS_RATE_BURST": "100000", "WS_MAX_SOCKETS": "100000",
           "SECRET_KEY": "benchmark-only-secret-key-0123456789abcdef0123456789abcdef",
           "SECURE_SSL_REDIRECT": "0"}
    prefix = f"wt-bench-{os.getpid()}"
    if setup == "embedded":
        env["DATABASE_URL"] = f"sqlite:///{workdir}/bench.sqlite3"
    elif setup in ("pg", "pg2"):
        env["DATABASE_URL"] = fresh_postgres_database()
        env["REDIS_URL"] = REDIS_URL
        env["CHANNEL_LAYER_PREFIX"] = prefix
    else:
        raise SystemExit(f"unknown set-up {setup!r}: one of {', '.join(SETUPS)}")
    os.environ.update(env)
    for name in ("DJANGO_ALLOW_ASYNC_UNSAFE", "COMPUTER_WORKERS"):
        os.environ.pop(name, None)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    from tests.support.live import LiveServer  # Daphne in a child process, as the tests run it

    servers, worker = [], None
    try:
        call_command("migrate", verbosity=0)
        if mode == "cost":
            return move_cost(config)
        m = config["matches"]
        games = 1 if mode == "arrivals" else config["games"]
        phases = 2 if mode == "computer" else 1
        slots = [make_slot(n, games * phases) for n in range(m)]
        computer_slots = make_computer_slots(config["computer_matches"], min(config["games"], 6)) if mode == "computer" else []

        servers = [LiveServer(env=env).start() for _ in range(2 if setup == "pg2" else 1)]
        pids = [server.process.pid for server in servers]
        if mode == "computer" and setup != "embedded":
            worker = subprocess.Popen([sys.executable, "manage.py", "runworker", "computer"], cwd=ROOT,
                                      env={**os.environ}, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
            pids.append(worker.pid)
        urls = [server.url for server in servers]
        for n, slot in enumerate(slots):
            slot["player_url"], slot["spectator_url"] = urls[n % len(urls)], urls[(n + 1) % len(urls)]
        for n, slot in enumerate(computer_slots):
            slot["player_url"] = urls[n % len(urls)]
        spec = {"kind": "boardhall", "seconds": config["seconds"], "think": think(config), "warmup": config["warmup"],
                "window": config["window"], "seed": config["seed"],
                "mode": "arrivals" if mode == "arrivals" else "play"}

        if mode != "computer":
            return drive({**spec, "slots": slots}, config["clients"], pids)
        # The same human load twice: alone, then with the people against the computer beside it.
        first = [{**slot, "matches": slot["matches"][:games]} for slot in slots]
        second = [{**slot, "matches": slot["matches"][games:]} for slot in slots]
        alone = drive({**spec, "slots": first}, config["clients"], pids)
        beside = drive({**spec, "slots": second, "computer_slots": computer_slots}, config["clients"], pids)
        out = {f"alone_{k}": v for k, v in alone.items()}
        out.update({f"beside_{k}": v for k, v in beside.items()})
        if alone["ack_p99"] and beside["ack_p99"]:
            out["p99_rise_pct"] = 100 * (beside["ack_p99"] / alone["ack_p99"] - 1)
        return out
    finally:
        if worker and worker.poll() is None:
            worker.terminate()
            worker.wait(10)
        for server in servers:
            server.stop()
        if setup in ("pg", "pg2"):
            drop_postgres_database()
            forget_redis_keys(prefix)


def move_cost(config: dict) -> dict:
    """What one move costs the server's database threads, with no sockets: ``move_submit`` as the
    consumer calls it (the service's transaction, its commit and its after-commit hooks), timed
    and with its SQL statements counted, over random games played one after the other in this
    process (so the service's per-process memory of active matches is warm, as in a server)."""
    import random

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games import services
    from games.models import Match
    from games.rules import get_game
    from tests.support.players import make_players, start_match

    game, rng = get_game(GAME), random.Random(config["seed"])
    players = make_players(2, prefix="cost")
    by_role = dict(zip(game.roles, players))
    times, queries = [], []
    while len(times) < config["moves"]:
        match = start_match(GAME, players)
        while match.status == Match.Status.ACTIVE and len(times) < config["moves"]:
            state = game.state_from_json(match.state)
            role = game.to_move(state)
            with CaptureQueriesContext(connection) as captured:
                began = time.perf_counter()
                services.move_submit(match_id=match.pk, user=by_role[role],
                                     action=rng.choice(game.legal_actions(state)), version=match.version)
                times.append(time.perf_counter() - began)
            queries.append(len(captured.captured_queries))
            match.refresh_from_db()
    return {"moves": len(times), "ms_p50": pct(times, 50), "ms_p95": pct(times, 95), "ms_mean": statistics.mean(times) * 1000,
            "queries_mean": statistics.mean(queries), "queries_max": max(queries)}


def think(config: dict):
    """Offered load: each of M matches moves at rate/M a second, so a player thinks M/rate s."""
    if config["mode"] != "offered":
        return None
    return [config["think"], config["matches"] / config["rate"]]


def make_slot(n: int, games: int) -> dict:
    from tests.support.players import make_players, session_cookie, start_match

    players = make_players(2, prefix=f"slot {n}")
    watchers = make_players(2, prefix=f"slot {n} watcher")
    return {"player_cookies": [session_cookie(p) for p in players],
            "spectator_cookies": [session_cookie(w) for w in watchers],
            "matches": [start_match(GAME, players).pk for _ in range(games)]}


def make_computer_slots(count: int, games: int) -> list[dict]:
    from games import services
    from games.match.settings import MatchSettings
    from games.rules import get_game
    from tests.support.players import make_players, session_cookie

    first_role = get_game(GAME).roles[0]  # the person moves first: no computer move at creation
    slots = []
    for n in range(count):
        person, = make_players(1, prefix=f"against the computer {n}")
        matches = [services.match_create(user=person, settings=MatchSettings(GAME), role=first_role,
                                         against_computer=True).pk
                   for _ in range(games)]
        slots.append({"player_cookie": session_cookie(person), "matches": matches})
    return slots


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


def forget_redis_keys(prefix: str) -> None:
    """Presence keys and channel-layer leftovers under this run's prefix."""
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    try:
        keys = list(client.scan_iter(f"{prefix}*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


# -- boardgame.io ----------------------------------------------------------------------------------

def run_bgio(config: dict) -> dict:
    sys.path.insert(0, str(ROOT))
    from benchmarks.load.bgio import NodeServer, create_matches

    if config["mode"] not in ("saturation", "offered"):
        raise SystemExit(f"{config['setup']} runs the saturation and offered modes only")
    server = NodeServer(config["setup"].split("-", 1)[1]).start()
    try:
        m, games = config["matches"], config["bgio_games"]
        made = asyncio.run(create_matches(server.api_url, m * games))
        raw = config.get("bgio_client") == "raw"
        slots = [{"player_url": server.url, "spectator_url": server.url, "raw": raw,
                  "matches": made[n * games:(n + 1) * games]}
                 for n in range(m)]
        spec = {"kind": "bgio", "mode": "play", "seconds": config["seconds"], "think": think(config),
                "warmup": config["warmup"],
                "seed": config["seed"], "slots": slots}
        return drive(spec, config["clients"], [server.pid])
    finally:
        server.stop()
