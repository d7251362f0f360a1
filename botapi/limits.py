"""Per-token limits of this process: a budget of calls (the sockets' ``TokenBucket``:
``BOT_API_BURST`` calls at once, refilled at ``BOT_API_CALLS_PER_SECOND``) and at most
``BOT_API_STREAMS`` streams open at once. Kept in memory like the socket limits' in-process
store; a token's calls spread over several processes get each process's budget."""

from __future__ import annotations

import math
import threading

from django.conf import settings

from games.runtime.throttle import TokenBucket


class Limits:
    def __init__(self) -> None:
        self._lock = threading.Lock()  # calls run on the database threads, streams on the event loop
        self._buckets: dict[int, TokenBucket] = {}
        self._streams: dict[int, int] = {}

    def take(self, token_id: int) -> float:
        """Take one call from the token's budget: 0 if it may go ahead, else the seconds until it may."""
        with self._lock:
            bucket = self._buckets.get(token_id)
            if bucket is None:
                bucket = self._buckets[token_id] = TokenBucket(settings.BOT_API_CALLS_PER_SECOND,
                                                                settings.BOT_API_BURST)
            return bucket.take_or_wait()

    def open_stream(self, token_id: int) -> bool:
        with self._lock:
            if self._streams.get(token_id, 0) >= settings.BOT_API_STREAMS:
                return False
            self._streams[token_id] = self._streams.get(token_id, 0) + 1
            return True

    def close_stream(self, token_id: int) -> None:
        with self._lock:
            count = self._streams.get(token_id, 0) - 1
            if count > 0:
                self._streams[token_id] = count
            else:
                self._streams.pop(token_id, None)

    def clear(self) -> None:
        with self._lock:
            self._buckets.clear()
            self._streams.clear()


def retry_after(seconds: float) -> str:
    """The ``Retry-After`` header's whole seconds, never 0."""
    return str(max(1, math.ceil(seconds)))


limits = Limits()
