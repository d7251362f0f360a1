"""The channel layers. Embedded: Channels' in-memory layer, made cheaper per message; scaled:
channels-redis's publish/subscribe layer, made to recover from a Redis outage at once and to
publish without queueing.

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
import time
import uuid
from collections import deque

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer
from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)
from channels_redis.utils import _wrap_close
from redis.exceptions import ConnectionError as RedisConnectionError

from games.runtime import outages
from live.batches import Batches, first

SWEEP_SECONDS = 1.0
SUBSCRIBE_ATTEMPTS = 4
# The layer's Redis connections have no timeout of their own (``socket_timeout`` is None in the
# settings): redis-py bounds each command by running it as a task of its own, which cost a
# loaded process more than the publish. A publish is bounded here instead, whole (connecting
# included), by one timer: a Redis that stopped answering fails it instead of holding it.
PUBLISH_SECONDS = 5.0
PUBLISH_BATCH = 64  # messages in one pipeline at most
RECONNECT_SECONDS = 0.5  # between the reader's tries to reach Redis again
LAYER_DOWN = {"type": "socket.layer_down"}  # to every socket of a process that lost Redis


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
    """The scaled set-up's channel layer: channels-redis's publish/subscribe layer, with

    - retries of a socket's subscriptions. After a Redis outage the layer's subscriber
      connection is broken, and the first socket that opens once Redis is back failed on it (a
      500 on the handshake) while a retry, on a fresh connection, succeeds;
    - publishing without the connection's lock (``_Shard``);
    - a message to a group decoded once for all of this process's members, not once each;
    - the layer's calls made directly rather than through ``__getattr__`` and a partial.
    """

    def _get_layer(self) -> RedisPubSubLoopLayer:
        loop = asyncio.get_running_loop()
        layer = self._layers.get(loop)
        if layer is None:
            layer = self._layers[loop] = _LoopLayer(*self._args, **self._kwargs, channel_layer=self)
            _wrap_close(self, loop)
        return layer

    def deserialize(self, message):
        if type(message) is dict:  # decoded once already (``_Shard._receive_message``)
            return dict(message)
        return super().deserialize(message)

    async def _subscribing(self, call):
        """``await call()``, a subscription, tried again on a failure of the connection."""
        for attempt in range(1, SUBSCRIBE_ATTEMPTS):
            try:
                return await call()
            except (RedisConnectionError, OSError, RuntimeError) as err:
                # RuntimeError: the subscription reconnected while the layer's reader waited on
                # the same connection ("readuntil() called while another coroutine is already
                # waiting"), a race in channels-redis that only a reconnect after an outage meets.
                outages.report("subscribing a socket (retried)", err)
                await asyncio.sleep(0.05 * attempt)
        return await call()

    async def new_channel(self, prefix: str = "specific.") -> str:
        return await self._subscribing(lambda: self._get_layer().new_channel(prefix))

    async def group_add(self, group: str, channel: str) -> None:
        await self._subscribing(lambda: self._get_layer().group_add(group, channel))

    async def send(self, channel: str, message: dict) -> None:
        await self._get_layer().send(channel, message)

    async def receive(self, channel: str) -> dict:
        layer = self._get_layer()
        if channel in layer.channels:  # a socket's (``new_channel``), or a named one already subscribed
            return await layer.receive(channel)
        # A named channel (a worker's ``computer``) is subscribed here first: while Redis is away
        # the worker waits for it, as it would for a message, rather than fail and exit.
        while True:
            try:
                return await layer.receive(channel)
            except (RedisConnectionError, OSError) as err:
                layer.channels.pop(channel, None)
                outages.report(f"listening to channel {channel} (retrying)", err)
                await asyncio.sleep(RECONNECT_SECONDS)

    async def group_discard(self, group: str, channel: str) -> None:
        await self._get_layer().group_discard(group, channel)

    async def group_send(self, group: str, message: dict) -> None:
        await self._get_layer().group_send(group, message)


class _LoopLayer(RedisPubSubLoopLayer):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._shards = [_Shard(shard.host, self) for shard in self._shards]

    async def new_channel(self, prefix: str = "specific.") -> str:
        """channels-redis's, less the queue it leaves behind when subscribing fails."""
        channel = f"{self.prefix}{prefix}{uuid.uuid4().hex}"
        try:
            await self._subscribe_to_channel(channel)
        except BaseException:
            self.channels.pop(channel, None)
            raise
        return channel


def _same_kind(waiting: deque) -> list:
    """The subscription changes at the front of the queue of one kind (subscribe, unsubscribe)."""
    kind, run = waiting[0][0][0], []
    while waiting and waiting[0][0][0] == kind:
        run.append(waiting.popleft())
    return run


class _Shard(RedisSingleShardConnection):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._changes = Batches(self._send_changes, _same_kind, lock=self._lock)  # exclusive with ``flush``
        self._outbox = Batches(self._publish_batch, first(PUBLISH_BATCH))

    # Subscriptions. channels-redis sends each SUBSCRIBE and UNSUBSCRIBE under the connection's
    # lock, one at a time; at a loaded server each waits a turn of the event loop, and 800
    # sockets opening within 5 s (two subscriptions each) queued for seconds. Here the changes
    # asked for while one is under way wait together and leave as one command per run of the
    # same kind, in the order asked. Each caller still returns once its command was sent.
    async def subscribe(self, channel: str) -> None:
        await self._changes.put(("subscribe", channel))

    async def unsubscribe(self, channel: str) -> None:
        await self._changes.put(("unsubscribe", channel))

    async def _send_changes(self, changes: list[tuple[str, str]]) -> None:
        await self._send_change(changes[0][0], [channel for _, channel in changes])

    async def _send_change(self, kind: str, channels: list[str]) -> None:
        subscribing = kind == "subscribe"
        todo = [c for c in dict.fromkeys(channels) if (c in self._subscribed_to) != subscribing]
        if not todo:
            return
        self._ensure_redis()
        self._ensure_receiver()
        try:
            await getattr(self._pubsub, kind)(*todo)
        except (RedisConnectionError, OSError) as err:
            if subscribing:
                raise
            # Redis is away (a page closing in an outage): its subscriptions went with the
            # connection. Forget these, so that the reconnect does not take them up again.
            outages.report("unsubscribing a closed socket", err)
            for channel in todo:
                self._pubsub.channels.pop(channel, None)
        if subscribing:
            self._subscribed_to.update(todo)
        else:
            self._subscribed_to.difference_update(todo)

    # Publishing. channels-redis holds the connection's lock for each publish's whole round
    # trip, so a process published one message at a time, each waiting for the last one's
    # answer and for every subscription under way: at a loaded server, the limit of the scaled
    # set-up. Here the messages asked for while a batch is on its way wait together and leave as
    # the next batch, one pipeline (one round trip; redis-py's machinery per command cost a
    # loaded process more than Redis itself). A message that finds none on its way leaves at
    # once. Each caller returns once Redis has its message; the order of one group's messages
    # is kept by their sender (``games.services.broadcast``), which waits for each before the next.
    async def publish(self, channel: str, message: bytes) -> None:
        await self._outbox.put((channel, message))

    async def _publish_batch(self, batch: list) -> None:
        """A batch on a pooled connection that Redis closed (it restarted) is tried once more:
        its messages did not reach a server that no longer exists. Each try has
        ``PUBLISH_SECONDS`` (redis-py drops a connection whose command was cut short)."""
        self._ensure_redis()  # synchronous: no other task runs between the check and the set
        for attempt in (1, 2):
            try:
                async with asyncio.timeout(PUBLISH_SECONDS):
                    pipe = self._redis.pipeline(transaction=False)
                    for channel, message in batch:
                        pipe.publish(channel, message)
                    await pipe.execute()
                return
            except RedisConnectionError:
                if attempt == 2:
                    raise
                await asyncio.sleep(0.05)

    # Receiving. channels-redis's reader logs a traceback every second while Redis is away and
    # leaves the sockets waiting for messages that cannot come. Here losing Redis is logged
    # once, and every socket of this process is told (``socket.layer_down``): each tells its
    # page to retry, with close code 4503, and the page resyncs once Redis is back. redis-py
    # reconnects on the next read and subscribes again to what is still listened to.
    async def _do_receiving(self) -> None:
        lost = False
        while True:
            try:
                if self._pubsub and self._pubsub.subscribed:
                    message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=0.1)
                    if lost:
                        lost = False
                        outages.recovered("Redis")
                    self._receive_message(message)
                else:
                    await asyncio.sleep(0.1)
            except (asyncio.CancelledError, asyncio.TimeoutError, GeneratorExit):
                raise
            except Exception as err:  # Redis is away, or the reply was cut short
                if not lost:
                    lost = True
                    self._tell_sockets()
                outages.report("listening to Redis (reconnecting)", err)
                await asyncio.sleep(RECONNECT_SECONDS)

    def _tell_sockets(self) -> None:
        """Every socket of this process (a channel of ``new_channel``; never a worker's named
        channel) is told that the layer lost Redis."""
        layer = self.channel_layer
        sockets = f"{layer.prefix}specific."
        for name, queue in layer.channels.items():
            if name.startswith(sockets):
                queue.put_nowait(dict(LAYER_DOWN))

    def _receive_message(self, message) -> None:
        if message is None:
            return
        name = message["channel"]
        if isinstance(name, bytes):
            name = name.decode()
        layer = self.channel_layer
        names = (name,) if name in layer.channels else tuple(layer.groups.get(name, ()))
        queues = [layer.channels[n] for n in names if n in layer.channels]
        if queues:
            decoded = layer.channel_layer.deserialize(message["data"])
            for queue in queues:
                queue.put_nowait(decoded)
