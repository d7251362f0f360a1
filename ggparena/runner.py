"""What keeps the GGP arena going: every server process ticks it every ``GGP_ARENA_SECONDS``
(``services.arena_tick``); the database claim lets exactly one of them schedule at a time, and
another takes over when that one stops ticking."""

from __future__ import annotations

import asyncio
import logging
import secrets

from django.conf import settings

from games.runtime import outages, starting
from games.runtime.dbthreads import db
from ggparena import services

logger = logging.getLogger(__name__)

OWNER = secrets.token_hex(8)  # this process's name in the arena's claim
_ticking: set[asyncio.AbstractEventLoop] = set()


def wire() -> None:
    starting.on_start("the GGP arena", _tick_from_the_start, scopes=starting.EVERY_SCOPE)


def _tick_from_the_start() -> None:
    loop = asyncio.get_running_loop()
    if loop not in _ticking and settings.GGP_ARENA_SECONDS > 0:
        _ticking.add(loop)
        loop.call_soon(lambda: asyncio.ensure_future(_tick_forever()))


async def _tick_forever() -> None:
    while True:
        try:
            await db(services.arena_tick)(owner=OWNER)
        except Exception as err:
            outages.report_or_log(f"the GGP arena (again in {settings.GGP_ARENA_SECONDS} s)", err, logger)
        await asyncio.sleep(settings.GGP_ARENA_SECONDS)
