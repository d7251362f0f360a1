"""Each GDL sheet against its rule set: hundreds of seeded random games per rule set played
through both (``games.ggp.gdl.equality``), compared at every state. Prints per rule set the
games, states compared, mismatches (must be 0), the endings reached, and the reasoner's time
per state (the one solve for legal moves, terminal and goals, plus the one for the next state).

    python3 benchmarks/gdl_equality.py [--games 300] [--seed 2026] [--only SLUG] [--json]

Exits 1 when any state differs. docs/ggp.md records the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.ggp.gdl.equality import compare
from games.rules import SLUGS


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="random games per rule set (default 300)")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the first rule set's games (default 2026)")
    parser.add_argument("--only", choices=SLUGS, action="append", help="this rule set only (repeatable)")
    parser.add_argument("--json", action="store_true", help="one JSON line at the end as well")
    args = parser.parse_args()
    if args.games < 1:
        parser.error("--games must be at least 1")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'rule set':26} {'games':>6} {'states':>7} {'mismatches':>10} {'median ms':>9} {'p95 ms':>7} "
          f"{'wall s':>7}  endings (goals in role order: games)")
    rows, failed = [], False
    for offset, slug in enumerate(args.only or SLUGS):
        started = time.perf_counter()
        report = compare(slug, games=args.games, seed=args.seed + offset)
        wall = time.perf_counter() - started
        times = [t * 1000 for t in report.seconds_per_state]
        median, p95 = statistics.median(times), percentile(times, 0.95)
        endings = ", ".join(f"{'/'.join(map(str, goals))}: {count}" for goals, count in report.outcomes.most_common())
        print(f"{slug:26} {report.games:6} {report.states:7} {len(report.mismatches):10} {median:9.2f} {p95:7.2f} "
              f"{wall:7.1f}  {endings}")
        print(f"{'':26} actions played: {', '.join(f'{k} {n}' for k, n in sorted(report.kinds.items()))}")
        for mismatch in report.mismatches[:5]:
            print(f"    {mismatch}")
        failed |= bool(report.mismatches) or report.fresh_groundings > 0
        rows.append({"slug": slug, "games": report.games, "states": report.states,
                     "mismatches": len(report.mismatches), "fresh_groundings": report.fresh_groundings,
                     "median_ms": round(median, 3), "p95_ms": round(p95, 3), "wall_s": round(wall, 1),
                     "actions": dict(report.kinds), "endings": {"/".join(map(str, g)): n for g, n in report.outcomes.items()}})
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        print(json.dumps({"games_per_rule_set": args.games, "seed": args.seed, "rule_sets": rows}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
