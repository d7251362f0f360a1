"""Lobby and account pages: they render, the create-match form, guests, CSRF."""

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Match
from tests.support.players import make_players

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(client):
    user = make_players(1, "Ada")[0]
    client.force_login(user)
    return client, user


def test_home_renders_for_a_visitor_with_the_guest_form(client):
    page = client.get("/").content.decode()
    assert 'action="/guest/"' in page and "Play as guest" in page
    assert "New match" not in page


def test_home_for_a_player_offers_every_game_and_its_seats(signed_in):
    client, user = signed_in
    page = client.get("/").content.decode()
    assert "New match" in page and f'href="/players/{user.pk}/"' in page
    for slug in ["nine-board-tictactoe", "tictactoe-x9", "nine-board-tictactoe-pie", "tictactoe-3player",
                 "tictactoe-3player-torus", "quarto-misere", "quarto-misere-classic"]:
        assert f'value="{slug}"' in page
    assert '"quarto-misere": ["white", "black"]' in page  # the seat list the page narrows to the game


def test_guest_form_signs_in_and_returns_to_next(client):
    response = client.post("/guest/", {"display_name": "  Grace ", "next": "/history/"})
    assert response.status_code == 302 and response.url == "/history/"
    assert "Grace" in client.get("/").content.decode()


def test_guest_form_refuses_an_outside_next(client):
    response = client.post("/guest/", {"display_name": "Grace", "next": "//evil.example/"})
    assert response.url == reverse("lobby:home")


def test_create_match_with_a_seat(signed_in):
    client, user = signed_in
    response = client.post("/matches/new/", {"game": "quarto-misere", "role": "black"})
    match = Match.objects.get()
    assert response.status_code == 302 and response.url == f"/matches/{match.pk}/"
    assert match.seats.get(player=user).role == "black" and not match.is_private


def test_create_match_against_the_computer_starts_it_with_the_computer_in_the_other_seats(signed_in):
    client, user = signed_in
    response = client.post("/matches/new/", {"game": "tictactoe-3player", "role": "oplayer", "opponents": "computer",
                                             "computer_level": "1"})
    match = Match.objects.get()
    assert response.url == f"/matches/{match.pk}/" and match.status == Match.Status.ACTIVE
    seats = {s.role: s.player for s in match.seats.select_related("player")}
    assert seats.pop("oplayer") == user
    assert sorted(p.display_name for p in seats.values()) == ["Computer (easy)", "Computer 2 (easy)"]
    assert all(p.is_computer and p.computer_level == 1 for p in seats.values())
    client.post("/matches/new/", {"game": "quarto-misere", "opponents": "computer"})  # no level: medium
    assert Match.objects.latest("pk").seats.exclude(player=user).get().player.display_name == "Computer (medium)"


def test_create_match_refuses_an_unknown_kind_of_opponent(signed_in):
    client, _ = signed_in
    client.post("/matches/new/", {"game": "quarto-misere", "opponents": "robots"})
    assert not Match.objects.exists()


def test_create_private_match_with_a_random_seat(signed_in):
    client, user = signed_in
    client.post("/matches/new/", {"game": "tictactoe-3player", "role": "", "private": "on"})
    match = Match.objects.get()
    assert match.is_private and match.seats.get(player=user).role in {"xplayer", "oplayer", "zplayer"}


def test_create_match_refuses_a_seat_of_another_game(signed_in):
    client, _ = signed_in
    response = client.post("/matches/new/", {"game": "quarto-misere", "role": "xPlayer"}, follow=True)
    assert not Match.objects.exists()
    assert "That game has no seat xPlayer." in response.content.decode()


def test_create_match_needs_a_name(client):
    response = client.post("/matches/new/", {"game": "quarto-misere"}, follow=True)
    assert not Match.objects.exists()
    assert "Choose a name" in response.content.decode()


def test_login_and_signup_pages_render(client):
    assert "Log in" in client.get("/login/").content.decode()
    assert "Create account" in client.get("/signup/").content.decode()


def test_signup_turns_the_guest_into_an_account(client):
    client.post("/guest/", {"display_name": "Grace"})
    response = client.post("/signup/", {"username": "grace", "password": "correct-horse-battery-staple"}, follow=True)
    page = response.content.decode()
    assert "your account is ready" in page and "Log out" in page


@pytest.mark.parametrize("path,data", [
    ("/guest/", {"display_name": "Grace"}),
    ("/matches/new/", {"game": "quarto-misere"}),
    ("/signup/", {"username": "grace", "password": "correct-horse-battery-staple"}),
])
def test_forms_need_the_csrf_token(path, data):
    client = Client(enforce_csrf_checks=True)
    assert client.post(path, data).status_code == 403
