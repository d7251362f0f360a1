"""How long a test waits for something that will happen: a message, a close, a timer armed.

A test waits for a condition, never for a fixed time. The ceiling of such a wait is generous:
on a loaded two-core machine an answer may take seconds, and a passing test never reaches the
ceiling (only a failing one does). A wait that shows something does *not* happen
(``receive_nothing``) stays short: there, a slow machine can only make the test pass.
"""

from __future__ import annotations

import asyncio
import time
from typing import Callable

EVENT_SECONDS = 30
POLL_SECONDS = 0.01


def until_here(condition: Callable[[], object], what: str, seconds: float = EVENT_SECONDS):
    """``until`` for a test with no event loop: polls ``condition`` in this thread."""
    deadline = time.monotonic() + seconds
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {seconds} s")
        time.sleep(POLL_SECONDS)
    return value


async def until(condition: Callable[[], object], what: str, seconds: float = EVENT_SECONDS):
    """Poll ``condition`` until it is true (its value is returned), or fail naming ``what``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not (value := condition()):
        if loop.time() > deadline:
            raise AssertionError(f"{what}: not within {seconds} s")
        await asyncio.sleep(POLL_SECONDS)
    return value
