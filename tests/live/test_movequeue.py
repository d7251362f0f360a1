"""The moves' line to the database thread (live/movequeue.py): a move that finds it idle goes
alone and at once; moves that arrive while a batch is on the thread go together as the next;
each waiting socket gets its own move's answer, and a failed call fails every move in it."""

import asyncio
import threading

import pytest
from channels.db import database_sync_to_async
from django.db import OperationalError
from django.test import override_settings

from games import services
from games.models import Move
from games.services import ServiceError
from live import movequeue
from tests.support.players import make_players, start_match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("batches")]


@pytest.fixture
def batches():
    with override_settings(MOVE_BATCHES=True):  # as with one database thread, on any database
        yield


class Batches(list):
    """The batches that reached the move service, as lists of match ids. The first one stays
    on the database thread, as a slow commit would, until the test lets it go: the test waits
    for that batch to be on the thread, and lets it go once the next moves are in line
    (waits for events, not for times that a loaded machine may overrun)."""

    def __init__(self) -> None:
        super().__init__()
        self.on_thread, self.let_go = threading.Event(), threading.Event()

    async def first_on_the_thread(self) -> None:
        assert await asyncio.to_thread(self.on_thread.wait, 30), "the first batch never reached the thread"

    async def release_after_queued(self) -> None:
        """Let the first batch finish once the moves just started are in line (each has run
        to its first wait, in ``Batches.put``)."""
        await asyncio.sleep(0)
        self.let_go.set()


@pytest.fixture
def calls(monkeypatch):
    seen = Batches()
    real = services.move_submit_many

    def spy(batch):
        seen.append([call["match_id"] for call in batch])
        if len(seen) == 1:
            seen.on_thread.set()
            seen.let_go.wait(30)
        return real(batch)

    monkeypatch.setattr(services, "move_submit_many", spy)
    yield seen
    seen.let_go.set()


async def matches(count: int):
    x, o = await database_sync_to_async(make_players)(2)
    return x, [await database_sync_to_async(start_match)("nine-board-tictactoe", [x, o]) for _ in range(count)]


def submit(match, user, action="(play 2 2 2 2 x)", version=0):
    return movequeue.submit(match_id=match.pk, user=user, action=action, version=version)


async def test_moves_that_arrive_while_a_batch_is_on_the_thread_go_together_as_the_next(calls):
    x, (a, b, c) = await matches(3)
    first = asyncio.ensure_future(submit(a, x))
    await calls.first_on_the_thread()
    rest = [asyncio.ensure_future(submit(b, x)), asyncio.ensure_future(submit(c, x))]
    await calls.release_after_queued()
    done = await asyncio.gather(first, *rest)
    assert calls == [[a.pk], [b.pk, c.pk]]
    assert [m.version for m in done] == [1, 1, 1]
    assert await database_sync_to_async(Move.objects.filter(match__in=[a, b, c]).count)() == 3


async def test_each_waiting_socket_gets_its_own_moves_answer(calls):
    x, (a, b, c) = await matches(3)
    first = asyncio.ensure_future(submit(a, x))
    await calls.first_on_the_thread()
    rest = [asyncio.ensure_future(submit(b, x, action="(play 9 9 9 9 x)")), asyncio.ensure_future(submit(c, x, version=3))]
    await calls.release_after_queued()
    answers = await asyncio.gather(first, *rest, return_exceptions=True)
    assert calls == [[a.pk], [b.pk, c.pk]]
    assert answers[0].version == 1
    assert [(type(e), e.code) for e in answers[1:]] == [(ServiceError, "illegal_action"), (ServiceError, "stale_version")]


async def test_a_failed_call_fails_every_move_in_it_and_the_line_goes_on(monkeypatch):
    x, (a, b, c) = await matches(3)
    real = services.move_submit_many

    def failing(batch):
        raise OperationalError("disk I/O error")

    monkeypatch.setattr(services, "move_submit_many", failing)
    answers = await asyncio.gather(submit(a, x), submit(b, x), return_exceptions=True)
    assert [type(e) for e in answers] == [OperationalError, OperationalError]
    monkeypatch.setattr(services, "move_submit_many", real)
    assert (await submit(c, x)).version == 1  # the line is free again


async def test_a_socket_gone_before_its_answer_leaves_its_move_standing(calls):
    x, (a, b) = await matches(2)
    first = asyncio.ensure_future(submit(a, x))
    await calls.first_on_the_thread()
    gone = asyncio.ensure_future(submit(b, x))
    await asyncio.sleep(0)
    gone.cancel()  # the page closed while its move waited
    calls.let_go.set()
    assert (await first).version == 1
    moves_of_b = database_sync_to_async(Move.objects.filter(match=b).count)
    deadline = asyncio.get_running_loop().time() + 30
    while await moves_of_b() == 0 and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)  # polling interval: the next batch runs with nobody awaiting it
    assert calls == [[a.pk], [b.pk]]
    assert await moves_of_b() == 1


@override_settings(MOVE_BATCHES=False)
async def test_with_several_database_threads_each_move_is_its_own_call(calls):
    x, (a, b) = await matches(2)
    done = await asyncio.gather(submit(a, x), submit(b, x))
    assert calls == [] and [m.version for m in done] == [1, 1]
