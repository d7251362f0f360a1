"""benchmarks/gdl_equality.py in its smallest run: it still runs, compares, and says 0 mismatches."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = str(ROOT / "benchmarks" / "gdl_equality.py")


def test_one_game_per_rule_set_agrees_and_the_figures_are_printed():
    out = subprocess.run([sys.executable, SCRIPT, "--games", "1", "--only", "tictactoe-3player-torus",
                          "--only", "quarto-misere-classic", "--json"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    rows = result["rule_sets"]
    assert [row["slug"] for row in rows] == ["tictactoe-3player-torus", "quarto-misere-classic"]
    assert all(row["games"] == 1 and row["states"] > 5 and row["mismatches"] == 0 for row in rows)
    assert all(row["median_ms"] > 0 for row in rows)
    assert "load average at start" in out.stdout


def test_bad_arguments_are_refused():
    out = subprocess.run([sys.executable, SCRIPT, "--games", "0"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "--games must be at least 1" in out.stderr
