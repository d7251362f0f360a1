"""The start hooks (games/runtime/starting.py): what a server process sets going once when it
starts serving, each hook registered by the module that owns the work."""

import asyncio
import logging

import pytest
from channels.worker import Worker

from games.ggp import manager as ggp_manager
from games.runtime import starting
from games.runtime.starting import CONNECTIONS, EVERY_SCOPE, RunStartHooks, StartHook, StartingWorker
from games.services import flagfall
from tests.support.handoffs import handoff_replaced
from tests.support.waits import until


def served_by(served: list):
    async def app(scope, receive, send):
        served.append(scope["type"])

    return app


def on_the_loop(func):
    async def call(*args, **kwargs):
        return func(*args, **kwargs)

    return call


async def test_each_hook_runs_once_at_the_first_scope_of_a_type_it_names():
    ran, served = [], []
    hooks = [StartHook("on connections", lambda: ran.append("on connections"), CONNECTIONS),
             StartHook("on every scope", lambda: ran.append("on every scope"), EVERY_SCOPE)]
    server = RunStartHooks(served_by(served), hooks)
    await server({"type": "lifespan"}, None, None)
    assert ran == ["on every scope"]
    for kind in ("channel", "websocket", "http", "websocket"):
        await server({"type": kind}, None, None)
    assert ran == ["on every scope", "on connections"]
    assert served == ["lifespan", "channel", "websocket", "http", "websocket"]


async def test_a_failing_hook_is_one_warning_and_neither_the_others_nor_the_connection_stop(caplog):
    ran, served = [], []

    def broken():
        raise OSError("no space left\non device")

    hooks = [StartHook("broken", broken, CONNECTIONS), StartHook("fine", lambda: ran.append("fine"), CONNECTIONS)]
    server = RunStartHooks(served_by(served), hooks)
    with caplog.at_level(logging.WARNING, logger="games.runtime.starting"):
        await server({"type": "websocket"}, None, None)
        await server({"type": "http"}, None, None)  # a failed hook is not tried again
    assert ran == ["fine"] and served == ["websocket", "http"]
    warning, = [r for r in caplog.records if r.name == "games.runtime.starting"]
    assert warning.levelno == logging.WARNING and warning.exc_info is None
    assert warning.getMessage() == ("start hook 'broken' failed, the server serves on without it: "
                                    "OSError: no space left on device")


def test_the_served_application_runs_the_hooks_the_modules_registered():
    from config import asgi

    assert isinstance(asgi.application, RunStartHooks) and asgi.application.hooks is None
    hooks = {hook.name: hook for hook in starting.registered()}
    assert hooks["the clock sweep"].scopes == EVERY_SCOPE
    assert hooks["the analysis queue"].scopes == CONNECTIONS
    assert hooks["the GGP resume"].scopes == EVERY_SCOPE


async def test_the_clock_sweep_starts_at_the_first_scope_of_any_type(settings, monkeypatch):
    """A lifespan scope (a server that sends one) or a worker's first message starts it too.
    Once it has swept, it asks for every pending computer turn (a restart lost them)."""
    settings.CLOCK_SWEEP_SECONDS = 30
    swept = []
    handoff_replaced(monkeypatch, flagfall.SERVICES, clock_sweep=lambda: swept.append("swept") or 0,
                     computer_turns_resume=lambda *, stalled_only: swept.append(("resumed", stalled_only)) or 0)
    monkeypatch.setattr(flagfall, "db", on_the_loop)  # the sweep itself touches no database here
    monkeypatch.setattr(flagfall, "_sweeping", set())
    sweep = next(hook for hook in starting.registered() if hook.name == "the clock sweep")
    server = RunStartHooks(served_by([]), [sweep])
    await server({"type": "lifespan"}, None, None)
    try:
        await until(lambda: len(swept) >= 2, "the sweep at the first scope")
    finally:
        for task in asyncio.all_tasks():
            if task.get_coro().__name__ == "_sweep_forever":
                task.cancel()
    assert swept == ["swept", ("resumed", False)]


def resume_tasks() -> list[asyncio.Task]:
    return [task for task in asyncio.all_tasks() if task.get_coro().__name__ == "_resume_forever"]


@pytest.fixture
async def no_resume_yet(monkeypatch):
    looked = []
    monkeypatch.setattr(ggp_manager, "resume_stalled", lambda: looked.append("looked") or 0)
    monkeypatch.setattr(ggp_manager, "db", on_the_loop)  # no database here
    yield looked
    for task in resume_tasks():
        task.cancel()


async def test_the_embedded_server_looks_for_stalled_ggp_matches_on_a_timer(settings, no_resume_yet):
    """From its first scope of any type, and then every ``GGP_RESUME_SECONDS``; never with 0,
    and not in a web process of the scaled set-up (the GGP workers look there)."""
    resume = next(hook for hook in starting.registered() if hook.name == "the GGP resume")
    settings.COMPUTER_WORKERS = "pool"
    settings.GGP_RESUME_SECONDS = 0
    await RunStartHooks(served_by([]), [resume])({"type": "http"}, None, None)
    settings.COMPUTER_WORKERS = "channel"
    settings.GGP_RESUME_SECONDS = 0.01
    await RunStartHooks(served_by([]), [resume])({"type": "http"}, None, None)
    assert not resume_tasks()
    settings.COMPUTER_WORKERS = "pool"
    await RunStartHooks(served_by([]), [resume])({"type": "http"}, None, None)
    await until(lambda: len(no_resume_yet) >= 2, "two looks on the timer")


@pytest.fixture
def worker_listening(monkeypatch):
    """A ``StartingWorker`` on some channels whose own work (Channels' ``Worker.handle``:
    listening for messages) does nothing here."""
    async def nothing(self):
        return None

    monkeypatch.setattr(Worker, "handle", nothing)
    return lambda *channels: StartingWorker(application=None, channels=list(channels), channel_layer=object())


async def test_a_ggp_worker_looks_for_stalled_ggp_matches_as_it_starts(settings, no_resume_yet, worker_listening):
    """Before any message comes (after a restart nobody may ask), in the scaled set-up only;
    a worker of the computer's channel alone does not."""
    settings.GGP_RESUME_SECONDS = 0.01
    settings.COMPUTER_WORKERS = "channel"
    settings.ANALYSIS_WORKERS = "off"
    await worker_listening("computer").handle()
    assert not resume_tasks()
    await worker_listening("computer", "ggp").handle()
    await until(lambda: len(no_resume_yet) >= 2, "two looks on the timer")
    assert len(resume_tasks()) == 1


def test_worker_hooks_are_named_by_channel():
    starting_hooks = dict(starting._worker_hooks)
    try:
        starting._worker_hooks.clear()
        starting.on_worker_start("a", lambda: None, channel="one")
        starting.on_worker_start("b", lambda: None, channel="two")
        starting.on_worker_start("c", lambda: None, channel="two")
        starting.on_worker_start("a", lambda: None, channel="two")  # registered again: replaced
        assert starting.worker_hooks(["two"]) == ["a", "b", "c"]
        assert starting.worker_hooks(["one"]) == []
        assert starting.worker_hooks(["one", "two", "three"]) == ["a", "b", "c"]
    finally:
        starting._worker_hooks.clear()
        starting._worker_hooks.update(starting_hooks)


async def test_a_failing_worker_hook_is_one_warning_and_the_worker_runs_on(caplog, worker_listening):
    starting_hooks = dict(starting._worker_hooks)
    ran = []

    def broken():
        raise OSError("no space left")

    try:
        starting._worker_hooks.clear()
        starting.on_worker_start("broken", broken, channel="one")
        starting.on_worker_start("fine", lambda: ran.append("fine"), channel="one")
        with caplog.at_level(logging.WARNING, logger="games.runtime.starting"):
            await worker_listening("one").handle()
    finally:
        starting._worker_hooks.clear()
        starting._worker_hooks.update(starting_hooks)
    assert ran == ["fine"]
    warning, = [r for r in caplog.records if r.name == "games.runtime.starting"]
    assert warning.getMessage() == "start hook 'broken' failed, the server serves on without it: OSError: no space left"
