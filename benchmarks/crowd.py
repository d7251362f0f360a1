"""A crowd on one match: N spectators arrive on one match while pairs play elsewhere.

    .venv/bin/python benchmarks/crowd.py [--spectators 5000] [--window 60] [--pairs 10] [--setup embedded]

One Daphne (``embedded``: SQLite and the in-memory layer; ``pg``: PostgreSQL and Redis, as
``benchmarks/moves.py`` makes them). The spectators (anonymous pages, each counted on its own)
open at uniform random moments of ``--window`` seconds and stay open ``--hold`` seconds after
the window; meanwhile ``--pairs`` pairs play nine-board tic-tac-toe in other matches, a move
every ``--think`` seconds each. The crowd and the pairs are driven by separate client processes.

Prints: spectators that arrived (their first state), failed handshakes, sockets still open at
the end, presence messages received (all pages, and the most one page received), the count the
pages saw last, the other matches' move ack p50/p95/p99 while the crowd arrived, the server's
CPU seconds, and the server's log lines that blame a service (``a service is down``) or a
timeout (``no answer in time``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PRESENCE = '"type":"presence"'
PING_SECONDS = 20


# -- the crowd's client process ------------------------------------------------------------------

async def spectator(url: str, match_id: int, at: float, hold: asyncio.Event, out: dict) -> None:
    from websockets.asyncio.client import connect

    await asyncio.sleep(at)
    began = time.perf_counter()
    try:
        ws = await connect(f"ws{url[4:]}/ws/matches/{match_id}/", origin=url, open_timeout=60,
                           max_queue=None, ping_interval=None)
    except Exception as exc:  # refused, timed out, reset
        out["failed"] += 1
        out["errors"].append(repr(exc)[:200])
        return
    pinging = asyncio.ensure_future(keep_alive(ws))
    try:
        last = None
        while True:
            receiving = asyncio.ensure_future(ws.recv())
            waiting = asyncio.ensure_future(hold.wait())
            done, _ = await asyncio.wait([receiving, waiting], return_when=asyncio.FIRST_COMPLETED)
            if waiting in done:
                receiving.cancel()
                break
            waiting.cancel()
            text = receiving.result()
            if PRESENCE in text:  # not parsed: the client's own time stays small
                last = text
                out["mine"] += 1
            elif '"type":"state"' in text and began is not None:
                out["arrivals"].append(time.perf_counter() - began)
                began = None
        out["open"] += 1
        out["last"].append(json.loads(last)["spectators"] if last else None)
    except Exception as exc:  # the server closed it
        out["cut"] += 1
        out["errors"].append(repr(exc)[:200])
    finally:
        pinging.cancel()
        await ws.close()


async def keep_alive(ws) -> None:
    """The page's ping, as the browser's every 20 s: a page silent for a minute counts as gone."""
    while True:
        await asyncio.sleep(PING_SECONDS)
        await ws.send('{"type": "ping"}')


async def crowd(spec: dict) -> dict:
    rng = random.Random(spec["seed"])
    hold = asyncio.Event()
    results = []

    async def one(at: float) -> None:
        out = {"failed": 0, "cut": 0, "open": 0, "arrivals": [], "last": [], "mine": 0, "errors": []}
        results.append(out)
        await spectator(spec["url"], spec["match"], at, hold, out)

    tasks = [asyncio.ensure_future(one(rng.uniform(0, spec["window"]))) for _ in range(spec["spectators"])]
    await asyncio.sleep(spec["window"] + spec["hold"])
    hold.set()
    await asyncio.gather(*tasks)
    return {"failed": sum(r["failed"] for r in results), "cut": sum(r["cut"] for r in results),
            "open": sum(r["open"] for r in results), "arrivals": [a for r in results for a in r["arrivals"]],
            "last": [x for r in results for x in r["last"]], "presence": [r["mine"] for r in results],
            "errors": [e for r in results for e in r["errors"]][:5]}


async def pairs(spec: dict) -> dict:
    from benchmarks.load.client import boardhall_slot
    from benchmarks.load.timing import Clock, Recorder

    rng, rec = random.Random(spec["seed"]), Recorder()
    clock = Clock(spec["seconds"])
    await asyncio.gather(*(boardhall_slot(slot, clock, rec, random.Random(rng.random()), ["fixed", spec["think"]])
                           for slot in spec["slots"]))
    return {"acks": rec.acks, "errors": rec.errors, "error_samples": rec.error_samples, "moves": len(rec.acks)}


def client_main(role: str) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    spec = json.loads(sys.stdin.read())
    print(json.dumps(asyncio.run(crowd(spec) if role == "crowd" else pairs(spec))))


# -- the driver ----------------------------------------------------------------------------------

def pct(samples: list[float], q: int) -> float | None:
    if not samples:
        return None
    ordered = sorted(samples)
    return 1000 * ordered[min(len(ordered) - 1, int(len(ordered) * q / 100))]


def start_client(role: str, spec: dict) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, __file__, "--client", role], cwd=ROOT, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    process.stdin.write(json.dumps(spec))
    process.stdin.close()
    return process


def run(args) -> dict:
    from benchmarks.load import runner

    workdir = Path(os.environ.get("TMPDIR", "/tmp")) / f"boardhall-crowd-{os.getpid()}"
    workdir.mkdir(exist_ok=True)
    env = {"DEBUG": "0", "DJANGO_SETTINGS_MODULE": "config.settings", "LOG_LEVEL": "WARNING",
           "WS_RATE_PER_SECOND": "100000", "WS_RATE_BURST": "100000", "WS_MAX_SOCKETS": "100000",
           "SECRET_KEY": "benchmark-only-secret-key-0123456789abcdef0123456789abcdef", "SECURE_SSL_REDIRECT": "0"}
    prefix = f"wt-crowd-{os.getpid()}"
    if args.setup == "pg":
        env.update(DATABASE_URL=runner.fresh_postgres_database(), REDIS_URL=runner.REDIS_URL,
                   CHANNEL_LAYER_PREFIX=prefix)
    else:
        env["DATABASE_URL"] = f"sqlite:///{workdir}/crowd.sqlite3"
    os.environ.update(env)
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    import django

    django.setup()
    from django.core.management import call_command

    from tests.support.live import LiveServer
    from tests.support.players import make_players, start_match

    server = None
    try:
        call_command("migrate", verbosity=0)
        slots = [runner.make_slot(n, args.games) for n in range(args.pairs)]
        crowd_match = start_match(runner.GAME, make_players(2, prefix="crowd")).pk
        server = LiveServer(env=env).start()
        for slot in slots:
            slot["player_url"] = slot["spectator_url"] = server.url
        cpu0 = runner.cpu_seconds([server.process.pid])
        began = time.perf_counter()
        crowd_client = start_client("crowd", {"url": server.url, "match": crowd_match, "spectators": args.spectators,
                                              "window": args.window, "hold": args.hold, "seed": args.seed})
        pair_client = start_client("pairs", {"slots": slots, "seconds": args.window, "think": args.think,
                                             "seed": args.seed})
        played, watched = json.loads(pair_client.stdout.read()), json.loads(crowd_client.stdout.read())
        pair_client.wait()
        crowd_client.wait()
        cpu = runner.cpu_seconds([server.process.pid]) - cpu0
        log = server.log_text()
        return {"spectators": args.spectators, "window": args.window, "pairs": args.pairs, "setup": args.setup,
                "arrived": len(watched["arrivals"]), "failed_handshakes": watched["failed"], "cut": watched["cut"],
                "open_at_end": watched["open"], "arrival_p50_ms": pct(watched["arrivals"], 50),
                "arrival_p99_ms": pct(watched["arrivals"], 99),
                "presence_messages": sum(watched["presence"]), "presence_max_per_page": max(watched["presence"], default=0),
                "last_count_min": min((x for x in watched["last"] if x is not None), default=None),
                "last_count_max": max((x for x in watched["last"] if x is not None), default=None),
                "moves": played["moves"], "move_p50_ms": pct(played["acks"], 50),
                "move_p95_ms": pct(played["acks"], 95), "move_p99_ms": pct(played["acks"], 99),
                "move_errors": played["errors"], "server_cpu_s": round(cpu, 1),
                "seconds": round(time.perf_counter() - began, 1),
                "log_service_down": log.count("a service is down"), "log_no_answer_in_time": log.count("no answer in time"),
                "errors": watched["errors"] + played["error_samples"]}
    finally:
        if server is not None:
            server.close()
        if args.setup == "pg":
            runner.drop_postgres_database()
            runner.forget_redis_keys(prefix)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--client", choices=("crowd", "pairs"), help=argparse.SUPPRESS)
    parser.add_argument("--spectators", type=int, default=5000)
    parser.add_argument("--window", type=float, default=60, help="seconds over which the spectators arrive")
    parser.add_argument("--hold", type=float, default=10, help="seconds they stay after the window")
    parser.add_argument("--pairs", type=int, default=10, help="pairs playing other matches meanwhile")
    parser.add_argument("--think", type=float, default=0.5, help="seconds between a pair's moves")
    parser.add_argument("--games", type=int, default=40, help="matches made for each pair to play in turn")
    parser.add_argument("--setup", choices=("embedded", "pg"), default="embedded")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON line")
    args = parser.parse_args()
    if args.client:
        client_main(args.client)
        return
    figures = run(args)
    if args.json:
        print(json.dumps(figures))
        return
    print("| figure | value |\n| --- | --- |")
    for key, value in figures.items():
        print(f"| {key} | {value if not isinstance(value, float) else round(value, 1)} |")


if __name__ == "__main__":
    main()
