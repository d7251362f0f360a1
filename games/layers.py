"""The channel layers. Embedded: Channels' in-memory layer, made cheaper per message; scaled:
channels-redis's publish/subscribe layer, made to recover from a Redis outage at once.

Channels' own walks every channel and group to expire old messages on each send and receive
(about 3% of a loaded server's time with a few hundred sockets), starts a task per member for a
group send, deep-copies a message for every recipient and builds a queue it throws away on each
send and receive (together about 5% more). This one sweeps at most once a second, hands a group
message to each member's queue directly, gives each recipient a shallow copy (the app's messages
are flat: strings, numbers and lists nobody changes) and keeps a listening socket's queue between
messages. Delivery is unchanged: same queues, same capacity, same expiry.
"""

from __future__ import annotations

import asyncio
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

    def _queue(self, channel: str) -> asyncio.Queue:
        queue = self.channels.get(channel)
        if queue is None:
            queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
        return queue

    async def send(self, channel: str, message: dict) -> None:
        assert isinstance(message, dict), "message is not a dict"
        assert "__asgi_channel__" not in message
        self.require_valid_channel_name(channel)
        try:
            self._queue(channel).put_nowait((time.time() + self.expiry, dict(message)))
        except asyncio.QueueFull:
            raise ChannelFull(channel) from None

    async def receive(self, channel: str) -> dict:
        """The next message on ``channel``. The queue stays while its socket listens; when the
        listener goes (its receive is cancelled) an empty queue goes with it, as in Channels."""
        self.require_valid_channel_name(channel)
        self._clean_expired()
        queue = self._queue(channel)
        try:
            _, message = await queue.get()
        except BaseException:
            if queue.empty() and self.channels.get(channel) is queue:
                del self.channels[channel]
            raise
        return message

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
