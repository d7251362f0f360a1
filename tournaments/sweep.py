"""What sets tournaments going without a click: a match's end hands its id to
``services.match_ended`` (``games.services.finishing.ENDED``, set by ``wire``), and each server
process sweeps every ``CLOCK_SWEEP_SECONDS`` (as the clock sweep does): due tournaments start or
are cancelled, running ones get the games a busy player held back (``services.tournaments_sweep``;
also ``manage.py tournament_sweep``)."""

from __future__ import annotations

import asyncio
import logging

from django.conf import settings

from games.runtime import outages, starting
from games.runtime.dbthreads import db
from games.services.finishing import ENDED, EndedServices
from tournaments import arena, arena_sweep, services

logger = logging.getLogger(__name__)

_sweeping: set[asyncio.AbstractEventLoop] = set()


def wire() -> None:
    """Hand the games app what runs when a match ends, and register the sweep's start hook."""
    ENDED.set(EndedServices(match_ended=match_ended))
    starting.on_start("the tournament sweep", _sweep_from_the_start, scopes=starting.EVERY_SCOPE)
    arena_sweep.wire()


def match_ended(match_id: int) -> None:
    """A match ended: a round robin's moves on to its next games, an arena's pairs its players again."""
    services.match_ended(match_id)
    arena.arena_match_ended(match_id)


def _sweep_from_the_start() -> None:
    loop = asyncio.get_running_loop()
    if loop not in _sweeping and settings.CLOCK_SWEEP_SECONDS > 0:
        _sweeping.add(loop)
        loop.call_soon(lambda: asyncio.ensure_future(_sweep_forever()))


async def _sweep_forever() -> None:
    while True:
        try:
            await db(services.tournaments_sweep)()
        except Exception as err:
            outages.report_or_log(f"the tournament sweep (again in {settings.CLOCK_SWEEP_SECONDS} s)", err, logger)
        await asyncio.sleep(settings.CLOCK_SWEEP_SECONDS)
