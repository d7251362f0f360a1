"""Per-token limits of this process: a budget of calls (the sockets' ``TokenBucket``:
``BOT_API_BURST`` calls at once, refilled at ``BOT_API_CALLS_PER_SECOND``) and at most
``BOT_API_STREAMS`` streams open at once. Kept in memory like the socket limits' in-process
store; a token's calls spread over several processes get each process's budget.

A stream's slot is reserved by the call that asks for the stream, so the stream over the limit
is a 429 before any line; its lines begin using it and give it back when they end. A slot its
lines never begin lapses after ``STREAM_START_SECONDS``: the lines always begin within
milliseconds of the call's answer, unless Django dropped that answer. It does when the client
goes away while the request is still in the site's sync middleware: Django's ASGI handler then
cancels the request's task, but asgiref cannot stop the thread that runs the middleware, which
goes on into the view; the response the view returns reaches nobody, and its lines never run
(not even their ``finally``). So the call reserves nothing else: the lines open the listener
and the presence themselves, and close them in their ``finally``."""

from __future__ import annotations

import math
import threading
import time

from django.conf import settings

from games.runtime.throttle import TokenBucket

STREAM_START_SECONDS = 5


class StreamSlot:
    """One of a token's ``BOT_API_STREAMS``, from the call that asks for a stream to the end
    of its lines."""

    __slots__ = ("token_id",)

    def __init__(self, token_id: int) -> None:
        self.token_id = token_id


class Limits:
    def __init__(self, clock=time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()  # calls run on the database threads, streams on the event loop
        self._buckets: dict[int, TokenBucket] = {}
        # Per token, its slots: when each was reserved (monotonic), or None once its lines began.
        self._streams: dict[int, dict[StreamSlot, float | None]] = {}

    def take(self, token_id: int) -> float:
        """Take one call from the token's budget: 0 if it may go ahead, else the seconds until it may."""
        with self._lock:
            bucket = self._buckets.get(token_id)
            if bucket is None:
                bucket = self._buckets[token_id] = TokenBucket(settings.BOT_API_CALLS_PER_SECOND,
                                                                settings.BOT_API_BURST)
            return bucket.take_or_wait()

    def stream_reserve(self, token_id: int) -> StreamSlot | None:
        """A slot for a stream of the token, or None when all its slots are taken. Slots that
        lapsed (``STREAM_START_SECONDS`` reserved and never begun) are free again."""
        now = self._clock()
        with self._lock:
            slots = self._streams.setdefault(token_id, {})
            for slot, reserved in list(slots.items()):
                if reserved is not None and now - reserved > STREAM_START_SECONDS:
                    del slots[slot]
            if len(slots) >= settings.BOT_API_STREAMS:
                return None
            slot = StreamSlot(token_id)
            slots[slot] = now
            return slot

    def stream_begin(self, slot: StreamSlot) -> None:
        """The stream's lines began: the slot is theirs until they end. A slot that lapsed
        meanwhile counts again, even over the limit (by one stream, for as long as it lasts)."""
        with self._lock:
            self._streams.setdefault(slot.token_id, {})[slot] = None

    def stream_release(self, slot: StreamSlot) -> None:
        """Give the slot back (again is harmless)."""
        with self._lock:
            slots = self._streams.get(slot.token_id, {})
            slots.pop(slot, None)
            if not slots:
                self._streams.pop(slot.token_id, None)

    def clear(self) -> None:
        with self._lock:
            self._buckets.clear()
            self._streams.clear()


def retry_after(seconds: float) -> str:
    """The ``Retry-After`` header's whole seconds, never 0."""
    return str(max(1, math.ceil(seconds)))


limits = Limits()
