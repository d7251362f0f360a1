"""The match socket: parse a frame, call one service, turn refusals into one error message.

Thin and fast: each piece of database work is one short synchronous call on the database
threads (``games.dbthreads``); state messages arrive from the channel layer already encoded
(``games.snapshots``) and only the viewer's own part is added here.
"""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import parse_qs

from django.db import InterfaceError, OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from games import broadcast, presence, protocol, selectors, services, snapshots, throttle
from games.dbthreads import db
from games.models import Match
from games.services import ServiceError
from games.sockets import Socket

logger = logging.getLogger(__name__)
# What a failing service raises: builtin socket errors, redis-py's and the database's own.
SERVICE_DOWN = (OSError, RedisConnectionError, RedisTimeoutError, OperationalError, InterfaceError)


class MatchConsumer(Socket):
    group: str | None = None  # set once the page may watch the match
    version = -1  # of the last state sent to this page

    async def connect(self) -> None:
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        self.user = self.scope.get("user")
        self.user_id = self.user.pk if self.user is not None and self.user.is_authenticated else None
        invite = parse_qs(self.scope.get("query_string", b"").decode("latin-1")).get("invite", [None])[0]
        await self.accept()
        try:
            if not await self.admit():
                return
            await self._join(invite)
        except Exception:  # the database or the channel layer is down: say so, let the page retry
            logger.exception("match %s: could not open a page", self.match_id)
            self.group = None
            await self.ask_to_retry()

    async def _join(self, invite: str | None) -> None:
        # Listen before reading: a move committed between the read and joining the group
        # would otherwise never reach this page. Group messages wait until connect returns,
        # and ones older than the state read here are skipped (``match_state``).
        group = broadcast.match_group(self.match_id)
        await self.channel_layer.group_add(group, self.channel_name)
        opened = await db(self._open)(invite)
        if opened is None:
            await self.channel_layer.group_discard(group, self.channel_name)
            await self._error("not_found", "There is no such match, or it is private and you have no invitation.")
            await self.close(code=4404)
            return
        event, chat, present = opened
        self.group = group
        await self._send_state(event)
        await self.send_json_text({"type": "chat", "lines": chat, "replace": True})
        await self.channel_layer.group_send(self.group, {"type": "match.presence", "presence": present})

    def _open(self, invite: str | None):
        """One call: the match if this viewer may see it, its state, chat and presence; the
        page counts as open from here. After a restart a computer turn may be pending: the
        first visitor wakes it."""
        match = Match.objects.filter(pk=self.match_id).first()
        if match is None or not selectors.match_can_view(match=match, user=self.user, invite_token=invite):
            return None
        seats = selectors.match_seats(self.match_id)
        services.presence_enter(match_id=self.match_id, channel_name=self.channel_name, user=self.user, seats=seats)
        snapshot = selectors.match_snapshot(match=match, seats=seats)
        if match.status == Match.Status.ACTIVE:
            services.computer_turn_resume(match=match, seats=seats)
        return (snapshots.state_event(snapshot, None), selectors.match_chat(match_id=self.match_id),
                presence.match_presence(match_id=self.match_id, seats=seats))

    async def disconnect(self, code: int) -> None:
        try:
            await self.release()
            if self.group:
                await self.channel_layer.group_discard(self.group, self.channel_name)
                present = await db(self._close)()
                await self.channel_layer.group_send(self.group, {"type": "match.presence", "presence": present})
        except Exception:  # the page is gone either way; its presence entry expires
            logger.exception("match %s: could not record a page closing", self.match_id)

    def _close(self) -> dict[str, Any]:
        seats = services.presence_leave(match_id=self.match_id, channel_name=self.channel_name, user=self.user)
        return presence.match_presence(match_id=self.match_id, seats=seats)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if not self.group:
            return
        kind = "message"
        try:
            if not await self.within_budget():
                await self._error("rate_limited", "Too many messages: slow down and try again in a moment.")
                return
            try:
                kind, fields = protocol.parse(text_data, bytes_data)
            except protocol.Malformed as err:
                await self._error("malformed", str(err))
                return
            await getattr(self, f"_on_{kind}")(**fields)
        except SERVICE_DOWN:  # Redis or the database went away: the page shows "reconnecting"
            logger.exception("match %s: %s failed, a service is down", self.match_id, kind)
            await self.ask_to_retry()
        except Exception:
            logger.exception("match %s: %s failed", self.match_id, kind)
            await self._error("server_error", "Something went wrong on our side; the match is unchanged. Try again.")

    async def _on_action(self, *, action: str, version: int) -> None:
        await self._call(services.move_submit, match_id=self.match_id, user=self.user, action=action, version=version)

    async def _on_resign(self) -> None:
        await self._call(services.match_resign, match_id=self.match_id, user=self.user)

    async def _on_claim(self) -> None:
        await self._call(services.match_claim, match_id=self.match_id, user=self.user)

    async def _on_chat(self, *, text: str) -> None:
        await self._call(services.chat_post, match_id=self.match_id, user=self.user, text=text)

    async def _on_sync(self, version: int | None = None) -> None:
        event, chat = await db(self._read_state)()
        if event["version"] >= self.version:  # else a newer state already reached the page
            await self._send_state(event)
        await self.send_json_text({"type": "chat", "lines": chat, "replace": True})

    def _read_state(self):
        snapshot = selectors.match_snapshot_by_id(match_id=self.match_id)
        return snapshots.state_event(snapshot, None), selectors.match_chat(match_id=self.match_id)

    async def _on_ping(self) -> None:
        store = presence.store()
        if store.blocking:
            await db(store.touch)(self.match_id, self.channel_name)
        else:
            store.touch(self.match_id, self.channel_name)
        await throttle.limits().touch(self.client, self.channel_name)
        await self.send_json_text({"type": "pong"})

    async def _call(self, service, **kwargs) -> None:
        """Run one service; its refusal becomes one error message to this socket alone (and a
        failure a ``server_error``, in ``receive``)."""
        try:
            await db(service)(**kwargs)
        except ServiceError as err:
            extra = dict(err.extra)
            if err.code == "stale_version":
                event, _ = await db(self._read_state)()
                extra["state"] = json.loads(snapshots.viewer_message(event, self.user_id))
            await self._error(err.code, err.message, **extra)

    async def _error(self, code: str, message: str, **extra: Any) -> None:
        await self.send_json_text({"type": "error", "code": code, "message": message, **extra})

    # -- group events ------------------------------------------------------------------------
    async def match_state(self, event: dict[str, Any]) -> None:
        if self.group is not None and event["version"] >= self.version:
            await self._send_state(event)

    async def _send_state(self, event: dict[str, Any]) -> None:
        self.version = event["version"]
        await self.send(text_data=snapshots.viewer_message(event, self.user_id))

    async def match_chat(self, event: dict[str, Any]) -> None:
        await self.send_json_text({"type": "chat", "lines": [event["line"]], "replace": False})

    async def match_presence(self, event: dict[str, Any]) -> None:
        await self.send_json_text({"type": "presence", **event["presence"]})
