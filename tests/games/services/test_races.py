"""Two requests at the same moment, each held at its worst point (threads, and events or a
barrier inside a patched step) so that the race is lost every time. PostgreSQL only: there
writers wait on row locks; SQLite lets one writer in at a time, so nothing interleaves."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.conf import settings as conf
from django.db import connection
from django.utils import timezone

from games import selectors, services
from games.match.settings import MatchSettings
from games.models import Challenge, Match, PoolEntry, Seat
from games.runtime import presence
from games.services import challenges, departures, pairing
from lobby.services import guest_leave
from tests.support.players import make_accounts, make_players, run_at_once

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]
CASUAL = MatchSettings("quarto-misere")


@pytest.fixture(autouse=True)
def _postgres():
    assert connection.vendor == "postgresql", "these races need PostgreSQL's row locks (bin/test stage 2)"


def in_thread(call, outcomes: dict, name: str) -> threading.Thread:
    """Run ``call`` in a thread; its result or the exception it raised goes to ``outcomes[name]``."""
    def run():
        try:
            outcomes[name] = call()
        except Exception as err:  # the test looks at it
            outcomes[name] = err
        finally:
            connection.close()
    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_a_guest_leaving_while_its_waiting_match_is_joined_ends_it(monkeypatch):
    """player_depart listed the match as waiting; the join started it before the lock was
    taken. It used to skip the match: the guest, gone for good, held a live seat. Nobody has
    moved yet, so the match is aborted (a match that never began is not lost)."""
    ada, = make_players(1, prefix="guest")
    bob, = make_players(1, prefix="joiner")
    match = services.match_create(user=ada, settings=CASUAL)
    listed, joined = threading.Event(), threading.Event()
    unpatched = departures.lock_match

    def lock_after_the_join(match_id):
        listed.set()
        assert joined.wait(timeout=10)
        return unpatched(match_id)

    monkeypatch.setattr(departures, "lock_match", lock_after_the_join)
    outcomes: dict = {}
    leaving = in_thread(lambda: guest_leave(user=ada), outcomes, "leave")
    assert listed.wait(timeout=10)
    services.seat_join(match_id=match.pk, user=bob)
    joined.set()
    leaving.join()
    assert outcomes["leave"] == {"resigned": 1, "freed": 0}
    match.refresh_from_db()
    role = Seat.objects.get(match=match, player=ada).role
    assert match.status == Match.Status.ABORTED and match.result["reason"] == f"{role} left the site before moving"


def test_a_page_reloading_on_a_waiting_match_leaves_the_player_present(monkeypatch):
    """The old page found no other page of the player's, then the new page opened and read the
    seats, then the old page wrote "away": the player, on the page, counted as away, the lobby
    hid the match and the expiry called it off under them."""
    ada, = make_players(1)
    match = services.match_create(user=ada, settings=CASUAL)
    services.presence_enter(match_id=match.pk, channel_name="page-1", user=ada)
    store = presence.store()
    checked, entered = threading.Event(), threading.Event()
    unpatched = store.pages

    def pages_then_let_the_new_page_open(match_id):
        found = unpatched(match_id)
        if not checked.is_set():
            checked.set()
            assert entered.wait(timeout=10)
        return found

    monkeypatch.setattr(store, "pages", pages_then_let_the_new_page_open)
    outcomes: dict = {}
    closing = in_thread(lambda: services.presence_leave(match_id=match.pk, channel_name="page-1", user=ada),
                        outcomes, "leave")
    assert checked.wait(timeout=10)
    services.presence_enter(match_id=match.pk, channel_name="page-2", user=ada)
    entered.set()
    closing.join()
    assert [uid for uid, _ in unpatched(match.pk)] == [ada.pk]
    assert Seat.objects.get(match=match, player=ada).away_since is None
    assert match.pk in [row["id"] for row in selectors.lobby_lists()["open"]]
    later = timezone.now() + timedelta(seconds=conf.WAITING_EXPIRE_SECONDS + 1)
    assert services.waiting_matches_expire(now=later) == 0


def test_accepting_a_challenge_while_the_pool_pairs_the_player_asks_first(monkeypatch):
    """The accept deletes both players' pool entries; a pairing holding the entry's lock made
    its match first, and the accept made a second one anyway. It now refuses (just_paired),
    keeping the challenge open: accepting again plays it as well, knowingly. (The pairing holds
    Ada's row; the accept, having seen her entry, waits for it.)"""
    ada, bob, cy = make_accounts(3)
    assert services.pool_enter(user=ada, settings=CASUAL, channel_name="ada-page") is None
    challenge = services.challenge_create(user=bob, to_id=ada.pk, settings=CASUAL)
    holding, locking = threading.Event(), threading.Event()
    create, lock_players = pairing.match_create, challenges.lock_players

    def create_once_the_accept_waits(**kwargs):
        holding.set()
        assert locking.wait(timeout=10)
        return create(**kwargs)

    def say_so_then_lock(ids):
        locking.set()
        return lock_players(ids)

    monkeypatch.setattr(pairing, "match_create", create_once_the_accept_waits)
    monkeypatch.setattr(challenges, "lock_players", say_so_then_lock)
    outcomes: dict = {}
    pairs = in_thread(lambda: services.pool_enter(user=cy, settings=CASUAL, channel_name="cy-page"), outcomes, "cy")
    assert holding.wait(timeout=10)  # the pairing holds Ada's entry and row
    accept = in_thread(lambda: services.challenge_accept(user=ada, challenge_id=challenge.pk), outcomes, "ada")
    pairs.join()
    accept.join()
    assert isinstance(outcomes["cy"], Match)
    assert isinstance(outcomes["ada"], services.ServiceError) and outcomes["ada"].code == "just_paired"
    assert Match.objects.filter(status=Match.Status.ACTIVE, seats__player=ada).count() == 1
    assert Challenge.objects.get(pk=challenge.pk).status == Challenge.Status.PENDING


def test_a_pairing_skips_a_player_busy_accepting_a_challenge(monkeypatch):
    """The accept holds Ada's row: the pairing that finds her entry skips her (it never waits on
    a player's row), and she plays the challenge; the newcomer keeps waiting."""
    ada, bob, cy = make_accounts(3)
    assert services.pool_enter(user=ada, settings=CASUAL, channel_name="ada-page") is None
    challenge = services.challenge_create(user=bob, to_id=ada.pk, settings=CASUAL)
    held, paired = threading.Event(), threading.Event()
    lock_open = challenges._lock_open

    def lock_open_once_the_pairing_tried(*args, **kwargs):
        held.set()
        assert paired.wait(timeout=10)
        return lock_open(*args, **kwargs)

    monkeypatch.setattr(challenges, "_lock_open", lock_open_once_the_pairing_tried)
    outcomes: dict = {}
    accept = in_thread(lambda: services.challenge_accept(user=ada, challenge_id=challenge.pk), outcomes, "ada")
    assert held.wait(timeout=10)
    assert services.pool_enter(user=cy, settings=CASUAL, channel_name="cy-page") is None
    paired.set()
    accept.join()
    assert outcomes["ada"].status == Challenge.Status.ACCEPTED
    assert Match.objects.get(seats__player=ada).pk == outcomes["ada"].match_id
    assert list(PoolEntry.objects.values_list("player_id", flat=True)) == [cy.pk]


def test_two_players_challenging_each_other_at_once_both_get_through(monkeypatch):
    """Each held their own row FOR UPDATE, and each challenge's foreign key to the other player
    needs a share lock on that row: a deadlock, and one challenge lost to a server error."""
    ada, bob = make_accounts(2)
    both_locked = threading.Barrier(2)
    unpatched = challenges.lock_player

    def lock_then_wait(user):
        unpatched(user)
        both_locked.wait(timeout=10)

    monkeypatch.setattr(challenges, "lock_player", lock_then_wait)
    outcomes = run_at_once([lambda a=a, b=b: services.challenge_create(user=a, to_id=b.pk, settings=CASUAL)
                            for a, b in ((ada, bob), (bob, ada))])
    assert outcomes == ["ok", "ok"]
    assert Challenge.objects.count() == 2


def test_a_new_search_while_the_pool_pairs_the_old_one_does_not_deadlock(monkeypatch):
    """Bob's pairing holds Ada's entry and writes the seats that point at Ada; Ada's new search
    (another tab) held her row FOR UPDATE and waited to delete that entry: a deadlock. (The
    pairing now takes her row too, and her search waits for it.)"""
    ada, bob = make_accounts(2)
    assert services.pool_enter(user=ada, settings=CASUAL, channel_name="ada-1") is None
    PoolEntry.objects.filter(player=ada).update(created_at=timezone.now() - timedelta(seconds=1))
    # Bob waits under other settings, then in Ada's pool (as if he had waited there).
    assert services.pool_enter(user=bob, settings=MatchSettings("quarto-misere", rated=True),
                               channel_name="bob-1") is None
    PoolEntry.objects.filter(player=bob).update(key=CASUAL.pool_key(), settings=CASUAL.to_json())
    holds, ada_locked = threading.Event(), threading.Event()
    create, lock_player = pairing.match_create, pairing.lock_player

    def create_after_ada_locks(**kwargs):
        holds.set()
        assert ada_locked.wait(timeout=10)
        return create(**kwargs)

    def lock_then_say_so(user):  # the pairing holds her row now: say so, then wait for it
        ada_locked.set()
        lock_player(user)

    monkeypatch.setattr(pairing, "match_create", create_after_ada_locks)
    monkeypatch.setattr(pairing, "lock_player", lock_then_say_so)
    outcomes: dict = {}
    retry = in_thread(lambda: services.pool_pair(user=bob, channel_name="bob-1"), outcomes, "bob")
    assert holds.wait(timeout=10)
    search = in_thread(lambda: services.pool_enter(user=ada, settings=CASUAL, channel_name="ada-2"),
                       outcomes, "ada")
    retry.join()
    search.join()
    assert not [o for o in outcomes.values() if isinstance(o, Exception)], outcomes
    assert isinstance(outcomes["bob"], Match)  # paired; Ada's new search waits on its own
    assert list(PoolEntry.objects.values_list("player_id", flat=True)) == [ada.pk]
