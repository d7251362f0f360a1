"""The computer player: its seats (services), its turns over the socket (its search, pure:
tests/games/computer/test_search.py)."""

import asyncio
import contextlib
import os
import random
from datetime import timedelta
from unittest import mock

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.worker import Worker
from django.test import override_settings
from django.utils import timezone

from config.asgi import application
from games import selectors, services
from games.computer import bots
from games.computer.search import LEVELS, choose_action
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import Match, Move
from games.rules import get_game
from games.runtime import leases, starting
from games.runtime.starting import RunStartHooks
from games.services import flagfall
from tests.games.services.test_services import assert_refused
from tests.live.consumers.test_consumers import join_match, receive
from tests.support.computer import HeldComputer
from tests.support.players import make_players, play_first_moves
from tests.support.waits import EVENT_SECONDS, POLL_SECONDS

FAST = {"COMPUTER_ITERATIONS": 60, "COMPUTER_SECONDS": 2.0}


# -- its seats (services) ------------------------------------------------------------------------

@pytest.mark.django_db
@override_settings(COMPUTER_WORKERS="inline", **FAST)
@pytest.mark.parametrize("slug", ["nine-board-tictactoe-pie", "tictactoe-3player", "quarto-misere-classic"])
def test_a_whole_game_against_the_computer(slug, django_capture_on_commit_callbacks):
    game = get_game(slug)
    human, = make_players(1)
    role = game.roles[-1]  # the computer opens
    with django_capture_on_commit_callbacks(execute=True):
        match = services.match_create(user=human, settings=MatchSettings(slug), role=role, against_computer=True)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.version >= 1
    seats = {s.role: s.player for s in match.seats.select_related("player")}
    assert seats.pop(role) == human
    assert all(player.is_computer for player in seats.values()) and len(set(seats.values())) == len(seats)
    rng = random.Random(slug)
    while match.status == Match.Status.ACTIVE:
        state = game.state_from_json(match.state)
        assert game.to_move(state) == role, "the computer answers before the human's turn comes back"
        with django_capture_on_commit_callbacks(execute=True):
            services.move_submit(match_id=match.pk, user=human, action=rng.choice(game.legal_actions(state)),
                                 version=match.version)
        match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    moves = list(Move.objects.filter(match=match).values_list("role", "action"))
    assert game.replay([a for _, a in moves]) == game.state_from_json(match.state)
    assert {r for r, _ in moves} == set(game.roles)


@pytest.mark.django_db
@override_settings(COMPUTER_WORKERS="inline", **FAST)
def test_a_rematch_against_the_computer_starts_at_once(django_capture_on_commit_callbacks):
    human, = make_players(1)
    with django_capture_on_commit_callbacks(execute=True):
        match = services.match_create(user=human, settings=MatchSettings("quarto-misere"), role="white", against_computer=True)
    match = play_first_moves(match, [human, match.seats.get(role="black").player])  # its moves count as its seat's
    services.match_resign(match_id=match.pk, user=human)
    with django_capture_on_commit_callbacks(execute=True):
        rematch = services.rematch_offer(match_id=match.pk, user=human)
    rematch.refresh_from_db()
    assert rematch.status == Match.Status.ACTIVE
    assert rematch.seats.get(player=human).role == "black"  # seats rotated: the computer opens now
    assert rematch.version >= 1 and rematch.moves.first().role == "white"


@pytest.mark.django_db
@override_settings(COMPUTER_WORKERS="inline", **FAST)
def test_the_creator_gives_the_third_seat_to_the_computer_and_it_plays(django_capture_on_commit_callbacks):
    alice, bob = make_players(2)
    match = services.match_create(user=alice, settings=MatchSettings("tictactoe-3player"), role="oplayer")
    services.seat_join(match_id=match.pk, user=bob, role="zplayer")
    with django_capture_on_commit_callbacks(execute=True):
        services.seat_give_to_computer(match_id=match.pk, user=alice, role="xplayer", level=1)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.started_at is not None
    computer = match.seats.get(role="xplayer").player
    assert computer.is_computer and computer.computer_level == 1
    assert list(match.moves.values_list("role", flat=True)) == ["xplayer"]  # x opens: the computer played
    game = get_game(match.game)
    for player in (alice, bob):
        state = game.state_from_json(match.state)
        with django_capture_on_commit_callbacks(execute=True):
            services.move_submit(match_id=match.pk, user=player, action=game.legal_actions(state)[0],
                                 version=match.version)
        match.refresh_from_db()
    assert list(match.moves.values_list("role", flat=True)) == ["xplayer", "oplayer", "zplayer", "xplayer"]


@pytest.mark.django_db
@override_settings(COMPUTER_WORKERS="inline", **FAST)
def test_a_creator_waiting_for_an_opponent_gives_the_seat_to_the_computer(django_capture_on_commit_callbacks):
    alice, = make_players(1)
    match = services.match_create(user=alice, settings=MatchSettings("quarto-misere"), role="black")
    with django_capture_on_commit_callbacks(execute=True):
        services.seat_give_to_computer(match_id=match.pk, user=alice, role="white", level=2)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.version == 2  # white selected and placed
    assert match.seats.get(role="white").player == services.computer_user(1, level=2)


@pytest.mark.django_db
@override_settings(COMPUTER_MATCHES_MAX=2)
def test_a_player_has_a_few_unfinished_games_against_the_computer_and_any_number_one_after_another():
    """Finished and aborted games do not count: playing the computer again and again is never
    refused; leaving games unfinished is, past a few, with a link to the oldest."""
    human, = make_players(1)

    def against_computer():
        return services.match_create(user=human, settings=MatchSettings("quarto-misere"), role="black",
                                     against_computer=True, computer_level=1)

    for _ in range(3):  # one after another: each aborted (the computer never moved here) or finished
        services.match_resign(match_id=against_computer().pk, user=human)
    finished = play_first_moves(against_computer(), [services.computer_user(1, 1), human])
    services.match_resign(match_id=finished.pk, user=human)
    oldest, _ = against_computer(), against_computer()
    refused = assert_refused("too_many_computer_games", against_computer)
    assert refused.message == "You have 2 unfinished games against the computer: finish or resign one first (abort one not yet begun), such as the oldest."
    assert refused.extra["match"] == oldest.pk
    assert_refused("too_many_computer_games", services.rematch_offer, match_id=finished.pk, user=human)
    waiting = services.match_create(user=human, settings=MatchSettings("quarto-misere"), role="black")
    assert_refused("too_many_computer_games", services.seat_give_to_computer, match_id=waiting.pk, user=human,
                   role="white", level=1)
    services.match_resign(match_id=oldest.pk, user=human)
    assert against_computer().status == Match.Status.ACTIVE


@pytest.mark.django_db
@override_settings(COMPUTER_MATCHES_MAX=2, COMPUTER_IDLE_HOURS=24)
def test_an_untimed_game_against_the_computer_left_a_day_without_a_move_no_longer_counts():
    """Nothing ends an untimed game left behind (no clock runs): it stays to resume or resign,
    and stops counting toward the limit once nobody has moved in it for a day; a move in it
    makes it count again. A timed one left behind counts until its clock ends it."""
    human, = make_players(1)
    long_ago = timezone.now() - timedelta(hours=25)

    def against_computer(clock=TimeControl()):
        return services.match_create(user=human, settings=MatchSettings("quarto-misere", time_control=clock),
                                     role="white", against_computer=True, computer_level=1)

    def left_since(match, when):
        Match.objects.filter(pk=match.pk).update(started_at=when)
        Move.objects.filter(match=match).update(created_at=when)

    left, other = against_computer(), against_computer()
    services.move_submit(match_id=left.pk, user=human, action="(select p0000)", version=0)
    assert_refused("too_many_computer_games", against_computer)
    left_since(left, long_ago)
    third = against_computer()  # the one left a day does not count
    refused = assert_refused("too_many_computer_games", against_computer)
    assert refused.extra["match"] == other.pk  # the oldest that counts
    assert Match.objects.get(pk=left.pk).status == Match.Status.ACTIVE  # still there to resume
    Move.objects.filter(match=left).update(created_at=timezone.now())  # resumed: counts again
    services.match_resign(match_id=third.pk, user=human)
    assert_refused("too_many_computer_games", against_computer)
    services.match_resign(match_id=other.pk, user=human)
    correspondence = against_computer(TimeControl(days=1))
    left_since(correspondence, long_ago)  # its clock will end it: it counts until then
    assert_refused("too_many_computer_games", against_computer)


@pytest.mark.django_db
@override_settings(COMPUTER_MATCHES_MAX=1)
def test_a_game_against_the_computer_one_has_resigned_does_not_count_while_the_others_play_on():
    """In the three-player game the others play on after a resignation: the match is not over,
    but nothing in it is left for the one who resigned to finish."""
    ada, bob = make_players(2)
    three = services.match_create(user=ada, settings=MatchSettings("tictactoe-3player"), role="xplayer")
    services.seat_join(match_id=three.pk, user=bob, role="oplayer")
    services.seat_give_to_computer(match_id=three.pk, user=ada, role="zplayer", level=1)
    three = play_first_moves(Match.objects.get(pk=three.pk), [ada, bob, services.computer_user(1, 1)])
    services.match_resign(match_id=three.pk, user=ada)
    three.refresh_from_db()
    assert three.status == Match.Status.ACTIVE  # Bob and the computer play on
    assert services.match_create(user=ada, settings=MatchSettings("quarto-misere"), role="black",
                                 against_computer=True, computer_level=1).status == Match.Status.ACTIVE
    assert_refused("too_many_computer_games", services.match_create, user=bob,
                   settings=MatchSettings("quarto-misere"), role="black", against_computer=True, computer_level=1)


@pytest.mark.django_db
def test_the_computer_account_cannot_log_in():
    computer = services.computer_user()
    assert computer.is_computer and not computer.has_usable_password()
    assert services.computer_user().pk == computer.pk
    assert computer.display_name == "Computer (expert)" and computer.computer_level == 4
    assert services.computer_user(2, level=1).display_name == "Computer 2 (easy)"


@pytest.mark.django_db
@override_settings(COMPUTER_WORKERS="inline", COMPUTER_ITERATIONS=500)
@pytest.mark.parametrize("level,rounds", [(1, 30), (2, 300), (3, 500), (4, 500)])  # 3, 4: capped by the setting
def test_each_level_searches_its_own_number_of_rounds(level, rounds, django_capture_on_commit_callbacks):
    human, = make_players(1)
    with mock.patch("games.computer.search.choose_action", wraps=choose_action) as think:
        with django_capture_on_commit_callbacks(execute=True):
            match = services.match_create(user=human, settings=MatchSettings("quarto-misere"), role="black",
                                          against_computer=True, computer_level=level)
    assert think.call_args.kwargs["iterations"] == rounds and think.call_args.kwargs["level"] == LEVELS[level - 1]
    match.refresh_from_db()
    assert match.version == 2  # white selected and placed
    with pytest.raises(services.ServiceError) as refused:
        services.match_create(user=human, settings=MatchSettings("quarto-misere"), against_computer=True, computer_level=5)
    assert refused.value.code == "unknown_level"


# -- its turns over the socket (the real event-loop path) --------------------------------------

@pytest.fixture(params=["pool", "channel"])
async def computer_workers(request, settings):
    """Both places the computer thinks when a server runs: a process pool of the web process
    (embedded) and a Channels worker (scaled; run here as ``manage.py runworker computer`` would,
    on whichever channel layer the stage uses)."""
    settings.COMPUTER_WORKERS = request.param
    if request.param != "channel":
        yield request.param
        return
    worker = Worker(application=application, channels=[bots.COMPUTER_CHANNEL],
                    channel_layer=get_channel_layer())
    task = asyncio.create_task(worker.arun())
    yield request.param
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


@pytest.mark.django_db(transaction=True)
@override_settings(**FAST)
async def test_the_computer_answers_over_the_socket(computer_workers):
    human, = await database_sync_to_async(make_players)(1)
    match = await database_sync_to_async(services.match_create)(
        user=human, settings=MatchSettings("nine-board-tictactoe"), role="xPlayer", against_computer=True)
    sock, first = await join_match(match.pk, human)
    assert first["match"]["status"] == "active" and first["you"]["roles"] == ["xPlayer"]
    await sock.send_json_to({"type": "action", "action": "(play 2 2 2 2 x)", "version": 0})
    assert (await receive(sock, "state"))["version"] == 1
    answer = await receive(sock, "state", timeout=EVENT_SECONDS)
    assert answer["version"] == 2 and answer["last_move"]["role"] == "oPlayer"
    assert answer["you"]["legal"]["xPlayer"]
    await sock.disconnect()


@pytest.mark.django_db(transaction=True)
@override_settings(**FAST)
async def test_a_computer_turn_lost_in_a_restart_resumes_when_someone_opens_the_match(computer_workers):
    human, = await database_sync_to_async(make_players)(1)
    match = await database_sync_to_async(services.match_create)(
        user=human, settings=MatchSettings("tictactoe-3player"), role="xplayer", against_computer=True)
    with mock.patch("games.computer.bots.computer_turn_on_commit"):  # the process "dies" before the computer moves
        await database_sync_to_async(services.move_submit)(match_id=match.pk, user=human, action="(mark 3 3)",
                                                            version=0)
    sock, first = await join_match(match.pk)  # a spectator opens the page
    assert first["version"] == 1
    assert (await receive(sock, "state", timeout=EVENT_SECONDS))["version"] == 2
    assert (await receive(sock, "state", timeout=EVENT_SECONDS))["version"] == 3  # both computer seats played
    await sock.disconnect()


async def the_computer_moved(match_id: int, version: int) -> None:
    """Until the match's stored version reaches ``version``, read from the database (no page open)."""
    read = database_sync_to_async(lambda: Match.objects.get(pk=match_id).version)
    async with asyncio.timeout(EVENT_SECONDS):
        while await read() < version:
            await asyncio.sleep(POLL_SECONDS)


async def a_human_moves_and_the_process_dies(human, match, action: str) -> None:
    with mock.patch("games.computer.bots.computer_turn_on_commit"):  # the turn's request dies with the process
        await database_sync_to_async(services.move_submit)(match_id=match.pk, user=human, action=action,
                                                            version=match.version)


@pytest.fixture
async def a_server_start(settings, monkeypatch):
    """The start of a server process: its first scope runs the clock sweep's start hook (as
    ``config/asgi.py`` serves it), whose first pass asks for the pending computer turns."""
    settings.CLOCK_SWEEP_SECONDS = 30
    monkeypatch.setattr(flagfall, "_sweeping", set())
    sweep = next(hook for hook in starting.registered() if hook.name == "the clock sweep")

    async def start() -> None:
        async def nothing(scope, receive, send):
            return None

        await RunStartHooks(nothing, [sweep])({"type": "http"}, None, None)

    yield start
    for task in asyncio.all_tasks():
        if task.get_coro().__name__ == "_sweep_forever":
            task.cancel()


@pytest.mark.django_db(transaction=True)
@override_settings(**FAST)
async def test_a_computer_turn_lost_in_a_restart_is_played_as_the_server_starts_with_no_page_open(
        computer_workers, a_server_start):
    human, = await database_sync_to_async(make_players)(1)
    match = await database_sync_to_async(services.match_create)(
        user=human, settings=MatchSettings("tictactoe-3player"), role="xplayer", against_computer=True)
    await a_human_moves_and_the_process_dies(human, match, "(mark 3 3)")
    await a_server_start()
    await the_computer_moved(match.pk, 3)  # both computer seats played, nobody connected
    roles = await database_sync_to_async(lambda: list(Move.objects.filter(match=match).values_list("role", flat=True)))()
    assert roles[0] == "xplayer" and len(roles) == 3


@pytest.mark.django_db(transaction=True)
@override_settings(COMPUTER_WORKERS="pool", **FAST)
async def test_asking_again_for_a_turn_being_played_plays_it_once(monkeypatch):
    """A second ask in the process that plays the turn is refused; one from elsewhere (another
    worker) submits at a version that has moved on, which is refused and ignored."""
    computer = HeldComputer(monkeypatch)
    thinking = computer.thinking
    human, = await database_sync_to_async(make_players)(1)
    match = await database_sync_to_async(services.match_create)(
        user=human, settings=MatchSettings("nine-board-tictactoe"), role="xPlayer", against_computer=True)
    await database_sync_to_async(services.move_submit)(match_id=match.pk, user=human, action="(play 2 2 2 2 x)",
                                                        version=0)  # the computer's turn starts here
    async with asyncio.timeout(EVENT_SECONDS):
        while not thinking:
            await asyncio.sleep(POLL_SECONDS)
    assert await database_sync_to_async(services.computer_turns_resume)(stalled_only=False) == 1
    turn = await database_sync_to_async(selectors.computer_turn)(match_id=match.pk, version=1)
    computer.answer.set()
    await the_computer_moved(match.pk, 2)
    other_answer = turn.game.legal_actions(turn.state)[-1]
    await database_sync_to_async(bots._submit_turn)(turn, other_answer)  # another worker's, at a stale version
    assert thinking == [1]
    assert await database_sync_to_async(lambda: Move.objects.filter(match=match).count())() == 2
    assert await database_sync_to_async(services.computer_turns_resume)(stalled_only=False) == 0  # the human's turn
    computer.pool.shutdown()


@pytest.mark.services  # the lease lives in Redis: bin/test stage 2
@pytest.mark.django_db(transaction=True)
@override_settings(COMPUTER_WORKERS="pool", **FAST)
async def test_a_turn_whose_lease_a_dead_process_holds_is_played_once_the_lease_runs_out(monkeypatch, settings):
    """Another process took the turn's lease and died: this one leaves the turn until the lease
    runs out, then plays it, and keeps the lease after the move (a process that read the turn
    before the move must not take it)."""
    if not settings.REDIS_URL:
        pytest.skip("the lease lives in Redis (REDIS_URL): bin/test stage 2")
    computer = HeldComputer(monkeypatch)
    computer.answer.set()  # it answers at once
    monkeypatch.setattr(bots, "_request", lambda match_id, version: None)  # only the test asks
    human, = await database_sync_to_async(make_players)(1)
    match = await database_sync_to_async(services.match_create)(
        user=human, settings=MatchSettings("nine-board-tictactoe"), role="oPlayer", against_computer=True)
    turn = await database_sync_to_async(selectors.computer_turn)(match_id=match.pk, version=match.version)
    lease = bots.turn_lease(turn)
    dead = await asyncio.to_thread(leases.lease_take, lease, seconds=0.5)
    assert dead is not None
    await bots.play_turn(match.pk, match.version, computer.pool)
    assert computer.thinking == [] and await database_sync_to_async(
        lambda: Move.objects.filter(match=match).count())() == 0
    async with asyncio.timeout(EVENT_SECONDS):
        while await asyncio.to_thread(leases.lease_holder, lease) is not None:
            await asyncio.sleep(POLL_SECONDS)
    await bots.play_turn(match.pk, match.version, computer.pool)
    assert computer.thinking == [match.version]
    assert await database_sync_to_async(lambda: Move.objects.filter(match=match).count())() == 1
    assert await asyncio.to_thread(leases.lease_holder, lease) not in (None, dead)
    computer.pool.shutdown()


@pytest.mark.django_db
@override_settings(COMPUTER_WORKERS="inline", **FAST)
def test_the_sweep_asks_again_only_for_a_computer_turn_waiting_longer_than_a_turn_takes(
        django_capture_on_commit_callbacks):
    human, = make_players(1)
    match = services.match_create(user=human, settings=MatchSettings("nine-board-tictactoe"), role="xPlayer",
                                  against_computer=True)
    with mock.patch("games.computer.bots.computer_turn_on_commit"):
        services.move_submit(match_id=match.pk, user=human, action="(play 2 2 2 2 x)", version=0)
    assert services.computer_turns_resume(stalled_only=True) == 0  # just asked: still thinking
    Move.objects.filter(match=match).update(created_at=timezone.now() - timedelta(seconds=bots.stalled_after_seconds()))
    with django_capture_on_commit_callbacks(execute=True):
        assert services.computer_turns_resume(stalled_only=True) == 1
    match.refresh_from_db()
    assert match.version == 2 and match.moves.last().role == "oPlayer"
    Move.objects.filter(match=match).update(created_at=timezone.now() - timedelta(days=1))
    assert services.computer_turns_resume(stalled_only=True) == 0  # the human's turn, however long


# -- where it thinks: below the people's threads -----------------------------------------------

def _own_niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, 0)  # Linux: the calling thread's own value


@pytest.mark.parametrize("executor", [bots._process_pool, bots.thinking_thread], ids=["pool", "worker thread"])
def test_the_computer_thinks_at_a_lower_priority_than_the_threads_serving_people(executor, settings):
    assert settings.COMPUTER_NICE == 10
    mine = _own_niceness()
    thinking = executor().submit(_own_niceness).result(timeout=60)
    assert thinking == min(19, mine + settings.COMPUTER_NICE)
    assert _own_niceness() == mine  # the thread that serves people is left as it was


@pytest.mark.django_db
@override_settings(COMPUTER_WORKERS="inline", **FAST)
def test_a_computer_turn_on_a_match_of_rules_the_site_no_longer_has_is_skipped_and_the_others_are_played(
        django_capture_on_commit_callbacks, caplog):
    """Its rule set removed since (or its row damaged) while the computer was to move: asking
    for its turn (a request, the sweep, the first pass after a restart) skips it, with one
    warning for the process, and the other matches' turns are played. Before, reading its
    turn raised: in a worker's or the event loop's task, and in the sweep, which stopped there,
    every later match's turn left unasked, again at every pass."""
    ada, bob = make_players(2)
    gone, kept = (services.match_create(user=human, settings=MatchSettings("nine-board-tictactoe"), role="xPlayer",
                                        against_computer=True) for human in (ada, bob))
    with mock.patch("games.computer.bots.computer_turn_on_commit"):  # the turns are asked for below
        for match, human in ((gone, ada), (kept, bob)):
            services.move_submit(match_id=match.pk, user=human, action="(play 2 2 2 2 x)", version=0)
    Match.objects.filter(pk=gone.pk).update(game="gone-rules")
    assert selectors.computer_turn(match_id=gone.pk, version=1) is None
    bots._request(gone.pk, 1)  # as after the move's commit
    with django_capture_on_commit_callbacks(execute=True):
        assert services.computer_turns_resume(stalled_only=False) == 1
    assert dict(Match.objects.values_list("pk", "version")) == {gone.pk: 1, kept.pk: 2}
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warned == [f"match {gone.pk} names rules this site does not have (gone-rules): the computer's turns "
                      "and the GGP manager skip it until the clock sweep calls it off"]
    assert "Traceback" not in caplog.text
