"""A Swiss's pages: created from the form, its standings with Buchholz and Sonneborn-Berger,
the podium once finished, the whole tournament's download (each game in the GGP match form),
a private tournament's password, and the history filtered by tournament."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games import services as games
from games.match.clocks import TimeControl
from tests.support.players import make_accounts, play_first_moves, start_match
from tournaments import formats, services
from tournaments.models import Entry, Tournament, TournamentGame

pytestmark = pytest.mark.django_db(transaction=True)
GAME = "nine-board-tictactoe"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def form(**overrides) -> dict:
    return {"name": "Sunday Swiss", "game": GAME, "cycles": "-1", "rounds": "3", "clock": "d1", "starts_in": "15",
            "starts_at": "", "min_players": "2", "max_players": "40", **overrides}


def finished_swiss(players, **overrides) -> Tournament:
    """A 2-round Swiss of ``players`` (the first creates it), every game won by its first mover."""
    arguments = {"name": "Quick Swiss", "game": GAME, "time_control": TimeControl(days=1),
                 "starts_at": timezone.now() + timedelta(minutes=10), "tournament_format": "swiss", "rounds": 2,
                 "max_players": 10}
    tournament = services.tournament_create(user=players[0], **{**arguments, **overrides})
    for player in players[1:]:
        formats.tournament_join(tournament_id=tournament.pk, user=player, invite=tournament.invite_secret)
    formats.tournament_start(tournament_id=tournament.pk, user=players[0])
    for number in (1, 2):
        for game in TournamentGame.objects.filter(tournament=tournament, round=number).select_related(
                "match", "first", "second"):
            match = play_first_moves(game.match, [game.first, game.second])
            games.match_resign(match_id=match.pk, user=game.second)
    return Tournament.objects.get(pk=tournament.pk)


def test_the_form_creates_a_swiss_and_its_page_says_so():
    (owner,) = make_accounts(1)
    response = signed_in(owner).post("/tournaments/new/", form())
    tournament = Tournament.objects.get()
    assert response.status_code == 302 and (tournament.format, tournament.rounds) == ("swiss", 3)
    page = signed_in(owner).get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Swiss of 3 rounds" in page and "FIDE Dutch system" in page


def test_a_swiss_without_rounds_is_refused_with_the_reason_and_nothing_made():
    (owner,) = make_accounts(1)
    response = signed_in(owner).post("/tournaments/new/", form(rounds=""))
    assert response.status_code == 400 and "Say how many rounds" in response.content.decode()
    response = signed_in(owner).post("/tournaments/new/", form(rounds="99"))
    assert response.status_code == 400 and not Tournament.objects.exists()


def test_a_finished_swiss_shows_its_tie_breaks_and_podium_and_downloads_whole():
    players = make_accounts(4)
    tournament = finished_swiss(players)
    assert tournament.status == "finished"
    page = Client().get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'data-testid="buchholz"' in page and 'data-testid="podium"' in page
    podium = page.split('data-testid="podium"')[1].split("</ol>")[0]
    assert podium.count("<li>") == 3
    response = Client().get(f"/tournaments/{tournament.pk}/download.json")
    assert response.status_code == 200 and "attachment" in response["Content-Disposition"]
    data = json.loads(response.content)
    assert data["tournament"]["format"] == "swiss" and len(data["games"]) == 4
    assert {"buchholz", "sonnebornBerger", "rank", "score"} <= set(data["standings"][0])
    scores = {row["player"]["id"]: row["score"] for row in data["standings"]}
    assert scores == dict(Entry.objects.filter(tournament=tournament).values_list("player_id", "score"))
    match = data["games"][0]["match"]
    assert match["gameSlug"] == GAME and match["isCompleted"] and len(match["states"]) == len(match["moves"]) + 1
    assert data["games"][0]["result"] == "1-0"


def test_a_private_tournament_downloads_only_with_its_link():
    players = make_accounts(2)
    tournament = finished_swiss(players, is_private=True)
    assert Client().get(f"/tournaments/{tournament.pk}/download.json").status_code == 404
    with_link = Client().get(f"/tournaments/{tournament.pk}/download.json?invite={tournament.invite_secret}")
    assert with_link.status_code == 200 and json.loads(with_link.content)["games"][0]["match"] is not None


def test_a_password_lets_a_visitor_join_a_private_tournament_without_the_link():
    owner, friend = make_accounts(2)
    tournament = services.tournament_create(user=owner, name="Club", game=GAME, time_control=TimeControl(days=1),
                                            starts_at=timezone.now() + timedelta(hours=1), is_private=True,
                                            password="rook and roll")
    client = signed_in(friend)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'name="password"' in page
    refused = client.post(f"/tournaments/{tournament.pk}/join/", {"password": "wrong"}, follow=True)
    assert "not this tournament&#x27;s password" in refused.content.decode()
    assert not Entry.objects.filter(tournament=tournament, player=friend).exists()
    client.post(f"/tournaments/{tournament.pk}/join/", {"password": "rook and roll"})
    assert Entry.objects.filter(tournament=tournament, player=friend).exists()


def test_a_private_tournament_without_a_password_stays_hidden():
    owner, stranger = make_accounts(2)
    tournament = services.tournament_create(user=owner, name="Club", game=GAME, time_control=TimeControl(days=1),
                                            starts_at=timezone.now() + timedelta(hours=1), is_private=True)
    assert signed_in(stranger).get(f"/tournaments/{tournament.pk}/").status_code == 404
    assert signed_in(stranger).post(f"/tournaments/{tournament.pk}/join/", {"password": "x"}).status_code == 404


def test_the_history_filters_by_tournament():
    players = make_accounts(4)
    tournament = finished_swiss(players)
    outside = play_first_moves(start_match(GAME, players[:2]), players[:2])
    games.match_resign(match_id=outside.pk, user=players[1])
    everything = Client().get("/history/").content.decode()
    only = Client().get(f"/history/?tournament={tournament.pk}").content.decode()
    ids = set(TournamentGame.objects.filter(tournament=tournament).values_list("match_id", flat=True))
    assert f"/matches/{outside.pk}/" in everything and f"/matches/{outside.pk}/" not in only
    assert all(f"/matches/{pk}/" in only for pk in ids)
    assert f"/tournaments/{tournament.pk}/" in only
    bad = Client().get("/history/?tournament=abc")
    assert bad.status_code == 200 and "not a tournament" in bad.content.decode()


def test_the_form_takes_a_password_for_a_private_tournament_only():
    (owner,) = make_accounts(1)
    refused = signed_in(owner).post("/tournaments/new/", form(password="pw"))
    assert refused.status_code == 400 and "tick private" in refused.content.decode()
    assert not Tournament.objects.exists()
    signed_in(owner).post("/tournaments/new/", form(password="pw", private="on"))
    tournament = Tournament.objects.get()
    assert tournament.is_private and tournament.password and tournament.password != "pw"


def test_a_running_swiss_offers_late_joining_and_withdrawing():
    owner, ann, late = make_accounts(3)
    tournament = services.tournament_create(user=owner, name="Long Swiss", game=GAME, time_control=TimeControl(days=1),
                                            starts_at=timezone.now() + timedelta(hours=1),
                                            tournament_format="swiss", rounds=4)
    formats.tournament_join(tournament_id=tournament.pk, user=ann)
    formats.tournament_start(tournament_id=tournament.pk, user=owner)
    assert "Withdraw" in signed_in(ann).get(f"/tournaments/{tournament.pk}/").content.decode()
    page = signed_in(late).get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Players may still join" in page and f"/tournaments/{tournament.pk}/join/" in page
    signed_in(late).post(f"/tournaments/{tournament.pk}/join/")
    page = Client().get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'data-testid="byes"' in page and "round 1 member 3 (0.5)" in page


def test_a_missing_tournament_has_no_download():
    assert Client().get("/tournaments/999999/download.json").status_code == 404
