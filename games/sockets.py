"""The base of the app's websocket consumers: counted against their client's limits
(``games.throttle``), and no thread hop per message.

Channels' consumers hop to a thread before every message they handle, group messages included,
to close stale database connections (``aclose_old_connections``). Ours never touch the
database on the event loop: every call goes through ``games.dbthreads.db``, which closes stale
connections on its own threads. So the hop is dropped: with four sockets on a match it was
four thread round trips per move.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer

from games import throttle

TOO_MANY = 4429
TRY_AGAIN_LATER = 4503  # "try again later" (1013 itself is not a code an application may send)
logger = logging.getLogger(__name__)


class Socket(AsyncWebsocketConsumer):
    client: str | None = None  # the client this socket is counted against, once admitted
    layer_down = False

    # Channels assigns ``channel_receive`` (the channel layer's receive) and lets its failure
    # end the consumer, which Daphne reports as close 1011. Here it becomes a message instead:
    # the page is told and closed with 4503, and its retry finds the layer back.
    @property
    def channel_receive(self):
        return self._receive_from_layer

    @channel_receive.setter
    def channel_receive(self, receive) -> None:
        self._layer_receive = receive

    async def _receive_from_layer(self) -> dict:
        if self.layer_down:
            await asyncio.sleep(1)  # closing; do not spin on a layer that keeps failing
            return {"type": "socket.layer_down"}
        try:
            return await self._layer_receive()
        except Exception:
            logger.warning("the channel layer failed under a socket; asking the page to retry", exc_info=True)
            return {"type": "socket.layer_down"}

    async def socket_layer_down(self, message: dict) -> None:
        if not self.layer_down:
            self.layer_down = True
            await self.ask_to_retry()

    async def ask_to_retry(self) -> None:
        """Redis or the database cannot be reached: tell the page, and close it so that it shows
        "reconnecting" and comes back on its own."""
        await self.send_json_text({"type": "error", "code": "unavailable",
                                   "message": "The server cannot reach its services right now; reconnecting."})
        await self.close(code=TRY_AGAIN_LATER)

    async def admit(self) -> bool:
        """Count this (accepted) socket against its client's open sockets. Over the cap it is
        told so and closed, and False is returned."""
        client = throttle.client_key(self.scope)
        if not await throttle.limits().open(client, self.channel_name):
            await self.send_json_text({"type": "error", "code": "too_many_sockets",
                                       "message": "Too many pages open at once: close some and reload this one."})
            await self.close(code=TOO_MANY)
            return False
        self.client = client
        return True

    async def release(self) -> None:
        if self.client is not None:
            await throttle.limits().close(self.client, self.channel_name)
            self.client = None

    async def within_budget(self) -> bool:
        """Take one message from the client's budget; False if it is spent."""
        return self.client is not None and await throttle.limits().take(self.client)

    async def send_json_text(self, content: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(content, separators=(",", ":")))

    async def dispatch(self, message: dict) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)
