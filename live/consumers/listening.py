"""The shape the read-only sockets share (an embedded board, a tournament page): join one
group, read the first state, then only listen. ``ping`` and ``sync`` are the only messages
they take; anything else is refused with ``read_only`` and changes nothing.

A subclass names its group (``group_name``), reads its first state or refuses with a
``ServiceError`` (``open_state``, on a database thread), says what it is for the log
(``opening``, ``leaving``) and how it sends a state (``_send_state``)."""

from __future__ import annotations

import logging
from typing import Any

from games.runtime import outages, throttle
from games.runtime.dbthreads import db
from games.services import ServiceError
from live.sockets import NOT_FOUND, READS, Socket

logger = logging.getLogger(__name__)


class ListeningSocket(Socket):
    group: str | None = None  # set once the page may be shown
    version = -1  # of the last state sent
    read_only_text: Any = ""  # the refusal of anything but ping and sync
    opening = "opening a read-only page"  # for the log, when opening fails
    leaving = "a read-only page leaving its group"

    def group_name(self) -> str:
        raise NotImplementedError

    def open_state(self) -> dict[str, Any]:
        """The first state to send, or a ``ServiceError`` (``not_found``). Runs on a database thread."""
        raise NotImplementedError

    async def _send_state(self, state: dict[str, Any]) -> None:
        raise NotImplementedError

    async def connect(self) -> None:
        await self.accept()
        try:
            if not await self.admit():
                return
            # Listen before reading, as the match socket does: no change falls between the two.
            group = self.group_name()
            await self.channel_layer.group_add(group, self.channel_name)
            try:
                state = await db(self.open_state)()
            except ServiceError as refused:
                await self.channel_layer.group_discard(group, self.channel_name)
                await self._error(refused.code, refused.message)
                await self.close(code=NOT_FOUND)
                return
            self.group = group
            await self._send_state(state)
        except Exception as err:  # the database or the channel layer is down: say so, let the page retry
            self.group = None
            await self.open_failed(self.opening, err)

    async def disconnect(self, code: int) -> None:
        await self.release()
        if self.group:
            group, self.group = self.group, None
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except Exception as err:  # the page is gone either way; the group forgets it
                outages.report_or_log(self.leaving, err, logger)

    def receiving(self) -> bool:
        return bool(self.group)

    async def handle(self, kind: str, fields: dict[str, Any]) -> None:
        if kind not in READS:
            await self._error("read_only", str(self.read_only_text))
            return
        await super().handle(kind, fields)

    async def _on_ping(self) -> None:
        """Keep-alive: the address's socket count stays fresh (no presence: nobody plays here)."""
        await throttle.limits().touch(self.client, self.channel_name)
        await self.send_json_text({"type": "pong"})
