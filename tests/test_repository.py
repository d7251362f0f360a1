"""The repository itself: no merge left half done (a README once landed with conflict markers)."""

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_no_tracked_file_holds_a_merge_conflict_marker():
    found = subprocess.run(["git", "grep", "-n", "-E", "^(<<<<<<<|>>>>>>>) "], cwd=ROOT,
                           capture_output=True, text=True)
    assert found.returncode in (0, 1), found.stderr  # 1: nothing found
    assert found.stdout == ""
