"""Slow clients: N connections that send their requests a byte a second, and new visitors beside them.

    .venv/bin/python benchmarks/slow_clients.py [--slow 500] [--seconds 90] [--open-files 1024] [--kind body]

One Daphne on SQLite, its open-file limit set to ``--open-files`` (soft and hard) once it
serves, as a host with that limit would run it. ``--slow`` clients each open a connection and
send their request at ``--rate`` bytes a second: ``body``, a POST declaring a body of
``--body-bytes``, its headers at once and its body slowly; ``head``, the headers slowly. A
client whose connection ends opens another at once, so there are always ``--slow`` of them.
Meanwhile a new visitor loads the home page every ``--every`` seconds (a new connection each,
10 s to answer).

Prints: the visitors' page loads answered 200 out of all, their p50/p99, the slow clients'
connections opened and the ones answered 408, the server's most open files seen, and its log
lines saying "Too many open files".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


async def slow_client(port: int, kind: str, rate: float, body_bytes: int, stop: asyncio.Event, out: dict) -> None:
    head = (b"POST /history/import/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
            b"Content-Length: %d\r\n\r\n" % body_bytes) if kind == "body" else \
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Padding: slowly\r\n" * 100 + b"\r\n"
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            out["refused"] += 1
            await asyncio.sleep(1)
            continue
        out["opened"] += 1
        answer = asyncio.ensure_future(reader.read(200))
        try:
            if kind == "body":
                writer.write(head)
            drip = head if kind == "head" else b"x" * body_bytes
            for n in range(len(drip)):
                if stop.is_set() or answer.done():
                    break
                writer.write(drip[n:n + 1])
                await asyncio.wait([answer], timeout=1 / rate)
            text = await asyncio.wait_for(answer, 10) if not stop.is_set() else b""
            if text.startswith(b"HTTP/1.1 408"):
                out["answered_408"] += 1
        except (OSError, asyncio.TimeoutError):
            out["cut"] += 1
        finally:
            answer.cancel()
            writer.close()


async def visitor(port: int, out: dict) -> None:
    began = time.perf_counter()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 10)
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        status = (await asyncio.wait_for(reader.readline(), 10)).split(b" ")[1:2]
        await asyncio.wait_for(reader.read(), 10)
        writer.close()
        out["statuses"].append(status[0].decode() if status else "none")
        out["times"].append(time.perf_counter() - began)
    except (OSError, asyncio.TimeoutError) as exc:
        out["statuses"].append(type(exc).__name__)


async def drive(args, port: int, pid: int) -> dict:
    stop = asyncio.Event()
    slow = {"opened": 0, "answered_408": 0, "cut": 0, "refused": 0}
    visits = {"statuses": [], "times": []}
    fds = [0]

    async def watch_fds() -> None:
        while not stop.is_set():
            try:
                fds[0] = max(fds[0], len(os.listdir(f"/proc/{pid}/fd")))
            except OSError:
                pass
            await asyncio.sleep(0.5)

    rng = random.Random(args.seed)
    clients = []
    for _ in range(args.slow):  # they come within a few seconds, not all in one instant
        clients.append(asyncio.ensure_future(slow_client(port, args.kind, args.rate, args.body_bytes, stop, slow)))
        await asyncio.sleep(rng.uniform(0, 2 * args.ramp / max(args.slow, 1)))
    watcher = asyncio.ensure_future(watch_fds())
    visits_done = []
    ends = time.perf_counter() + args.seconds
    while time.perf_counter() < ends:
        visits_done.append(asyncio.ensure_future(visitor(port, visits)))
        await asyncio.sleep(args.every)
    await asyncio.gather(*visits_done)
    stop.set()
    await asyncio.gather(*clients, watcher, return_exceptions=True)
    ok = [s for s in visits["statuses"] if s == "200"]
    times = sorted(visits["times"])
    return {"slow": args.slow, "kind": args.kind, "open_files_limit": args.open_files, "seconds": args.seconds,
            "visitors_ok": len(ok), "visitors": len(visits["statuses"]),
            "visitor_statuses": {s: visits["statuses"].count(s) for s in sorted(set(visits["statuses"]))},
            "visitor_p50_ms": round(1000 * times[len(times) // 2], 1) if times else None,
            "visitor_p99_ms": round(1000 * times[min(len(times) - 1, len(times) * 99 // 100)], 1) if times else None,
            "slow_connections": slow["opened"], "slow_answered_408": slow["answered_408"],
            "slow_refused": slow["refused"], "server_open_files_max": fds[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--slow", type=int, default=500)
    parser.add_argument("--kind", choices=("body", "head"), default="body")
    parser.add_argument("--rate", type=float, default=1.0, help="bytes a second each slow client sends")
    parser.add_argument("--body-bytes", type=int, default=200_000)
    parser.add_argument("--ramp", type=float, default=10, help="seconds over which the slow clients come")
    parser.add_argument("--seconds", type=float, default=90, help="how long visitors keep coming")
    parser.add_argument("--every", type=float, default=0.5, help="seconds between two visitors")
    parser.add_argument("--open-files", type=int, default=1024)
    parser.add_argument("--head-seconds", help="the server's REQUEST_HEAD_SECONDS (default: its own)")
    parser.add_argument("--body-seconds", help="the server's REQUEST_BODY_SECONDS (default: its own)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    workdir = Path(os.environ.get("TMPDIR", "/tmp")) / f"boardhall-slow-{os.getpid()}"
    workdir.mkdir(exist_ok=True)
    env = {"DEBUG": "0", "DJANGO_SETTINGS_MODULE": "config.settings", "LOG_LEVEL": "WARNING",
           "DATABASE_URL": f"sqlite:///{workdir}/slow.sqlite3", "SECURE_SSL_REDIRECT": "0",
           "SECRET_KEY": "benchmark-only-secret-key-0123456789abcdef0123456789abcdef"}
    if args.head_seconds:
        env["REQUEST_HEAD_SECONDS"] = args.head_seconds
    if args.body_seconds:
        env["REQUEST_BODY_SECONDS"] = args.body_seconds
    os.environ.update(env)
    os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    from django.core.management import call_command

    from tests.support.live import LiveServer

    call_command("migrate", verbosity=0)
    server = LiveServer(env=env).start()
    try:
        resource.prlimit(server.process.pid, resource.RLIMIT_NOFILE, (args.open_files, args.open_files))
        figures = asyncio.run(drive(args, server.port, server.process.pid))
        figures["log_too_many_open_files"] = server.log_text().count("Too many open files")
    finally:
        server.close()
    if args.json:
        print(json.dumps(figures))
        return
    print("| figure | value |\n| --- | --- |")
    for key, value in figures.items():
        print(f"| {key} | {value} |")


if __name__ == "__main__":
    main()
