"""Clocks and conduct through the match socket: the state carries the clock, a flag falls by
the server's own timer with nobody sending anything, a late move gets a clear error, and
offers and their answers reach players and spectators."""

import threading
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.test import override_settings

from games import services
from games.computer import bots
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import GGPProgress, Match
from games.rules import get_game
from games.services import flagfall
from tests.live.consumers.test_consumers import db_state, drain, join_match, receive
from tests.support.computer import HeldComputer
from tests.support.ggphttp import FUMBLING, PlayerServer
from tests.support.players import make_accounts, make_players, play_out, start_match
from tests.support.waits import EVENT_SECONDS, until, until_here

pytestmark = pytest.mark.django_db(transaction=True)
PER_MOVE = TimeControl(start=30, play=10)


async def until_armed(match_id: int) -> None:
    await until(lambda: match_id in flagfall.armed(), f"a timer for match {match_id}")


async def test_the_flag_falls_by_timer_and_every_page_is_told(fake_time):
    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [x, o],
                                                      time_control=TimeControl(base=60, increment=1))
    await database_sync_to_async(play_out)(match, [x, o], max_moves=2)  # each seat's first move, at once
    xs, first = await join_match(match.pk, x)
    spectator, _ = await join_match(match.pk)
    assert first["match"]["clock"]["running"] == "xPlayer" and first["match"]["clock"]["label"] == "1+1"
    action = first["you"]["legal"]["xPlayer"][0]
    fake_time.advance(5)
    await xs.send_json_to({"type": "action", "action": action, "version": first["version"]})
    moved = await receive(spectator, "state")
    # the first moves were not charged: each clock started at its seat's first move
    assert moved["match"]["clock"]["remaining"] == {"xPlayer": 56_000, "oPlayer": 60_000}
    assert moved["match"]["clock"]["running"] == "oPlayer"
    await until_armed(match.pk)  # the process that took the move armed a timer for o's deadline
    assert flagfall.armed()[match.pk] == fake_time.now + timedelta(seconds=60)
    fake_time.advance(59)
    await flagfall.fire_due()  # not due yet
    assert await spectator.receive_nothing(timeout=0.2)
    fake_time.advance(1)
    await flagfall.fire_due()
    for sock in (xs, spectator):
        over = await receive_until(sock, lambda m: m["type"] == "state" and m["match"]["status"] != "active")
        assert over["match"]["status"] == "finished"
        assert over["match"]["result"]["reason"] == "oPlayer ran out of time"
        assert over["match"]["clock"]["remaining"]["oPlayer"] == 0
    assert match.pk not in flagfall.armed()
    for sock in (xs, spectator):
        await sock.disconnect()


async def test_a_late_move_is_refused_with_its_own_code(fake_time):
    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [x, o],
                                                      time_control=TimeControl(base=60))
    await database_sync_to_async(play_out)(match, [x, o], max_moves=2)
    xs, first = await join_match(match.pk, x)
    fake_time.advance(61)
    await xs.send_json_to({"type": "action", "action": first["you"]["legal"]["xPlayer"][0],
                           "version": first["version"]})
    error = await receive(xs, "error")
    assert error["code"] == "out_of_time"
    over = await receive(xs, "state")
    assert over["match"]["status"] == "finished" and over["match"]["result"]["winners"] == ["oPlayer"]
    await xs.disconnect()


async def test_offers_and_answers_reach_players_and_spectators():
    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [x, o])
    await database_sync_to_async(play_out)(match, [x, o], max_moves=2)  # each seat's first move
    xs, _ = await join_match(match.pk, x)
    os_, _ = await join_match(match.pk, o)
    spectator, _ = await join_match(match.pk)
    await xs.send_json_to({"type": "draw_offer"})
    for sock in (xs, os_, spectator):
        assert (await receive(sock, "state"))["match"]["offers"] == {"draw": ["xPlayer"], "takeback": [], "declined": [],
                                                                     "takeback_declined": []}
    await spectator.send_json_to({"type": "draw_accept"})
    assert (await receive(spectator, "error"))["code"] == "not_seated"
    await os_.send_json_to({"type": "draw_decline"})
    for sock in (xs, os_, spectator):
        notice = await receive_skipping_state(sock, "notice")
        assert notice["text"] == f"{o.display_name} declined the draw."
    await os_.send_json_to({"type": "draw_offer"})
    # x answers the offer it has seen: each socket's frames are handled on their own, so an
    # answer sent before the offer's state arrived could be taken before the offer is stored.
    await receive_until(xs, lambda m: m["type"] == "state" and m["match"]["offers"]["draw"] == ["oPlayer"])
    await xs.send_json_to({"type": "draw_accept"})
    over = await receive_until(spectator, lambda m: m["type"] == "state" and m["match"]["status"] == "finished")
    assert over["match"]["result"]["draw"] is True and over["match"]["result"]["reason"] == "drawn by agreement"
    for sock in (xs, os_, spectator):
        await sock.disconnect()


async def test_a_first_move_not_made_in_time_aborts_the_match_by_timer(fake_time, settings):
    """Real time: each seat's clock starts at its own first move, which has FIRST_MOVE_SECONDS;
    the countdown's data reach every page, and the server's own timer aborts the match."""
    settings.FIRST_MOVE_SECONDS = 20
    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [x, o],
                                                      time_control=TimeControl(base=60))
    xs, first = await join_match(match.pk, x)
    spectator, _ = await join_match(match.pk)
    clock = first["match"]["clock"]
    assert clock["first"] == ["xPlayer", "oPlayer"] and clock["first_ms"] == 20_000 and clock["running"] == "xPlayer"
    fake_time.advance(15)  # not charged: x's clock starts at this move
    await xs.send_json_to({"type": "action", "action": first["you"]["legal"]["xPlayer"][0], "version": 0})
    moved = (await receive(spectator, "state"))["match"]["clock"]
    assert moved["first"] == ["oPlayer"] and moved["remaining"] == {"xPlayer": 60_000, "oPlayer": 60_000}
    await until_armed(match.pk)
    assert flagfall.armed()[match.pk] == fake_time.now + timedelta(seconds=20)
    fake_time.advance(19)
    await flagfall.fire_due()  # not due yet
    assert await spectator.receive_nothing(timeout=0.2)
    fake_time.advance(1)
    await flagfall.fire_due()
    for sock in (xs, spectator):
        over = await receive_until(sock, lambda m: m["type"] == "state" and m["match"]["status"] != "active")
        assert over["match"]["status"] == "aborted"
        assert over["match"]["result"] == {"aborted": True, "reason": "oPlayer ran out of time before moving"}
        assert over["match"]["clock"]["remaining"] == {"xPlayer": 60_000, "oPlayer": 60_000}
    for sock in (xs, spectator):
        await sock.disconnect()


async def test_a_first_move_too_late_is_refused_with_its_own_code(fake_time):
    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [x, o],
                                                      time_control=TimeControl(base=60))
    xs, first = await join_match(match.pk, x)
    fake_time.advance(31)
    await xs.send_json_to({"type": "action", "action": first["you"]["legal"]["xPlayer"][0], "version": 0})
    error = await receive(xs, "error")
    assert error["code"] == "first_move_too_late" and "aborted" in error["message"]
    over = await receive(xs, "state")
    assert over["match"]["status"] == "aborted" and over["match"]["result"]["reason"] == "xPlayer ran out of time before moving"
    await xs.disconnect()


async def test_offers_refused_by_the_rules_of_manners_reach_only_the_sender():
    """No draw before every seat has moved; after a declined takeback, no asking again before
    a move of one's own: a clear code and message to the one who tried, nothing to anyone else."""
    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [x, o])
    await database_sync_to_async(play_out)(match, [x, o], max_moves=1)  # x moved, o has not
    xs, _ = await join_match(match.pk, x)
    os_, seen = await join_match(match.pk, o)
    spectator, _ = await join_match(match.pk)
    await xs.send_json_to({"type": "draw_offer"})
    error = await receive(xs, "error")
    assert error["code"] == "draw_too_early" and "abort" in error["message"]
    await os_.send_json_to({"type": "action", "action": seen["you"]["legal"]["oPlayer"][0], "version": 1})
    for sock in (xs, os_, spectator):
        await receive_until(sock, lambda m: m["type"] == "state" and m["version"] == 2)
    await os_.send_json_to({"type": "takeback_offer", "version": 2})
    await receive_until(xs, lambda m: m["type"] == "state" and m["match"]["offers"]["takeback"] == ["oPlayer"])
    await xs.send_json_to({"type": "takeback_decline"})
    for sock in (xs, os_, spectator):
        notice = await receive_skipping_state(sock, "notice")
        assert notice["text"] == f"{x.display_name} declined the takeback."
    assert await database_sync_to_async(lambda: Match.objects.get(pk=match.pk).offers)() == "takeback_declined:oPlayer"
    await os_.send_json_to({"type": "takeback_offer", "version": 2})
    error = await receive(os_, "error")
    assert error["code"] == "takeback_declined" and "after your next move" in error["message"]
    for sock in (xs, spectator):  # nobody else heard of the refused requests
        assert [m["type"] for m in await drain(sock) if m["type"] not in {"presence", "state"}] == []
    for sock in (xs, os_, spectator):
        await sock.disconnect()


async def receive_skipping_state(sock, kind: str) -> dict:
    return await receive_until(sock, lambda m: m["type"] == kind)


async def receive_until(sock, wanted) -> dict:
    while True:
        message = await sock.receive_json_from(timeout=EVENT_SECONDS)
        if wanted(message):
            return message
        assert message["type"] in {"state", "presence", "pong", "chat"}, message


@override_settings(COMPUTER_WORKERS="pool", COMPUTER_ITERATIONS=60)
async def test_against_the_computer_a_real_time_takeback_is_granted_at_once_while_it_thinks(monkeypatch):
    """The player moves; while the computer thinks, they take it back: every page gets the
    position before the move at a new version, the computer's late answer is refused, and once
    the player moved again the computer thinks again and answers."""
    computer = HeldComputer(monkeypatch, choose=lambda actions: actions[0])
    thinking = computer.thinking
    x, = await database_sync_to_async(make_players)(1)
    match = await database_sync_to_async(services.match_create)(
        user=x, settings=MatchSettings("nine-board-tictactoe", time_control=TimeControl(60, 2)), role="xPlayer",
        against_computer=True, computer_level=1)
    xs, first = await join_match(match.pk, x)
    spectator, _ = await join_match(match.pk)
    await xs.send_json_to({"type": "action", "action": "(play 2 2 2 2 x)", "version": 0})
    for sock in (xs, spectator):
        assert (await receive(sock, "state"))["version"] == 1
    await until(lambda: thinking == [1], "the computer thinking at version 1")
    await xs.send_json_to({"type": "takeback_offer", "version": 1})
    for sock in (xs, spectator):
        back = await receive(sock, "state")
        assert back["version"] == 2 and back["match"]["moves"] == [] and back["match"]["offers"]["takeback"] == []
    assert back["match"]["clock"]["running"] == "xPlayer"
    computer.answer.set()  # its answer, thought about before the takeback
    await until(lambda: (match.pk, 1) not in bots._tasks, "the computer's late answer handled")
    assert (await db_state(match.pk))[0] == 2
    assert [m for m in await drain(xs) if m["type"] == "state"] == []
    await xs.send_json_to({"type": "action", "action": first["you"]["legal"]["xPlayer"][0], "version": 2})
    for sock in (xs, spectator):
        assert (await receive(sock, "state"))["version"] == 3
        answered = await receive(sock, "state")
        assert answered["version"] == 4 and answered["last_move"]["role"] == "oPlayer"
    assert thinking == [1, 3]
    for sock in (xs, spectator):
        await sock.disconnect()
    computer.pool.shutdown()


class HeldProgram:
    """A GGP program's answers (``PlayerServer``) that the test releases: START ``ready`` at
    once; its noop turn (PLAY nil) once ``noop`` is set, its own turn once ``move`` is (then
    with a move that is not legal: played at random, the match goes on)."""

    def __init__(self) -> None:
        self.noop, self.move, self.thinking = threading.Event(), threading.Event(), threading.Event()

    def __call__(self, body: str) -> str:
        kind = body.strip("()").split()[0].upper()
        if kind == "PLAY":
            self.thinking.set()
            (self.noop if body.rstrip(")").endswith(" nil") else self.move).wait(EVENT_SECONDS)
            return "noop" if body.rstrip(")").endswith(" nil") else "(not a move)"
        return FUMBLING[kind]


async def test_a_ggp_seats_clock_on_the_page_runs_from_its_own_play(fake_time, settings):
    """The program thinks through its noop turn for 5 s after the person moved: its PLAY, and
    so its play clock, starts only then (``GGPProgress.sent_at``): until then the state the
    pages hear shows it standing whole (``held``). Pages hear the state again when the PLAY goes
    out, and every state they are sent counts the seat's clock from it: the whole play clock
    from the PLAY, not what is left of the turn begun at the person's move."""
    settings.COMPUTER_WORKERS = "pool"  # the manager waits for the program in a thread of its own, as on a server
    settings.GGP_PLAYER_HOSTS, settings.GGP_GRACE_SECONDS = ["localhost"], 1.0
    program = HeldProgram()
    with PlayerServer(program) as server:
        [person] = await database_sync_to_async(make_accounts)(1)
        registered = await database_sync_to_async(services.ggp_player_register)(owner=person, name="Ponderer",
                                                                                 url=server.url)
        match = await database_sync_to_async(services.match_create)(
            user=person, settings=MatchSettings("tictactoe-x9", time_control=PER_MOVE), role="xplayer",
            ggp_players={"oplayer": registered.pk})
        try:
            await until(program.thinking.is_set, "the program thinking on its noop turn")
            spectator, first = await join_match(match.pk)
            moved_at = fake_time.ms()
            game = get_game(match.game)
            await database_sync_to_async(services.move_submit)(
                match_id=match.pk, user=person, version=first["version"],
                action=game.legal_actions(game.state_from_json(match.state))[0])
            moved = await receive(spectator, "state")
            # the manager is at the match, waiting for the noop answer: the seat's clock stands whole
            held = moved["match"]["clock"]
            assert (held["running"], held["since"], held["held"]) == ("oplayer", moved_at, True)
            assert held["remaining"]["oplayer"] == PER_MOVE.play * 1000
            fake_time.advance(5)
            program.noop.set()  # its PLAY goes out now, 5 s into the turn
            played = await receive(spectator, "state")
            assert played["version"] == moved["version"], f"not the state again as the PLAY left: {played['last_move']}"
            clock = played["match"]["clock"]
            assert (clock["running"], clock["since"], clock["held"]) == ("oplayer", moved_at + 5000, False)
            assert clock["remaining"]["oplayer"] == PER_MOVE.play * 1000
            late, joined = await join_match(match.pk)  # a page opened now, or one that asks again
            assert joined["match"]["clock"]["since"] == moved_at + 5000
            assert joined["match"]["clock"]["remaining"]["oplayer"] == PER_MOVE.play * 1000
            for sock in (spectator, late):
                await sock.disconnect()
        finally:
            program.noop.set()
            program.move.set()
            await database_sync_to_async(until_here)(
                lambda: GGPProgress.objects.filter(pk=match.pk, sent__gte=1, claim="").exists(),
                "the manager done with the match")
