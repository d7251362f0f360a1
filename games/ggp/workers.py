"""The Channels worker of the scaled set-up: ``manage.py runworker ggp`` makes the calls to
GGP players that the web processes ask for (``games.ggp.offpath``), so no web process waits
on a player."""

from __future__ import annotations

from asgiref.sync import sync_to_async
from channels.consumer import AsyncConsumer

from games.ggp import manager, players, offpath  # noqa: F401 - they register their tasks


class GGPWorker(AsyncConsumer):
    async def ggp_task(self, message: dict) -> None:
        if message.get("name") in offpath.TASKS:
            await sync_to_async(offpath.run_here, thread_sensitive=False)(message["name"], *message.get("args", []))
