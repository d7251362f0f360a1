"""The bot API's tournament calls (botapi/tournament_calls.py) through the real views and
services: the list with settings and counts, one tournament's standings and your part, joining
(a private one with its invite or password) and withdrawing with the page's codes, an arena's
pause and resume, and an arena game made by a pairing wave reaching the bot's event stream as
``gameStart`` and played with the match calls. Answers validate against the OpenAPI models."""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from botapi import openapi
from games import services as games
from games.match.clocks import TimeControl
from games.models import Match
from games.rules import get_game
from tests.botapi.support import call, token_for
from tests.botapi.test_streams import open_stream
from tests.support.players import make_accounts
from tournaments import arena, services
from tournaments.arena_presence import arena_page_enter
from tournaments.models import Entry, TournamentGame

pytestmark = pytest.mark.django_db(transaction=True)
GAME = "nine-board-tictactoe"
SOON = timedelta(minutes=10)


def round_robin(owner, **overrides):
    arguments = {"name": "Sunday round robin", "game": GAME, "time_control": TimeControl(days=1),
                 "starts_at": timezone.now() + SOON}
    return services.tournament_create(user=owner, **{**arguments, **overrides})


def new_arena(owner, **overrides):
    arguments = {"name": "Bots' arena", "game": GAME, "time_control": TimeControl(base=180, increment=2),
                 "minutes": 30, "starts_at": timezone.now() + SOON}
    return arena.arena_create(user=owner, **{**arguments, **overrides})


def test_the_list_has_upcoming_and_running_public_tournaments_with_their_settings_and_counts():
    ann, bob = make_accounts(2)
    upcoming = round_robin(ann)
    running = new_arena(bob)
    arena.arena_start(tournament_id=running.pk, user=bob)
    round_robin(ann, name="Hidden", is_private=True)
    answer = call(token_for(bob, ("read",)), "/tournaments", method="get")
    assert answer.status_code == 200
    listed = openapi.TournamentList.model_validate(answer.json())
    assert [t.id for t in listed.upcoming] == [upcoming.pk] and [t.id for t in listed.running] == [running.pk]
    first = answer.json()["upcoming"][0]
    assert (first["format"], first["game"], first["clock"], first["players"], first["max_players"]) == (
        "round_robin", GAME, "d1", 1, 8)
    assert answer.json()["running"][0]["format"] == "arena" and answer.json()["running"][0]["ends_at"]


def test_one_tournament_gives_its_standings_and_your_part_and_a_private_one_needs_its_invite():
    ann, bob = make_accounts(2)
    tournament = round_robin(ann, is_private=True)
    bob_token = token_for(bob)
    hidden = call(bob_token, f"/tournaments/{tournament.pk}", method="get")
    assert (hidden.status_code, hidden.json()["code"]) == (404, "not_found")
    assert call(bob_token, "/tournaments/999999", method="get").json()["code"] == "not_found"
    seen = call(bob_token, f"/tournaments/{tournament.pk}?invite={tournament.invite_secret}", method="get")
    view = openapi.TournamentView.model_validate(seen.json())
    assert [row.id for row in view.standings] == [ann.pk] and not view.you.joined
    joined = call(bob_token, f"/tournaments/{tournament.pk}/join", {"invite": tournament.invite_secret})
    assert joined.json() == {"ok": True, "joined": True, "paused": False}
    again = call(bob_token, f"/tournaments/{tournament.pk}", method="get").json()  # entered: no invite needed
    assert again["you"]["joined"] and again["tournament"]["players"] == 2


def test_joining_and_withdrawing_take_the_pages_checks_and_codes():
    ann, bob, cat = make_accounts(3)
    tournament = round_robin(ann, is_private=True, password="open sesame", max_players=2)
    bob_token, cat_token = token_for(bob), token_for(cat)
    path = f"/tournaments/{tournament.pk}"
    wrong = call(bob_token, f"{path}/join", {"password": "guess"})
    assert (wrong.status_code, wrong.json()["code"]) == (400, "wrong_password")
    assert not Entry.objects.filter(tournament=tournament, player=bob).exists()
    assert call(bob_token, f"{path}/join", {"password": "open sesame"}).json()["joined"]
    assert call(bob_token, f"{path}/join", {"password": "open sesame"}).json()["code"] == "already_joined"
    assert call(cat_token, f"{path}/join", {"password": "open sesame"}).json()["code"] == "full"
    withdrawn = call(bob_token, f"{path}/withdraw")
    assert withdrawn.json() == {"ok": True, "joined": False, "paused": False}
    openapi.TournamentEntry.model_validate(withdrawn.json())
    assert call(bob_token, f"{path}/withdraw").json()["code"] == "not_joined"
    assert call(token_for(cat, ("read",)), f"{path}/join", {"password": "open sesame"}).json()["code"] == "missing_scope"
    unknown = call(cat_token, f"{path}/join", {"password": "open sesame", "seat": 1})
    assert (unknown.status_code, unknown.json()["code"]) == (400, "malformed")
    assert call(cat_token, "/tournaments/999999/join").status_code == 404


def test_an_arena_is_paused_and_resumed_and_pause_is_for_arenas_only():
    ann, bob = make_accounts(2)
    tournament = new_arena(ann)
    bob_token = token_for(bob)
    path = f"/tournaments/{tournament.pk}"
    assert call(bob_token, f"{path}/join").json()["joined"]
    early = call(bob_token, f"{path}/pause")
    assert (early.status_code, early.json()["code"]) == (400, "not_running")
    arena.arena_start(tournament_id=tournament.pk, user=ann)
    game = TournamentGame.objects.get(tournament=tournament)
    assert {game.first_id, game.second_id} == {ann.pk, bob.pk}
    assert call(bob_token, f"{path}/pause").json() == {"ok": True, "joined": True, "paused": True}
    assert call(bob_token, f"{path}/pause").json()["code"] == "already_paused"
    assert call(bob_token, f"{path}/resume").json() == {"ok": True, "joined": True, "paused": False}
    other = round_robin(ann)
    assert call(bob_token, f"/tournaments/{other.pk}/pause").json()["code"] == "not_found"


async def test_an_arena_game_made_by_a_wave_reaches_the_bots_event_stream_and_is_played_through_the_api(settings):
    """With the auto-pause on: the open event stream is what keeps the bot at the arena."""
    settings.ARENA_PAUSE_ABSENT = True
    settings.BOT_API_KEEPALIVE_SECONDS = 0.2
    ann, bot = await database_sync_to_async(make_accounts)(2)
    tournament = await database_sync_to_async(new_arena)(ann)
    secret = await database_sync_to_async(token_for)(bot)
    _, events = await open_stream(secret, "/stream/event")
    try:
        assert await events.next(keepalive=True) is None  # the stream listens and counts the bot as there
        await events.next(keepalive=True)
        joined = await database_sync_to_async(call)(secret, f"/tournaments/{tournament.pk}/join")
        assert joined.json()["joined"]
        await database_sync_to_async(arena_page_enter)(tournament_id=tournament.pk, channel_name="ann-page",
                                                       user_id=ann.pk)
        await database_sync_to_async(arena.arena_start)(tournament_id=tournament.pk, user=ann)
        start = await events.next("gameStart")
        game = await database_sync_to_async(TournamentGame.objects.get)(tournament=tournament)
        assert start["game"]["id"] == game.match_id and len(start["game"]["roles"]) == 1
        openapi.GameStart.model_validate(start)
        if game.first_id == ann.pk:  # ann moves first: the bot answers
            await database_sync_to_async(first_move)(game.match_id, ann)
        state = (await database_sync_to_async(call)(secret, f"/matches/{game.match_id}", method="get")).json()
        (action, *_), = state["you"]["legal"].values()
        moved = await database_sync_to_async(call)(secret, f"/matches/{game.match_id}/move",
                                                  {"action": action, "version": state["version"]})
        assert moved.json() == {"ok": True, "version": state["version"] + 1}
    finally:
        await events.close()



def first_move(match_id: int, user) -> None:
    match = Match.objects.get(pk=match_id)
    rules = get_game(match.game)
    games.move_submit(match_id=match_id, user=user, version=match.version,
                      action=rules.legal_actions(rules.state_from_json(match.state))[0])
