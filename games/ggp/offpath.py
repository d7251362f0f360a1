"""Where calls to GGP players run: never on a web request's path, never holding a database
connection or lock while a player thinks.

After a commit, ``run_on_commit(task, *args)`` hands the task (a name in ``TASKS``, plain
arguments) to the place ``COMPUTER_WORKERS`` names, as for the computer's turns:

``pool``     the embedded set-up: a thread pool of this server (``GGP_THREADS``). A call is
             network waiting, not thinking: threads wait in parallel and take no CPU;
``channel``  the scaled set-up: the Channels channel ``ggp``, taken by a worker process
             (``manage.py runworker ggp``; ``games/ggp/workers.py``);
``inline``   tests of the service layer: right here, in the calling thread.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cache

from asgiref.sync import SyncToAsync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import close_old_connections, transaction

from games.runtime import eventloop, outages

GGP_CHANNEL = "ggp"
logger = logging.getLogger(__name__)
TASKS: dict[str, Callable[..., object]] = {}


def task(func: Callable[..., object]) -> Callable[..., object]:
    """Make ``func`` a task that ``run_on_commit`` can hand to a worker by name."""
    TASKS[func.__name__] = func
    return func


def run_on_commit(name: str, *args) -> None:
    transaction.on_commit(lambda: run(name, *args), robust=True)


def run(name: str, *args) -> None:
    mode = settings.COMPUTER_WORKERS
    if mode == "inline":
        _inline(name, args)
    elif mode == "channel":
        eventloop.run_coroutine(_to_worker, name, list(args))
    else:
        _threads().submit(_run_for_loop, eventloop.server_loop(), name, *args)


_here = threading.local()


def _inline(name: str, args: tuple) -> None:
    """Run the task now; a task asked for while one runs in this thread (its move committed)
    waits in line until that one returns: no recursion, steps in order."""
    queue = getattr(_here, "queue", None)
    if queue is not None:
        queue.append((name, args))
        return
    _here.queue = [(name, args)]
    try:
        while _here.queue:
            task_name, task_args = _here.queue.pop(0)
            TASKS[task_name](*task_args)
    finally:
        _here.queue = None


async def _to_worker(name: str, args: list) -> None:
    try:
        await get_channel_layer().send(GGP_CHANNEL, {"type": "ggp.task", "name": name, "args": args})
    except outages.SERVICE_DOWN as err:
        outages.report_or_raise(f"asking a worker to call a GGP player ({name})", err)


def _run_for_loop(loop, name: str, *args) -> None:
    """``run_here`` on a pool thread, which hands what its commits set going (broadcasts, the
    computer's turn, flag timers) to the server's event loop ``loop`` as a database thread of
    that loop would (``eventloop.server_loop`` reads asgiref's thread-local; None: no server)."""
    local = SyncToAsync.threadlocal
    local.main_event_loop, local.main_event_loop_pid = loop, os.getpid()
    try:
        run_here(name, *args)
    finally:
        local.main_event_loop = local.main_event_loop_pid = None


def run_here(name: str, *args) -> None:
    """Run the task in this thread with its own database connection, closed after."""
    close_old_connections()
    try:
        TASKS[name](*args)
    except Exception:
        logger.exception("GGP task %s%r failed", name, args)
    finally:
        close_old_connections()


@cache
def _threads() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=settings.GGP_THREADS, thread_name_prefix="ggp")
