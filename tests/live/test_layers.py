"""The embedded channel layer (live/layers.py): same delivery as Channels' in-memory layer."""

import asyncio

import pytest
from channels.exceptions import ChannelFull

from live import layers
from tests.support.hung import hung_redis


async def test_a_group_message_reaches_every_member_once():
    layer = layers.InMemoryLayer()
    names = [await layer.new_channel() for _ in range(3)]
    for name in names:
        await layer.group_add("match.1", name)
    await layer.group_send("match.1", {"type": "match.state", "version": 7})
    for name in names:
        assert await asyncio.wait_for(layer.receive(name), 1) == {"type": "match.state", "version": 7}
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(layer.receive(name), 0.05)


async def test_a_full_member_does_not_stop_the_others():
    layer = layers.InMemoryLayer(capacity=1)
    full, free = await layer.new_channel(), await layer.new_channel()
    await layer.send(full, {"type": "x"})
    for name in (full, free):
        await layer.group_add("g", name)
    await layer.group_send("g", {"type": "y"})
    assert await asyncio.wait_for(layer.receive(free), 1) == {"type": "y"}
    assert await asyncio.wait_for(layer.receive(full), 1) == {"type": "x"}


async def test_expired_messages_are_still_swept(monkeypatch):
    layer = layers.InMemoryLayer(expiry=0)
    name = await layer.new_channel()
    await layer.group_add("g", name)
    await layer.send(name, {"type": "old"})
    await asyncio.sleep(0.01)
    monkeypatch.setattr(layers, "SWEEP_SECONDS", 0)
    await layer.group_send("other", {"type": "z"})  # any call sweeps
    assert name not in layer.channels and name not in layer.groups.get("g", {})


async def test_members_do_not_share_one_message_dict():
    layer = layers.InMemoryLayer()
    first, second = await layer.new_channel(), await layer.new_channel()
    for name in (first, second):
        await layer.group_add("g", name)
    sent = {"type": "match.state", "version": 3}
    await layer.group_send("g", sent)
    received = await asyncio.wait_for(layer.receive(first), 1)
    received["version"] = 99
    assert await asyncio.wait_for(layer.receive(second), 1) == {"type": "match.state", "version": 3}
    assert sent == {"type": "match.state", "version": 3}


async def test_a_listener_keeps_its_queue_and_a_closed_one_leaves_none():
    layer = layers.InMemoryLayer()
    name = await layer.new_channel()
    waiting = asyncio.ensure_future(layer.receive(name))
    await asyncio.sleep(0)
    await layer.send(name, {"type": "a"})
    assert await asyncio.wait_for(waiting, 1) == {"type": "a"}
    assert name in layer.channels  # kept for the next message
    waiting = asyncio.ensure_future(layer.receive(name))
    await asyncio.sleep(0)
    waiting.cancel()  # the socket closed
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert name not in layer.channels


async def test_a_full_channel_refuses_without_building_anything():
    layer = layers.InMemoryLayer(capacity=1)
    name = await layer.new_channel()
    await layer.send(name, {"type": "a"})
    with pytest.raises(ChannelFull):
        await layer.send(name, {"type": "b"})
    assert await asyncio.wait_for(layer.receive(name), 1) == {"type": "a"}


def redis_layer():
    from django.conf import settings

    if not settings.REDIS_URL:
        pytest.skip("needs REDIS_URL")
    config = dict(settings.CHANNEL_LAYERS["default"]["CONFIG"], prefix="layer-test")
    return layers.RedisPubSubLayer(**config)


@pytest.mark.services
async def test_redis_a_group_message_is_decoded_once_for_all_members(monkeypatch):
    layer = redis_layer()
    names = [await layer.new_channel() for _ in range(3)]
    for name in names:
        await layer.group_add("match.1", name)
    decoded = []
    original = layers.RedisPubSubChannelLayer.deserialize
    monkeypatch.setattr(layers.RedisPubSubChannelLayer, "deserialize",
                        lambda self, message: decoded.append(message) or original(self, message))
    await layer.group_send("match.1", {"type": "match.state", "version": 7})
    received = [await asyncio.wait_for(layer.receive(name), 2) for name in names]
    assert received == [{"type": "match.state", "version": 7}] * 3
    assert len(decoded) == 1
    received[0]["version"] = 8  # each member has its own copy
    assert received[1]["version"] == 7
    await layer.flush()


@pytest.mark.services
async def test_redis_publishing_does_not_wait_for_a_subscription_under_way():
    layer = redis_layer()
    name = await layer.new_channel()
    await layer.group_add("g", name)
    shard = layer._get_layer()._shards[0]
    async with shard._lock:  # as while another socket subscribes
        await asyncio.wait_for(layer.group_send("g", {"type": "x"}), 2)
        assert await asyncio.wait_for(layer.receive(name), 2) == {"type": "x"}
    await layer.flush()


@pytest.mark.services
async def test_redis_subscriptions_asked_together_leave_as_few_commands(monkeypatch):
    from redis.asyncio.client import PubSub

    layer = redis_layer()
    commands = []
    original = PubSub.execute_command
    monkeypatch.setattr(PubSub, "execute_command",
                        lambda self, *args: commands.append(args[0]) or original(self, *args))
    names = await asyncio.gather(*(layer.new_channel() for _ in range(20)))
    await asyncio.gather(*(layer.group_add(f"g{n}", name) for n, name in enumerate(names)))
    assert 2 <= commands.count("SUBSCRIBE") <= 4  # 40 subscriptions; one command each before
    for n, name in enumerate(names):
        await layer.group_send(f"g{n}", {"type": "x", "n": n})
    for n, name in enumerate(names):
        assert await asyncio.wait_for(layer.receive(name), 2) == {"type": "x", "n": n}
    await layer.flush()


@pytest.mark.services
async def test_redis_subscribing_and_leaving_together_keep_their_order():
    layer = redis_layer()
    stays, goes = await layer.new_channel(), await layer.new_channel()
    await asyncio.gather(layer.group_add("back", stays), layer.group_discard("back", stays),
                         layer.group_add("back", stays), layer.group_add("gone", goes),
                         layer.group_discard("gone", goes))
    shard = layer._get_layer()._shards[0]
    assert "layer-test__group__back" in shard._subscribed_to
    assert "layer-test__group__gone" not in shard._subscribed_to
    await layer.group_send("back", {"type": "x"})
    await layer.group_send("gone", {"type": "y"})
    assert await asyncio.wait_for(layer.receive(stays), 2) == {"type": "x"}
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(layer.receive(goes), 0.3)
    await layer.flush()


@pytest.mark.services
async def test_redis_messages_asked_for_together_leave_as_one_pipeline_in_order(monkeypatch):
    from redis.asyncio.client import Pipeline

    layer = redis_layer()
    name = await layer.new_channel()
    await layer.group_add("g", name)
    batches = []
    original = Pipeline.execute

    async def counting(self, *args, **kwargs):
        batches.append(len(self.command_stack))
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(Pipeline, "execute", counting)
    await layer.group_send("g", {"type": "x", "n": 0})  # alone: leaves at once, by itself
    await asyncio.gather(*(layer.group_send("g", {"type": "x", "n": n}) for n in range(1, 11)))
    assert batches == [1, 10]
    received = [await asyncio.wait_for(layer.receive(name), 2) for _ in range(11)]
    assert [m["n"] for m in received] == list(range(11))
    await layer.flush()


@pytest.mark.services
@pytest.mark.parametrize("what", ["subscriptions", "messages"])
async def test_redis_a_failed_batch_fails_everyone_who_waited_for_it_and_the_next_one_goes(what, monkeypatch):
    from redis.asyncio.client import Pipeline

    layer = redis_layer()
    name = await layer.new_channel()
    await layer.group_add("g", name)
    shard = layer._get_layer()._shards[0]

    async def broken(*args, **kwargs):
        raise ConnectionError("Redis went away")

    if what == "subscriptions":
        monkeypatch.setattr(shard, "_send_change", broken)
        asked = [shard.subscribe(f"c{n}") for n in range(5)]
    else:
        monkeypatch.setattr(Pipeline, "execute", broken)
        asked = [layer.group_send("g", {"type": "x"}) for _ in range(5)]
    results = await asyncio.gather(*asked, return_exceptions=True)
    assert all(isinstance(r, ConnectionError) for r in results)
    monkeypatch.undo()
    await layer.group_add("after", name)  # the next ones go through
    await layer.group_send("after", {"type": "z"})
    assert await asyncio.wait_for(layer.receive(name), 2) == {"type": "z"}
    await layer.flush()


@pytest.mark.services
async def test_redis_a_batch_on_a_connection_redis_closed_is_tried_once_more(monkeypatch):
    from redis.asyncio.client import Pipeline

    layer = redis_layer()
    name = await layer.new_channel()
    await layer.group_add("g", name)
    original, tries = Pipeline.execute, []

    async def first_fails(self, *args, **kwargs):
        tries.append(1)
        if len(tries) == 1:
            raise layers.RedisConnectionError("Connection closed by server.")
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(Pipeline, "execute", first_fails)
    await layer.group_send("g", {"type": "x"})
    assert len(tries) == 2
    assert await asyncio.wait_for(layer.receive(name), 2) == {"type": "x"}
    await layer.flush()


async def test_a_publish_to_a_redis_that_stopped_answering_fails_in_time(monkeypatch):
    """The layer's connections have no timeout of their own: the layer bounds each publish."""
    monkeypatch.setattr(layers, "PUBLISH_SECONDS", 0.3)
    async with hung_redis() as (url, heard):
        layer = layers.RedisPubSubLayer(hosts=[{"address": url, "socket_timeout": None}], prefix="silent")
        started = asyncio.get_running_loop().time()
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(layer.group_send("g", {"type": "x"}), 5)
        assert asyncio.get_running_loop().time() - started < 2 and heard  # it did reach the server


def test_redis_replies_are_parsed_by_hiredis():
    """redis-py uses the compiled parser when a compatible hiredis is installed, and falls back
    to its pure-Python one in silence otherwise (about a third of the time a loaded server
    spent in redis-py, profiled)."""
    from redis.asyncio.connection import DefaultParser
    from redis.utils import HIREDIS_AVAILABLE

    assert HIREDIS_AVAILABLE and "Hiredis" in DefaultParser.__name__
