"""Handing work from a database thread to the server's event loop without waiting for it.

A service runs on a database thread (``games.runtime.dbthreads``); what it starts after commit (a
broadcast, the computer's turn) belongs on the event loop that called it, so that thread is
free for the next database call at once.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable

from asgiref.sync import SyncToAsync, async_to_sync


def server_loop() -> asyncio.AbstractEventLoop | None:
    """The running event loop that called into this thread through sync_to_async, if any."""
    if getattr(SyncToAsync.threadlocal, "main_event_loop_pid", None) != os.getpid():
        return None
    loop = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    return loop if loop is not None and loop.is_running() else None


def call_soon(callback: Callable[..., object], *args) -> bool:
    """Run ``callback(*args)`` on the server's event loop soon; False when there is none."""
    loop = server_loop()
    if loop is None:
        return False
    loop.call_soon_threadsafe(callback, *args)
    return True


_kept: set[asyncio.Task] = set()


def start(awaitable: Awaitable[object]) -> asyncio.Task:
    """Start ``awaitable`` as a task on the running loop, held until it ends (the loop keeps only
    weak references to its tasks: one nobody holds can be collected half way)."""
    task = asyncio.ensure_future(awaitable)
    _kept.add(task)
    task.add_done_callback(_kept.discard)
    return task


def run_coroutine(factory: Callable[..., Awaitable[object]], *args) -> None:
    """Start ``factory(*args)`` as a task on the server's event loop without waiting for it;
    with no loop behind this thread (a management command, a test), run it to the end here."""
    if not call_soon(lambda: asyncio.ensure_future(factory(*args))):
        async_to_sync(factory)(*args)
