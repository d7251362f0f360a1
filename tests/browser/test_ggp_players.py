"""GGP players as a member sees them on /ggp/: registering one (a test GGP player the test
starts on 127.0.0.1, answering random legal moves of the GDL it is sent), playing it from the
page's Play form, its seat tagged "bot" and its answers on the match page; a move it answers
that is not legal shown as replaced at random; an address outside the allow-list refused."""

from __future__ import annotations

import random
import re
import threading
import time

import pytest
from playwright.sync_api import Page, expect

from games.match.clocks import PER_MOVE_PRESETS, TimeControl
from games.models import GGPPlayer, Move, ReplacedMove, Seat
from tests.browser.conftest import WAIT_MS, match_id_of
from tests.browser.helpers import PLAYABLE, outside_the_event_loop, playable
from tests.support.ggpplayer import GGPTestPlayer
from tests.support.players import make_accounts

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GAME = "nine-board-tictactoe"  # two seats, one move a turn
PER_MOVE = TimeControl(start=PER_MOVE_PRESETS[0][0], play=PER_MOVE_PRESETS[0][1]).code  # the shortest per-move preset
MY_TURN = "#board.board-holder--my-turn"


@pytest.fixture
def member_page(page_of) -> Page:
    [member] = outside_the_event_loop(lambda: make_accounts(1, "Ggp"))
    page = page_of(member)
    page.goto("/ggp/")
    return page


def register(page: Page, name: str, url: str) -> None:
    form = page.locator("form.stack-form")
    form.get_by_label("Name", exact=True).fill(name)
    form.get_by_label("Address where it listens").fill(url)
    form.get_by_role("button", name="Register").click()


def register_online(page: Page, name: str, player: GGPTestPlayer) -> None:
    """Register ``player`` from the page; once its INFO check has answered, the list shows it online."""
    register(page, name, player.url)
    expect(page.locator(".messages")).to_contain_text(f"{name} is registered")
    deadline = time.monotonic() + WAIT_MS / 1000
    while GGPPlayer.objects.filter(account__display_name=name, status=GGPPlayer.Status.ONLINE).count() == 0:
        assert time.monotonic() < deadline, f"{name} was not found online: {list(GGPPlayer.objects.values('status'))}"
        time.sleep(0.05)  # a polling interval: the check runs in the server's thread pool
    page.reload()
    row = page.get_by_test_id("ggp-players").locator("tbody tr", has_text=name)
    expect(row).to_have_attribute("data-status", "online")
    expect(row).to_contain_text("online")


def play(page: Page, name: str) -> int:
    """Play the GGP player ``name`` from its row's form; returns the match's id."""
    form = page.get_by_test_id("ggp-players").locator("tbody tr", has_text=name).locator("form")
    form.get_by_label("Rule set").select_option(GAME)
    form.get_by_label("Clock").select_option(PER_MOVE)
    form.get_by_role("button", name=f"Play {name}").click()
    return match_id_of(page)


def click_a_move(page: Page, rng: random.Random) -> int:
    """Once it is the person's turn, click a random legal move; returns how many moves the
    list showed before it (the GGP player may answer before the page shows the click's move)."""
    expect(page.locator(MY_TURN)).to_have_count(1)
    moves = page.locator("#moves li").count()
    page.locator(f'{PLAYABLE}[data-action="{rng.choice(playable(page))}"]').click()
    return moves


def ggp_moves(match_id: int) -> int:
    """How many moves of the GGP seat are its own answers (not replaced at random)."""
    role = Seat.objects.get(match_id=match_id, player__is_bot=True).role
    return Move.objects.filter(match_id=match_id, role=role).count() - ReplacedMove.objects.filter(
        match_id=match_id, role=role).count()


def test_a_member_registers_a_ggp_player_plays_it_and_it_answers(member_page):
    page, rng = member_page, random.Random(5)
    with GGPTestPlayer(seed=3) as player:
        register_online(page, "Rando Gigi", player)
        match_id = play(page, "Rando Gigi")
        seat = page.locator("#seats li", has_text="Rando Gigi")
        expect(seat.locator(".tag:not(.tag--turn)")).to_have_text("bot")  # "to move" may stand beside it
        expect(page.locator("#seats")).to_contain_text("(you)")
        moves = page.locator("#moves li")
        for _ in range(2):
            before = click_a_move(page, rng)
            expect(moves).to_have_count(before + 2)  # the click's move, then the GGP player's answer
            expect(page.locator(MY_TURN)).to_have_count(1)
            # the move listed is the one it answered (none replaced at random)
            assert len(player.moves) == ggp_moves(match_id), (player.messages, player.moves, list(
                ReplacedMove.objects.filter(match_id=match_id).values("ply", "role", "reason", "answer")))
        assert player.messages[:3] == ["INFO", "START", "PLAY"], player.messages
        expect(page.locator('#moves [data-testid="replaced"]')).to_have_count(0)
        assert f"/matches/{match_id}/" in page.url


def test_an_illegal_answer_is_shown_replaced_at_random(member_page):
    page, rng = member_page, random.Random(6)
    with GGPTestPlayer(misbehave={1: "illegal"}, seed=4) as player:
        register_online(page, "Crooked Kit", player)
        play(page, "Crooked Kit")
        replaced = page.locator('#moves [data-testid="replaced"]')
        # the GGP seat's first turn comes after at most one move of the person
        page.wait_for_function(f"""() => document.querySelector('{MY_TURN}')
            || document.querySelector('#moves [data-testid="replaced"]')""", timeout=WAIT_MS)
        if replaced.count() == 0:
            click_a_move(page, rng)
        expect(replaced).to_have_text("(at random: not a legal move)")
        expect(page.locator("#moves li", has=page.locator('[data-testid="replaced"]'))).to_have_count(1)
        assert player.turns == 1, (player.messages, player.moves)


class SecondNoopHeld(GGPTestPlayer):
    """A test GGP player that takes its time over its second noop turn: it answers once ``gate``
    is set (``noop_held`` is set while it waits), so the manager's next PLAY waits behind it."""

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self.gate, self.noops = threading.Event(), 0

    def answer(self, body: str) -> str:
        move = super().answer(body)
        if move == "noop":
            with self.lock:
                self.noops += 1
                second = self.noops == 2
            if second:
                self.noop_held.set()
                self.gate.wait()
        return move


def test_a_ggp_seats_clock_stands_whole_until_its_play_goes_out(member_page):
    """The program takes its time over a noop turn, so its next PLAY waits behind that answer:
    after the person's move, its clock shows its whole play clock and stands (the flag waits
    for the PLAY too). That it stands is seen over a second of real time: a check that nothing
    happens, not a wait for something to happen. Once the noop comes, the PLAY goes out and the
    program answers: the person's turn again."""
    page, rng = member_page, random.Random(7)
    with SecondNoopHeld(seed=5) as player:
        try:
            register_online(page, "Slow Sam", player)
            match_id = play(page, "Slow Sam")
            role = Seat.objects.get(match_id=match_id, player__is_bot=True).role
            clock = page.locator(f'#seats .clock[data-role="{role}"]')
            click_a_move(page, rng)  # the program's turn, then the person's: its noop there is its second
            assert player.noop_held.wait(WAIT_MS / 1000), player.messages
            before = click_a_move(page, rng)  # the program's turn, its PLAY waiting behind that noop
            expect(clock).to_have_class(re.compile("clock--running"))
            expect(page.locator("#moves li")).to_have_count(before + 1)
            page.wait_for_timeout(1000)
            # a second later, the same turn: its clock whole and standing, not counted down
            assert (clock.text_content(), page.locator("#moves li").count()) == (formatted_play_clock(), before + 1)
            assert "clock--running" in clock.get_attribute("class")
        finally:
            player.gate.set()
        expect(page.locator("#moves li")).to_have_count(before + 2)  # the PLAY went out, it answered
        expect(page.locator(MY_TURN)).to_have_count(1)


def formatted_play_clock() -> str:
    """The shortest per-move preset's play clock as the page writes it ("0:10")."""
    seconds = PER_MOVE_PRESETS[0][1]
    return f"{seconds // 60}:{seconds % 60:02d}"


def test_an_address_outside_the_allow_list_is_refused(member_page):
    page = member_page
    register(page, "Far Away", "http://10.0.0.1:9/")
    expect(page.locator(".messages")).to_contain_text(
        "This server calls only the hosts and ports its operator allows (localhost); 10.0.0.1 port 9 is not one of them.")
    expect(page.get_by_test_id("ggp-players")).not_to_contain_text("Far Away")
    expect(page.get_by_label("Address where it listens")).to_have_value("http://10.0.0.1:9/")
    assert not GGPPlayer.objects.exists(), list(GGPPlayer.objects.values("url", "status"))
