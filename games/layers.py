"""The channel layers. Embedded: Channels' in-memory layer, made cheaper per message; scaled:
channels-redis's publish/subscribe layer, made to recover from a Redis outage at once.

Channels' own walks every channel and group to expire old messages on each send and receive
(about 3% of a loaded server's time with a few hundred sockets) and starts a task per member
for a group send. This one sweeps at most once a second and hands a group message to each
member's queue directly. Delivery is unchanged: same queues, same capacity, same expiry.
"""

from __future__ import annotations

import logging
import time

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer
from redis.exceptions import ConnectionError as RedisConnectionError

logger = logging.getLogger(__name__)

SWEEP_SECONDS = 1.0


class InMemoryLayer(InMemoryChannelLayer):
    _swept = 0.0

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._swept >= SWEEP_SECONDS:
            self._swept = now
            super()._clean_expired()

    async def group_send(self, group: str, message: dict) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        for channel in list(self.groups.get(group, ())):
            try:
                await self.send(channel, message)  # a put without waiting: never suspends
            except ChannelFull:
                pass


class RedisPubSubLayer(RedisPubSubChannelLayer):
    """The scaled set-up's channel layer: channels-redis's publish/subscribe layer, with one
    retry of a socket's subscription. After a Redis outage the layer's subscriber connection is
    broken, and the first socket that opens once Redis is back failed on it (a 500 on the
    handshake) while the retry, on a fresh connection, succeeds."""

    async def new_channel(self, prefix: str = "specific.") -> str:
        try:
            return await self._get_layer().new_channel(prefix)
        except (RedisConnectionError, OSError):
            logger.warning("subscribing a new socket failed; retrying once (Redis came back?)", exc_info=True)
            return await self._get_layer().new_channel(prefix)
