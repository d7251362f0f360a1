"""Who runs the post-game analyses, and when (the jobs themselves: ``games/services/analysis.py``
keeps the queue in the database, ``games/computer/analysis.py`` evaluates the positions).

A request asks for the queue to run after its commit, and so does a server process when it
starts serving (its start hook, ``games.runtime.starting``): jobs queued before a restart are
picked up, and those the old process of this host left running are taken back at once. Where the positions are evaluated (``ANALYSIS_WORKERS``, as for the computer's turns):

``pool``     the embedded set-up: one process of this server's own (never the web interpreter);
``channel``  the scaled set-up: a message on the ``computer`` channel, taken by a worker process
             (``manage.py runworker computer``), which runs the queue in a thread of its own;
``inline``   tests of the service layer: right here, after commit, in the calling thread;
``off``      nothing runs by itself (tests that look at the queue, benchmarks run ``run_here``).

Each process runs at most one queue at a time; several processes share the queue safely (a
job is taken by a conditional update). Each position's evaluation is stored as it comes, which
is the page's progress; the database away is waited out, as for the computer's turns.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache, partial
from typing import Any, Protocol

from channels.layers import get_channel_layer
from django.conf import settings
from django.db import transaction

from games.computer import search
from games.computer.analysis import evaluate_position
from games.runtime import eventloop, outages, starting
from games.runtime.dbthreads import db
from games.runtime.handoffs import Handoff

CHANNEL = "computer"
RETRY_SECONDS = 2.0

_wake: dict[asyncio.AbstractEventLoop, asyncio.Event] = {}  # the loops running the queue: a request sets it


class ClaimedJob(Protocol):
    """A job taken from the queue (``games.services.analysis.AnalysisJob``), as plain values."""

    @property
    def analysis_id(self) -> int: ...
    @property
    def claim(self) -> str: ...
    @property
    def ruleset(self) -> str: ...
    @property
    def rounds(self) -> int: ...
    @property
    def positions(self) -> list[Any]: ...
    @property
    def done(self) -> list[dict[str, Any]]: ...
    def played(self, ply: int) -> str | None: ...


class AnalysisProgress(Protocol):
    def __call__(self, *, analysis_id: int, claim: str, evaluations: list[dict[str, Any]]) -> bool: ...


class AnalysisFail(Protocol):
    def __call__(self, *, analysis_id: int, claim: str, error: str) -> None: ...


@dataclass(frozen=True)
class AnalysisServices:
    """The queue's steps (``games.services.analysis``), which this runner calls: the services
    that ask it to run, so it cannot import them. ``analysis_claim`` takes the next job (None:
    none); ``analysis_progress`` stores the evaluations so far (False: the job is no longer
    this runner's); ``analysis_fail`` ends a job with an error; ``analysis_takeover_seconds``
    says how long until a silent worker's job may be taken over (None: no job is running)."""

    analysis_claim: Callable[[], ClaimedJob | None]
    analysis_progress: AnalysisProgress
    analysis_fail: AnalysisFail
    analysis_takeover_seconds: Callable[[], float | None]


SERVICES = Handoff(AnalysisServices, needed_by="games.computer.analysis_runs (the post-game analyses' runner)")


def run_on_commit() -> None:
    """After commit, have the queue run (a job was just queued)."""
    transaction.on_commit(request, robust=True)


def request() -> None:
    """Have the queue run, as ``ANALYSIS_WORKERS`` says. Outside a server (a management
    command, a shell) the pool is not started: the server runs the job at its next request or
    start, instead of the command waiting for it."""
    mode = settings.ANALYSIS_WORKERS
    if mode == "inline":
        run_here()
    elif mode == "channel":
        eventloop.run_coroutine(_to_worker)
    elif mode == "pool":
        eventloop.call_soon(lambda: asyncio.ensure_future(run_queue(_process_pool())))


def run_here(evaluate: Callable[..., dict] = evaluate_position) -> int:
    """Run every job that can be taken now, in this thread, to the end; how many were run."""
    services, runs = SERVICES.get(), 0
    while (job := services.analysis_claim()) is not None:
        runs += 1
        evaluations = list(job.done)
        try:
            for ply in range(len(evaluations), len(job.positions)):
                evaluations.append(evaluate(job.ruleset, job.positions[ply], ply, job.rounds, job.played(ply)))
                if not services.analysis_progress(analysis_id=job.analysis_id, claim=job.claim,
                                                  evaluations=evaluations):
                    break
        except Exception as err:
            services.analysis_fail(analysis_id=job.analysis_id, claim=job.claim, error=f"The search failed: {err}")
    return runs


async def run_queue(executor: Executor) -> None:
    """Run the queue on this event loop until it is empty, evaluating on ``executor``; once per
    loop (a request while it runs wakes it to look again). A job whose worker fell silent is
    waited for and taken over."""
    loop = asyncio.get_running_loop()
    if loop in _wake:
        _wake[loop].set()
        return
    wake = _wake[loop] = asyncio.Event()
    try:
        while True:
            wake.clear()
            try:
                job = await db(SERVICES.get().analysis_claim)()
                if job is not None:
                    await _run_job(job, executor)
                    continue
                wait = await db(SERVICES.get().analysis_takeover_seconds)()
            except outages.SERVICE_DOWN as err:
                outages.report_or_raise("a post-game analysis (retried)", err)
                await asyncio.sleep(RETRY_SECONDS)
                continue
            if wake.is_set():
                continue
            if wait is None:
                return
            try:
                await asyncio.wait_for(wake.wait(), wait)
            except TimeoutError:
                pass
    finally:
        del _wake[loop]


async def _run_job(job, executor: Executor) -> None:
    loop = asyncio.get_running_loop()
    evaluations = list(job.done)
    for ply in range(len(evaluations), len(job.positions)):
        try:
            found = await loop.run_in_executor(
                executor, partial(evaluate_position, job.ruleset, job.positions[ply], ply, job.rounds, job.played(ply)))
        except Exception as err:
            await db(SERVICES.get().analysis_fail)(analysis_id=job.analysis_id, claim=job.claim,
                                                   error=f"The search failed: {err}")
            return
        evaluations.append(found)
        if not await db(SERVICES.get().analysis_progress)(analysis_id=job.analysis_id, claim=job.claim,
                                                          evaluations=evaluations):
            return


async def _to_worker() -> None:
    try:
        await get_channel_layer().send(CHANNEL, {"type": "analysis.run"})
    except outages.SERVICE_DOWN as err:  # the next request, or the next start, asks again
        outages.report_or_raise("asking a worker to run the analyses", err)


def _run_left_over_jobs() -> None:
    """Jobs queued or left running before a restart: run them without waiting for a request."""
    if settings.ANALYSIS_WORKERS == "pool":
        asyncio.ensure_future(run_queue(_process_pool()))
    elif settings.ANALYSIS_WORKERS == "channel":
        asyncio.ensure_future(_to_worker())


def _run_the_queue_in_this_worker() -> None:
    """A worker on the computer's channel runs the queue as it starts: the jobs queued while no
    worker ran. The message that asked for them reached nobody (the publish/subscribe layer
    keeps no message for a channel nobody listens to)."""
    if settings.ANALYSIS_WORKERS == "channel":
        eventloop.start(run_queue(analysis_thread()))


starting.on_start("the analysis queue", _run_left_over_jobs)
starting.on_worker_start("the analysis queue", _run_the_queue_in_this_worker, channel=CHANNEL)


@cache
def _process_pool() -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                               initializer=search.give_way, initargs=(settings.COMPUTER_NICE,))


@cache
def analysis_thread() -> ThreadPoolExecutor:
    """For a worker process: evaluate in a thread of its own, apart from the computer's turns."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="analysis",
                              initializer=search.give_way, initargs=(settings.COMPUTER_NICE,))
