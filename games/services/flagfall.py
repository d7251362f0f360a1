"""Flag fall without a client: a match ends on time even if nobody sends anything.

Whichever process commits a change that leaves a clock running arms a timer on its event
loop for the match's deadline (one per match; a later change re-arms it). When it fires, the
flag service (``services.clock_flag``, handed over in ``SERVICES``) ends the match if its deadline
really passed, in its own idempotent transaction: a timer that another process's move made
obsolete finds a later deadline and re-arms for it. A sweep (``services.clock_sweep``) flags
every deadline missed while no process was watching it: when the server starts serving (its
start hook, ``games.runtime.starting``) and then every ``CLOCK_SWEEP_SECONDS`` (0: never; the
tests sweep by hand). After each pass it asks for the computer's turns no process is playing
(``services.computer_turns_resume``): at the first, every pending one (the turns being thought
about died with the last process; asked only now, the sweep has ended those whose clock ran out
meanwhile), then those waiting longer than a turn takes (a request lost for any other reason:
asked again within ``CLOCK_SWEEP_SECONDS`` of that, before most clocks run out, though a short
per-move play clock falls first). The sweep is already each process's one timer over all
matches: this costs it one query a pass while no turn is stalled, and no timer per turn.

With no event loop behind the committing thread (a management command, a service test),
nothing is armed here; the sweep covers such matches.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from django.conf import settings
from django.db import transaction

from games.match import clocks
from games.runtime import eventloop, outages, starting
from games.runtime.dbthreads import db
from games.runtime.handoffs import Handoff

logger = logging.getLogger(__name__)
RETRY_SECONDS = 2.0  # a flag fall that met the database down is tried again this soon

_timers: dict[int, tuple[datetime, asyncio.TimerHandle]] = {}  # match id -> deadline, timer (event loop only)
_sweeping: set[asyncio.AbstractEventLoop] = set()


class ClockFlag(Protocol):
    def __call__(self, *, match_id: int) -> datetime | None: ...


class ComputerTurnsResume(Protocol):
    def __call__(self, *, stalled_only: bool) -> int: ...


@dataclass(frozen=True)
class FlagfallServices:
    """The services the timers call; they arm the timers themselves (through ``records`` and
    ``lifecycle``), so this module cannot import them. ``clock_flag`` ends a match whose
    deadline passed and returns the deadline still ahead if there is one; ``clock_sweep`` flags
    every overdue match; ``computer_turns_resume`` asks for the computer's pending turns."""

    clock_flag: ClockFlag
    clock_sweep: Callable[[], int]
    computer_turns_resume: ComputerTurnsResume


SERVICES = Handoff(FlagfallServices, needed_by="games.services.flagfall (the flag-fall timers and the clock sweep)")


def arm_on_commit(match_id: int, deadline: datetime | None) -> None:
    """After commit, arm this process's timer for ``match_id``'s ``deadline``."""
    if deadline is not None:
        transaction.on_commit(lambda: eventloop.call_soon(arm, match_id, deadline), robust=True)


def arm(match_id: int, deadline: datetime) -> None:
    """On the event loop: fire at ``deadline`` (replacing an earlier timer of the match)."""
    loop = asyncio.get_running_loop()
    start_sweeping(loop)
    old = _timers.pop(match_id, None)
    if old is not None:
        old[1].cancel()
    delay = max((deadline - clocks.now()).total_seconds(), 0)
    _timers[match_id] = (deadline, loop.call_later(delay, lambda: asyncio.ensure_future(fire(match_id))))


def armed() -> dict[int, datetime]:
    """Each match with a timer in this process, and the deadline it waits for."""
    return {match_id: deadline for match_id, (deadline, _) in _timers.items()}


async def fire(match_id: int) -> None:
    """Flag ``match_id`` if its deadline passed (also called by tests, with the clock moved on)."""
    entry = _timers.pop(match_id, None)
    if entry is not None:
        entry[1].cancel()
    try:
        ahead = await db(SERVICES.get().clock_flag)(match_id=match_id)
    except Exception as err:
        if not outages.down(err):
            logger.exception("match %s: flag fall failed; the sweep will retry", match_id)
            return
        outages.report("a flag fall (retried)", err)  # the database is away: try again soon, not at the next sweep
        if match_id not in _timers:
            arm(match_id, clocks.now() + timedelta(seconds=RETRY_SECONDS))
        return
    if ahead is not None and match_id not in _timers:
        arm(match_id, ahead)


async def fire_due() -> None:
    """Fire every timer whose deadline has passed by ``clocks.now()`` (tests move the clock)."""
    now = clocks.now()
    for match_id in [m for m, (deadline, _) in _timers.items() if deadline <= now]:
        await fire(match_id)


def start_sweeping(loop: asyncio.AbstractEventLoop) -> None:
    """Sweep now and every ``CLOCK_SWEEP_SECONDS`` on ``loop`` (once per loop)."""
    if loop not in _sweeping and settings.CLOCK_SWEEP_SECONDS > 0:
        SERVICES.get()  # not handed over: say so now, not in the log of every pass
        _sweeping.add(loop)
        loop.call_soon(lambda: asyncio.ensure_future(_sweep_forever()))


async def _sweep_forever() -> None:
    stalled_only = False  # the first pass, as the process starts: every pending computer turn
    while True:
        try:
            services = SERVICES.get()
            await db(services.clock_sweep)()
            await db(services.computer_turns_resume)(stalled_only=stalled_only)
            stalled_only = True
        except Exception as err:
            outages.report_or_log(f"the clock sweep (again in {settings.CLOCK_SWEEP_SECONDS} s)", err, logger)
        await asyncio.sleep(settings.CLOCK_SWEEP_SECONDS)


def _sweep_from_the_start() -> None:
    start_sweeping(asyncio.get_running_loop())


# From the first scope of any type: a worker process (manage.py runworker) sweeps too.
starting.on_start("the clock sweep", _sweep_from_the_start, scopes=starting.EVERY_SCOPE)


def reset() -> None:
    """Cancel every timer of this process (tests)."""
    for _, handle in _timers.values():
        handle.cancel()
    _timers.clear()
