"""The start hooks (games/runtime/starting.py): what a server process sets going once when it
starts serving, each hook registered by the module that owns the work."""

import asyncio
import logging

from games.runtime import starting
from games.runtime.starting import CONNECTIONS, EVERY_SCOPE, RunStartHooks, StartHook
from games.ggp import manager as ggp_manager
from games.services import flagfall
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
    """A lifespan scope (a server that sends one) or a worker's first message starts it too."""
    settings.CLOCK_SWEEP_SECONDS = 30
    swept = []
    monkeypatch.setattr(flagfall, "_sweep", lambda: swept.append("swept") or 0)
    monkeypatch.setattr(flagfall, "db", on_the_loop)  # the sweep itself touches no database here
    monkeypatch.setattr(flagfall, "_sweeping", set())
    sweep = next(hook for hook in starting.registered() if hook.name == "the clock sweep")
    server = RunStartHooks(served_by([]), [sweep])
    await server({"type": "lifespan"}, None, None)
    try:
        await until(lambda: swept, "the sweep at the first scope")
    finally:
        for task in asyncio.all_tasks():
            if task.get_coro().__name__ == "_sweep_forever":
                task.cancel()
    assert swept == ["swept"]


async def test_every_process_looks_for_stalled_ggp_matches_on_a_timer(settings, monkeypatch):
    """From its first scope of any type (a worker's first message too), and then every
    ``GGP_RESUME_SECONDS``; never with 0."""
    looked = []
    monkeypatch.setattr(ggp_manager, "resume_stalled", lambda: looked.append("looked") or 0)
    monkeypatch.setattr(ggp_manager, "db", on_the_loop)  # no database here
    resume = next(hook for hook in starting.registered() if hook.name == "the GGP resume")
    settings.GGP_RESUME_SECONDS = 0
    await RunStartHooks(served_by([]), [resume])({"type": "channel"}, None, None)
    assert not any(task.get_coro().__name__ == "_resume_forever" for task in asyncio.all_tasks())
    settings.GGP_RESUME_SECONDS = 0.01
    await RunStartHooks(served_by([]), [resume])({"type": "channel"}, None, None)
    try:
        await until(lambda: len(looked) >= 2, "two looks on the timer")
    finally:
        for task in asyncio.all_tasks():
            if task.get_coro().__name__ == "_resume_forever":
                task.cancel()
