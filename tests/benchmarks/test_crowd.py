"""benchmarks/crowd.py still runs: a small crowd arrives on one match while pairs play, and every
page ends with the crowd's count."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_small_crowd_arrives_and_every_page_counts_it():
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE")}
    done = subprocess.run([sys.executable, "benchmarks/crowd.py", "--spectators", "12", "--window", "2", "--hold", "2",
                           "--pairs", "1", "--games", "2", "--json"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.splitlines()[-1])
    assert figures["arrived"] == figures["open_at_end"] == 12, figures
    assert figures["last_count_min"] == figures["last_count_max"] == 12
    assert 12 <= figures["presence_messages"] and figures["failed_handshakes"] == 0
    assert figures["log_service_down"] == 0
