"""An arena's pages: created from the tournaments form, its page drawn from its state, the
buttons (join, pause, resume, withdraw, start) calling the arena's writes, and Berserk on its
game's match page for the player before the game begins."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from games.models import Match
from tests.support.players import make_accounts, play_first_moves
from tournaments.models import Entry, Tournament, TournamentGame

pytestmark = pytest.mark.django_db(transaction=True)


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def form(**overrides) -> dict:
    return {"name": "Blitz arena", "game": "nine-board-tictactoe", "cycles": "0", "minutes": "30", "clock": "3+2",
            "starts_in": "15", "starts_at": "", "min_players": "2", "max_players": "20", **overrides}


def state_of(page) -> dict:
    found = re.search(r'<script id="tournament-state" type="application/json">(.*?)</script>', page.content.decode(), re.S)
    return json.loads(found.group(1))


def test_an_account_creates_an_arena_from_the_form_and_lands_on_its_live_page():
    (owner,) = make_accounts(1)
    client = signed_in(owner)
    answer = client.post("/tournaments/new/", form())
    tournament = Tournament.objects.get()
    assert answer.status_code == 302 and answer["Location"] == f"/tournaments/{tournament.pk}/"
    assert (tournament.format, tournament.minutes) == ("arena", 30)
    page = client.get(answer["Location"])
    assert b"Arena of Nine-Board Tic-Tac-Toe" in page.content and b"js/tournament.js" in page.content
    state = state_of(page)
    assert state["status"] == "upcoming" and state["you"] == {"joined": True, "paused": False, "game": None}
    assert b"arena, 30 min" in client.get("/tournaments/").content


@pytest.mark.parametrize(("overrides", "error"), [
    ({"clock": "d1"}, b"An arena is played in real time"),
    ({"minutes": ""}, b"Say how many minutes the arena lasts"),
    ({"minutes": "1"}, b"Ensure this value is greater than or equal to 5"),
])
def test_an_arena_the_form_cannot_make_is_refused_with_why(overrides, error):
    (owner,) = make_accounts(1)
    answer = signed_in(owner).post("/tournaments/new/", form(**overrides))
    assert answer.status_code == 400 and error in answer.content
    assert not Tournament.objects.exists()


def test_an_arena_takes_more_players_than_a_round_robin():
    (owner,) = make_accounts(1)
    client = signed_in(owner)
    refused = client.post("/tournaments/new/", form(cycles="1", clock="d1", max_players="100"))
    assert refused.status_code == 400 and b"The least and the most players must lie between 2 and 20" in refused.content
    assert client.post("/tournaments/new/", form(max_players="100")).status_code == 302
    assert Tournament.objects.get().max_players == 100


def test_the_buttons_join_start_pause_resume_and_withdraw():
    owner, ann, bob = make_accounts(3)
    signed_in(owner).post("/tournaments/new/", form())
    tournament = Tournament.objects.get()
    base = f"/tournaments/{tournament.pk}"
    for player in (ann, bob):
        signed_in(player).post(f"{base}/join/")
    signed_in(owner).post(f"{base}/start/")
    tournament.refresh_from_db()
    assert tournament.status == "running" and TournamentGame.objects.filter(tournament=tournament).count() == 1
    waiting = Entry.objects.filter(tournament=tournament).exclude(
        player__in=TournamentGame.objects.values("first")).exclude(player__in=TournamentGame.objects.values("second")).get()
    client = signed_in(waiting.player)
    client.post(f"{base}/pause/")
    assert state_of(client.get(f"{base}/"))["you"]["paused"]
    refused = client.post(f"{base}/pause/", follow=True)
    assert b"You are already paused" in refused.content
    client.post(f"{base}/join/")
    assert not state_of(client.get(f"{base}/"))["you"]["paused"]
    client.post(f"{base}/withdraw/")
    waiting.refresh_from_db()
    assert waiting.withdrawn


def test_berserk_shows_on_the_players_match_page_before_the_game_begins_and_halves_the_clock():
    owner, ann = make_accounts(2)
    signed_in(owner).post("/tournaments/new/", form())
    tournament = Tournament.objects.get()
    signed_in(ann).post(f"/tournaments/{tournament.pk}/join/")
    signed_in(owner).post(f"/tournaments/{tournament.pk}/start/")
    game = TournamentGame.objects.select_related("match").get()
    client = signed_in(ann)
    page = client.get(f"/matches/{game.match_id}/")
    assert b'id="berserk-form"' in page.content and b'id="tournament-link"' in page.content
    assert b'id="berserk-form"' not in Client().get(f"/matches/{game.match_id}/").content  # a watcher
    answer = client.post(f"/tournaments/{tournament.pk}/berserk/{game.match_id}/", {"back": f"/matches/{game.match_id}/"})
    assert answer["Location"] == f"/matches/{game.match_id}/"
    role = game.match.seats.get(player=ann).role
    assert Match.objects.get(pk=game.match_id).clock["remaining"][role] == 90_000
    assert b'id="berserk-form"' not in client.get(f"/matches/{game.match_id}/").content
    again = client.post(f"/tournaments/{tournament.pk}/berserk/{game.match_id}/",
                        {"back": "https://elsewhere.example/"}, follow=True)
    assert again.request["PATH_INFO"] == f"/tournaments/{tournament.pk}/"
    assert b"already gone berserk" in again.content


def test_no_berserk_once_the_game_has_begun():
    owner, ann = make_accounts(2)
    signed_in(owner).post("/tournaments/new/", form())
    tournament = Tournament.objects.get()
    signed_in(ann).post(f"/tournaments/{tournament.pk}/join/")
    signed_in(owner).post(f"/tournaments/{tournament.pk}/start/")
    game = TournamentGame.objects.select_related("match", "first", "second").get()
    play_first_moves(game.match, [game.first, game.second])
    assert b'id="berserk-form"' not in signed_in(ann).get(f"/matches/{game.match_id}/").content


def test_an_arena_downloads_with_its_own_scores_and_every_game():
    from games import services

    owner, ann = make_accounts(2)
    signed_in(owner).post("/tournaments/new/", form())
    tournament = Tournament.objects.get()
    signed_in(ann).post(f"/tournaments/{tournament.pk}/join/")
    signed_in(owner).post(f"/tournaments/{tournament.pk}/start/")
    game = TournamentGame.objects.get(tournament=tournament)
    play_first_moves(game.match, [game.first, game.second], 2)
    services.match_resign(match_id=game.match_id, user=game.second)
    answer = signed_in(ann).get(f"/tournaments/{tournament.pk}/download.json")
    assert answer.status_code == 200 and "attachment" in answer["Content-Disposition"]
    data = answer.json()
    assert data["tournament"]["format"] == "arena"
    top = data["standings"][0]
    assert (top["player"]["id"], top["score"], top["played"]) == (game.first_id, 2, 1)
    assert [mark["points"] for mark in top["marks"]] == [2]
    (row,) = data["games"]
    assert row["match"] is not None and len(row["match"]["moves"]) == 2
