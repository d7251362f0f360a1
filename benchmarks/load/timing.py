"""What the load client and the boardgame.io driver share, so neither imports the other: the
samples a client process records, the run's deadline, the pace of one slot's moves, and how a
player waits for its next state and a match's tasks end. Standard library only."""

from __future__ import annotations

import asyncio
import random
import time


class Recorder:
    def __init__(self) -> None:
        self.acks: list[float] = []
        self.deliveries: list[float] = []
        self.ack_sent: list[float] = []  # when each ack's move was sent (perf_counter)
        self.delivery_sent: list[float] = []
        self.first_state: list[float] = []
        self.errors = 0
        self.failed_handshakes = 0
        self.exhausted_slots = 0
        self.error_samples: list[str] = []
        self.moves = 0
        self.stalls = 0

    def ack(self, seconds: float, in_time: bool) -> None:
        """A mover's ack; ``in_time`` when it came before the deadline (those make moves/s)."""
        self.acks.append(seconds)
        self.ack_sent.append(time.perf_counter() - seconds)
        self.moves += in_time

    def delivery(self, seconds: float) -> None:
        """A spectator received a state ``seconds`` after its move was sent."""
        self.deliveries.append(seconds)
        self.delivery_sent.append(time.perf_counter() - seconds)

    def steady(self, samples: list[float], sent: list[float], since: float) -> list[float]:
        """The samples of the moves sent from ``since`` on (after the warm-up)."""
        return [x for x, at in zip(samples, sent) if at >= since]

    def error(self, what: object) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(str(what)[:300])


class Clock:
    """Players stop sending at the deadline; ``stopped`` says when a slot should give up."""

    def __init__(self, seconds: float) -> None:
        self.started = time.perf_counter()
        self.deadline = self.started + seconds

    @property
    def stopped(self) -> bool:
        return time.perf_counter() >= self.deadline


class Pace:
    """The offered load of one slot: its moves are due at the times of a Poisson (``exp``) or
    regular (``fixed``) process of mean interval ``think[1]``, whoever moves and whatever game the
    slot is in, so answer times, reconnects between games and the ack's own latency do not lower
    the offered rate. A slot that falls behind moves at once, but never catches up on more than
    a second of backlog. The slot's first move is due a think after its first state: the time
    its sockets took to open at the start is no backlog (it made every slot's first moves a
    burst at once). Without ``think``, moves are sent at once (saturation)."""

    def __init__(self, think, rng: random.Random) -> None:
        self.think, self.rng = think, rng
        self.due: float | None = None

    async def wait(self) -> None:
        if not self.think:
            return
        distribution, mean = self.think
        now = time.perf_counter()
        since = now if self.due is None else max(self.due, now - 1.0)
        self.due = since + (self.rng.expovariate(1 / mean) if distribution == "exp" else mean)
        if self.due > now:
            await asyncio.sleep(self.due - now)


STALL_SECONDS = 5.0


async def next_or_resync(receive, resync, rec: Recorder, clock: Clock):
    """The next state from ``receive()``; after STALL_SECONDS of silence the stall is counted
    as an error and ``resync()`` asks the server for the current state (a lost move or state).
    None once the run's deadline has passed: the player to move has stopped by then, so
    silence is expected (the match's sockets close a few seconds later)."""
    while True:
        try:
            return await asyncio.wait_for(receive(), STALL_SECONDS)
        except asyncio.TimeoutError:
            if clock.stopped:
                return None
            rec.stalls += 1
            rec.error("no state for 5 s: resync")
            await resync()


async def settle(players: list, spectators: list, rec: Recorder) -> None:
    """Wait for a match's tasks. A game ends for everyone at once; at the deadline only the
    player to move stops, so the rest get a short grace and are then cancelled."""
    done, pending = await asyncio.wait(players, timeout=120, return_when=asyncio.FIRST_COMPLETED)
    if pending:
        await asyncio.wait(pending, timeout=3)
    await asyncio.wait(spectators, timeout=3)
    for task in players + spectators:
        if not task.done():
            task.cancel()
        elif task.exception() is not None:
            rec.error(repr(task.exception()))
