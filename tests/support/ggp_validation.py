"""The checks ggp.org's spectator server makes before it stores a match (its ``MatchValidation``:
the creation checks and the internal-consistency checks), written from their rules, so a test can
say whether the spectator server would take an export as it is.

``match_problems(data)`` lists what is wrong, in words; an empty list is a valid match.
"""

from __future__ import annotations

import re
import time
from typing import Any

EARLIEST_MS = 1_200_000_000_000  # January 2008: the spectator server takes no time before it
WEEK_MS = 7 * 24 * 3600 * 1000  # nor one more than a week ahead
REQUIRED = ("matchId", "startTime", "randomToken", "startClock", "playClock", "states", "moves",
            "stateTimes", "gameMetaURL")
TOKEN_MIN = 12


def _nulls(value: Any, where: str) -> list[str]:
    if value is None:
        return [f"null at {where}"]
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in _nulls(item, f"{where}.{key}")]
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in _nulls(item, f"{where}[{i}]")]
    return []


def _time_problem(value: Any, now_ms: int) -> str | None:
    if not isinstance(value, int) or isinstance(value, bool):
        return f"{value!r} is not a time in milliseconds"
    if value < EARLIEST_MS:
        return f"{value} is before January 2008"
    if value > now_ms + WEEK_MS:
        return f"{value} is more than a week ahead"
    return None


def _strings(row: Any) -> bool:
    return isinstance(row, list) and all(isinstance(item, str) for item in row)


def match_problems(data: Any, *, now_ms: int | None = None) -> list[str]:
    """What the spectator server would refuse in the match dict ``data``."""
    if not isinstance(data, dict):
        return ["not a JSON object"]
    now_ms = now_ms if now_ms is not None else int(time.time() * 1000)
    problems = _nulls(data, "match")
    problems += [f"no {key}" for key in REQUIRED if key not in data]
    if problems:
        return problems
    if not isinstance(data["randomToken"], str) or len(data["randomToken"]) < TOKEN_MIN:
        problems.append(f"randomToken shorter than {TOKEN_MIN} characters")
    if not isinstance(data["gameMetaURL"], str) or not re.search(r"/v\d+/$", data["gameMetaURL"]):
        problems.append(f"gameMetaURL {data['gameMetaURL']!r} is not version-qualified (…/v<number>/)")
    for key in ("startClock", "playClock"):
        if not isinstance(data[key], int) or isinstance(data[key], bool):
            problems.append(f"{key} is not a whole number of seconds")
    moves, states, times = data["moves"], data["states"], data["stateTimes"]
    if not all(isinstance(x, list) for x in (moves, states, times)):
        return problems + ["moves, states and stateTimes must be lists"]
    if len(states) != len(times):
        problems.append(f"{len(states)} states but {len(times)} state times")
    if len(states) != len(moves) + 1:
        problems.append(f"{len(states)} states but {len(moves)} moves")
    if not all(isinstance(state, str) for state in states):
        problems.append("a state is not text")
    players = len(moves[0]) if moves and isinstance(moves[0], list) else None
    for i, move in enumerate(moves):
        if not _strings(move) or len(move) != players:
            problems.append(f"move {i} is not {players} texts, one per player")
    if players is not None:
        if "goalValues" in data:
            if data.get("isCompleted") is False:
                problems.append("goalValues while isCompleted is false")
            if not isinstance(data["goalValues"], list) or len(data["goalValues"]) != players:
                problems.append(f"goalValues is not one value for each of {players} players")
        names = data.get("playerNamesFromHost")
        if names is not None and (not isinstance(names, list) or len(names) != players):
            problems.append(f"playerNamesFromHost is not one name for each of {players} players")
    if "errors" in data:
        errors = data["errors"]
        if not isinstance(errors, list) or len(errors) != len(states):
            problems.append(f"errors is not one row per state ({len(states)})")
        elif errors:
            width = len(errors[0]) if isinstance(errors[0], list) else None
            if not all(_strings(row) and len(row) == width for row in errors):
                problems.append("errors rows are not all texts of one length")
            elif players is not None and width != players:
                problems.append(f"errors rows have {width} entries, moves {players}")
    latest = data["startTime"]
    for key, value in [("startTime", data["startTime"]), *((f"stateTimes[{i}]", t) for i, t in enumerate(times))]:
        problem = _time_problem(value, now_ms)
        if problem:
            problems.append(f"{key}: {problem}")
        elif isinstance(latest, int) and value < latest:
            problems.append(f"{key} goes back in time")
        else:
            latest = value
    if "matchHostSignature" in data and "matchHostPK" not in data:
        problems.append("a signature without matchHostPK")
    return problems
