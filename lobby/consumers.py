"""The lobby socket: the lists of open and live public matches, pushed on every change."""

import json

from games import selectors
from games.broadcast import LOBBY_GROUP
from games.dbthreads import db
from games.sockets import Socket


class LobbyConsumer(Socket):
    async def connect(self) -> None:
        await self.accept()
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        await self._send_json({"type": "lobby", **await db(selectors.lobby_lists)()})

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None) -> None:
        """Whatever a client sends (text, bytes, JSON or not) gets the same answer."""
        await self._send_json({"type": "error", "code": "malformed", "message": "The lobby socket only sends."})

    async def lobby_update(self, event) -> None:
        await self._send_json({"type": "lobby", **event["lists"]})

    async def _send_json(self, content) -> None:
        await self.send(text_data=json.dumps(content, separators=(",", ":")))
