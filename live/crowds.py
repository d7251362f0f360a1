"""A match's presence (who is there, how many watch) sent to its pages in batches.

Sent to every page of a match each time one opened or closed, presence cost a crowd of N
about N²/2 messages: 2,000 spectators arriving on one match made 2.1 million, and the
process spent a minute on them while moves elsewhere waited. Here a page opening or closing
only marks its match; at most once per ``settings.PRESENCE_BATCH_SECONDS`` this process reads
the match's presence once (``games.runtime.presence``: shared by every process on Redis) and
sends it to the match's group as one message carrying the whole of it, as lichess sends a
match's crowd. The work grows with the crowd, not with its square.

Several processes each send their own batches, each with the full presence as read at the
time; the last to arrive is at most one interval old. One batch per match is on its way at a
time: a process that cannot keep up sends fewer, not more.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from typing import Any

from channels.layers import get_channel_layer
from django.conf import settings

from games import selectors
from games.runtime import eventloop, outages, presence
from games.runtime.dbthreads import db
from games.selectors import snapshots
from games.services import broadcast

logger = logging.getLogger(__name__)


class _Batches:
    """One event loop's matches whose presence changed: each is ``waiting`` (its batch is timed)
    or ``sending`` (and ``again`` when it changed meanwhile)."""

    def __init__(self) -> None:
        self.waiting: set[int] = set()
        self.sending: set[int] = set()
        self.again: set[int] = set()


_loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Batches] = weakref.WeakKeyDictionary()


def presence_changed(match_id: int) -> None:
    """A page of ``match_id`` opened or closed on this process: its pages hear the match's
    presence within ``PRESENCE_BATCH_SECONDS``, together with every other change until then.
    Call on the event loop."""
    loop = asyncio.get_running_loop()
    batches = _loops.get(loop)
    if batches is None:
        batches = _loops[loop] = _Batches()
    if match_id in batches.sending:
        batches.again.add(match_id)
    elif match_id not in batches.waiting:
        batches.waiting.add(match_id)
        loop.call_later(settings.PRESENCE_BATCH_SECONDS, _due, batches, match_id)


def _due(batches: _Batches, match_id: int) -> None:
    batches.waiting.discard(match_id)
    batches.sending.add(match_id)
    eventloop.start(_send(batches, match_id))


async def _send(batches: _Batches, match_id: int) -> None:
    try:
        present = await db(match_presence)(match_id)
        await get_channel_layer().group_send(broadcast.match_group(match_id), presence_event(present))
    except Exception as err:  # the next change sends it again; pages resync their presence then
        outages.report_or_log("sending a match's presence (sent again at its next change)", err, logger)
    finally:
        batches.sending.discard(match_id)
        if match_id in batches.again:
            batches.again.discard(match_id)
            presence_changed(match_id)


def match_presence(match_id: int) -> dict[str, Any]:
    """The match's presence now (``games.runtime.presence.match_presence``): one read of its seats."""
    return presence.match_presence(match_id=match_id, seats=selectors.match_seats(match_id))


def presence_event(present: dict[str, Any]) -> dict[str, Any]:
    """The group message: the presence (the bot API's streams read it, ``botapi.feeds``) and the
    page's frame, encoded once for every page that receives it."""
    return {"type": "match.presence", "presence": present,
            "text": snapshots.encode({"type": "presence", **present})}
