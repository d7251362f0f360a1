"""Tournament states, read once per process for all the pages of one tournament that ask
together (as ``live.lobby_lists`` reads the lobby): a change sends only ``tournament.stale``;
each process with pages of that tournament open reads its state a moment later, once."""

from __future__ import annotations

import asyncio
from typing import Any

from games.runtime.dbthreads import db
from tournaments.state import tournament_state

GATHER_SECONDS = 0.05

_gathering: dict[int, asyncio.Future] = {}  # tournament id -> the read pages can still join


async def fresh(tournament_id: int) -> dict[str, Any] | None:
    """The state read after this call: joins the read about to start, or starts one."""
    read = _gathering.get(tournament_id)
    if read is None or read.get_loop() is not asyncio.get_running_loop():
        read = _gathering[tournament_id] = asyncio.ensure_future(_read_after_gathering(tournament_id))
    return await asyncio.shield(read)


async def _read_after_gathering(tournament_id: int) -> dict[str, Any] | None:
    try:
        await asyncio.sleep(GATHER_SECONDS)
    finally:
        _gathering.pop(tournament_id, None)
    return await db(tournament_state)(tournament_id=tournament_id)
