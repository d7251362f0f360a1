"""The embedded board's socket (``/ws/embed/<id>/``): a public match's states, read-only.

A page of any site may show a Boardhall board in an iframe, or open this socket itself, so it
is accepted from any ``Origin`` (``config.embedsockets``). That is safe only because it acts for
nobody: it never sees a cookie or a session (they are stripped before it), takes no action
(anything but ``ping`` and ``sync`` is refused with ``read_only``), writes nothing (not even
presence: an embedded board is not counted as a spectator) and serves only public matches (a
private one is ``not_found``, even with its invite: an invite in a third party's page would be
no secret). It is still counted against its address's socket and message limits.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games import selectors
from games.match.rulesets import stored_rules
from games.runtime.dbthreads import db
from games.selectors import rows, snapshots
from games.services import ServiceError, broadcast
from live.consumers.listening import ListeningSocket

READ_ONLY = gettext_lazy("This board is read-only: open the match on Boardhall to play, chat or offer anything.")


class EmbedConsumer(ListeningSocket):
    read_only_text = READ_ONLY
    opening = "opening an embedded board"
    leaving = "an embedded board leaving its match's group"

    async def connect(self) -> None:
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        await super().connect()

    def group_name(self) -> str:
        return broadcast.match_group(self.match_id)

    def open_state(self) -> dict[str, Any]:
        """The state of the match if it is public; ``not_found`` otherwise. Reads only."""
        match = rows.match_by_id(self.match_id)
        if match is None or match.is_private:
            raise ServiceError("not_found", _("There is no such public match: private matches cannot be embedded."))
        stored_rules(match.game)
        return snapshots.state_event(selectors.match_snapshot(match=match), None)

    def __str__(self) -> str:
        return f"embedded board of match {self.match_id}"

    async def _on_sync(self, version: int | None = None) -> None:
        event = await db(self._read_state)()
        if event["version"] >= self.version:
            await self._send_state(event)

    def _read_state(self) -> dict[str, Any]:
        return snapshots.state_event(selectors.match_snapshot_by_id(match_id=self.match_id), None)

    # -- group events ------------------------------------------------------------------------
    async def match_state(self, event: dict[str, Any]) -> None:
        if self.group is not None and event["version"] >= self.version:
            await self._send_state(event)

    async def _send_state(self, event: dict[str, Any]) -> None:
        self.version = event["version"]
        await self.send_text(snapshots.viewer_message(event, None))

    async def dispatch(self, message: dict) -> None:
        """The match group's other events (chat, presence, answers to offers) are for the pages
        on Boardhall: an embedded board skips them, and any kind added later too."""
        if message["type"].startswith("match.") and message["type"] != "match.state":
            return
        await super().dispatch(message)
