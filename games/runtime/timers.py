"""Work a server process repeats on a timer from its start: a sweep of the database that every
process runs (and that claims or locks what it changes, so several processes may sweep at once).

``repeat_from_start(name, work, seconds)`` registers a start hook (``starting.on_start``, every
scope) that runs ``work`` on a database thread, then waits ``seconds()``, for as long as the
process's event loop runs; once per loop, and never when ``seconds()`` is 0 or less at the start
(tests turn the timers off so). A failure is reported (``outages``) and the next round tries again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from games.runtime import outages, starting
from games.runtime.dbthreads import db

logger = logging.getLogger(__name__)


def repeat_from_start(name: str, work: Callable[[], object], seconds: Callable[[], float]) -> None:
    """Run ``work`` every ``seconds()`` in each server process from its start (``name``: as the
    start hook and in the warnings)."""
    running: set[asyncio.AbstractEventLoop] = set()

    def begin() -> None:
        loop = asyncio.get_running_loop()
        if loop not in running and seconds() > 0:
            running.add(loop)
            loop.call_soon(lambda: asyncio.ensure_future(_repeat(name, work, seconds)))

    starting.on_start(name, begin, scopes=starting.EVERY_SCOPE)


async def _repeat(name: str, work: Callable[[], object], seconds: Callable[[], float]) -> None:
    while True:
        try:
            await db(work)()
        except Exception as err:
            outages.report_or_log(f"{name} (again in {seconds()} s)", err, logger)
        await asyncio.sleep(seconds())
