"""The site socket: quick pairing, challenges and who is online, pushed live."""

import pytest
from channels.db import database_sync_to_async
from django.test import override_settings

from games.models import Challenge, Match, PoolEntry
from live.consumers.lobby import POOL_RETRY_SECONDS, pool_retry_delay
from tests.live.consumers.test_consumers import open_socket
from tests.support.players import make_accounts, make_players
from tests.support.waits import EVENT_SECONDS

pytestmark = pytest.mark.django_db(transaction=True)

QUARTO = {"game": "quarto-misere", "rated": True, "clock": "untimed"}


async def receive(comm, kind: str, timeout: float = EVENT_SECONDS) -> dict:
    """The next message of ``kind``, skipping pongs and the challenge list sent on connect."""
    while True:
        message = await comm.receive_json_from(timeout=timeout)
        if message["type"] == kind:
            return message
        assert message["type"] in {"pong", "challenges"}, message


async def site(user):
    comm = await open_socket("/ws/site/", user)
    assert (await comm.receive_json_from(timeout=EVENT_SECONDS))["type"] == "challenges"
    return comm


@database_sync_to_async
def match_players(match_id: int) -> tuple[bool, str, list[int]]:
    match = Match.objects.get(pk=match_id)
    return match.rated, match.status, sorted(match.seats.values_list("player_id", flat=True))


async def test_two_players_in_the_pool_are_paired_and_both_pages_open_the_match():
    alice, bob = await database_sync_to_async(make_accounts)(2)
    a, b = await site(alice), await site(bob)
    await a.send_json_to({"type": "pool_enter", **QUARTO})
    assert (await receive(a, "pool")) == {"type": "pool", "waiting": True, "settings": QUARTO}
    await b.send_json_to({"type": "pool_enter", **QUARTO})
    paired_a, paired_b = await receive(a, "paired"), await receive(b, "paired")
    assert paired_a["match"] == paired_b["match"]
    assert await match_players(paired_a["match"]) == (True, Match.Status.ACTIVE, sorted([alice.pk, bob.pk]))
    assert not await database_sync_to_async(PoolEntry.objects.exists)()
    await a.disconnect()
    await b.disconnect()


async def test_different_settings_wait_apart_and_the_three_player_game_waits_for_three():
    x, y, z = await database_sync_to_async(make_accounts)(3)
    sockets = [await site(u) for u in (x, y, z)]
    three = {"game": "tictactoe-3player", "rated": False, "clock": "untimed"}
    await sockets[0].send_json_to({"type": "pool_enter", **three})
    await sockets[1].send_json_to({"type": "pool_enter", **three, "rated": True})  # another pool
    await receive(sockets[0], "pool")
    await receive(sockets[1], "pool")
    await sockets[1].send_json_to({"type": "pool_enter", **three})  # a new search replaces the old one
    await receive(sockets[1], "pool")
    assert await database_sync_to_async(PoolEntry.objects.count)() == 2
    await sockets[2].send_json_to({"type": "pool_enter", **three})
    ids = {(await receive(s, "paired"))["match"] for s in sockets}
    assert len(ids) == 1
    assert await match_players(ids.pop()) == (False, Match.Status.ACTIVE, sorted(u.pk for u in (x, y, z)))
    for s in sockets:
        await s.disconnect()


def test_waiting_pages_look_again_at_staggered_times():
    """Pages that entered together and each look again at exactly the same interval stay in
    step, each locking its own entry and skipping the other's: two players who fit could wait
    for good (seen once in a run of the live pairing test across two processes)."""
    delays = [pool_retry_delay() for _ in range(50)]
    assert all(0.5 * POOL_RETRY_SECONDS <= d <= 1.5 * POOL_RETRY_SECONDS for d in delays)
    assert max(delays) - min(delays) > 0.2 * POOL_RETRY_SECONDS


async def test_cancelling_or_closing_the_page_leaves_the_pool():
    alice, bob = await database_sync_to_async(make_accounts)(2)
    a = await site(alice)
    await a.send_json_to({"type": "pool_enter", **QUARTO})
    await receive(a, "pool")
    await a.send_json_to({"type": "pool_leave"})
    assert (await receive(a, "pool"))["waiting"] is False
    assert not await database_sync_to_async(PoolEntry.objects.exists)()
    await a.send_json_to({"type": "pool_enter", **QUARTO})
    await receive(a, "pool")
    await a.disconnect()
    assert not await database_sync_to_async(PoolEntry.objects.exists)()
    b = await site(bob)
    await b.send_json_to({"type": "pool_enter", **QUARTO})
    assert (await receive(b, "pool"))["waiting"] is True  # nobody left to pair with
    await b.disconnect()


async def test_a_search_of_rules_the_site_no_longer_has_ends_and_its_page_is_told_why(caplog):
    """Its entry's rule set removed since (or its row damaged) while the page waits: the page's
    next look ends the search, the page hears why and that it no longer waits, and the pool
    goes on. Before, the look was refused and the page stopped asking, still shown as
    waiting, told nothing, its entry left in the pool."""
    stranded, alice, bob = await database_sync_to_async(make_accounts)(3)
    s = await site(stranded)
    await s.send_json_to({"type": "pool_enter", **QUARTO})
    await receive(s, "pool")
    await PoolEntry.objects.filter(player=stranded).aupdate(settings={**QUARTO, "game": "gone-rules"})
    assert (await receive(s, "pool")) == {"type": "pool", "waiting": False}
    ended = await receive(s, "error")
    assert ended["code"] == "unknown_game" and "search ended" in ended["message"], ended
    assert not await PoolEntry.objects.aexists()
    a, b = await site(alice), await site(bob)
    await a.send_json_to({"type": "pool_enter", **QUARTO})
    assert (await receive(a, "pool"))["waiting"] is True
    await b.send_json_to({"type": "pool_enter", **QUARTO})
    assert (await receive(a, "paired"))["match"] == (await receive(b, "paired"))["match"]
    for c in (s, a, b):
        await c.disconnect()
    assert "Traceback" not in caplog.text and "failed" not in caplog.text


async def challenge(a, b, to_id: int) -> dict:
    await a.send_json_to({"type": "challenge", "to": to_id, "game": "nine-board-tictactoe", "rated": False,
                          "clock": "5+3"})
    sent, received = (await receive(a, "challenge"))["challenge"], (await receive(b, "challenge"))["challenge"]
    assert sent == received and sent["status"] == "pending"
    return sent


async def test_a_challenge_accepted_opens_the_match_on_both_pages():
    alice, bob = await database_sync_to_async(make_accounts)(2)
    a, b = await site(alice), await site(bob)
    sent = await challenge(a, b, bob.pk)
    assert (sent["from"]["id"], sent["to"]["id"], sent["game_name"], sent["clock"]) == (
        alice.pk, bob.pk, "Nine-Board Tic-Tac-Toe", "5+3")
    again = await site(bob)  # another page of the challenged player lists it on connect
    await b.send_json_to({"type": "challenge_accept", "id": sent["id"]})
    for comm in (a, b):
        accepted = (await receive(comm, "challenge"))["challenge"]
        assert accepted["status"] == "accepted" and accepted["match"]
    assert await match_players(accepted["match"]) == (False, Match.Status.ACTIVE, sorted([alice.pk, bob.pk]))
    assert await database_sync_to_async(lambda: Match.objects.get().clock_base)() == 300  # the 5+3 proposed
    await b.send_json_to({"type": "challenge_accept", "id": sent["id"]})
    assert (await receive(b, "error"))["code"] == "challenge_closed"
    for comm in (a, b, again):
        await comm.disconnect()


async def test_the_challenge_list_is_sent_on_connect():
    alice, bob = await database_sync_to_async(make_accounts)(2)
    a, b = await site(alice), await site(bob)
    sent = await challenge(a, b, bob.pk)
    comm = await open_socket("/ws/site/", bob)
    listed = await comm.receive_json_from(timeout=EVENT_SECONDS)
    assert listed == {"type": "challenges", "challenges": [sent]}
    for c in (a, b, comm):
        await c.disconnect()


async def test_a_challenge_of_rules_the_site_no_longer_has_is_listed_by_its_slug_and_refused_when_accepted(caplog):
    """A pending challenge whose rule set was removed since (or whose row is damaged): the
    challenged player's pages list it by its slug, and accepting it is refused, saying why.
    Before, reading the list raised: every site socket of both players failed to open."""
    alice, bob = await database_sync_to_async(make_accounts)(2)
    a, b = await site(alice), await site(bob)
    sent = await challenge(a, b, bob.pk)
    await Challenge.objects.filter(pk=sent["id"]).aupdate(settings={**sent["settings"], "game": "gone-rules"})
    comm = await open_socket("/ws/site/", bob)
    listed = await comm.receive_json_from(timeout=EVENT_SECONDS)
    assert [(c["id"], c["game_name"]) for c in listed["challenges"]] == [(sent["id"], "gone-rules")], listed
    await comm.send_json_to({"type": "challenge_accept", "id": sent["id"]})
    refused = await receive(comm, "error")
    assert refused["code"] == "unknown_game" and "gone-rules" in refused["message"], refused
    assert not await Match.objects.aexists()
    for c in (a, b, comm):
        await c.disconnect()
    assert "Traceback" not in caplog.text and "failed" not in caplog.text


@pytest.mark.parametrize("answer, by, status", [("challenge_decline", "challenged", "declined"),
                                                ("challenge_cancel", "challenger", "cancelled")])
async def test_a_challenge_declined_or_cancelled_reaches_both(answer, by, status):
    alice, bob = await database_sync_to_async(make_accounts)(2)
    a, b = await site(alice), await site(bob)
    sent = await challenge(a, b, bob.pk)
    wrong, right = (a, b) if by == "challenged" else (b, a)
    await wrong.send_json_to({"type": answer, "id": sent["id"]})
    assert (await receive(wrong, "error"))["code"] == "not_yours"
    await right.send_json_to({"type": answer, "id": sent["id"]})
    for comm in (a, b):
        assert (await receive(comm, "challenge"))["challenge"]["status"] == status
    assert not await database_sync_to_async(Match.objects.exists)()
    await a.disconnect()
    await b.disconnect()


@override_settings(CHALLENGE_SECONDS=1)
async def test_an_unanswered_challenge_expires_live():
    alice, bob = await database_sync_to_async(make_accounts)(2)
    a, b = await site(alice), await site(bob)
    sent = await challenge(a, b, bob.pk)
    for comm in (a, b):
        assert (await receive(comm, "challenge"))["challenge"]["status"] == "expired"
    await b.send_json_to({"type": "challenge_accept", "id": sent["id"]})
    assert (await receive(b, "error"))["code"] == "challenge_closed"
    assert await database_sync_to_async(lambda: Challenge.objects.get().status)() == "expired"
    await a.disconnect()
    await b.disconnect()


@pytest.mark.parametrize("frame, code", [
    ({"type": "pool_enter", "game": "chess", "rated": False, "clock": "untimed"}, "unknown_game"),
    ({"type": "pool_enter", "game": "quarto-misere", "rated": False, "clock": "5+99"}, "unknown_clock"),
    ({"type": "pool_enter", "game": "quarto-misere", "rated": "yes", "clock": "untimed"}, "malformed"),
    ({"type": "pool_enter", "game": "quarto-misere", "rated": False}, "malformed"),
    ({"type": "challenge", "to": 0, "game": "quarto-misere", "rated": False, "clock": "d2"}, "no_such_player"),
    ({"type": "challenge", "to": "me", "game": "quarto-misere", "rated": False, "clock": "d2"}, "malformed"),
    ({"type": "challenge_accept", "id": 99}, "no_such_challenge"),
    ({"type": "action", "action": "noop", "version": 0}, "malformed"),
])
async def test_bad_frames_get_a_clear_error_and_change_nothing(frame, code):
    alice, = await database_sync_to_async(make_accounts)(1)
    a = await site(alice)
    await a.send_json_to(frame)
    assert (await receive(a, "error"))["code"] == code
    await a.send_json_to({"type": "ping"})
    assert (await a.receive_json_from(timeout=EVENT_SECONDS))["type"] == "pong"  # still open
    assert not await database_sync_to_async(lambda: PoolEntry.objects.exists() or Challenge.objects.exists())()
    await a.disconnect()


async def test_guests_play_casual_only_and_cannot_challenge_themselves():
    guest, = await database_sync_to_async(make_players)(1)
    g = await site(guest)
    await g.send_json_to({"type": "pool_enter", **QUARTO})
    assert (await receive(g, "error"))["code"] == "rated_needs_accounts"
    await g.send_json_to({"type": "challenge", "to": guest.pk, "game": "quarto-misere", "rated": False,
                          "clock": "untimed"})
    assert (await receive(g, "error"))["code"] == "no_such_player"
    await g.disconnect()


async def test_a_visitor_who_is_not_signed_in_is_told_and_closed():
    comm = await open_socket("/ws/site/")
    assert (await comm.receive_json_from(timeout=EVENT_SECONDS))["code"] == "not_signed_in"
    assert (await comm.receive_output(timeout=EVENT_SECONDS))["code"] == 4403


async def test_the_lobby_lists_who_is_online_live():
    alice, = await database_sync_to_async(make_accounts)(1)
    lobby = await open_socket("/ws/lobby/")
    assert (await lobby.receive_json_from(timeout=EVENT_SECONDS))["online"] == []
    a = await site(alice)
    update = await lobby.receive_json_from(timeout=EVENT_SECONDS)
    assert [p["id"] for p in update["online"]] == [alice.pk]
    await a.disconnect()
    assert (await lobby.receive_json_from(timeout=EVENT_SECONDS))["online"] == []
    await lobby.disconnect()


async def test_logging_out_closes_that_browsers_other_pages_only():
    """The tabs still open would otherwise go on acting as the player from their sockets; the
    same player's pages in another browser (another session) stay signed in."""
    from django.conf import settings
    from django.test import Client

    from tests.support.players import session_cookie

    ada, = await database_sync_to_async(make_accounts)(1)
    here, elsewhere = [await database_sync_to_async(session_cookie)(ada) for _ in range(2)]
    pages = {}
    for name, cookie in (("here", here), ("elsewhere", elsewhere)):
        pages[name] = await open_socket("/ws/site/", cookie=cookie)
        assert (await pages[name].receive_json_from(timeout=EVENT_SECONDS))["type"] == "challenges"

    def log_out_here():
        client = Client()
        client.cookies[settings.SESSION_COOKIE_NAME] = here
        assert client.post("/logout/").status_code == 302

    await database_sync_to_async(log_out_here)()
    assert await receive(pages["here"], "signed_out") == {"type": "signed_out"}
    assert (await pages["here"].receive_output(timeout=EVENT_SECONDS))["type"] == "websocket.close"
    assert await pages["elsewhere"].receive_nothing(timeout=0.5)
    await pages["elsewhere"].disconnect()
