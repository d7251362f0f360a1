"""The lobby socket: the lists of open and live public matches, pushed on every change."""

import logging

from games import selectors
from games.broadcast import LOBBY_GROUP
from games.dbthreads import db
from games.sockets import Socket

logger = logging.getLogger(__name__)


class LobbyConsumer(Socket):
    async def connect(self) -> None:
        await self.accept()
        try:
            if not await self.admit():
                return
            await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
            await self.send_json_text({"type": "lobby", **await db(selectors.lobby_lists)()})
        except Exception:  # Redis or the database is down: say so, let the page retry
            logger.exception("could not open a lobby page")
            await self.ask_to_retry()

    async def disconnect(self, code: int) -> None:
        try:
            await self.release()
            await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)
        except Exception:
            logger.exception("could not record a lobby page closing")

    async def receive(self, text_data=None, bytes_data=None) -> None:
        """Whatever a client sends (text, bytes, JSON or not) gets the same answer."""
        await self.send_json_text({"type": "error", "code": "malformed", "message": "The lobby socket only sends."})

    async def lobby_update(self, event) -> None:
        await self.send_json_text({"type": "lobby", **event["lists"]})
