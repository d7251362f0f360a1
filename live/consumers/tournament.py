"""A tournament page's socket (``/ws/tournaments/<id>/``): the standings, the games in play and
the countdown, pushed on every change, read-only. Each state carries the tournament's version;
a socket never sends an older one than it sent, and ``sync`` sends the state again. The viewer's
own part (in it, paused, their game in play) is added per socket (``tournaments.state.viewer_part``).
A signed-in viewer's socket counts them as at the arena while it is open and pings
(``tournaments.arena_presence``: a wave pauses a player who is not).
A private tournament is served to those its page would show (its players, its creator, holders
of its invite, given as ``?invite=``); to anyone else it is ``not_found``."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import parse_qs

from games.runtime import outages, presence
from games.runtime.dbthreads import db
from games.services import ServiceError
from live import tournament_states
from live.consumers.listening import ListeningSocket
from live.sockets import Socket
from tournaments import arena_presence, push, selectors
from tournaments.models import Tournament
from tournaments.state import tournament_state, viewer_part

logger = logging.getLogger(__name__)
READ_ONLY = "This page only listens: join, pause, withdraw and berserk with its buttons."


class TournamentConsumer(ListeningSocket):
    read_only_text = READ_ONLY
    opening = "opening a tournament page"
    leaving = "a tournament page leaving its group"
    present_as: int | None = None  # the signed-in viewer, once counted among the arena's pages
    _on_ping = Socket._on_ping  # a ping keeps the viewer counted as at the arena

    def __str__(self) -> str:
        return f"tournament page {self.tournament_id}"

    async def connect(self) -> None:
        self.tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        await super().connect()

    def group_name(self) -> str:
        return push.group(self.tournament_id)

    def open_state(self) -> dict[str, Any]:
        invite = parse_qs(self.scope.get("query_string", b"").decode("latin-1")).get("invite", [None])[0]
        tournament = Tournament.objects.filter(pk=self.tournament_id).first()
        user = self.signed_in_user()
        if tournament is None or not selectors.can_view(tournament, user, invite):
            raise ServiceError("not_found", "No such tournament, or it is private.")
        if user is not None:  # an arena's player with its page open is at the arena (its waves ask)
            arena_presence.arena_page_enter(tournament_id=self.tournament_id, channel_name=self.channel_name,
                                            user_id=user.pk)
            self.present_as = user.pk
        return tournament_state(tournament_id=self.tournament_id)

    def presence_key(self) -> str:
        return presence.tournament_key(self.tournament_id)

    async def disconnect(self, code: int) -> None:
        await super().disconnect(code)
        if self.present_as is not None:
            user_id, self.present_as = self.present_as, None
            try:
                await db(arena_presence.arena_page_leave)(tournament_id=self.tournament_id,
                                                          channel_name=self.channel_name, user_id=user_id)
            except Exception as err:  # the page is gone either way; its entry goes stale
                outages.report_or_log("a tournament page leaving the arena's presence", err, logger)

    async def _on_sync(self, version: int | None = None) -> None:
        state = await db(tournament_state)(tournament_id=self.tournament_id)
        if state is not None and state["version"] >= self.version:
            await self._send_state(state)

    async def tournament_stale(self, event: dict[str, Any]) -> None:
        if self.group is None or event["version"] <= self.version:
            return
        try:
            state = await tournament_states.fresh(self.tournament_id)
        except Exception as err:  # the database is down: the next change or a sync brings the state
            outages.report_or_log("reading a tournament's state", err, logger)
            return
        if state is not None and state["version"] > self.version:
            await self._send_state(state)

    async def _send_state(self, state: dict[str, Any]) -> None:
        self.version = state["version"]
        user = self.signed_in_user()
        await self.send_json_text({**state, "you": viewer_part(state, user.pk if user else None)})
