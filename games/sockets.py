"""The base of the app's websocket consumers.

Channels' consumers hop to a thread before every message they handle, group messages included,
to close stale database connections (``aclose_old_connections``). Ours never touch the
database on the event loop: every call goes through ``games.dbthreads.db``, which closes stale
connections on its own threads. So the hop is dropped: with four sockets on a match it was
four thread round trips per move.
"""

from __future__ import annotations

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer


class Socket(AsyncWebsocketConsumer):
    async def dispatch(self, message: dict) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)
