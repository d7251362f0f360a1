"""A tournament page's socket (live/consumers/tournament.py) through the real ASGI stack: the
standings and games in play pushed on every change with a growing version, the viewer's own
game, a private tournament kept from those without its link, and every write refused."""

from __future__ import annotations

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from config.asgi import application
from games.match.clocks import TimeControl
from live.sockets import NOT_FOUND
from tests.support.players import make_accounts, session_cookie
from tests.support.waits import EVENT_SECONDS
from tournaments import arena, arena_presence

pytestmark = pytest.mark.django_db(transaction=True)

HOST, ORIGIN = (b"host", b"127.0.0.1"), (b"origin", b"http://127.0.0.1")


async def opened(path: str, user=None) -> WebsocketCommunicator:
    headers = [HOST, ORIGIN]
    if user is not None:
        cookie = await database_sync_to_async(session_cookie)(user)
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    comm = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await comm.connect(timeout=EVENT_SECONDS)
    assert connected
    return comm


async def next_of(comm: WebsocketCommunicator, kind: str) -> dict:
    while True:
        message = await comm.receive_json_from(timeout=EVENT_SECONDS)
        if message["type"] == kind:
            return message
        assert message["type"] == "pong", message


async def state_where(comm: WebsocketCommunicator, condition) -> dict:
    """The first state that meets ``condition``; each one newer than the one before."""
    version = -1
    while True:
        state = await next_of(comm, "tournament")
        assert state["version"] > version
        version = state["version"]
        if condition(state):
            return state


def new_arena(owner, **overrides):
    return arena.arena_create(user=owner, name="Evening arena", game="nine-board-tictactoe",
                              time_control=TimeControl(base=180, increment=2), minutes=20,
                              starts_at=timezone.now() + timedelta(minutes=5), **overrides)


async def test_a_watcher_sees_players_join_and_the_games_begin_and_each_player_their_own_game():
    ann, bob, cat = await database_sync_to_async(make_accounts)(3)
    tournament = await database_sync_to_async(new_arena)(ann)
    watcher = await opened(f"/ws/tournaments/{tournament.pk}/")
    first = await next_of(watcher, "tournament")
    assert [row["name"] for row in first["standings"]] == [ann.display_name] and first["status"] == "upcoming"
    assert first["you"] == {"joined": False, "paused": False, "game": None}
    player = await opened(f"/ws/tournaments/{tournament.pk}/", bob)
    await next_of(player, "tournament")

    await database_sync_to_async(arena.arena_join)(tournament_id=tournament.pk, user=bob)
    joined = await state_where(watcher, lambda s: len(s["standings"]) == 2)
    assert joined["version"] > first["version"]
    await database_sync_to_async(arena.arena_start)(tournament_id=tournament.pk, user=ann)
    running = await state_where(watcher, lambda s: s["playing"])
    assert running["status"] == "running" and running["ends_at"]
    (game,) = running["playing"]
    assert {game["first"]["id"], game["second"]["id"]} == {ann.pk, bob.pk}
    mine = await state_where(player, lambda s: s["you"]["game"])
    assert mine["you"] == {"joined": True, "paused": False, "game": game["match"]}

    await player.send_json_to({"type": "sync"})
    assert (await next_of(player, "tournament"))["version"] == mine["version"]
    await player.disconnect()
    await watcher.disconnect()


async def test_a_private_tournament_is_not_found_without_its_link():
    ann, bob = await database_sync_to_async(make_accounts)(2)
    tournament = await database_sync_to_async(new_arena)(ann, is_private=True)
    outsider = await opened(f"/ws/tournaments/{tournament.pk}/", bob)
    refused = await next_of(outsider, "error")
    assert refused["code"] == "not_found"
    assert (await outsider.receive_output(timeout=EVENT_SECONDS))["code"] == NOT_FOUND
    invited = await opened(f"/ws/tournaments/{tournament.pk}/?invite={tournament.invite_secret}", bob)
    assert (await next_of(invited, "tournament"))["id"] == tournament.pk
    owner = await opened(f"/ws/tournaments/{tournament.pk}/", ann)
    assert (await next_of(owner, "tournament"))["you"]["joined"]
    await invited.disconnect()
    await owner.disconnect()


async def test_a_missing_tournament_is_not_found():
    missing = await opened("/ws/tournaments/999999/")
    assert (await next_of(missing, "error"))["code"] == "not_found"


async def test_writes_and_garbage_are_refused_and_the_socket_stays_open():
    (ann,) = await database_sync_to_async(make_accounts)(1)
    tournament = await database_sync_to_async(new_arena)(ann)
    page = await opened(f"/ws/tournaments/{tournament.pk}/", ann)
    await next_of(page, "tournament")
    await page.send_json_to({"type": "action", "action": "(play 1 1 1 1 x)", "version": 0})
    assert (await next_of(page, "error"))["code"] == "read_only"
    await page.send_to(text_data="not json")
    assert (await next_of(page, "error"))["code"] == "malformed"
    await page.send_json_to({"type": "ping"})
    assert (await page.receive_json_from(timeout=EVENT_SECONDS))["type"] == "pong"
    await page.disconnect()


async def test_a_paired_players_site_pages_are_told_to_go_to_their_game():
    ann, bob = await database_sync_to_async(make_accounts)(2)
    tournament = await database_sync_to_async(new_arena)(ann)
    await database_sync_to_async(arena.arena_join)(tournament_id=tournament.pk, user=bob)
    site = await opened("/ws/site/", bob)
    await next_of(site, "challenges")
    await database_sync_to_async(arena.arena_start)(tournament_id=tournament.pk, user=ann)
    started = await next_of(site, "started")
    game = await database_sync_to_async(lambda: tournament.games.get())()
    assert started["match"] == game.match_id
    await site.disconnect()


async def test_an_open_page_keeps_its_player_at_the_arena_and_one_who_never_came_is_paused(settings):
    """The auto-pause (tournaments/arena_presence.py) hears the page's socket: open (and pinged),
    its player is paired; a player with no page misses the wave and is paused, and sees it."""
    settings.ARENA_PAUSE_ABSENT = True
    ann, bob, cat = await database_sync_to_async(make_accounts)(3)
    tournament = await database_sync_to_async(new_arena)(ann)
    for player in (bob, cat):
        await database_sync_to_async(arena.arena_join)(tournament_id=tournament.pk, user=player)
    pages = {}
    for player in (ann, bob):
        pages[player] = await opened(f"/ws/tournaments/{tournament.pk}/", player)
        await next_of(pages[player], "tournament")
    await pages[bob].send_json_to({"type": "ping"})  # refreshes the page's presence
    while (await pages[bob].receive_json_from(timeout=EVENT_SECONDS))["type"] != "pong":
        pass  # a late state of the joins may come first
    await database_sync_to_async(arena.arena_start)(tournament_id=tournament.pk, user=ann)
    running = await state_where(pages[bob], lambda s: s["playing"])
    (game,) = running["playing"]
    assert {game["first"]["id"], game["second"]["id"]} == {ann.pk, bob.pk}
    assert next(row for row in running["standings"] if row["id"] == cat.pk)["paused"]
    assert not running["you"]["paused"]
    for page in pages.values():
        await page.disconnect()
    present = await database_sync_to_async(arena_presence.arena_present)(tournament_id=tournament.pk,
                                                                         player_ids=[ann.pk, bob.pk, cat.pk])
    assert present == {ann.pk, bob.pk}  # closed a moment ago: a reload is not an absence
