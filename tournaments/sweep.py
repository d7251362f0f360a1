"""What sets tournaments going without a click: a match's end hands its id to
``formats.match_ended`` (``games.services.finishing.ENDED``, set by ``wire``), and each server
process sweeps every ``CLOCK_SWEEP_SECONDS`` (as the clock sweep does): the scheduled events are
listed, due tournaments start or are cancelled, running ones get the games a busy player held back
and a Swiss its next round (``formats.tournaments_sweep``; also ``manage.py tournament_sweep``)."""

from __future__ import annotations

from django.conf import settings

from games.runtime.timers import repeat_from_start
from games.services.finishing import ENDED, EndedServices
from tournaments import arena_sweep, formats


def wire() -> None:
    """Hand the games app what runs when a match ends, and register the sweep's start hook."""
    ENDED.set(EndedServices(match_ended=formats.match_ended))
    repeat_from_start("the tournament sweep", formats.tournaments_sweep, lambda: settings.CLOCK_SWEEP_SECONDS)
    arena_sweep.wire()


