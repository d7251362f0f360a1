"""The match and lobby sockets through the real ASGI stack (origin check, session auth, routing)."""

import asyncio
import json
import random

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import override_settings

from config.asgi import application
from games import selectors, services
from games.match.settings import MatchSettings
from games.models import Match, Move
from games.rules import get_game
from games.runtime import throttle
from games.services import broadcast
from live import lobby_lists
from tests.support.players import make_players, session_cookie, start_match, waiting_match
from tests.support.waits import EVENT_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)

FIVE_GAMES = ["nine-board-tictactoe", "tictactoe-x9", "nine-board-tictactoe-pie", "tictactoe-3player", "quarto-misere"]
ORIGIN = (b"origin", b"http://127.0.0.1")
HOST = (b"host", b"127.0.0.1")  # the origin check compares the two


async def open_socket(path: str, user=None, origin=ORIGIN, cookie: str | None = None) -> WebsocketCommunicator:
    """A connected socket on ``path``, signed in as ``user`` (a new session) or with the session
    cookie ``cookie``."""
    headers = [origin, HOST] if origin else []
    if user is not None:
        cookie = await database_sync_to_async(session_cookie)(user)
    if cookie is not None:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    comm = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await comm.connect(timeout=EVENT_SECONDS)
    assert connected
    return comm


async def receive(comm: WebsocketCommunicator, kind: str, timeout: float = EVENT_SECONDS) -> dict:
    """The next message of ``kind``, skipping presence updates, pongs and chat."""
    while True:
        message = await comm.receive_json_from(timeout=timeout)
        if message["type"] == kind:
            return message
        assert message["type"] in {"presence", "pong", "chat"}, message


async def join_match(match_id: int, user=None, query: str = "") -> tuple[WebsocketCommunicator, dict]:
    comm = await open_socket(f"/ws/matches/{match_id}/{query}", user)
    return comm, await receive(comm, "state")


async def drain(comm: WebsocketCommunicator) -> list[dict]:
    """Every message already waiting on ``comm``."""
    messages = []
    while not await comm.receive_nothing(timeout=0.2):
        messages.append(await comm.receive_json_from())
    return messages


@database_sync_to_async
def db_state(match_id: int) -> tuple[int, dict, str, int]:
    match = Match.objects.get(pk=match_id)
    return match.version, match.state, match.status, Move.objects.filter(match=match).count()


@pytest.mark.parametrize("slug", FIVE_GAMES)
async def test_players_and_a_spectator_play_a_whole_game(slug):
    game = get_game(slug)
    players = await database_sync_to_async(make_players)(len(game.roles))
    match = await database_sync_to_async(start_match)(slug, players)
    sockets = {}
    for role, player in zip(game.roles, players):
        sockets[role], first = await join_match(match.pk, player)
        assert first["you"]["roles"] == [role]
    spectator, first = await join_match(match.pk)
    assert first["you"] == {"roles": [], "legal": {}}
    everyone = [*sockets.values(), spectator]

    rng = random.Random(slug)
    state, version, played = game.initial_state(), 0, []
    while not game.is_terminal(state):
        mover = game.to_move(state)
        action = rng.choice(game.legal_actions(state))
        await sockets[mover].send_json_to({"type": "action", "action": action, "version": version})
        state, version = game.play(state, mover, action), version + 1
        played.append(action)
        for comm in everyone:
            message = await receive(comm, "state")
            assert message["version"] == version
            assert message["last_move"]["action"] == action and message["last_move"]["role"] == mover
            assert message["match"]["view"] == game.view(state)
        # Only the mover's socket is told its legal actions.
        if not game.is_terminal(state):
            assert message["you"]["legal"] == {}
    final = message["match"]
    assert final["status"] == "finished"
    assert final["result"]["scores"] == game.goals(state)
    assert [m["action"] for m in final["moves"]] == played
    for comm in everyone:
        await comm.disconnect()


async def test_each_error_code_reaches_only_the_sender_and_changes_nothing():
    x, o, stranger = await database_sync_to_async(make_players)(3)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [x, o])
    sx, _ = await join_match(match.pk, x)
    so, _ = await join_match(match.pk, o)
    watcher, _ = await join_match(match.pk, stranger)
    await sx.send_json_to({"type": "action", "action": "(play 2 2 1 3 x)", "version": 0})
    for comm in (sx, so, watcher):
        assert (await receive(comm, "state"))["version"] == 1
    before = await db_state(match.pk)

    async def expect(comm, payload, code):
        if isinstance(payload, str):
            await comm.send_to(text_data=payload)
        else:
            await comm.send_json_to(payload)
        error = await receive(comm, "error")
        assert error["code"] == code, error
        assert error["message"]
        return error

    error = await expect(so, {"type": "action", "action": "(play 2 2 1 1 o)", "version": 1}, "illegal_action")
    assert error["detail"] == "wrong_sub_board"
    await expect(so, {"type": "action", "action": "(play 1 3 1 1 x)", "version": 1}, "illegal_action")
    await expect(so, {"type": "action", "action": "(jump 1)", "version": 1}, "illegal_action")
    await expect(sx, {"type": "action", "action": "(play 1 3 1 1 x)", "version": 1}, "not_your_turn")
    stale = await expect(so, {"type": "action", "action": "(play 1 3 1 1 o)", "version": 0}, "stale_version")
    assert stale["state"]["type"] == "state" and stale["state"]["version"] == 1
    await expect(watcher, {"type": "action", "action": "(play 1 3 1 1 o)", "version": 1}, "not_seated")
    await expect(watcher, {"type": "resign"}, "not_seated")
    await expect(so, "{not json", "malformed")
    await expect(so, {"type": "action", "action": 5, "version": 1}, "malformed")
    await expect(so, {"type": "action", "action": "(play 1 3 1 1 o)", "version": "1"}, "malformed")
    await expect(so, {"type": "fly"}, "malformed")
    await expect(so, ["action"], "malformed")
    await expect(so, json.dumps({"type": "action", "action": "x" * 5000, "version": 1}), "malformed")
    # Nobody else heard about any of it.
    for comm in (sx, watcher):
        assert [m["type"] for m in await drain(comm) if m["type"] != "presence"] == []
    assert await db_state(match.pk) == before

    await so.send_json_to({"type": "resign"})  # o has not moved: the match never began
    for comm in (sx, so, watcher):
        over = (await receive(comm, "state"))["match"]
        assert over["status"] == "aborted" and over["result"]["reason"] == "oPlayer resigned before moving"
    finished = await db_state(match.pk)
    await expect(sx, {"type": "action", "action": "(play 1 3 1 1 x)", "version": 1}, "match_over")
    assert await db_state(match.pk) == finished
    for comm in (sx, so, watcher):
        await comm.disconnect()


async def test_a_takeback_asked_or_accepted_at_a_stale_version_is_refused_and_undoes_nothing():
    """As a move: a page behind the match (another tab, a script) would undo a turn it never saw."""
    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [x, o])
    sx, _ = await join_match(match.pk, x)
    so, _ = await join_match(match.pk, o)
    await sx.send_json_to({"type": "action", "action": "(play 2 2 1 3 x)", "version": 0})
    await so.send_json_to({"type": "action", "action": (await receive(so, "state"))["you"]["legal"]["oPlayer"][0],
                           "version": 1})
    for comm in (sx, so):
        await receive_version(comm, 2)
    before = await db_state(match.pk)

    await sx.send_json_to({"type": "takeback_offer", "version": 1})
    stale = await receive(sx, "error")
    assert stale["code"] == "stale_version" and stale["state"]["version"] == 2
    assert await db_state(match.pk) == before
    assert (await database_sync_to_async(Match.objects.get)(pk=match.pk)).offers == ""

    await sx.send_json_to({"type": "takeback_offer", "version": 2})
    asked = await receive(so, "state")
    assert asked["version"] == 2 and asked["match"]["offers"]["takeback"] == ["xPlayer"]
    await so.send_json_to({"type": "takeback_accept", "version": 1})
    assert (await receive(so, "error"))["code"] == "stale_version"
    assert await db_state(match.pk) == before

    await so.send_json_to({"type": "takeback_accept", "version": 2})
    back = await receive_version(so, 3)
    assert back["match"]["moves"] == [] and back["match"]["offers"]["takeback"] == []
    assert (await db_state(match.pk))[3] == 0
    for comm in (sx, so):
        await comm.disconnect()


async def receive_version(comm: WebsocketCommunicator, version: int) -> dict:
    """The state at ``version``, skipping older ones."""
    while (state := await receive(comm, "state"))["version"] != version:
        assert state["version"] < version, state
    return state


async def test_no_move_before_the_match_starts():
    x, = await database_sync_to_async(make_players)(1)
    match = await database_sync_to_async(services.match_create)(user=x, settings=MatchSettings("quarto-misere"), role="white")
    sx, first = await join_match(match.pk, x)
    assert first["match"]["status"] == "waiting"
    await sx.send_json_to({"type": "action", "action": "(select p0000)", "version": 0})
    assert (await receive(sx, "error"))["code"] == "match_not_started"
    assert (await db_state(match.pk))[0] == 0
    await sx.disconnect()


@override_settings(WS_RATE_BURST=3, WS_RATE_PER_SECOND=0.01)
async def test_flooding_a_socket_is_rate_limited():
    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    sx, _ = await join_match(match.pk, x)
    for _ in range(3):
        await sx.send_json_to({"type": "sync", "version": 0})
        await receive(sx, "state")
    await sx.send_json_to({"type": "action", "action": "(select p0000)", "version": 0})
    assert (await receive(sx, "error"))["code"] == "rate_limited"
    assert (await db_state(match.pk))[0] == 0
    await sx.disconnect()


async def test_sync_returns_the_full_current_state():
    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    await database_sync_to_async(services.move_submit)(match_id=match.pk, user=x, action="(select p1010)", version=0)
    sx, first = await join_match(match.pk, x)
    assert first["version"] == 1
    assert first["you"]["legal"] == {"white": first["match"]["view"]["cell_actions"] and
                                     list(first["match"]["view"]["cell_actions"].values())}
    await sx.send_json_to({"type": "sync", "version": 0})
    again = await receive(sx, "state")
    assert again["version"] == 1 and again["match"]["moves"][0]["action"] == "(select p1010)"
    await sx.disconnect()


async def test_a_page_back_behind_resends_a_state_whose_broadcast_died_with_its_process(monkeypatch):
    """A host that dies between a move's commit and its broadcast: the page of that host comes
    back (sync, behind), and the opponent's page, open all along elsewhere, hears the state
    too; a second page back at the same version sends nothing more to the group."""
    x, o, watcher = await database_sync_to_async(make_players)(3)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    so, _ = await join_match(match.pk, o)
    sw, _ = await join_match(match.pk, watcher)
    with monkeypatch.context() as died:
        died.setattr(broadcast, "send", lambda group, message: None)  # committed, never sent
        await database_sync_to_async(services.move_submit)(match_id=match.pk, user=x, action="(select p1010)",
                                                           version=0)
    sx, back = await join_match(match.pk, x)
    assert back["version"] == 1
    await sx.send_json_to({"type": "sync", "version": 0})
    assert (await receive_version(so, 1))["match"]["moves"][0]["action"] == "(select p1010)"
    await receive_version(sw, 1)
    await drain(sx)
    await sw.send_json_to({"type": "sync", "version": 0})
    await receive_version(sw, 1)
    assert [m for m in await drain(so) if m["type"] == "state"] == []
    for comm in (sx, so, sw):
        await comm.disconnect()


async def test_private_match_needs_its_invite_or_a_seat():
    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("tictactoe-x9", [x, o], True)
    stranger = await open_socket(f"/ws/matches/{match.pk}/")
    error = await stranger.receive_json_from()
    assert error["code"] == "not_found"
    assert (await stranger.receive_output(timeout=EVENT_SECONDS))["type"] == "websocket.close"
    wrong = await open_socket(f"/ws/matches/{match.pk}/?invite=guess")
    assert (await wrong.receive_json_from())["code"] == "not_found"
    invited, first = await join_match(match.pk, query=f"?invite={match.invite_token}")
    assert first["match"]["private"] is True
    player, _ = await join_match(match.pk, o)
    await invited.disconnect()
    await player.disconnect()


async def test_a_socket_from_another_origin_is_refused():
    comm = WebsocketCommunicator(application, "/ws/lobby/", headers=[(b"origin", b"http://evil.example")])
    connected, _ = await comm.connect()
    assert not connected
    no_origin = WebsocketCommunicator(application, "/ws/lobby/")
    connected, _ = await no_origin.connect()
    assert not connected


async def test_presence_counts_spectators_and_online_players():
    x, o, fan = await database_sync_to_async(make_players)(3)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    sx, _ = await join_match(match.pk, x)
    presence = await receive(sx, "presence")
    assert presence["away"].keys() == {"black"}  # black has not opened the match yet
    assert presence == {"type": "presence", "spectators": 0, "online": {"white": True, "black": False},
                        "away": presence["away"], "claim_after": 60}
    watcher, _ = await join_match(match.pk, fan)
    anonymous, _ = await join_match(match.pk)
    presence = await receive(sx, "presence")
    while presence["spectators"] < 2:
        presence = await receive(sx, "presence")
    assert presence["spectators"] == 2 and presence["online"] == {"white": True, "black": False}
    await watcher.disconnect()
    presence = await receive(sx, "presence")
    assert presence["spectators"] == 1
    await anonymous.disconnect()
    await sx.disconnect()


async def test_spectators_count_people_not_pages():
    """Two tabs of one viewer (one browser's session) are one spectator, another viewer makes
    two; when one of the two tabs closes its viewer still watches, when the last closes nobody
    does. A visitor who is not signed in cannot be told apart: each page counts. Every page
    opening or closing sends the player's page one presence message, read here in turn. Before,
    every page counted: one person with three tabs was three spectators."""
    x, o, fan, friend = await database_sync_to_async(make_players)(4)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    sx, _ = await join_match(match.pk, x)
    assert (await receive(sx, "presence"))["spectators"] == 0
    cookie = await database_sync_to_async(session_cookie)(fan)

    async def opened(user=None, cookie: str | None = None) -> WebsocketCommunicator:
        page = await open_socket(f"/ws/matches/{match.pk}/", user, cookie=cookie)
        await receive(page, "state")
        return page

    async def spectators() -> int:
        return (await receive(sx, "presence"))["spectators"]

    tab = await opened(cookie=cookie)
    assert await spectators() == 1
    other_tab = await opened(cookie=cookie)
    assert await spectators() == 1
    friends = await opened(friend)
    assert await spectators() == 2
    await friends.disconnect(timeout=EVENT_SECONDS)
    assert await spectators() == 1
    await tab.disconnect(timeout=EVENT_SECONDS)
    assert await spectators() == 1  # the other tab still watches
    await other_tab.disconnect(timeout=EVENT_SECONDS)
    assert await spectators() == 0
    visitor = await opened()
    assert await spectators() == 1
    same_visitor = await opened()
    assert await spectators() == 2
    await visitor.disconnect(timeout=EVENT_SECONDS)
    assert await spectators() == 1
    await same_visitor.disconnect(timeout=EVENT_SECONDS)
    assert await spectators() == 0
    await sx.disconnect()


async def test_a_page_closing_makes_no_hop_to_channels_shared_thread(monkeypatch):
    import channels.generic.websocket as channels_websocket

    hops = []

    async def spy():
        hops.append("close_old_connections")

    monkeypatch.setattr(channels_websocket, "aclose_old_connections", spy)
    x, o, fan = await database_sync_to_async(make_players)(3)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    sx, _ = await join_match(match.pk, x)
    watcher, _ = await join_match(match.pk, fan)
    while (await receive(sx, "presence"))["spectators"] < 1:
        pass
    await watcher.disconnect()
    assert (await receive(sx, "presence"))["spectators"] == 0  # the closing page was still counted out
    assert hops == []
    await sx.disconnect()


@pytest.mark.parametrize("claim, reason, winners, black_moved", [
    ("claim", "black left the match and the win was claimed", ["white"], True),
    ("claim_draw", "black left the match and it was called a draw", [], True),
    ("claim", "black left the match before moving", None, False),  # it never began: aborted
    ("claim_draw", "black left the match before moving", None, False),
])
async def test_a_player_who_left_is_shown_away_and_the_match_can_be_claimed(claim, reason, winners, black_moved):
    white, black = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("quarto-misere", [white, black])
    sw, _ = await join_match(match.pk, white)
    sb, _ = await join_match(match.pk, black)
    presence = await receive(sw, "presence")
    while not presence["online"]["black"]:
        presence = await receive(sw, "presence")
    assert presence["away"] == {}
    await sw.send_json_to({"type": "action", "action": "(select p0000)", "version": 0})
    await sw.send_json_to({"type": "action", "action": "(place p0000 1 1)", "version": 1})
    while (await receive(sb, "state"))["version"] < 2:
        pass
    if black_moved:
        await sb.send_json_to({"type": "action", "action": "(select p0001)", "version": 2})
    version = 3 if black_moved else 2
    while (await receive(sw, "state"))["version"] < version:
        pass
    await sb.disconnect()
    presence = await receive(sw, "presence")
    assert presence["online"]["black"] is False and presence["away"]["black"] >= 0
    await sw.send_json_to({"type": claim})
    error = await receive(sw, "error")  # black left less than a minute ago
    assert error["code"] == "not_abandoned" and (await db_state(match.pk))[0] == version
    with override_settings(ABANDON_SECONDS=0):
        await sw.send_json_to({"type": claim})
        final = await receive(sw, "state")
    assert final["match"]["status"] == ("finished" if black_moved else "aborted")
    assert final["version"] == version + 1  # an ending raises the version like a move
    assert final["match"]["result"]["reason"] == reason
    if black_moved:
        assert final["match"]["result"]["winners"] == winners and final["match"]["result"]["draw"] == (not winners)
    await sw.disconnect()


async def test_the_chat_reaches_everyone_on_the_page_and_only_players_write():
    white, black, fan = await database_sync_to_async(make_players)(3)
    match = await database_sync_to_async(start_match)("quarto-misere", [white, black])
    await database_sync_to_async(services.chat_post)(match_id=match.pk, user=black, text="hello")
    sockets = {}
    for name, user in [("white", white), ("fan", fan)]:
        sockets[name], _ = await join_match(match.pk, user)
        history = await next_of(sockets[name], "chat")
        assert history["replace"] and [line["text"] for line in history["lines"]] == ["hello"]
    await sockets["white"].send_json_to({"type": "chat", "text": "<b>good luck</b>"})
    for comm in sockets.values():
        line, = (await next_of(comm, "chat"))["lines"]
        assert line["text"] == "<b>good luck</b>" and line["author"]["name"] == "player 1"
    await sockets["fan"].send_json_to({"type": "chat", "text": "boo"})
    assert (await receive(sockets["fan"], "error"))["code"] == "not_seated"
    await sockets["white"].send_json_to({"type": "chat", "text": 7})
    assert (await receive(sockets["white"], "error"))["code"] == "malformed"
    assert await database_sync_to_async(lambda: match.chat.count())() == 2
    for comm in sockets.values():
        await comm.disconnect()


async def next_of(comm: WebsocketCommunicator, kind: str) -> dict:
    """The next message of ``kind``, skipping everything else."""
    while True:
        message = await comm.receive_json_from(timeout=EVENT_SECONDS)
        if message["type"] == kind:
            return message


async def test_the_lobby_socket_pushes_open_and_live_matches():
    a, b = await database_sync_to_async(make_players)(2)
    lobby = await open_socket("/ws/lobby/")
    first = await receive(lobby, "lobby")
    assert first["open"] == [] and first["live"] == []

    async def lobby_until(condition) -> dict:
        """Changes close together share one refresh: wait for the lists to show ``condition``."""
        while not condition(update := await receive(lobby, "lobby")):
            pass
        return update

    match = await database_sync_to_async(waiting_match)(a, MatchSettings("quarto-misere"), role="white")
    update = await lobby_until(lambda u: u["open"])
    assert [m["id"] for m in update["open"]] == [match.pk] and update["open"][0]["free"] == ["black"]
    await database_sync_to_async(services.match_create)(user=a, settings=MatchSettings("quarto-misere"), is_private=True)
    await database_sync_to_async(services.seat_join)(match_id=match.pk, user=b)
    update = await lobby_until(lambda u: u["live"])
    assert update["open"] == [] and [m["id"] for m in update["live"]] == [match.pk]  # the private match never shows
    await lobby.disconnect()


async def test_lobby_lists_are_read_only_for_open_lobby_pages_and_once_for_all_of_them(monkeypatch):
    reads = []
    read_lists = selectors.lobby_lists
    monkeypatch.setattr(selectors, "lobby_lists", lambda: reads.append(1) or read_lists())
    (a,) = await database_sync_to_async(make_players)(1)
    settle = broadcast.LOBBY_COALESCE_SECONDS + lobby_lists.GATHER_SECONDS + 0.3
    await database_sync_to_async(waiting_match)(a, MatchSettings("quarto-misere"), role="white")
    await asyncio.sleep(settle)
    assert reads == []  # nobody on the lobby: the change cost no read
    pages = [await open_socket("/ws/lobby/") for _ in range(3)]
    for page in pages:
        assert len((await receive(page, "lobby"))["open"]) == 1
    reads.clear()
    await database_sync_to_async(waiting_match)(a, MatchSettings("tictactoe-x9"), role="xplayer")
    for page in pages:
        assert len((await receive(page, "lobby"))["open"]) == 2
    assert reads == [1]  # three pages, one read
    for page in pages:
        await page.disconnect()


HOSTILE_FRAMES = [
    '{"type": []}', '{"type": {}}', '{"type": null}', "[]", "null", "7", '"action"', " ",
    "[" * 1000 + "]" * 1000, '{"a":' * 900 + "1" + "}" * 900,
    '{"type": "chat", "text": "\\ud800"}', '{"type": "chat", "text": "a\\u0000b"}',
    '{"type": "action", "action": "(play 1 3 1 1 x)' + " " * 40 + '", "version": 0}',
    '{"type": "action", "action": "(play 1 3 1 1 x)", "version": 1e400}',
    '{"type": "action", "action": "(play 1 3 1 1 x)", "version": true}',
    '{"type": "action", "action": "(play 1 3 1 1 x)", "version": 99999999999999999999999}',
    '{"type": "action", "action": "(play 1 3 1 1 x)", "version": 0, "version": 0, "extra": 1}',
    '{"type": "takeback_offer"}', '{"type": "takeback_accept", "version": "0"}',
    '{"type": "takeback_offer", "version": 0, "role": "oPlayer"}',
]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("frame", HOSTILE_FRAMES, ids=lambda f: f[:30])
async def test_a_hostile_frame_gets_an_error_and_the_socket_stays_open(frame):
    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [x, o])
    sx, _ = await join_match(match.pk, x)  # the player to move: nothing odd may be played
    before = await db_state(match.pk)
    await sx.send_to(text_data=frame)
    error = await receive(sx, "error")
    assert error["code"] in {"malformed", "illegal_action"}, error
    await sx.send_json_to({"type": "ping"})  # still open, still answering
    assert (await receive(sx, "pong"))["type"] == "pong"
    assert await db_state(match.pk) == before
    await sx.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_the_lobby_socket_answers_anything_with_an_error_and_stays_open():
    lobby = await open_socket("/ws/lobby/")
    await receive(lobby, "lobby")
    for frame in ("{not json", '{"type": []}', "[" * 1000):
        await lobby.send_to(text_data=frame)
        assert (await receive(lobby, "error"))["code"] == "malformed"
    await lobby.send_to(bytes_data=b"\xff\xfe")
    assert (await receive(lobby, "error"))["code"] == "malformed"
    await lobby.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_move_committed_while_a_page_opens_still_reaches_it(monkeypatch):
    from live.consumers.match import MatchConsumer

    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [x, o])
    read_state = MatchConsumer._open

    def read_then_someone_moves(self, invite):
        opened = read_state(self, invite)  # o's page has read version 0 ...
        services.move_submit(match_id=match.pk, user=x, action="(play 2 2 2 2 x)", version=0)  # ... x moves
        return opened

    monkeypatch.setattr(MatchConsumer, "_open", read_then_someone_moves)
    so, first = await join_match(match.pk, o)
    assert first["version"] == 0
    assert (await receive(so, "state"))["version"] == 1
    await so.disconnect()


@override_settings(WS_RATE_BURST=4, WS_RATE_PER_SECOND=0.01)
async def test_more_sockets_buy_a_player_no_more_messages():
    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    sockets = [(await join_match(match.pk, x))[0] for _ in range(4)]
    for sock in sockets:  # one message each uses up the player's burst of four
        await sock.send_json_to({"type": "ping"})
        await receive(sock, "pong")
    extra, _ = await join_match(match.pk, x)
    await extra.send_json_to({"type": "ping"})
    assert (await receive(extra, "error"))["code"] == "rate_limited"
    other, _ = await join_match(match.pk, o)  # another player is not held back
    await other.send_json_to({"type": "ping"})
    assert (await receive(other, "pong"))["type"] == "pong"
    for sock in [*sockets, extra, other]:
        await sock.disconnect()


class BrokenStore:
    """A presence store whose server is down (Redis unreachable)."""

    def __getattr__(self, name):
        def fail(*args, **kwargs):
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        return fail


@pytest.mark.django_db(transaction=True)
async def test_a_service_down_closes_pages_to_retry_and_they_come_back(monkeypatch):
    from games.runtime import presence

    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    sx, _ = await join_match(match.pk, x)
    with monkeypatch.context() as patch:
        patch.setattr(presence, "store", lambda: BrokenStore())
        late = await open_socket(f"/ws/matches/{match.pk}/", o)  # a page needs it to open: told, then closed
        assert (await receive(late, "error"))["code"] == "unavailable"
        assert (await late.receive_output(timeout=EVENT_SECONDS))["code"] == 4503  # "try again later": the page retries
        await sx.send_json_to({"type": "ping"})  # an open page finds it gone at its next ping: the same
        assert (await receive(sx, "error"))["code"] == "unavailable"
        assert (await sx.receive_output(timeout=EVENT_SECONDS))["code"] == 4503
    again, first = await join_match(match.pk, o)  # back: the first try works
    assert first["version"] == 0
    await again.disconnect()


@override_settings(WS_MAX_SOCKETS=3)
@pytest.mark.django_db(transaction=True)
async def test_a_client_may_have_only_so_many_sockets_open():
    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    mine = [(await join_match(match.pk, x))[0], (await join_match(match.pk, x))[0], await open_socket("/ws/lobby/", x)]
    one_more = await open_socket(f"/ws/matches/{match.pk}/", x)
    refused = await receive(one_more, "error")
    assert refused["code"] == "too_many_sockets"
    assert (await one_more.receive_output(timeout=EVENT_SECONDS))["code"] == 4429
    other, _ = await join_match(match.pk, o)  # someone else is not counted against x
    await mine[0].disconnect()  # closing one frees a place
    again, first = await join_match(match.pk, x)
    assert first["version"] == 0
    for sock in [*mine[1:], other, again]:
        await sock.disconnect()


@override_settings(WS_MAX_SOCKETS=2)
@pytest.mark.django_db(transaction=True)
async def test_anonymous_visitors_are_counted_by_address():
    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    watchers = [(await join_match(match.pk))[0] for _ in range(2)]
    refused = await open_socket(f"/ws/matches/{match.pk}/")
    assert (await receive(refused, "error"))["code"] == "too_many_sockets"
    for sock in watchers:
        await sock.disconnect()


async def test_a_page_still_closes_when_uncounting_its_socket_fails(monkeypatch, caplog):
    x, o, fan = await database_sync_to_async(make_players)(3)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    sx, _ = await join_match(match.pk, x)
    watcher, _ = await join_match(match.pk, fan)
    presence = await receive(sx, "presence")
    while presence["spectators"] < 1:
        presence = await receive(sx, "presence")

    async def refuse(client, channel):
        raise ConnectionError("Too many connections")

    monkeypatch.setattr(throttle.limits(), "close", refuse)
    await watcher.disconnect()
    presence = await receive(sx, "presence")  # the rest of closing happened: presence left
    assert presence["spectators"] == 0
    assert "uncounting a closing socket (it ages out) failed" in caplog.text
    await sx.disconnect()


async def test_opening_a_page_lets_the_first_move_here_skip_the_read():
    from games.services import moves

    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("nine-board-tictactoe", [x, o])
    moves.known.pop(match.pk, None)  # as in a process that never moved in it (after a restart)
    sx, first = await join_match(match.pk, x)
    assert moves.known[match.pk].match.version == first["version"] == 0
    await sx.send_json_to({"type": "action", "action": "(play 2 2 2 2 x)", "version": 0})
    assert (await receive(sx, "state"))["version"] == 1
    assert (await db_state(match.pk))[0] == 1
    await sx.disconnect()


async def test_a_rematch_offer_called_off_leaves_the_finished_matchs_page():
    """The page of the finished match showed the offer (and spectators the way to it) after its
    offerer called the rematch off: accepting then led to an aborted match."""
    from tests.support.players import play_out

    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    await database_sync_to_async(play_out)(match, [x, o])
    xs, _ = await join_match(match.pk, x)
    rematch = await database_sync_to_async(services.rematch_offer)(match_id=match.pk, user=o)
    assert (await receive(xs, "state"))["match"]["rematch"] == rematch.pk
    await database_sync_to_async(services.match_abort)(match_id=rematch.pk, user=o)
    assert (await receive(xs, "state"))["match"]["rematch"] is None
    await xs.disconnect()


async def test_a_rematch_that_begins_is_told_to_the_finished_matchs_page():
    """Accepted in another tab (or opened again later), the finished match's page kept offering
    Accept and Decline for a rematch under way, both refused."""
    from tests.support.players import play_out

    x, o = await database_sync_to_async(make_players)(2)
    match = await database_sync_to_async(start_match)("quarto-misere", [x, o])
    await database_sync_to_async(play_out)(match, [x, o])
    xs, _ = await join_match(match.pk, x)
    rematch = await database_sync_to_async(services.rematch_offer)(match_id=match.pk, user=o)
    assert (await receive(xs, "state"))["match"]["rematch_status"] == "waiting"
    await database_sync_to_async(services.seat_join)(match_id=rematch.pk, user=x)
    told = (await receive(xs, "state"))["match"]
    assert (told["rematch"], told["rematch_status"]) == (rematch.pk, "active")
    await xs.disconnect()
