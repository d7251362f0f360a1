"""A timer a server process starts with itself (``games.runtime.timers``): once per event loop,
its work repeated, a failure reported and tried again, none when its seconds are 0."""

import asyncio

import pytest

from games.runtime import starting, timers
from games.runtime.starting import EVERY_SCOPE
from tests.support.waits import until


@pytest.fixture(autouse=True)
def own_hooks(monkeypatch):
    """The test timers' hooks stay in this test (a live server in a later one runs every hook)."""
    monkeypatch.setattr(starting, "_hooks", dict(starting._hooks))


def on_the_loop(func):
    async def call(*args, **kwargs):
        return func(*args, **kwargs)

    return call


def repeating() -> list[asyncio.Task]:
    return [task for task in asyncio.all_tasks() if task.get_coro().__name__ == "_repeat"]


def hook(name: str) -> starting.StartHook:
    return next(h for h in starting.registered() if h.name == name)


async def test_the_work_repeats_once_per_loop_and_survives_a_failure(monkeypatch):
    monkeypatch.setattr(timers, "db", on_the_loop)
    done = []

    def work():
        done.append(len(done))
        if len(done) == 1:
            raise OSError("the database is away")

    timers.repeat_from_start("a test timer", work, lambda: 0.01)
    started = hook("a test timer")
    assert started.scopes == EVERY_SCOPE
    started.run()
    started.run()  # a second scope of the same loop starts nothing more
    try:
        await until(lambda: len(done) >= 3, "the work again after its failure")
        assert len(repeating()) == 1, "one timer per loop"
    finally:
        for task in repeating():
            task.cancel()


async def test_no_seconds_no_timer():
    timers.repeat_from_start("an idle test timer", lambda: None, lambda: 0)
    hook("an idle test timer").run()
    assert not repeating()


def test_the_arena_and_the_tournament_sweeps_start_with_every_server_process():
    names = {h.name: h.scopes for h in starting.registered()}
    assert names["the GGP arena"] == names["the tournament sweep"] == names["the arena pairing sweep"] == EVERY_SCOPE
