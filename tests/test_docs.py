"""The docs stay reference: each file in docs/ reads in minutes, and no tracked file tells in
which round of work a thing was done (a figure keeps its date, command and commit instead)."""

import re
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.pure

ROOT = Path(__file__).resolve().parents[1]
DOCS_MAX_LINES = 300

_ORDINALS = ("first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|"
             "thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|"
             "thirtieth")
_UNITS = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth"
# What follows "session" when it is Django's (a cookie, its key, its group, ...), not a round of work.
_NOT_DJANGO = r"(?!['’]?s?\s*(?:cookie|key|keys|id|ids|store|data|engine|middleware|table|backend|read|group|object)\b)"
_WORK = rf"(?:sessions?\b{_NOT_DJANGO}|rounds?\s+of\s+work\b|periods?\s+of\s+work\b)"
NUMBERED_WORK = re.compile(
    "|".join((
        # "the eleventh session", "the twenty-first session's run", "twelfth and thirteenth sessions'"
        rf"\b(?:{_ORDINALS}|twenty[- ](?:{_UNITS}))\s+{_WORK}",
        # "the 21st session", "3 rounds of work"
        rf"\b\d+(?:st|nd|rd|th)\s+{_WORK}",
        r"\b\d+\s+(?:rounds?|periods?)\s+of\s+work\b",
        # "last session", "this session's machine", "the previous round of work"
        rf"\b(?:this|last|previous|earlier)\s+{_WORK}",
    )),
    re.IGNORECASE,
)
# This file names the phrases it looks for.
SKIPPED = {"tests/test_docs.py"}


def _tracked() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    return [name for name in listed.stdout.decode().split("\0") if name]


def _text(path: Path) -> str | None:
    """The file's text, or None for a binary (or a file deleted but not yet committed)."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def numbered_work(text: str) -> list[str]:
    """Each line of ``text`` that numbers a round of work, as 'line: text'."""
    return [f"{number}: {line.strip()[:160]}" for number, line in enumerate(text.splitlines(), 1)
            if NUMBERED_WORK.search(line)]


@pytest.mark.parametrize("phrase", [
    "the eleventh session's machine",
    "(Twenty-first session 2026-12-02 10:33)",
    "the twelfth and thirteenth sessions' level",
    "measured in the last session",
    "this session, run at f4f612b",
    "the previous round of work",
    "the 21st session",
    "over 3 rounds of work",
])
def test_the_pattern_finds_a_numbered_round_of_work(phrase):
    assert numbered_work(phrase)


@pytest.mark.parametrize("phrase", [
    "The site socket with this session cookie",
    "signed in as user (a new session)",
    "each socket listens to its session's group",
    "at most a twentieth of what it has left",
    "black places the ninth piece",
    "the first session key the browser sent",
    "a sixth pending challenge",
])
def test_the_pattern_leaves_ordinary_words_alone(phrase):
    assert numbered_work(phrase) == []


def test_every_file_in_docs_reads_in_minutes():
    long = [f"{name}: {len(text.splitlines())} lines" for name in _tracked()
            if name.startswith("docs/") and (text := _text(ROOT / name)) is not None
            and len(text.splitlines()) > DOCS_MAX_LINES]
    assert long == [], f"docs/ files over {DOCS_MAX_LINES} lines (keep what is true today; git keeps the rest)"


def test_no_tracked_file_tells_in_which_round_of_work_a_thing_was_done():
    found = []
    for name in _tracked():
        if name not in SKIPPED and (text := _text(ROOT / name)) is not None:
            found += [f"{name}:{hit}" for hit in numbered_work(text)]
    assert found == [], "say what is true (a figure keeps its date, command and commit):\n" + "\n".join(found)
