"""The match socket: parse a frame, call one service, turn refusals into one error message.

Thin and fast: each piece of database work is one short synchronous call on the database
threads (``games.runtime.dbthreads``); state messages arrive from the channel layer already encoded
(``games.selectors.snapshots``) and only the viewer's own part is added here.
"""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import parse_qs

from django.utils.translation import gettext as _

from games import selectors, services
from games.match.rulesets import stored_rules
from games.runtime import outages
from games.runtime.dbthreads import db
from games.selectors import rows, snapshots
from games.services import ServiceError, broadcast
from live import crowds, movequeue
from live.sockets import NOT_FOUND, Socket

logger = logging.getLogger(__name__)
# Messages a player sends about their own seat, and the service each calls with the message's
# fields (none, or the takeback's version).
SEAT_ACTIONS = {
    "resign": services.match_resign,
    "claim": services.match_claim,
    "claim_draw": services.match_claim_draw,
    "draw_offer": services.draw_offer,
    "draw_accept": services.draw_accept,
    "draw_decline": services.draw_decline,
    "takeback_offer": services.takeback_offer,
    "takeback_accept": services.takeback_accept,
    "takeback_decline": services.takeback_decline,
}


# Per match, the newest version this process sent to the match's pages again (missed_state_resend).
resent: dict[int, int] = {}
RESENT_KEPT = 10_000  # matches remembered; then the memory starts again


def missed_state_resend(match_id: int, event: dict[str, Any]) -> None:
    """A page came back behind the stored version. A process that died between a move's commit
    and its broadcast (a host that vanished) never sent that state: the match's pages on other
    processes missed it too, and nothing else would tell them, so it goes to the whole group
    (a page drops a version it has). Once per version per process, however many pages come
    back at once (a crowd after an outage)."""
    if resent.get(match_id, -1) >= event["version"]:
        return
    if len(resent) >= RESENT_KEPT:
        resent.clear()
    resent[match_id] = event["version"]
    broadcast.send_on_loop(broadcast.match_group(match_id), event)


class MatchConsumer(Socket):
    group: str | None = None  # set once the page may watch the match
    version = -1  # of the last state sent to this page
    checked_with_the_write = frozenset({"action"})  # the move line reads that the mover may act
    unanswered = False  # a change this page made is stored, and its state has not reached the page

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
        except Exception as err:  # the database or the channel layer is down: say so, let the page retry
            self.group = None
            await self.open_failed("opening a match page", err)

    async def _join(self, invite: str | None) -> None:
        # Listen before reading: a move committed between the read and joining the group
        # would otherwise never reach this page. Group messages wait until connect returns,
        # and ones older than the state read here are skipped (``match_state``).
        group = broadcast.match_group(self.match_id)
        await self.channel_layer.group_add(group, self.channel_name)
        try:
            event, chat = await db(self._open)(invite)
        except ServiceError as refused:  # not_found, unknown_rules: this page cannot be served, so it stops
            await self.channel_layer.group_discard(group, self.channel_name)
            await self._error(refused.code, refused.message)
            await self.close(code=NOT_FOUND)
            return
        self.group = group
        await self._send_state(event)
        await self.send_json_text({"type": "chat", "lines": chat, "replace": True})
        crowds.presence_changed(self.match_id)  # this page hears it with the rest, batched

    def _open(self, invite: str | None):
        """One call: the match if this viewer may see it, its state and chat; the
        page counts as open from here, and the match's next move here needs no read. After a
        restart a computer turn may be pending: the first visitor wakes it. Refused, before
        anything is recorded, with ``not_found`` (no such match, or private without an
        invitation) or ``unknown_rules`` (a match of rules this site no longer has)."""
        match = rows.match_by_id(self.match_id)
        if match is None or not selectors.match_can_view(match=match, user=self.user, invite_token=invite):
            raise ServiceError("not_found", _("There is no such match, or it is private and you have no invitation."))
        stored_rules(match.game)
        seats = services.presence_enter(match_id=self.match_id, channel_name=self.channel_name, user=self.user)
        snapshot = selectors.match_snapshot(match=match, seats=seats)
        services.move_memory_prime(match=match, seats=seats)  # each of these two: active matches only
        services.computer_turn_resume(match=match, seats=seats)
        return snapshots.state_event(snapshot, None), selectors.match_chat(match_id=self.match_id)

    async def disconnect(self, code: int) -> None:
        try:
            await self.release()
            if self.group:
                await self.channel_layer.group_discard(self.group, self.channel_name)
                await db(services.presence_leave)(match_id=self.match_id, channel_name=self.channel_name,
                                                  user=self.user)
                crowds.presence_changed(self.match_id)
        except Exception as err:  # the page is gone either way; its presence entry expires
            outages.report_or_log("recording a match page closing", err, logger)

    def receiving(self) -> bool:
        return bool(self.group)

    def presence_key(self) -> int:
        return self.match_id

    def __str__(self) -> str:
        return f"match {self.match_id}"

    async def handle(self, kind: str, fields: dict[str, Any]) -> None:
        if kind in SEAT_ACTIONS:
            await self._call(db(SEAT_ACTIONS[kind]), match_id=self.match_id, user=self.user, **fields)
        else:
            await super().handle(kind, fields)

    async def _on_action(self, *, action: str, version: int) -> None:
        await self._call(movequeue.submit, match_id=self.match_id, user=self.user, action=action, version=version)

    async def _on_chat(self, *, text: str) -> None:
        await self._call(db(services.chat_post), match_id=self.match_id, user=self.user, text=text)

    async def _on_sync(self, version: int | None = None) -> None:
        event, chat = await db(self._read_state)()
        if event["version"] >= self.version:  # else a newer state already reached the page
            await self._send_state(event)
        if version is not None and version < event["version"]:
            missed_state_resend(self.match_id, event)
        await self.send_json_text({"type": "chat", "lines": chat, "replace": True})

    def _read_state(self):
        snapshot = selectors.match_snapshot_by_id(match_id=self.match_id)
        return snapshots.state_event(snapshot, None), selectors.match_chat(match_id=self.match_id)

    async def _call(self, service, **kwargs) -> None:
        """Await one service (``db(...)`` of one, or the move line); its refusal becomes one
        error message to this socket alone (and a failure a ``server_error``, in ``receive``)."""
        try:
            await service(**kwargs)
            self.unanswered = True  # until its state arrives through the channel layer
        except ServiceError as err:
            if err.code == "signed_out":  # the player logged out: this page acts for nobody now
                await self.sign_out()
                return
            extra = dict(err.extra)
            if err.code == "stale_version":
                event, _ = await db(self._read_state)()
                extra["state"] = json.loads(snapshots.viewer_message(event, self.user_id))
            await self._error(err.code, err.message, **extra)

    # -- group events ------------------------------------------------------------------------
    async def match_state(self, event: dict[str, Any]) -> None:
        if self.group is not None and event["version"] >= self.version:
            await self._send_state(event)

    async def _send_state(self, event: dict[str, Any]) -> None:
        self.version = event["version"]
        self.unanswered = False
        await self.send_text(snapshots.viewer_message(event, self.user_id))

    async def before_retry(self) -> None:
        """Closing because Redis is away: a move (or offer) this page made is stored, but its
        state, the page's answer, may have been lost with Redis. Read it here: the page is
        answered before it is told to retry. (The others get it when they resync.)"""
        if self.unanswered and self.group is not None:
            try:
                event, _ = await db(self._read_state)()
            except Exception as err:  # the database is down too: the page resyncs when back
                outages.report_or_log("answering a page before it retries", err, logger)
                return
            if event["version"] >= self.version:
                await self._send_state(event)

    async def match_chat(self, event: dict[str, Any]) -> None:
        await self.send_json_text({"type": "chat", "lines": [event["line"]], "replace": False})

    async def match_notice(self, event: dict[str, Any]) -> None:
        await self.send_json_text({"type": "notice", "text": event["text"]})

    async def match_presence(self, event: dict[str, Any]) -> None:
        """The match's whole presence: batched (``live.crowds``), its frame encoded once for all;
        or from a bot's stream opening or closing (``botapi.feeds``), the presence alone."""
        if self.group is None:
            return
        if "text" in event:
            await self.send_text(event["text"])
        else:
            await self.send_json_text({"type": "presence", **event["presence"]})
