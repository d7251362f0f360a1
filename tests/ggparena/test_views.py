"""The GGP arena's page and the owner's opt-in toggle (no player is called: the rows are made
directly), and the scheduler's parts that need no HTTP: the clock ranges, the claim."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games.match.errors import ServiceError
from games.models import GGPPlayer, Match, Seat
from ggparena import services
from ggparena.models import ArenaEntry, ArenaMatch, ArenaState
from lobby.services import account_signup
from tests.support.players import make_accounts

pytestmark = pytest.mark.django_db


def program(owner, name: str) -> GGPPlayer:
    account = account_signup(username=f"x{name.lower()}", password="a long enough password", display_name=name)
    account.is_bot = True
    account.save(update_fields=["is_bot"])
    return GGPPlayer.objects.create(account=account, owner=owner, url="http://localhost:9147/",
                                    status=GGPPlayer.Status.ONLINE)


def test_an_owner_puts_a_program_in_and_out_and_nobody_else_can():
    owner, other = make_accounts(2)
    mine = program(owner, "Mine")
    client = Client()
    assert client.post(f"/ggp/arena/{mine.pk}/opt/", {"arena": "in"}).status_code == 302  # to sign in
    assert not ArenaEntry.objects.exists()
    client.force_login(other)
    refused = client.post(f"/ggp/arena/{mine.pk}/opt/", {"arena": "in"}, follow=True)
    assert "You have no such GGP player." in refused.content.decode() and not ArenaEntry.objects.exists()
    assert client.get(f"/ggp/arena/{mine.pk}/opt/").status_code == 405
    client.force_login(owner)
    answer = client.post(f"/ggp/arena/{mine.pk}/opt/", {"arena": "in", "back": "ggp"})
    assert answer.status_code == 302 and answer["Location"] == "/ggp/"
    assert ArenaEntry.objects.get(pk=mine.pk).opted_in
    assert "Take Mine out of the arena" in client.get("/ggp/").content.decode()
    ArenaEntry.objects.filter(pk=mine.pk).update(paused_at=timezone.now(), paused_note="stopped answering INFO")
    page = client.get("/ggp/arena/").content.decode()
    assert "paused (stopped answering INFO)" in page and "Put Mine in the arena" in page
    client.post(f"/ggp/arena/{mine.pk}/opt/", {"arena": "in", "back": "elsewhere"})
    assert ArenaEntry.objects.get(pk=mine.pk).paused_at is None, "putting it in again resumes it"
    client.post(f"/ggp/arena/{mine.pk}/opt/", {"arena": "out"})
    assert not ArenaEntry.objects.get(pk=mine.pk).opted_in


def test_the_page_shows_the_running_matches_and_the_ladder_with_strikes():
    [owner] = make_accounts(1)
    ann, ben = program(owner, "Ann"), program(owner, "Ben")
    ArenaEntry.objects.create(player=ann, opted_in=True, mu=30.0, played=4, won=3, lost=1, late=2, illegal=1)
    ArenaEntry.objects.create(player=ben, opted_in=True, played=4, won=1, lost=3, silent=5)
    match = Match.objects.create(game="tictactoe-x9", status=Match.Status.ACTIVE, state="{}", clock_start=20,
                                 clock_play=7)
    Seat.objects.create(match=match, role="xplayer", order=0, player=ann.account)
    Seat.objects.create(match=match, role="oplayer", order=1, player=ben.account)
    ArenaMatch.objects.create(match=match)
    page = Client().get("/ggp/arena/").content.decode()
    assert f'href="/matches/{match.pk}/"' in page and "Ann, Ben" in page and "20 s to start, 7 s a move" in page
    ladder = re.sub(r">\s+<", "><", page[page.index('data-testid="arena-ladder"'):])
    assert ladder.index("Ann") < ladder.index("Ben")
    assert "<td>1710</td><td>4</td><td>3</td><td>0</td><td>1</td><td>0</td><td>2</td><td>1</td><td>0</td>" in ladder


@pytest.mark.parametrize("text, expected", [("5-15", (5, 15)), ("10", (10, 10))])
def test_a_clock_range_reads_low_high(text, expected):
    assert services.clock_range(text) == expected


@pytest.mark.parametrize("text", ["15-5", "0-3", "a-b", ""])
def test_a_wrong_clock_range_is_refused(text):
    with pytest.raises(ValueError):
        services.clock_range(text)


def test_one_process_holds_the_scheduler_until_its_claim_runs_out():
    assert services.arena_claim(owner="one") and services.arena_claim(owner="one")
    assert not services.arena_claim(owner="two")
    ArenaState.objects.update(held_until=timezone.now() - timedelta(seconds=1))
    assert services.arena_claim(owner="two") and not services.arena_claim(owner="one")


def test_the_arena_account_is_a_name_nobody_can_sign_up_with():
    with pytest.raises(ServiceError) as refused:
        account_signup(username=services.ACCOUNT, password="a long enough password", display_name="Arena")
    assert refused.value.code == "reserved_username"
