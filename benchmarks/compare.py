"""Two source trees side by side on one moves.py measurement, rounds interleaved.

    .venv/bin/python benchmarks/compare.py BEFORE AFTER [--rounds 5] [-- moves.py arguments]

BEFORE and AFTER are source trees (a ``git worktree`` of the older commit, say, with ``.venv``
linked in). Each round runs ``benchmarks/moves.py`` of BEFORE, then of AFTER, once each (one run,
its own fresh database, with that tree's interpreter), so that the shared machine's changing load
falls on both alike. moves.py's arguments follow ``--`` (default: ``saturation --setups pg
--matches 50 --seconds 15``), one set-up and one M. It prints each round, then per tree the
median, p10 and p90 of moves/s and the mover's ack p50 and p99 (saturation, offered) or of the
ms per move and queries (cost), with the load average before and after. PG_URL, BENCH_DB and BENCH_REDIS_URL pass through to moves.py.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

DEFAULT = ["saturation", "--setups", "pg", "--matches", "50", "--seconds", "15"]
FIGURES = {  # mode -> (label, key of moves.py's figures)
    "saturation": [("moves/s", "moves_per_s"), ("ack p50 ms", "ack_p50"), ("ack p99 ms", "ack_p99")],
    "offered": [("moves/s", "moves_per_s"), ("ack p50 ms", "ack_p50"), ("ack p99 ms", "ack_p99")],
    "cost": [("ms per move p50", "ms_p50"), ("mean", "ms_mean"), ("queries per move", "queries_mean")],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__,
                                     usage="%(prog)s BEFORE AFTER [--rounds N] [-- moves.py arguments]",
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    moves_args = argv[split + 1:] or DEFAULT
    if moves_args[0] not in FIGURES or "--repeat" in moves_args:
        parser.error(f"moves.py arguments: a mode of {', '.join(FIGURES)}, without --repeat (one run per round)")
    figures_shown = FIGURES[moves_args[0]]
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    for name, tree in trees.items():
        if not (tree / "benchmarks" / "moves.py").is_file() or not (tree / ".venv" / "bin" / "python").exists():
            parser.error(f"{name}: {tree} has no benchmarks/moves.py or no .venv/bin/python")

    print(f"Command: `{' '.join(['.venv/bin/python', 'benchmarks/compare.py', *sys.argv[1:]])}`")
    for name, tree in trees.items():
        print(f"{name}: {tree} at {commit(tree)}")
    print(f"uptime at the start: {uptime()}", flush=True)
    runs: dict[str, list[dict]] = {name: [] for name in trees}
    for round_ in range(1, args.rounds + 1):
        for name, tree in trees.items():
            figures = run(tree, moves_args)
            if figures is None:
                print(f"round {round_} {name}: failed", flush=True)
                continue
            runs[name].append(figures)
            print(f"round {round_} {name}: " + ", ".join(f"{label} {number(figures.get(key))}"
                                                        for label, key in figures_shown)
                  + f", errors {figures.get('errors')}, load before {figures.get('load_before', 0):.2f}", flush=True)
    print(f"uptime at the end: {uptime()}\n")
    print("| tree | runs | " + " | ".join(f"{label} median | p10 | p90" for label, _ in figures_shown) + " |")
    print("| --- | ---: |" + " ---: | ---: | ---: |" * len(figures_shown))
    for name, figures in runs.items():
        cells = []
        for _, key in figures_shown:
            cells += [number(v) for v in spread([f.get(key) for f in figures])]
        print(f"| {name} | {len(figures)} | " + " | ".join(cells) + " |")


def run(tree: Path, moves_args: list[str]) -> dict | None:
    """One moves.py run in ``tree``: its figures, or None if it failed (its stderr's end is shown)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        done = subprocess.run([str(tree / ".venv" / "bin" / "python"), "benchmarks/moves.py", *moves_args,
                               "--json", out.name], cwd=tree, capture_output=True, text=True)
        if done.returncode != 0 or not Path(out.name).stat().st_size:
            print(done.stderr[-2000:], file=sys.stderr)
            return None
        results = json.loads(Path(out.name).read_text())
    return results[0]["runs"][0] if results and results[0]["runs"] else None


def spread(values: list) -> tuple:
    """Median, 10th and 90th percentile (inclusive method: within the values seen)."""
    values = [v for v in values if v is not None]
    if not values:
        return None, None, None
    if len(values) == 1:
        return values[0], values[0], values[0]
    deciles = statistics.quantiles(values, n=10, method="inclusive")
    return statistics.median(values), deciles[0], deciles[-1]


def number(value) -> str:
    return "-" if value is None else f"{value:.2f}"


def commit(tree: Path) -> str:
    done = subprocess.run(["git", "-C", str(tree), "log", "-1", "--format=%h %s"], capture_output=True, text=True)
    return done.stdout.strip()[:80] or "?"


def uptime() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg()) + f" (load average, {os.cpu_count()} cores)"


if __name__ == "__main__":
    main()
