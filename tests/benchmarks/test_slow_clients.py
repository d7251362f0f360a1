"""benchmarks/slow_clients.py still runs: slow clients are answered 408 at short deadlines and
visitors beside them are served."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_slow_clients_are_cut_and_visitors_served():
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE")}
    done = subprocess.run([sys.executable, "benchmarks/slow_clients.py", "--slow", "5", "--seconds", "4", "--ramp", "0.5",
                           "--every", "1", "--head-seconds", "1", "--body-seconds", "1", "--json"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.splitlines()[-1])
    assert figures["slow_answered_408"] >= 5, figures
    assert figures["visitors_ok"] == figures["visitors"] >= 3, figures
    assert figures["log_too_many_open_files"] == 0
