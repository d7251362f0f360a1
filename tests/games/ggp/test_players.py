"""Registering GGP players: the address allow-list, the INFO check and the status it sets,
the page (tests of the service and page layers, with a small HTTP server as the player)."""

import pytest
from django.test import Client

from games import services
from games.ggp import players
from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.match.settings import MatchSettings
from games.models import GGPPlayer, Match
from tests.support.ggphttp import PlayerServer
from tests.support.players import make_accounts, make_players

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def inline(settings):
    settings.COMPUTER_WORKERS = "inline"  # the INFO check runs right after commit, in this thread
    settings.GGP_PLAYER_HOSTS = ["localhost"]
    settings.GGP_INFO_SECONDS = 5


@pytest.mark.parametrize("answer, status", [
    ("((name egghead) (status available))", "online"), ("available", "online"), ("busy", "busy"),
    ("((status busy))", "busy"), ("(what", "away"),
])
def test_registration_checks_info_and_keeps_the_status(answer, status):
    [owner] = make_accounts(1)
    with PlayerServer(lambda body: answer) as server:
        player = services.ggp_player_register(owner=owner, name="Egghead", url=server.url)
    assert server.bodies() == ["(INFO)"]
    player.refresh_from_db()
    assert player.status == status and player.checked_at is not None
    assert player.account.is_bot and not player.account.has_usable_password() and str(player.account) == "Egghead"


def test_a_player_that_does_not_answer_is_away_and_can_be_checked_again():
    [owner] = make_accounts(1)
    answers = iter([(500, {}, "down"), "available"])
    with PlayerServer(lambda body: next(answers)) as server:
        player = services.ggp_player_register(owner=owner, name="Sleepy", url=server.url)
        player.refresh_from_db()
        assert player.status == "away" and "500" in player.note
        services.ggp_player_recheck(owner=owner, player_id=player.pk)
    player.refresh_from_db()
    assert player.status == "online"


@pytest.mark.parametrize("url", ["http://example.org:9147/", "http://10.0.0.1/", "ftp://localhost/",
                                 "http://169.254.169.254/"])
def test_an_address_off_the_allow_list_is_refused_and_nothing_is_stored(url):
    [owner] = make_accounts(1)
    with pytest.raises(services.ServiceError) as refused:
        services.ggp_player_register(owner=owner, name="Outsider", url=url)
    assert refused.value.code == "url_refused"
    assert not GGPPlayer.objects.exists()


def test_guests_may_not_register_and_names_stay_unique():
    [guest] = make_players(1)
    [owner] = make_accounts(1)
    with pytest.raises(services.ServiceError) as refused:
        services.ggp_player_register(owner=guest, name="Mine", url="http://localhost:1/")
    assert refused.value.code == "not_allowed"
    with pytest.raises(services.ServiceError) as taken:
        services.ggp_player_register(owner=owner, name=str(owner), url="http://localhost:1/")
    assert taken.value.code == "name_taken"


def test_removing_retires_the_account():
    [owner, other] = make_accounts(2)
    with PlayerServer(lambda body: "available") as server:
        player = services.ggp_player_register(owner=owner, name="Retiree", url=server.url)
    with pytest.raises(services.ServiceError):
        services.ggp_player_remove(owner=other, player_id=player.pk)
    services.ggp_player_remove(owner=owner, player_id=player.pk)
    assert GGPPlayer.objects.get().removed_at is not None  # kept: it counts toward the owner's limit
    player.account.refresh_from_db()
    assert not player.account.is_active
    assert players.ggp_players_listed() == [] and players.ggp_players_of(owner) == []
    for again in (services.ggp_player_remove, services.ggp_player_recheck):
        with pytest.raises(services.ServiceError) as refused:
            again(owner=owner, player_id=player.pk)
        assert refused.value.code == "not_found"
    with pytest.raises(services.ServiceError) as refused:
        services.match_create(user=other, settings=MatchSettings("tictactoe-x9", time_control=TimeControl(start=30, play=10)),
                              role="xplayer", ggp_players={"oplayer": player.pk})
    assert refused.value.code == "ggp_unknown"


def test_a_removed_player_counts_toward_the_owners_limit_for_30_days(monkeypatch):
    """Removing and registering again made a fresh rated opponent each time: a removed player
    counts for REMOVED_COUNTS_DAYS after its removal, then frees its place."""
    from datetime import timedelta

    from django.utils import timezone

    monkeypatch.setattr(players, "MAX_PER_OWNER", 2)
    [owner] = make_accounts(1)
    first, _ = (services.ggp_player_register(owner=owner, name=f"Churn {i}", url="http://localhost:9/")
                for i in range(2))
    with pytest.raises(services.ServiceError) as full:
        services.ggp_player_register(owner=owner, name="Churn 2", url="http://localhost:9/")
    assert full.value.code == "too_many" and "still counts for 30 days" in full.value.message
    services.ggp_player_remove(owner=owner, player_id=first.pk)
    with pytest.raises(services.ServiceError) as counted:
        services.ggp_player_register(owner=owner, name="Churn 2", url="http://localhost:9/")
    frees = (GGPPlayer.objects.get(pk=first.pk).removed_at + timedelta(days=30)).date().isoformat()
    assert counted.value.code == "too_many" and f"register another on {frees}" in counted.value.message
    GGPPlayer.objects.filter(pk=first.pk).update(removed_at=timezone.now() - timedelta(days=30, seconds=1))
    assert services.ggp_player_register(owner=owner, name="Churn 2", url="http://localhost:9/")


def test_the_page_lists_players_with_their_status_and_registers_one():
    [owner] = make_accounts(1)
    client = Client()
    assert "Sign up" in client.get("/ggp/").content.decode()
    client.force_login(owner)
    with PlayerServer(lambda body: "((name x) (status busy))") as server:
        answer = client.post("/ggp/", {"name": "Paged", "url": server.url}, follow=True)
    page = answer.content.decode()
    assert answer.status_code == 200 and "Paged" in page and 'data-status="busy"' in page
    refused = client.post("/ggp/", {"name": "Far", "url": "http://example.org/"})
    assert refused.status_code == 200 and "example.org port 80 is not one of them" in refused.content.decode()
    assert GGPPlayer.objects.count() == 1
    assert Client().post("/ggp/", {"name": "Anon", "url": "http://localhost:1/"}).status_code == 302
    assert GGPPlayer.objects.count() == 1


def test_the_page_seats_a_ggp_player_in_a_new_match_with_the_per_move_clock():
    [owner] = make_accounts(1)
    with PlayerServer(lambda body: "available") as server:
        player = services.ggp_player_register(owner=owner, name="Seated", url=server.url)
        client = Client()
        client.force_login(owner)
        assert b"Play Seated" in client.get("/ggp/").content
        refused = client.post(f"/ggp/{player.pk}/play/", {"game": "quarto-misere", "clock": "5+3"}, follow=True)
        assert b"per-move time control" in refused.content
        answer = client.post(f"/ggp/{player.pk}/play/", {"game": "quarto-misere", "clock": "m30/10"})
    assert answer.status_code == 302
    match = Match.objects.get()
    seats = {s.player_id: s.role for s in match.seats.all()}
    assert set(seats) == {owner.pk, player.account_id} and (match.clock_start, match.clock_play) == (30, 10)
    for bad in [{"game": "chess", "clock": "m30/10"}, {"game": "quarto-misere", "clock": "m30"}]:
        answer = client.post(f"/ggp/{player.pk}/play/", bad, follow=True)
        assert answer.status_code == 200 and answer.redirect_chain[-1][0] == "/ggp/"
        assert Match.objects.count() == 1


def test_the_page_seats_two_ggp_players_in_a_three_player_match():
    """Two programs meet: the third seat may go to a second GGP player (any registered one)."""
    [owner, other_owner] = make_accounts(2)
    with PlayerServer(lambda body: "available") as server, PlayerServer(lambda body: "available") as second:
        one = services.ggp_player_register(owner=owner, name="First", url=server.url)
        two = services.ggp_player_register(owner=other_owner, name="Second", url=second.url)
        client = Client()
        client.force_login(owner)
        assert f'value="ggp:{two.pk}"'.encode() in client.get("/ggp/").content
        answer = client.post(f"/ggp/{one.pk}/play/", {"game": "tictactoe-3player", "clock": "m30/10",
                                                      "rest": f"ggp:{two.pk}"})
        assert answer.status_code == 302
        for bad in ["ggp:", "ggp:x", f"ggp:{one.pk}", "ggp:99999999999999999999"]:
            refused = client.post(f"/ggp/{one.pk}/play/", {"game": "tictactoe-3player", "clock": "m30/10",
                                                           "rest": bad}, follow=True)
            assert refused.status_code == 200 and refused.redirect_chain[-1][0] == "/ggp/", bad
    match = Match.objects.get()
    assert {s.player_id for s in match.seats.all()} == {owner.pk, one.account_id, two.account_id}
    assert match.status == Match.Status.ACTIVE


def test_the_page_gives_the_persons_seat_to_a_second_ggp_player():
    """Two programs meet in a two-player match; the person who made it takes no seat."""
    [owner, other_owner] = make_accounts(2)
    with PlayerServer(lambda body: "available") as server, PlayerServer(lambda body: "available") as second:
        one = services.ggp_player_register(owner=owner, name="Left", url=server.url)
        two = services.ggp_player_register(owner=other_owner, name="Right", url=second.url)
        client = Client()
        client.force_login(owner)
        page = client.get("/ggp/").content.decode()
        assert f'<option value="ggp:{two.pk}">Right (GGP): you watch</option>' in page
        for bad in ["ggp:", "ggp:x", f"ggp:{one.pk}", "ggp:99999999999999999999", "nobody"]:
            refused = client.post(f"/ggp/{one.pk}/play/", {"game": "quarto-misere", "clock": "m30/10",
                                                           "seat": bad}, follow=True)
            assert refused.status_code == 200 and refused.redirect_chain[-1][0] == "/ggp/", bad
        assert not Match.objects.exists()
        refused = client.post(f"/ggp/{one.pk}/play/", {"game": "tictactoe-3player", "clock": "m30/10",
                                                       "seat": f"ggp:{two.pk}", "rest": "people"}, follow=True)
        assert b"every seat goes to a program" in refused.content and not Match.objects.exists()
        answer = client.post(f"/ggp/{one.pk}/play/", {"game": "quarto-misere", "clock": "m30/10",
                                                      "seat": f"ggp:{two.pk}"})
        assert answer.status_code == 302
        match = Match.objects.get()
        assert answer["Location"] == f"/matches/{match.pk}/"
        assert client.get(answer["Location"]).status_code == 200  # the page opens for the creator, who watches
    assert {s.player_id for s in match.seats.all()} == {one.account_id, two.account_id}
    assert match.created_by == owner


@pytest.mark.parametrize("player_id", [999, 2**63, 10**20])
def test_playing_a_missing_ggp_player_is_refused_whatever_its_number(player_id):
    """An id no database can hold (2^63 and over) is answered as a missing player, not a 500."""
    [owner] = make_accounts(1)
    client = Client()
    client.force_login(owner)
    answer = client.post(f"/ggp/{player_id}/play/", {"game": "nine-board-tictactoe", "clock": "m10/5"}, follow=True)
    assert answer.redirect_chain[-1][0] == "/ggp/" and b"There is no such GGP player." in answer.content
    assert not Match.objects.exists()


def test_embedded_the_check_runs_in_a_thread_off_the_request(settings):
    """``COMPUTER_WORKERS=pool`` (the embedded set-up): registering returns at once, while the
    player has not answered yet; the INFO check finishes on a thread of ``offpath``."""
    import threading
    import time

    settings.COMPUTER_WORKERS = "pool"
    [owner] = make_accounts(1)
    release = threading.Event()
    with PlayerServer(lambda body: "available" if release.wait(30) else "") as server:
        player = services.ggp_player_register(owner=owner, name="Threaded", url=server.url)
        assert GGPPlayer.objects.get(pk=player.pk).status == "checking"
        release.set()
        deadline = time.monotonic() + 30
        while GGPPlayer.objects.get(pk=player.pk).status == "checking":
            assert time.monotonic() < deadline, "the check did not finish within 30 s"
            time.sleep(0.01)  # a polling interval
    assert GGPPlayer.objects.get(pk=player.pk).status == "online"


@pytest.mark.asyncio
async def test_scaled_the_worker_takes_the_check_from_the_ggp_channel(settings, monkeypatch):
    """``COMPUTER_WORKERS=channel``: registering sends the task on the ``ggp`` channel; the
    worker (``runworker ggp``'s consumer) takes it and the check is made there."""
    import asyncio

    from asgiref.sync import sync_to_async
    from channels.testing import ApplicationCommunicator

    from games.ggp import offpath
    from games.ggp.offpath import GGP_CHANNEL
    from games.ggp.workers import GGPWorker
    from tests.support.waits import EVENT_SECONDS

    settings.COMPUTER_WORKERS = "channel"
    sent = []

    class Layer:  # what the web process hands to the channel layer (its transport is tested elsewhere)
        async def send(self, channel, message):
            sent.append((channel, message))

    monkeypatch.setattr(offpath, "get_channel_layer", Layer)
    [owner] = await sync_to_async(make_accounts)(1)
    with PlayerServer(lambda body: "((status available))") as server:
        player = await sync_to_async(services.ggp_player_register)(owner=owner, name="Remote", url=server.url)
        [(channel, message)] = sent
        assert channel == GGP_CHANNEL
        assert message == {"type": "ggp.task", "name": "ggp_player_check", "args": [player.pk]}
        worker = ApplicationCommunicator(GGPWorker.as_asgi(), {"type": "channel", "channel": GGP_CHANNEL})
        await worker.send_input(message)
        status = sync_to_async(lambda: GGPPlayer.objects.get(pk=player.pk).status)
        deadline = asyncio.get_running_loop().time() + EVENT_SECONDS
        while await status() != "online":
            assert asyncio.get_running_loop().time() < deadline, "the worker did not check within the ceiling"
            await asyncio.sleep(0.01)  # a polling interval
    assert server.bodies() == ["(INFO)"]


def test_a_ggp_player_is_played_from_its_page_not_challenged():
    from games.match.settings import MatchSettings

    [owner] = make_accounts(1)
    player = services.ggp_player_register(owner=owner, name="Unasked", url="http://localhost:9/")
    with pytest.raises(services.ServiceError) as refused:
        services.challenge_create(user=owner, to_id=player.account_id, settings=MatchSettings("quarto-misere"))
    assert refused.value.code == "ggp_player" and "/ggp/" in refused.value.message


@pytest.mark.asyncio
async def test_embedded_a_task_hands_its_commits_effects_to_the_servers_loop(settings):
    """A task on the pool's thread finds the server's event loop, as a database thread of the
    server does: a move it plays is broadcast from that loop, not lost on a loop of its own."""
    import asyncio

    from asgiref.sync import sync_to_async

    from games.ggp import offpath
    from games.runtime import eventloop
    from tests.support.waits import until

    settings.COMPUTER_WORKERS = "pool"
    seen = []
    offpath.TASKS["probe"] = lambda: seen.append(eventloop.server_loop())
    try:
        await sync_to_async(offpath.run, thread_sensitive=False)("probe")
        await until(lambda: seen, "the task ran")
    finally:
        offpath.TASKS.pop("probe")
    assert seen == [asyncio.get_running_loop()]


def test_the_ggp_account_names_are_reserved_at_sign_up():
    from lobby.services import account_signup

    with pytest.raises(services.ServiceError):
        account_signup(username="ggp-0123456789ab", password="a long enough password", display_name="Pretender")


def test_one_registered_player_never_holds_two_seats_and_needs_the_per_move_clock():
    """The protocol's PLAY does not name the role: one player in two seats could not tell them
    apart. Refused with a reason, and no match is stored."""
    [owner] = make_accounts(1)
    with PlayerServer(lambda body: "available") as server:
        player = services.ggp_player_register(owner=owner, name="Twice", url=server.url)
    per_move = TimeControl(start=30, play=10)
    attempts = [
        ("ggp_seats", MatchSettings("tictactoe-3player", time_control=per_move), {"oplayer": player.pk, "zplayer": player.pk}),
        ("ggp_seats", MatchSettings("tictactoe-x9", time_control=per_move), {"xplayer": player.pk}),
        ("ggp_needs_per_move", MatchSettings("tictactoe-x9"), {"oplayer": player.pk}),
    ]
    for code, settings, chosen in attempts:
        with pytest.raises(ServiceError) as refused:
            services.match_create(user=owner, settings=settings, role="xplayer", ggp_players=chosen)
        assert refused.value.code == code
    assert not Match.objects.exists()


def test_the_page_checks_again_and_removes_only_the_owners_player():
    [owner, other] = make_accounts(2)
    answers = iter([(500, {}, "down"), "available"])
    with PlayerServer(lambda body: next(answers)) as server:
        player = services.ggp_player_register(owner=owner, name="Paged Twice", url=server.url)
        assert GGPPlayer.objects.get(pk=player.pk).status == "away"
        assert Client().post(f"/ggp/{player.pk}/check/").status_code == 302  # to sign in
        outsider = Client()
        outsider.force_login(other)
        for action in ["check", "remove"]:
            answer = outsider.post(f"/ggp/{player.pk}/{action}/", follow=True)
            assert answer.redirect_chain[-1][0] == "/ggp/" and b"You have no such GGP player." in answer.content
        assert GGPPlayer.objects.get(pk=player.pk).status == "away"
        mine = Client()
        mine.force_login(owner)
        assert mine.get(f"/ggp/{player.pk}/check/").status_code == 405
        answer = mine.post(f"/ggp/{player.pk}/check/")
        assert answer.status_code == 302 and answer["Location"] == "/ggp/"
    assert GGPPlayer.objects.get(pk=player.pk).status == "online"
    answer = mine.post(f"/ggp/{player.pk}/remove/", follow=True)
    assert answer.redirect_chain[-1][0] == "/ggp/" and b"The GGP player is removed." in answer.content
    assert GGPPlayer.objects.get(pk=player.pk).removed_at is not None
    assert b"Paged Twice" not in mine.get("/ggp/").content
    answer = mine.post(f"/ggp/{player.pk}/remove/", follow=True)
    assert b"You have no such GGP player." in answer.content


@pytest.mark.parametrize("url, reason", [
    ("http://localhost:9147/\x00", "a NUL byte"), ("http://local\x00host:9147/", "a NUL byte"),
    ("http://localhost:9147/a\r\nX-Injected: 1", "a carriage return"), ("http://local\nhost:9147/", "a line break"),
    ("http://localhost:9147/a b", "a space"), ("http://localhost:9147/\tx", "a tab"),
    ("http://localhost:0/", "Port 0"), ("http://localhost:65536/", "1 to 65535"),
    ("http://localhost:9147/caf\u00e9", "U+00E9"), ("http://local_host:9147/", "not a host name"),
    ("http://localhost:9147/a\\b", "path"), ("http://localhost:9147/?", "query"),
])
def test_an_address_no_call_could_reach_is_refused_with_its_reason_and_nothing_is_stored(url, reason):
    """Refused as written: never quietly mended (a CR or LF dropped by the parser, ``:0`` read
    as port 80), never stored to fail at every call, never a database error (PostgreSQL stores
    no NUL)."""
    [owner] = make_accounts(1)
    with pytest.raises(services.ServiceError) as refused:
        services.ggp_player_register(owner=owner, name="Garbled", url=url)
    assert refused.value.code == "url_refused" and reason in refused.value.message
    assert not GGPPlayer.objects.exists()


def test_a_name_with_a_nul_byte_is_refused_not_a_database_error():
    [owner] = make_accounts(1)
    with pytest.raises(services.ServiceError) as refused:
        services.ggp_player_register(owner=owner, name="Nul\x00l", url="http://localhost:9147/")
    assert refused.value.code == "invalid_name"
    assert not GGPPlayer.objects.exists()


def test_the_page_refuses_an_address_with_a_nul_byte_with_a_reason():
    [owner] = make_accounts(1)
    page = Client()
    page.force_login(owner)
    response = page.post("/ggp/", {"name": "Nully", "url": "http://localhost:9147/\x00"})
    assert response.status_code in {200, 400}
    assert "NUL" in response.content.decode()
    assert not GGPPlayer.objects.exists()


def test_the_address_is_stored_in_its_normal_form():
    [owner] = make_accounts(1)
    player = services.ggp_player_register(owner=owner, name="Shouty", url="  HTTP://LocalHost.:9147/play ")
    assert player.url == "http://localhost:9147/play"


def test_by_default_only_the_ggp_ports_of_the_local_machine_are_allowed(settings):
    """An account may not make the server call any local service: the default allow-list names
    ten ports of the loopback (9147, GGP's own, and the nine after it), not the whole machine."""
    settings.GGP_PLAYER_HOSTS = ["localhost:9147-9156"]
    [owner] = make_accounts(1)
    for url in ["http://localhost:8000/", "http://127.0.0.1:6379/", "http://[::1]:5432/", "http://localhost/"]:
        with pytest.raises(services.ServiceError) as refused:
            services.ggp_player_register(owner=owner, name="Prober", url=url)
        assert refused.value.code == "url_refused" and "port" in refused.value.message
    assert services.ggp_player_register(owner=owner, name="Proper", url="http://127.0.0.1:9156/").pk


def test_what_answers_info_at_the_address_is_never_echoed():
    """Whatever listens at a registered address, its owner never reads what it answered: the
    note says the answer was not one of the protocol's, not what it was."""
    [owner] = make_accounts(1)
    with PlayerServer(lambda body: "SECRET-key-4242 and more") as server:
        player = services.ggp_player_register(owner=owner, name="Leaky", url=server.url)
    player.refresh_from_db()
    assert player.status == "away" and "SECRET" not in player.note and "4242" not in player.note
