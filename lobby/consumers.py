"""The lobby socket: the lists of open and live public matches, pushed on every change."""

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from games import selectors
from games.broadcast import LOBBY_GROUP


class LobbyConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        await self.accept()
        await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
        await self.send_json({"type": "lobby", **await database_sync_to_async(selectors.lobby_lists)()})

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)

    async def receive_json(self, content, **kwargs) -> None:
        await self.send_json({"type": "error", "code": "malformed", "message": "The lobby socket only sends."})

    async def lobby_update(self, event) -> None:
        await self.send_json({"type": "lobby", **event["lists"]})
