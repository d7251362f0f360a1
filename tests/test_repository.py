"""The repository itself: no merge left half done (a README once landed with conflict markers),
and the scripts send their reader only to notes the repository has."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_no_tracked_file_holds_a_merge_conflict_marker():
    found = subprocess.run(["git", "grep", "-n", "-E", "^(<<<<<<<|>>>>>>>) "], cwd=ROOT,
                           capture_output=True, text=True)
    assert found.returncode in (0, 1), found.stderr  # 1: nothing found
    assert found.stdout == ""


def test_the_scripts_name_only_notes_the_repository_has():
    """A ``(see X)`` or a ``*.md`` file in a comment of bin/ is a file of the repository (``X``,
    ``X.md`` or ``docs/X.md``), not a note kept elsewhere."""
    missing = []
    for script in sorted((ROOT / "bin").iterdir()):
        comments = "\n".join(line for line in script.read_text().splitlines() if line.lstrip().startswith("#"))
        named = re.findall(r"\(see ([\w./-]+)\)", comments) + re.findall(r"[\w./-]+\.md\b", comments)
        missing += [f"{script.name}: {name}" for name in named
                    if not any((ROOT / path).is_file() for path in (name, f"{name}.md", f"docs/{name}.md"))]
    assert missing == []
