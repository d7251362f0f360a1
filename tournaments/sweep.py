"""What sets tournaments going without a click: a match's end hands its id to
``formats.match_ended`` (``games.services.finishing.ENDED``, set by ``wire``), and each server
process sweeps every ``CLOCK_SWEEP_SECONDS`` (as the clock sweep does): the scheduled events are
listed, due tournaments start or are cancelled, running ones get the games a busy player held back
and a Swiss its next round (``formats.tournaments_sweep``; also ``manage.py tournament_sweep``)."""

from __future__ import annotations

import asyncio
import logging

from django.conf import settings

from games.runtime import outages, starting
from games.runtime.dbthreads import db
from games.services.finishing import ENDED, EndedServices
from tournaments import arena_sweep, formats

logger = logging.getLogger(__name__)

_sweeping: set[asyncio.AbstractEventLoop] = set()


def wire() -> None:
    """Hand the games app what runs when a match ends, and register the sweep's start hook."""
    ENDED.set(EndedServices(match_ended=formats.match_ended))
    starting.on_start("the tournament sweep", _sweep_from_the_start, scopes=starting.EVERY_SCOPE)
    arena_sweep.wire()


def _sweep_from_the_start() -> None:
    loop = asyncio.get_running_loop()
    if loop not in _sweeping and settings.CLOCK_SWEEP_SECONDS > 0:
        _sweeping.add(loop)
        loop.call_soon(lambda: asyncio.ensure_future(_sweep_forever()))


async def _sweep_forever() -> None:
    while True:
        try:
            await db(formats.tournaments_sweep)()
        except Exception as err:
            outages.report_or_log(f"the tournament sweep (again in {settings.CLOCK_SWEEP_SECONDS} s)", err, logger)
        await asyncio.sleep(settings.CLOCK_SWEEP_SECONDS)
