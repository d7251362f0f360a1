"""The tournaments' pages: the list and its create form, a tournament's page with its standings
and games, the join, withdraw and start buttons; bad input is answered with a clear error and
changes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games.match.clocks import TimeControl
from tests.support.players import make_accounts, make_players
from tournaments import services
from tournaments.models import Entry, Tournament, TournamentGame

pytestmark = pytest.mark.django_db
GAME = "quarto-misere"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def create(user, **overrides) -> Tournament:
    arguments = {"name": "Club night", "game": GAME, "time_control": TimeControl(days=2),
                 "starts_at": timezone.now() + timedelta(hours=1)}
    return services.tournament_create(user=user, **{**arguments, **overrides})


def form(**overrides) -> dict:
    return {"name": "Sunday cup", "game": GAME, "cycles": "1", "clock": "5+3", "starts_in": "15",
            "starts_at": "", "min_players": "2", "max_players": "6", **overrides}


def test_the_list_shows_public_tournaments_by_status_and_hides_private_ones(client):
    owner, ann = make_accounts(2)
    create(owner, name="Open evening")
    create(owner, name="Friends only", is_private=True)
    running = create(ann, name="Already going")
    services.tournament_join(tournament_id=running.pk, user=owner)
    services.tournament_start(tournament_id=running.pk, user=ann)
    page = client.get("/tournaments/").content.decode()
    upcoming, rest = page.split('data-testid="upcoming"')[1].split('data-testid="running"')
    assert "Open evening" in upcoming and "Already going" in rest
    assert "Friends only" not in page
    assert "Misère Quarto" in upcoming and "2 days" in upcoming


def test_visitors_and_guests_are_asked_to_sign_up_instead_of_a_form(client):
    assert "sign up" in client.get("/tournaments/").content.decode()
    guest = signed_in(make_players(1)[0])
    page = guest.get("/tournaments/").content.decode()
    assert 'id="tournament-form"' not in page and "signed-up accounts" in page


def test_the_site_header_links_to_the_tournaments(client):
    assert 'href="/tournaments/"' in client.get("/").content.decode()


def test_an_account_creates_one_and_lands_on_its_page():
    (owner,) = make_accounts(1)
    response = signed_in(owner).post("/tournaments/new/", form())
    tournament = Tournament.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/tournaments/{tournament.pk}/"
    assert tournament.clock_base == 300 and tournament.max_players == 6
    assert timedelta(minutes=14) < tournament.starts_at - timezone.now() <= timedelta(minutes=15)


def test_a_date_and_time_may_be_given_instead_of_minutes():
    (owner,) = make_accounts(1)
    at = (timezone.now() + timedelta(days=2)).replace(second=0, microsecond=0)
    signed_in(owner).post("/tournaments/new/", form(starts_in="", starts_at=at.strftime("%Y-%m-%d %H:%M")))
    assert Tournament.objects.get().starts_at == at


def test_a_private_one_lands_on_its_page_with_the_invite_link_to_share():
    (owner,) = make_accounts(1)
    response = signed_in(owner).post("/tournaments/new/", form(private="on"), follow=True)
    tournament = Tournament.objects.get()
    assert f"?invite={tournament.invite_secret}" in response.content.decode()


@pytest.mark.parametrize("overrides, error", [
    ({"name": ""}, "This field is required."),
    ({"clock": "99+99"}, "Select a valid choice."),
    ({"clock": "m30/10"}, "Select a valid choice."),
    ({"game": "tictactoe-3player"}, "so it is played as a Swiss"),
    ({"game": "tictactoe-no-such"}, "Select a valid choice."),
    ({"starts_in": "", "starts_at": ""}, "Say when it starts"),
    ({"starts_in": "", "starts_at": "next tuesday"}, "Enter a valid date/time."),
    ({"starts_in": "-5"}, "greater than or equal to 1"),
    ({"min_players": "7", "max_players": "3"}, "The least and the most players"),
    ({"max_players": "lots"}, "Enter a whole number."),
    ({"starts_in": "", "starts_at": "2001-01-01 10:00"}, "Choose a start time in the future."),
])
def test_bad_input_is_refused_with_a_clear_error_and_nothing_is_made(overrides, error):
    (owner,) = make_accounts(1)
    response = signed_in(owner).post("/tournaments/new/", form(**overrides))
    assert response.status_code == 400
    assert error in response.content.decode()
    assert not Tournament.objects.exists()


def test_a_guest_posting_the_form_is_told_to_sign_up():
    guest = signed_in(make_players(1)[0])
    response = guest.post("/tournaments/new/", form())
    assert response.status_code == 400 and "sign up to create a tournament" in response.content.decode()
    assert not Tournament.objects.exists()


def test_players_join_and_withdraw_with_the_buttons_and_a_refusal_shows_on_the_page():
    owner, ann = make_accounts(2)
    tournament = create(owner)
    ann_client = signed_in(ann)
    page = ann_client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert f'action="/tournaments/{tournament.pk}/join/"' in page and "Start now" not in page
    ann_client.post(f"/tournaments/{tournament.pk}/join/")
    assert Entry.objects.filter(tournament=tournament, player=ann, withdrawn=False).exists()
    response = ann_client.post(f"/tournaments/{tournament.pk}/join/", follow=True)
    assert "You are already in this tournament." in response.content.decode()
    assert 'action="/tournaments/{}/withdraw/"'.format(tournament.pk) in response.content.decode()
    ann_client.post(f"/tournaments/{tournament.pk}/withdraw/")
    assert Entry.objects.get(tournament=tournament, player=ann).withdrawn


def test_the_creator_starts_it_and_the_page_shows_the_standings_and_the_games():
    owner, ann = make_accounts(2)
    tournament = create(owner)
    services.tournament_join(tournament_id=tournament.pk, user=ann)
    owner_client = signed_in(owner)
    assert "Start now" in owner_client.get(f"/tournaments/{tournament.pk}/").content.decode()
    page = owner_client.post(f"/tournaments/{tournament.pk}/start/", follow=True).content.decode()
    game = TournamentGame.objects.get(tournament=tournament)
    assert "Running: round 1 of 1" in page
    assert f'href="/matches/{game.match_id}/"' in page and 'data-testid="standings"' in page
    assert page.count('data-testid="score">0<') == 2


def test_a_tournament_games_match_page_links_back_to_it(client):
    owner, ann = make_accounts(2)
    tournament = create(owner, name="Back link cup")
    services.tournament_join(tournament_id=tournament.pk, user=ann)
    services.tournament_start(tournament_id=tournament.pk, user=owner)
    game = TournamentGame.objects.get(tournament=tournament)
    page = client.get(f"/matches/{game.match_id}/").content.decode()
    assert f'href="/tournaments/{tournament.pk}/">Back link cup</a>' in page


def test_a_private_tournament_is_hidden_without_its_link(client):
    (owner,) = make_accounts(1)
    tournament = create(owner, is_private=True)
    assert client.get(f"/tournaments/{tournament.pk}/").status_code == 404
    assert client.get(f"/tournaments/{tournament.pk}/?invite=wrong").status_code == 404
    assert client.get(f"/tournaments/{tournament.pk}/?invite={tournament.invite_secret}").status_code == 200
    assert client.post(f"/tournaments/{tournament.pk}/join/").status_code == 404


def test_a_missing_tournament_is_a_404_and_the_buttons_take_only_posts(client):
    (owner,) = make_accounts(1)
    tournament = create(owner)
    assert client.get("/tournaments/999999/").status_code == 404
    assert signed_in(owner).get(f"/tournaments/{tournament.pk}/start/").status_code == 405
