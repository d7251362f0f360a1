"""Play with a friend from the home page: the form, a visitor made a guest, the seat chosen,
and the match page's invite link with its QR code and lifetime."""

import pytest
from django.test import override_settings

from games.models import Match
from games.rules import get_game
from tests.support.players import make_players

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("signed_in", [False, True])
def test_home_offers_play_with_a_friend_to_visitors_and_players(client, signed_in):
    if signed_in:
        client.force_login(make_players(1)[0])
    page = client.get("/").content.decode()
    assert 'id="play-friend"' in page and 'action="/play/friend/"' in page and "Get an invite link" in page
    assert ("Your name (optional)" in page) is not signed_in


def test_a_visitor_becomes_the_guest_named_and_gets_a_private_match_in_the_seat_chosen(client):
    answer = client.post("/play/friend/", {"game": "quarto-misere", "clock": "untimed", "seat": "2",
                                           "display_name": "Ada"})
    match = Match.objects.get()
    assert answer.status_code == 302 and answer["Location"] == f"/matches/{match.pk}/"
    assert match.is_private and match.status == Match.Status.WAITING and not match.rated
    seat = match.seats.get(player__isnull=False)
    assert (seat.player.display_name, seat.player.is_guest, seat.role) == ("Ada", True, get_game("quarto-misere").roles[1])


def test_without_a_name_the_visitor_plays_as_a_generated_guest(client):
    client.post("/play/friend/", {"game": "nine-board-tictactoe", "clock": "5+3"})
    match = Match.objects.get()
    assert match.seats.get(player__isnull=False).player.display_name.startswith("Guest ")
    assert match.clock_base == 300 and match.clock_increment == 3


def test_a_seat_the_game_does_not_have_is_refused_and_nothing_is_made(client):
    answer = client.post("/play/friend/", {"game": "quarto-misere", "seat": "3"}, follow=True)
    assert "That game has 2 seats." in answer.content.decode()
    assert not Match.objects.exists()
    answer = client.post("/play/friend/", {"game": "no-such-game"}, follow=True)
    assert not Match.objects.exists() and answer.status_code == 200


@override_settings(INVITE_GRACE_SECONDS=300)
def test_the_creators_page_gives_the_link_its_qr_code_and_how_long_it_stays_open(client):
    client.post("/play/friend/", {"game": "quarto-misere", "display_name": "Ada"})
    match = Match.objects.get()
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert f"?invite={match.invite_token}" in page
    assert '<svg role="img"' in page and "<title>QR code of the invite link</title>" in page
    assert "for 5 minutes after you leave it" in page
    friend = client.__class__()
    seen = friend.get(f"/matches/{match.pk}/?invite={match.invite_token}").content.decode()
    assert "<svg role=\"img\"" not in seen and 'id="invite-ended"' not in seen  # the friend joins; no link to pass on
