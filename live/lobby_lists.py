"""The lobby lists, read once per process for all the lobby pages that ask together.

A change that may alter the lists sends only ``lobby.stale`` (``games.services.broadcast``); every
lobby page of every process hears it, and the pages of one process share one read of the
lists made a moment later. A process with no lobby page open reads nothing.
"""

from __future__ import annotations

import asyncio
from typing import Any

from games import selectors
from games.runtime.dbthreads import db

GATHER_SECONDS = 0.05  # the pages that hear one message ask within this; they share a read

_gathering: asyncio.Future | None = None  # the read that pages can still join


async def fresh() -> dict[str, Any]:
    """Lists read after this call: joins the read about to start, or starts one."""
    global _gathering
    read = _gathering
    if read is None or read.get_loop() is not asyncio.get_running_loop():
        read = _gathering = asyncio.ensure_future(_read_after_gathering())
    return await asyncio.shield(read)


async def _read_after_gathering() -> dict[str, Any]:
    global _gathering
    try:
        await asyncio.sleep(GATHER_SECONDS)
    finally:
        _gathering = None  # who asks from now on needs a read that starts later than this one
    return await db(selectors.lobby_lists)()
