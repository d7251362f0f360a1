"""Channels workers of the scaled set-up: ``manage.py runworker computer`` plays the computer's
turns that the web processes ask for (``games.computer.bots``), and the post-game analyses
(``games.computer.analysis_runs``), so no web process ever thinks."""

from __future__ import annotations

import asyncio

from channels.consumer import AsyncConsumer
from channels.worker import Worker
from django.conf import settings

from games.computer import analysis_runs, bots


class ComputerWorker(AsyncConsumer):
    async def computer_turn(self, message: dict) -> None:
        await bots.play_turn_when_possible(message["match_id"], message["version"], bots.thinking_thread())

    async def analysis_run(self, message: dict) -> None:
        await analysis_runs.run_queue(analysis_runs.analysis_thread())


class StartingWorker(Worker):
    """Channels' worker (``manage.py runworker``, ``games/management/commands/runworker.py``)
    that, listening on the computer's channel, runs the analysis queue as it starts: the jobs
    queued while no worker ran. The message that asked for them reached nobody (the
    publish/subscribe layer keeps no message for a channel nobody listens to)."""

    async def handle(self) -> None:
        if analysis_runs.CHANNEL in self.channels and settings.ANALYSIS_WORKERS == "channel":
            self.analyses = asyncio.ensure_future(analysis_runs.run_queue(analysis_runs.analysis_thread()))
        await super().handle()
