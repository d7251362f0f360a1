"""Rated matches with GGP seats (``games.services.matches.require_ggp_seats_ratable``): never
against a program one of the people seated registered, and never against a program whose last
check did not find it online, from the service, the GGP players' page and a later join alike."""

import pytest
from django.test import Client

from games import services
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import GGPPlayer, Match
from tests.support.players import make_accounts

pytestmark = pytest.mark.django_db(transaction=True)
PER_MOVE = TimeControl(start=30, play=10)
NOBODY_HOME = "http://localhost:9/"  # nothing listens: every call fails at once


@pytest.fixture(autouse=True)
def inline(settings):
    settings.COMPUTER_WORKERS = "inline"
    settings.GGP_PLAYER_HOSTS = ["localhost"]
    settings.GGP_INFO_SECONDS = settings.GGP_GRACE_SECONDS = 1


def registered(owner, name: str, status: str = GGPPlayer.Status.ONLINE) -> GGPPlayer:
    player = services.ggp_player_register(owner=owner, name=name, url=NOBODY_HOME)
    GGPPlayer.objects.filter(pk=player.pk).update(status=status)
    return player


def against(user, player: GGPPlayer, *, rated: bool, slug: str = "tictactoe-x9") -> Match:
    return services.match_create(user=user, settings=MatchSettings(slug, rated, PER_MOVE), role="xplayer",
                                 ggp_players={"oplayer": player.pk})


def test_a_match_against_ones_own_program_is_never_rated_but_may_be_casual():
    [alice] = make_accounts(1)
    mine = registered(alice, "Nobody Home")
    with pytest.raises(services.ServiceError) as refused:
        against(alice, mine, rated=True)
    assert refused.value.code == "ggp_own_program"
    assert "Nobody Home is a GGP player you registered" in refused.value.message
    assert not Match.objects.exists()
    assert not against(alice, mine, rated=False).rated


def test_someone_elses_program_online_may_be_played_rated():
    alice, bob = make_accounts(2)
    assert against(alice, registered(bob, "Bobs Engine"), rated=True).rated


@pytest.mark.parametrize("status", [GGPPlayer.Status.AWAY, GGPPlayer.Status.BUSY, GGPPlayer.Status.CHECKING])
def test_a_program_that_is_not_online_is_not_seated_in_a_rated_match(status):
    alice, bob = make_accounts(2)
    silent = registered(bob, "Silent", status)
    with pytest.raises(services.ServiceError) as refused:
        against(alice, silent, rated=True)
    assert refused.value.code == "ggp_not_online" and refused.value.message.startswith("Silent ")
    assert not Match.objects.exists()
    assert not against(alice, silent, rated=False).rated


def test_the_owner_may_not_join_a_rated_match_that_seats_their_program():
    """Bob's rated three-player match seats Alice's program; Alice may not take its free seat,
    Carol may (and the match starts)."""
    alice, bob, carol = make_accounts(3)
    program = registered(alice, "Alices Engine")
    match = services.match_create(user=bob, settings=MatchSettings("tictactoe-3player", True, PER_MOVE),
                                  role="xplayer", ggp_players={"oplayer": program.pk})
    with pytest.raises(services.ServiceError) as refused:
        services.seat_join(match_id=match.pk, user=alice)
    assert refused.value.code == "ggp_own_program"
    assert services.seat_join(match_id=match.pk, user=carol).status == Match.Status.ACTIVE


def test_the_ggp_page_says_why_a_match_against_ones_own_program_is_not_rated():
    [alice] = make_accounts(1)
    mine = registered(alice, "Nobody Home")
    client = Client()
    client.force_login(alice)
    answer = client.post(f"/ggp/{mine.pk}/play/", {"game": "tictactoe-x9", "clock": "m5/3", "rated": "on"},
                         follow=True)
    assert answer.redirect_chain[-1][0] == "/ggp/"
    assert "a match against your own program cannot be rated" in answer.content.decode()
    assert not Match.objects.exists()


def test_the_ggp_page_offers_rated_only_against_others_programs_online():
    alice, bob = make_accounts(2)
    registered(alice, "Mine")
    registered(bob, "Theirs")
    registered(bob, "Theirs Asleep", GGPPlayer.Status.AWAY)
    client = Client()
    client.force_login(alice)
    page = client.get("/ggp/").content.decode()
    forms = {name: page.split(f"Play {name}</button>")[0].rsplit("<form", 1)[1]
             for name in ["Mine", "Theirs", "Theirs Asleep"]}
    assert ['name="rated"' in forms[name] for name in forms] == [False, True, False]
