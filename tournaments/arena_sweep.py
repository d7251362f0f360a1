"""What keeps arenas pairing without a click: each server process runs a pairing wave in every
running arena (and starts the due ones) every ``ARENA_SWEEP_SECONDS``; a game's end pairs its
arena at once (``arena.arena_match_ended``, from ``tournaments.sweep``). Waves of several
processes take the tournament's row lock in turn: a player is never paired twice."""

from __future__ import annotations

import asyncio
import logging

from django.conf import settings

from games.runtime import outages, starting
from games.runtime.dbthreads import db
from tournaments import arena

logger = logging.getLogger(__name__)

_sweeping: set[asyncio.AbstractEventLoop] = set()


def wire() -> None:
    starting.on_start("the arena pairing sweep", _sweep_from_the_start, scopes=starting.EVERY_SCOPE)


def _sweep_from_the_start() -> None:
    loop = asyncio.get_running_loop()
    if loop not in _sweeping and settings.ARENA_SWEEP_SECONDS > 0:
        _sweeping.add(loop)
        loop.call_soon(lambda: asyncio.ensure_future(_sweep_forever()))


async def _sweep_forever() -> None:
    while True:
        try:
            await db(arena.arenas_sweep)()
        except Exception as err:
            outages.report_or_log(f"the arena sweep (again in {settings.ARENA_SWEEP_SECONDS} s)", err, logger)
        await asyncio.sleep(settings.ARENA_SWEEP_SECONDS)
