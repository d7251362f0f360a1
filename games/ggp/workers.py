"""The Channels worker of the scaled set-up: ``manage.py runworker ggp`` (``bin/start`` runs
``runworker computer ggp``) makes the calls to GGP players that the web processes ask for
(``games.ggp.offpath``), so no web process waits on a player.

A worker takes a channel's messages one after another; each task is started on a thread and
not awaited, so one player's play clock never holds up another match. One task at a time
serves a match, in any worker (``manager``'s claim on the match's ``GGPProgress`` row), and it
serves every step not yet sent, in order: several workers may run.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from channels.consumer import AsyncConsumer

from games.ggp import manager, offpath, players  # noqa: F401 - they register their tasks
from games.runtime import eventloop


class GGPWorker(AsyncConsumer):
    async def ggp_task(self, message: dict) -> None:
        if message.get("name") in offpath.TASKS:
            run = sync_to_async(offpath.run_here, thread_sensitive=False)
            eventloop.start(run(message["name"], *message.get("args", [])))
