"""Moves over real sockets: throughput and latency of the move path, side by side per set-up.

    .venv/bin/python benchmarks/moves.py MODE [--setups ...] [--matches 10,50,200] [--repeat 3]

Modes (issue 8), every one on nine-board tic-tac-toe, each match with 2 players and 2 spectators:

  saturation  M matches at once, players answering the moment their state arrives: moves/s, mover
              ack and spectator delivery p50/p95/p99 (ms), failed handshakes, errors
  offered     a fixed offered load (--rate moves/s over M matches: each match's moves are due at
              Poisson times of mean interval M/rate s, --think fixed for regular ones): ack and
              spectator p50/p99 and the rate achieved, over the whole run and leaving out the
              moves sent in the first --warmup seconds
  arrivals    the 4 sockets of each of M matches open at random moments of --window seconds:
              failed handshakes, time from opening a socket to its first state p50/p99
  cost        no sockets: --moves random moves through the move service in one process, the
              SQL statements and the database-thread time of each (embedded and pg only)
  computer    the M-match human load alone, then with --computer-matches matches against the
              computer at its default level (the expert) beside it (a person answering each
              computer move at once): the humans' ack p99 both ways

Set-ups: embedded (one Daphne, SQLite + in-memory layer), pg (one Daphne, PostgreSQL + Redis),
pg2 (two Daphne on PostgreSQL + Redis, players of a match on one and its spectators on the
other), bgio-memory and bgio-flatfile (boardgame.io 0.50.2, saturation and offered only).

Every configuration (mode x set-up x M) runs --repeat times, each in a fresh process on a fresh
database, and the table shows the medians of the runs. The load comes from --clients client
processes (one asyncio process each; ``client cpu`` near 100% means the client, not the server,
was the limit: add one). It prints markdown for docs/benchmarks.md. PostgreSQL from PG_URL
(default postgres://postgres@127.0.0.1:5432/postgres; the database BENCH_DB, default
``wt_bench_run``, is made and dropped there), Redis from BENCH_REDIS_URL (default
redis://127.0.0.1:6379/4, keys under a prefix of the run, removed afterwards).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

MODES = ("saturation", "offered", "arrivals", "computer", "cost")
DEFAULT_SETUPS = "embedded,pg,pg2,bgio-memory,bgio-flatfile"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("--setups", help=f"comma-separated (default {DEFAULT_SETUPS}; no bgio for "
                                         "arrivals and computer)")
    parser.add_argument("--matches", default=None, help="M, comma-separated (default: 10,50,200 for "
                                                         "saturation, 50 for offered and computer, 200 for arrivals)")
    parser.add_argument("--seconds", type=float, default=20, help="how long players move, per run")
    parser.add_argument("--games", type=int, help="Boardhall matches made per slot (default: enough for "
                                                  "2,000 moves/s; a slot that runs out stops early, noted under "
                                                  "the table)")
    parser.add_argument("--bgio-games", type=int, help="boardgame.io matches made per slot (default: enough "
                                                       "for 3,000 moves/s)")
    parser.add_argument("--bgio-client", choices=("socketio", "raw"), default="socketio",
                        help="boardgame.io driver: python-socketio, or the socket.io frames over plain websockets")
    parser.add_argument("--rate", type=float, default=200, help="offered: moves/s over all matches")
    parser.add_argument("--think", choices=("exp", "fixed"), default="exp",
                        help="offered: Poisson (exp) or regular (fixed) move times")
    parser.add_argument("--warmup", type=float, default=2,
                        help="offered: seconds at the start whose moves the steady-state columns leave out")
    parser.add_argument("--window", type=float, default=5, help="arrivals: seconds over which sockets open")
    parser.add_argument("--computer-matches", type=int, default=50)
    parser.add_argument("--moves", type=int, default=1000, help="cost: moves timed")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--clients", type=int, default=1, help="client processes")
    parser.add_argument("--json", help="also write every run's figures to this file")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        from benchmarks.load.runner import run

        print(json.dumps(run(json.loads(args.child))))
        return

    default_m = {"saturation": "10,50,200", "offered": "50", "arrivals": "200", "computer": "50",
                 "cost": "1"}[args.mode]
    matches = [int(m) for m in (args.matches or default_m).split(",")]
    setups = (args.setups or (DEFAULT_SETUPS if args.mode in ("saturation", "offered")
                              else "embedded,pg" if args.mode == "cost" else "embedded,pg,pg2")).split(",")
    print(machine(), flush=True)
    print(f"Command: `{' '.join(['.venv/bin/python', 'benchmarks/moves.py', *sys.argv[1:]])}`\n", flush=True)

    results = []
    for m in matches:
        for setup in setups:
            runs = []
            for r in range(args.repeat):
                config = {"mode": args.mode, "setup": setup, "matches": m, "seconds": args.seconds,
                          "games": args.games or games_for(2000, args.seconds, m),
                          "bgio_games": args.bgio_games or games_for(3000, args.seconds, m), "rate": args.rate,
                          "think": args.think, "warmup": args.warmup, "window": args.window, "computer_matches": args.computer_matches, "moves": args.moves,
                          "clients": args.clients, "seed": r, "bgio_client": args.bgio_client}
                load = os.getloadavg()[0]
                started = time.monotonic()
                out = subprocess.run([sys.executable, __file__, args.mode, "--child", json.dumps(config)],
                                     cwd=HERE.parent, capture_output=True, text=True)
                if out.returncode != 0:
                    print(f"{setup} M={m} run {r + 1} failed:\n{out.stderr[-3000:]}", file=sys.stderr, flush=True)
                    continue
                figures = json.loads(out.stdout.strip().splitlines()[-1])
                figures["load_before"] = load
                runs.append(figures)
                print(f"  {setup} M={m} run {r + 1}/{args.repeat}: {time.monotonic() - started:.0f} s, "
                      f"{summary(args.mode, figures)}", file=sys.stderr, flush=True)
            if runs:
                results.append((setup, m, runs))
    print(table(args.mode, results, args))
    if args.json:
        Path(args.json).write_text(json.dumps([{"setup": s, "matches": m, "runs": r} for s, m, r in results], indent=1))


def games_for(moves_per_s: float, seconds: float, m: int) -> int:
    """Matches per slot for ``seconds`` at ``moves_per_s`` over ``m`` slots (random games last
    about 30 plies; 25 leaves a margin)."""
    return max(4, math.ceil(moves_per_s * seconds / (m * 25)) + 2)


def machine() -> str:
    from benchmarks.load.bgio import node_version

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"Machine: {platform.machine()} {platform.system()} {platform.release()}, {os.cpu_count()} cores, "
            f"load average {load} at the start; Python {platform.python_version()}, Node {node_version()}; "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.")


def summary(mode: str, f: dict) -> str:
    if mode == "computer":
        return (f"ack p99 alone {fmt(f.get('alone_ack_p99'))} ms, beside {fmt(f.get('beside_ack_p99'))} ms, "
                f"computer-side moves {f.get('beside_computer_side_moves')}")
    if mode == "cost":
        return f"{f['queries_mean']:.1f} queries, {f['ms_p50']:.2f} ms a move at the median"
    if mode == "arrivals":
        return (f"{f['sockets_ok']} first states, {f['failed_handshakes']} failed handshakes, "
                f"p99 {fmt(f['first_p99'])} ms, listen overflows {f.get('listen_overflows')}")
    steady = (f" (after warm-up p50 {fmt(f.get('ack_steady_p50'))} p99 {fmt(f.get('ack_steady_p99'))})"
              if mode == "offered" else "")
    return (f"{f['moves_per_s']:.0f} moves/s, ack p50 {fmt(f['ack_p50'])} p99 {fmt(f['ack_p99'])} ms{steady}, "
            f"errors {f['errors']} (stalls {f.get('stalls')}), server cpu {f['server_cpu']:.0%}, client cpu {f['client_cpu']:.0%}, "
            f"machine busy {f.get('machine_busy', 0):.0%}"
            + (f", e.g. {f['error_samples'][0]}" if f["error_samples"] else ""))


def median(runs: list[dict], key: str):
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None


def fmt(value, digits: int = 1) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and digits == 0 or abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}"


def pct_fmt(value) -> str:
    return "-" if value is None else f"{value:.0%}"


def ms(key: str):
    return lambda runs: fmt(median(runs, key))


def count(key: str):
    return lambda runs: fmt(median(runs, key), 0)


def share(key: str):
    return lambda runs: pct_fmt(median(runs, key))


def rise(runs) -> str:
    value = median(runs, "p99_rise_pct")
    return "-" if value is None else f"{value:+.0f}%"


# mode -> its columns after "set-up": (header, runs of one configuration -> cell)
COLUMNS = {
    "saturation": [("M", lambda runs: str(runs[0]["M"])), ("moves/s", count("moves_per_s")),
                   ("ack p50", ms("ack_p50")), ("p95", ms("ack_p95")), ("p99", ms("ack_p99")),
                   ("spectator p50", ms("spec_p50")), ("p95", ms("spec_p95")), ("p99", ms("spec_p99")),
                   ("failed handshakes", count("failed_handshakes")), ("errors", count("errors")),
                   ("stalls", count("stalls")), ("server cpu", share("server_cpu")),
                   ("client cpu", share("client_cpu")), ("machine busy", share("machine_busy"))],
    "offered": [("M", lambda runs: str(runs[0]["M"])), ("offered/s", lambda runs: f"{runs[0]['rate']:g}"),
                ("achieved/s", count("moves_per_s")), ("ack p50", ms("ack_p50")), ("p99", ms("ack_p99")),
                ("spectator p50", ms("spec_p50")), ("p99", ms("spec_p99")),
                ("after warm-up: ack p50", ms("ack_steady_p50")), ("p99", ms("ack_steady_p99")),
                ("spectator p50", ms("spec_steady_p50")), ("p99", ms("spec_steady_p99")), ("errors", count("errors")),
                ("server cpu", share("server_cpu")), ("machine busy", share("machine_busy"))],
    "arrivals": [("sockets", lambda runs: str(4 * runs[0]["M"])),
                 ("failed handshakes", count("failed_handshakes")), ("first state p50", ms("first_p50")),
                 ("p99", ms("first_p99")), ("errors", count("errors")),
                 ("listen overflows", count("listen_overflows")), ("server cpu", share("server_cpu"))],
    "cost": [("moves", count("moves")), ("queries per move", ms("queries_mean")), ("max", count("queries_max")),
             ("ms per move p50", lambda runs: fmt(median(runs, "ms_p50"), 2)),
             ("p95", lambda runs: fmt(median(runs, "ms_p95"), 2)), ("mean", lambda runs: fmt(median(runs, "ms_mean"), 2))],
    "computer": [("M", lambda runs: str(runs[0]["M"])), ("alone moves/s", count("alone_moves_per_s")),
                 ("ack p50", ms("alone_ack_p50")), ("p99", ms("alone_ack_p99")),
                 ("beside moves/s", count("beside_moves_per_s")), ("ack p50", ms("beside_ack_p50")),
                 ("p99", ms("beside_ack_p99")), ("p99 rise", rise),
                 ("moves against the computer", count("beside_computer_side_moves")),
                 ("errors", lambda runs: fmt((median(runs, "alone_errors") or 0) + (median(runs, "beside_errors") or 0), 0)),
                 ("server cpu beside", share("beside_server_cpu")), ("machine busy beside", share("beside_machine_busy"))],
}


def table(mode: str, results, args) -> str:
    repeat = f"medians of {args.repeat} runs" if args.repeat > 1 else "one run"
    title = {
        "saturation": f"Saturation, {args.seconds:g} s per run, {repeat}; ms from the mover's send.",
        "offered": f"Offered load {args.rate:g} moves/s ({args.think} think time), {args.seconds:g} s per run, "
                   f"{repeat}; ms; the last four columns leave out the moves sent in the first "
                   f"{args.warmup:g} s (the sockets opening, every match's first moves).",
        "arrivals": f"Arrivals: 4 sockets per match opening within {args.window:g} s, {repeat}; ms from "
                    "opening a socket to its first state.",
        "cost": f"What a move costs the database threads (move_submit with its commit and after-commit hooks, "
                f"no sockets), {repeat}.",
        "computer": f"People's moves with and without {args.computer_matches} matches against the computer (its default level) "
                    f"beside them, {args.seconds:g} s per phase, {repeat}; ms.",
    }[mode]
    columns = COLUMNS[mode]
    lines = [title, "", "| set-up | " + " | ".join(h for h, _ in columns) + " |",
             "| --- |" + " ---: |" * len(columns)]
    for setup, m, runs in results:
        for run in runs:
            run.update(M=m, rate=args.rate)
        lines.append(f"| {setup} | " + " | ".join(cell(runs) for _, cell in columns) + " |")
    busy = sorted({setup for setup, _, runs in results if (median(runs, "client_cpu") or 0) > 0.85})
    if busy:
        lines.append(f"\nNote: the client was near a full core on {', '.join(busy)}: those figures may be the "
                     "client's limit; try --clients 2.")
    exhausted = sum((r.get("exhausted_slots") or 0) + (r.get("alone_exhausted_slots") or 0)
                    for _, _, runs in results for r in runs)
    if exhausted:
        lines.append(f"\nNote: {exhausted} slot(s) ran out of matches before the end; raise --games / --bgio-games.")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
