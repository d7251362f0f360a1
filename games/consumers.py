"""The match socket: parse a message, call one service, turn refusals into one error message.

Every ORM touch goes through ``database_sync_to_async`` in one short sync function.
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from games import broadcast, selectors, services
from games.models import Match
from games.services import ServiceError


class TokenBucket:
    """At most ``burst`` messages at once, refilled at ``rate`` per second."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.stamp = float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class MatchConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        self.user = self.scope.get("user")
        self.bucket = TokenBucket(settings.WS_RATE_PER_SECOND, settings.WS_RATE_BURST)
        invite = parse_qs(self.scope.get("query_string", b"").decode()).get("invite", [None])[0]
        await self.accept()
        snapshot = await database_sync_to_async(self._open)(invite)
        if snapshot is None:
            await self.send_json({"type": "error", "code": "not_found",
                                  "message": "There is no such match, or it is private and you have no invitation."})
            await self.close(code=4404)
            return
        self.group = broadcast.match_group(self.match_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self._send_state(snapshot, None)
        await self._send_chat_history()
        await database_sync_to_async(broadcast.presence_changed)(self.match_id)
        if snapshot["status"] == Match.Status.ACTIVE:
            # After a restart a computer turn may be pending: the first visitor wakes it.
            await database_sync_to_async(services.computer_turn_resume)(match_id=self.match_id)

    def _open(self, invite: str | None) -> dict[str, Any] | None:
        match = Match.objects.filter(pk=self.match_id).first()
        if match is None or not selectors.match_can_view(match=match, user=self.user, invite_token=invite):
            return None
        services.presence_enter(match_id=self.match_id, channel_name=self.channel_name, user=self.user)
        return selectors.match_snapshot(match=match)

    async def disconnect(self, code: int) -> None:
        if getattr(self, "group", None):
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await database_sync_to_async(self._close)()

    def _close(self) -> None:
        services.presence_leave(channel_name=self.channel_name)
        broadcast.presence_changed(self.match_id)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs) -> None:
        if not getattr(self, "group", None):
            return
        if not self.bucket.take():
            await self._error("rate_limited", "Too many messages: slow down and try again in a moment.")
            return
        if text_data is None or len(text_data) > settings.WS_MAX_MESSAGE_BYTES:
            await self._error("malformed", "Messages must be JSON text of at most "
                                           f"{settings.WS_MAX_MESSAGE_BYTES} bytes.")
            return
        try:
            content = json.loads(text_data)
        except ValueError:
            await self._error("malformed", "That message is not valid JSON.")
            return
        await self.receive_json(content)

    async def receive_json(self, content: Any, **kwargs) -> None:
        kind = content.get("type") if isinstance(content, dict) else None
        handler = {"action": self._on_action, "resign": self._on_resign, "claim": self._on_claim,
                   "chat": self._on_chat, "sync": self._on_sync, "ping": self._on_ping}.get(kind)
        if handler is None:
            await self._error("malformed", 'Expected a message with "type": action, resign, claim, chat, sync or ping.')
            return
        await handler(content)

    async def _on_action(self, content: dict[str, Any]) -> None:
        action, version = content.get("action"), content.get("version")
        if not isinstance(action, str) or not isinstance(version, int) or isinstance(version, bool):
            await self._error("malformed", 'An action message needs "action" (text) and "version" (a number).')
            return
        await self._call(services.move_submit, match_id=self.match_id, user=self.user, action=action, version=version)

    async def _on_resign(self, content: dict[str, Any]) -> None:
        await self._call(services.match_resign, match_id=self.match_id, user=self.user)

    async def _on_claim(self, content: dict[str, Any]) -> None:
        await self._call(services.match_claim, match_id=self.match_id, user=self.user)

    async def _on_chat(self, content: dict[str, Any]) -> None:
        text = content.get("text")
        if not isinstance(text, str):
            await self._error("malformed", 'A chat message needs "text".')
            return
        await self._call(services.chat_post, match_id=self.match_id, user=self.user, text=text)

    async def _send_chat_history(self) -> None:
        lines = await database_sync_to_async(selectors.match_chat)(match_id=self.match_id)
        await self.send_json({"type": "chat", "lines": lines, "replace": True})

    async def _on_sync(self, content: dict[str, Any]) -> None:
        snapshot = await database_sync_to_async(selectors.match_snapshot_by_id)(match_id=self.match_id)
        await self._send_state(snapshot, None)
        await self._send_chat_history()

    async def _on_ping(self, content: dict[str, Any]) -> None:
        await database_sync_to_async(services.presence_touch)(channel_name=self.channel_name)
        await self.send_json({"type": "pong"})

    async def _call(self, service, **kwargs) -> None:
        try:
            await database_sync_to_async(service)(**kwargs)
        except ServiceError as err:
            extra = dict(err.extra)
            if err.code == "stale_version":
                snapshot = await database_sync_to_async(selectors.match_snapshot_by_id)(match_id=self.match_id)
                extra["state"] = self._state_message(snapshot, None)
            await self._error(err.code, err.message, **extra)

    async def _error(self, code: str, message: str, **extra: Any) -> None:
        await self.send_json({"type": "error", "code": code, "message": message, **extra})

    def _state_message(self, snapshot: dict[str, Any], last_move: dict[str, Any] | None) -> dict[str, Any]:
        roles = selectors.viewer_roles(snapshot=snapshot, user=self.user)
        return {"type": "state", "version": snapshot["version"], "match": snapshot, "last_move": last_move,
                "you": {"roles": roles, "legal": selectors.viewer_legal(snapshot=snapshot, roles=roles)}}

    async def _send_state(self, snapshot: dict[str, Any], last_move: dict[str, Any] | None) -> None:
        await self.send_json(self._state_message(snapshot, last_move))

    # -- group events ------------------------------------------------------------------------
    async def match_state(self, event: dict[str, Any]) -> None:
        await self._send_state(event["snapshot"], event.get("last_move"))

    async def match_chat(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "chat", "lines": [event["line"]], "replace": False})

    async def match_presence(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "presence", **event["presence"]})
