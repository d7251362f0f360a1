"""Channels workers of the scaled set-up: ``manage.py runworker computer`` plays the computer's
turns that the web processes ask for (``games.computer.bots``), and the post-game analyses
(``games.computer.analysis_runs``), so no web process ever thinks."""

from __future__ import annotations

from channels.consumer import AsyncConsumer

from games.computer import analysis_runs, bots


class ComputerWorker(AsyncConsumer):
    async def computer_turn(self, message: dict) -> None:
        await bots.play_turn_when_possible(message["match_id"], message["version"], bots.thinking_thread())

    async def analysis_run(self, message: dict) -> None:
        await analysis_runs.run_queue(analysis_runs.analysis_thread())
