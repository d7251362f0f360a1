"""Message rate limits of the match sockets.

A signed-in player (guests included) has one token bucket per server process, shared by all
their sockets, so opening more sockets buys no more messages: at most ``WS_RATE_BURST`` at
once, refilled at ``WS_RATE_PER_SECOND``. An anonymous spectator's socket has a bucket of its
own (spectators can only ask for the state and ping; behind a proxy they share an address).
"""

from __future__ import annotations

import time

from django.conf import settings

MAX_REMEMBERED = 50_000  # buckets kept per process; full ones are forgotten first


class TokenBucket:
    """At most ``burst`` messages at once, refilled at ``rate`` per second."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.tokens, self.stamp = float(burst), time.monotonic()

    def _refill(self, now: float) -> None:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self) -> bool:
        self._refill(time.monotonic())
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def full(self, now: float) -> bool:
        self._refill(now)
        return self.tokens >= self.burst


_players: dict[int, TokenBucket] = {}


def bucket(user_id: int | None) -> TokenBucket:
    """The bucket for a player's sockets (shared), or a new one for an anonymous socket."""
    if user_id is None:
        return TokenBucket(settings.WS_RATE_PER_SECOND, settings.WS_RATE_BURST)
    found = _players.get(user_id)
    if found is None:
        if len(_players) >= MAX_REMEMBERED:
            now = time.monotonic()
            for key in [k for k, b in _players.items() if b.full(now)]:
                del _players[key]
        found = _players[user_id] = TokenBucket(settings.WS_RATE_PER_SECOND, settings.WS_RATE_BURST)
    return found


def forget_all() -> None:
    _players.clear()
