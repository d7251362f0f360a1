"""The lobby socket (the lists of open and live public matches and who is online, pushed on
every change) and the site socket every page of a signed-in player opens."""

import asyncio
import logging
import random

import orjson
from django.utils.translation import gettext as _

from games import selectors, services
from games.match.settings import MatchSettings
from games.models import Match
from games.runtime import outages, presence
from games.runtime.dbthreads import db
from games.selectors import snapshots
from games.services import ServiceError, broadcast
from games.services.broadcast import LOBBY_GROUP
from live import lobby_lists as lists
from live import protocol
from live.sockets import SIGNED_OUT, Socket

logger = logging.getLogger(__name__)
POOL_RETRY_SECONDS = 2.0
MINE_GATHER_SECONDS = 0.1  # a home page reads its player's matches once for the changes of this long


def pool_retry_delay() -> float:
    """The wait before a waiting page looks again: ``POOL_RETRY_SECONDS`` give or take a quarter.
    Pages that entered together would otherwise look again together for good, each holding its
    own entry's lock and skipping the other's, so two players who fit were never paired."""
    return POOL_RETRY_SECONDS * random.uniform(0.75, 1.25)


class LobbyConsumer(Socket):
    """The home page's socket: the lobby lists for everyone, and for a signed-in player the list
    of their own matches waiting or in play ("Your matches"), kept live: the socket listens to
    those matches' groups and to the player's group, and reads the list again when one of them
    changes status or whose turn it is, or a match is new to the player (``site.mine``)."""

    user = None
    mine: dict[int, tuple[str, bool]] | None = None  # match id -> (status, your turn), as last sent
    mine_groups: frozenset[str] = frozenset()
    mine_reading: asyncio.Task | None = None

    async def connect(self) -> None:
        await self.accept()
        try:
            if not await self.admit():
                return
            await self.channel_layer.group_add(LOBBY_GROUP, self.channel_name)
            await self.send_json_text({"type": "lobby", **await lists.fresh()})
            user = self.scope.get("user")
            if user is not None and user.is_authenticated:
                self.user = user
                await self.channel_layer.group_add(broadcast.player_group(user.pk), self.channel_name)
                await self._send_mine()
        except Exception as err:  # Redis or the database is down: say so, let the page retry
            await self.open_failed("opening a lobby page", err)

    async def disconnect(self, code: int) -> None:
        if self.mine_reading is not None:
            self.mine_reading.cancel()
        try:
            await self.release()
            await self.channel_layer.group_discard(LOBBY_GROUP, self.channel_name)
            if self.user is not None:
                for group in (broadcast.player_group(self.user.pk), *self.mine_groups):
                    await self.channel_layer.group_discard(group, self.channel_name)
        except Exception as err:
            outages.report_or_log("recording a lobby page closing", err, logger)

    def parse(self, text_data=None, bytes_data=None):
        """Whatever a client sends (text, bytes, JSON or not) gets the same answer (and is taken
        from the client's message budget like any socket's message)."""
        raise protocol.Malformed(_("The lobby socket only sends."))

    async def lobby_stale(self, event) -> None:
        try:
            lists_now = await lists.fresh()
        except Exception as err:  # the database is down: the next change or a reconnect brings the lists
            outages.report_or_log("reading the lobby lists", err, logger)
            return
        await self.send_json_text({"type": "lobby", **lists_now})

    # -- the player's own matches --------------------------------------------------------------
    async def dispatch(self, message: dict) -> None:
        kind = message["type"]
        if kind == "match.state":
            if self._mine_changed_by(message):
                self._read_mine_soon()
        elif kind == "site.mine":
            self._read_mine_soon()
        elif not kind.startswith(("match.", "site.")):  # the matches' and the player's other news is for their pages
            await super().dispatch(message)

    def _mine_changed_by(self, event: dict) -> bool:
        """Whether a match's new state changes its line: its status, or whether it is this
        player's turn (a move that leaves both as they were changes nothing shown)."""
        shown = (self.mine or {}).get(orjson.loads(event["text"])["id"])  # the state carries its match's id
        if shown is None or not event["active"]:
            return True
        yours = event["to_move"] in snapshots.viewer_roles(event, self.user.pk)
        return shown != (Match.Status.ACTIVE, yours)

    def _read_mine_soon(self) -> None:
        """Read the list once for the changes of the next moment (a move and a status change
        together, several matches at once)."""
        if self.mine_reading is None or self.mine_reading.done():
            self.mine_reading = asyncio.ensure_future(self._read_mine_after(MINE_GATHER_SECONDS))

    async def _read_mine_after(self, delay: float) -> None:
        await asyncio.sleep(delay)
        try:
            await self._send_mine()
        except Exception as err:  # the database is down: the next change or a reconnect brings the list
            outages.report_or_log("reading a player's matches", err, logger)

    async def _send_mine(self) -> None:
        """Read the player's matches, listen to exactly their groups, and send the list. A match
        new to the list is read again once its group is joined, so no change falls between."""
        for _attempt in range(2):
            mine = await db(selectors.matches_of_player)(user=self.user)
            groups = frozenset(broadcast.match_group(m["id"]) for m in mine)
            added = groups - self.mine_groups
            for group in added:
                await self.channel_layer.group_add(group, self.channel_name)
            for group in self.mine_groups - groups:
                await self.channel_layer.group_discard(group, self.channel_name)
            self.mine_groups = groups
            if not added:
                break
        self.mine = {m["id"]: (m["status"], m["your_turn"]) for m in mine}
        await self.send_json_text({"type": "mine", "matches": mine})


class SiteConsumer(Socket):
    """The socket every page of a signed-in player opens (``/ws/site/``): it makes the player
    count as online, waits in the quick-game pool, and carries challenges both ways. The pages
    of one player share the group ``player.<id>``; a pairing is told to the page that waited."""

    shapes = protocol.SITE_SHAPES
    user = None
    waiting: asyncio.Task | None = None  # asks the pool again while this page waits

    def __str__(self) -> str:
        return f"site page of player {self.user.pk if self.user else None}"

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        await self.accept()
        if self.user is None or not self.user.is_authenticated:
            await self._error("not_signed_in", _("Choose a name (play as a guest) or log in first."))
            await self.close(code=SIGNED_OUT)
            self.user = None
            return
        try:
            if not await self.admit():
                return
            await self.channel_layer.group_add(broadcast.player_group(self.user.pk), self.channel_name)
            challenges, endings = await db(self._open)()
            await self.send_json_text({"type": "challenges", "challenges": challenges})
            for ending in endings:  # invitations that ended while the player was away
                await self.send_json_text({"type": "invite_ended", "ending": ending})
        except Exception as err:
            await self.open_failed("opening a site page", err)

    def _open(self) -> tuple[list[dict], list[dict]]:
        services.online_enter(user=self.user, channel_name=self.channel_name)
        return selectors.challenges_open(user=self.user), services.invite_endings_take(user=self.user)

    async def disconnect(self, code: int) -> None:
        if self.user is None:
            return
        self._stop_waiting()
        try:
            admitted = self.client is not None
            await self.release()
            await self.channel_layer.group_discard(broadcast.player_group(self.user.pk), self.channel_name)
            if admitted:
                await db(self._close)()
        except Exception as err:  # the page is gone either way; its pool entry and presence expire
            outages.report_or_log("recording a site page closing", err, logger)

    def _close(self) -> None:
        services.pool_leave(user=self.user, channel_name=self.channel_name)
        services.online_leave(channel_name=self.channel_name, user=self.user)

    # -- quick pairing -------------------------------------------------------------------------
    async def _on_pool_enter(self, **fields) -> None:
        try:
            settings = MatchSettings.from_json(fields)
            match = await db(services.pool_enter)(user=self.user, settings=settings, channel_name=self.channel_name)
        except ServiceError as err:
            await self._error(err.code, err.message, **err.extra)
            return
        if match is None:
            await self.send_json_text({"type": "pool", "waiting": True, "settings": settings.to_json()})
            self._stop_waiting()
            self.waiting = asyncio.ensure_future(self._wait_in_pool())

    async def _wait_in_pool(self) -> None:
        """Ask again about every ``POOL_RETRY_SECONDS``: the range of ratings this player accepts grows."""
        while True:
            await asyncio.sleep(pool_retry_delay())
            try:
                if await db(services.pool_pair)(user=self.user, channel_name=self.channel_name) is not None:
                    return
            except ServiceError:  # paired by another page's search, or left: nothing to wait for
                return
            except Exception as err:
                outages.report_or_log("looking for partners (trying again)", err, logger)

    async def _on_pool_leave(self) -> None:
        self._stop_waiting()
        await db(services.pool_leave)(user=self.user, channel_name=self.channel_name)
        await self.send_json_text({"type": "pool", "waiting": False})

    def _stop_waiting(self) -> None:
        if self.waiting is not None:
            self.waiting.cancel()
            self.waiting = None

    # -- challenges ----------------------------------------------------------------------------
    async def _on_challenge(self, *, to: int, **fields) -> None:
        try:
            challenge = await db(services.challenge_create)(user=self.user, to_id=to,
                                                            settings=MatchSettings.from_json(fields))
        except ServiceError as err:
            await self._error(err.code, err.message, **err.extra)
            return
        services.challenge_expire_later(challenge_id=challenge.pk, expires_at=challenge.expires_at)

    async def _on_challenge_accept(self, *, id: int) -> None:  # noqa: A002 (the protocol's field)
        await self._call(services.challenge_accept, challenge_id=id)

    async def _on_challenge_decline(self, *, id: int) -> None:  # noqa: A002
        await self._call(services.challenge_decline, challenge_id=id)

    async def _on_challenge_cancel(self, *, id: int) -> None:  # noqa: A002
        await self._call(services.challenge_cancel, challenge_id=id)

    async def _call(self, service, **kwargs) -> None:
        try:
            await db(service)(user=self.user, **kwargs)
        except ServiceError as err:
            await self._error(err.code, err.message, **err.extra)

    def presence_key(self) -> int:
        return presence.SITE

    # -- group events --------------------------------------------------------------------------
    async def site_mine(self, event) -> None:
        """News for the home page's list of the player's matches (the lobby socket's)."""

    async def site_paired(self, event) -> None:
        if event["channel"] == self.channel_name:
            self._stop_waiting()
            await self.send_json_text({"type": "paired", "match": event["match"]})

    async def site_unpooled(self, event) -> None:
        """This page's search closed: the player started a real-time match another way, or the
        pool could no longer read its settings (``code`` and ``message`` say why)."""
        if event["channel"] == self.channel_name:
            self._stop_waiting()
            await self.send_json_text({"type": "pool", "waiting": False})
            if "code" in event:  # after the pool's message, which clears the page's status line
                await self._error(event["code"], event["message"])

    async def site_started(self, event) -> None:
        """A match this player waited in started (a friend took the invitation): the page goes to it."""
        await self.send_json_text({"type": "started", "match": event["match"]})

    async def site_invite_ended(self, event) -> None:
        """The player's invitation ended (``games.services.invites``): the page says why, once."""
        ending = event["ending"]
        try:
            await db(services.invite_ending_told)(user=self.user, match_id=ending["match"])
        except Exception as err:  # told again on the next page opened: no harm
            outages.report_or_log("noting an invitation's ending as told", err, logger)
        await self.send_json_text({"type": "invite_ended", "ending": ending})

    async def site_challenge(self, event) -> None:
        await self.send_json_text({"type": "challenge", "challenge": event["challenge"]})
