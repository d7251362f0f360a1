"""Fair play in the lobby: one real-time match at a time per player (untimed and correspondence
excepted), and a lobby one player cannot flood (a few waiting matches each, listed while their
creator is at them, called off when nobody ever came)."""

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from games import selectors, services
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import Challenge, Match, PoolEntry, Seat
from tests.games.services.test_services import assert_refused
from tests.support.players import make_players, play_first_moves, start_match, waiting_match

pytestmark = pytest.mark.django_db

BLITZ = MatchSettings("quarto-misere", time_control=TimeControl(base=180, increment=2))
THREE_BLITZ = MatchSettings("tictactoe-3player", time_control=TimeControl(base=180, increment=2))
UNTIMED = MatchSettings("quarto-misere")
DAILY = MatchSettings("quarto-misere", time_control=TimeControl(days=1))


def playing(*players):
    """Start a real-time match between ``players``."""
    return start_match("quarto-misere", list(players), time_control=BLITZ.time_control)


def open_list():
    return [row["id"] for row in selectors.lobby_lists()["open"]]


def test_every_path_that_starts_a_second_real_time_match_is_refused_with_a_link_to_the_first():
    ada, bob, cy, dee = make_players(4)
    live = playing(ada, bob)
    seek = services.match_create(user=cy, settings=BLITZ)
    err = assert_refused("already_playing", services.seat_join, match_id=seek.pk, user=ada)
    assert err.extra == {"match": live.pk} and "already playing a real-time match" in err.message
    assert_refused("already_playing", services.match_create, user=ada, settings=BLITZ, against_computer=True)
    assert_refused("already_playing", services.match_create, user=ada, settings=BLITZ)  # a seek, too
    assert_refused("already_playing", services.pool_enter, user=ada, settings=BLITZ, channel_name="p")
    assert_refused("already_playing", services.challenge_create, user=ada, to_id=cy.pk, settings=BLITZ)
    received = services.challenge_create(user=cy, to_id=ada.pk, settings=BLITZ)
    assert_refused("already_playing", services.challenge_accept, user=ada, challenge_id=received.pk)
    assert Challenge.objects.get(pk=received.pk).status == Challenge.Status.PENDING  # answer it once free
    sent = services.challenge_create(user=bob, to_id=dee.pk, settings=UNTIMED)  # untimed: allowed
    Challenge.objects.filter(pk=sent.pk).update(settings=BLITZ.to_json())  # as if sent before bob's match
    err = assert_refused("already_playing", services.challenge_accept, user=dee, challenge_id=sent.pk)
    assert err.message.startswith(f"{bob} is playing another real-time match right now")
    assert "match" not in err.extra  # the link is for the player whose match it is
    assert Match.objects.filter(status=Match.Status.ACTIVE, seats__player=ada).count() == 1


def test_a_rematch_is_refused_while_either_player_is_in_another_real_time_match():
    ada, bob, cy = make_players(3)
    old = play_first_moves(playing(ada, bob), [ada, bob])  # begun: a resignation finishes it
    services.match_resign(match_id=old.pk, user=ada)
    live = playing(ada, cy)
    assert_refused("already_playing", services.rematch_offer, match_id=old.pk, user=ada)
    rematch = services.rematch_offer(match_id=old.pk, user=bob)
    err = assert_refused("already_playing", services.seat_join, match_id=rematch.pk, user=ada)
    assert err.extra == {"match": live.pk}
    services.match_resign(match_id=live.pk, user=cy)
    assert services.seat_join(match_id=rematch.pk, user=ada).pk == rematch.pk  # free again: it starts
    assert Match.objects.get(pk=rematch.pk).status == Match.Status.ACTIVE


def test_untimed_and_correspondence_matches_go_alongside_a_real_time_one():
    ada, bob, cy = make_players(3)
    playing(ada, bob)
    services.seat_join(match_id=services.match_create(user=cy, settings=UNTIMED).pk, user=ada)
    services.seat_join(match_id=services.match_create(user=cy, settings=DAILY).pk, user=ada)
    services.match_create(user=ada, settings=UNTIMED, against_computer=True)
    assert Match.objects.filter(status=Match.Status.ACTIVE, seats__player=ada).count() == 4


def test_starting_a_real_time_match_withdraws_the_players_search_challenges_and_waiting_seats():
    ada, bob, cy, dee = make_players(4)
    own_seek = services.match_create(user=ada, settings=BLITZ)
    own_untimed = services.match_create(user=ada, settings=UNTIMED)
    three = services.match_create(user=dee, settings=THREE_BLITZ, role="xplayer")
    services.seat_join(match_id=three.pk, user=ada)
    rt_challenge = services.challenge_create(user=ada, to_id=cy.pk, settings=BLITZ)
    untimed_challenge = services.challenge_create(user=ada, to_id=dee.pk, settings=UNTIMED)
    received = services.challenge_create(user=cy, to_id=ada.pk, settings=BLITZ)
    assert services.pool_enter(user=ada, settings=UNTIMED, channel_name="ada-page") is None
    started = services.match_create(user=bob, settings=BLITZ)
    services.seat_join(match_id=started.pk, user=ada)
    assert Match.objects.get(pk=started.pk).status == Match.Status.ACTIVE
    assert not PoolEntry.objects.filter(player=ada).exists()
    status = dict(Challenge.objects.values_list("pk", "status"))
    assert status[rt_challenge.pk] == Challenge.Status.CANCELLED
    assert status[untimed_challenge.pk] == status[received.pk] == Challenge.Status.PENDING
    assert Match.objects.get(pk=own_seek.pk).status == Match.Status.ABORTED
    assert Match.objects.get(pk=own_untimed.pk).status == Match.Status.WAITING
    assert Match.objects.get(pk=three.pk).status == Match.Status.WAITING  # dee still waits there
    assert not Seat.objects.filter(match=three, player=ada).exists()


def test_the_last_of_three_players_joining_withdraws_all_three_and_resigned_seats_are_free():
    ada, bob, cy, dee = make_players(4)
    assert services.pool_enter(user=bob, settings=UNTIMED, channel_name="bob-page") is None
    bobs_seek = services.match_create(user=bob, settings=BLITZ)
    three = services.match_create(user=ada, settings=THREE_BLITZ, role="xplayer")
    services.seat_join(match_id=three.pk, user=bob)
    services.seat_join(match_id=three.pk, user=cy)
    assert Match.objects.get(pk=three.pk).status == Match.Status.ACTIVE
    assert not PoolEntry.objects.exists() and Match.objects.get(pk=bobs_seek.pk).status == Match.Status.ABORTED
    assert_refused("already_playing", services.pool_enter, user=cy, settings=BLITZ, channel_name="cy")
    play_first_moves(Match.objects.get(pk=three.pk), [ada, bob, cy])  # begun: a resignation is not an abort
    services.match_resign(match_id=three.pk, user=cy)  # the others play on; cy is out of it
    assert services.match_create(user=cy, settings=BLITZ, against_computer=True).status == Match.Status.ACTIVE
    assert_refused("already_playing", services.match_create, user=ada, settings=BLITZ, against_computer=True)


def test_a_quick_game_closes_the_other_searches_of_its_players():
    ada, bob = make_players(2)
    ada_seek = services.match_create(user=ada, settings=BLITZ)
    services.challenge_create(user=bob, to_id=ada.pk, settings=BLITZ)
    assert services.pool_enter(user=ada, settings=BLITZ, channel_name="ada") is None
    match = services.pool_enter(user=bob, settings=BLITZ, channel_name="bob")
    assert match.status == Match.Status.ACTIVE
    assert Match.objects.get(pk=ada_seek.pk).status == Match.Status.ABORTED
    assert Challenge.objects.get().status == Challenge.Status.CANCELLED  # bob's, to ada


@override_settings(WAITING_MATCHES_MAX=2)
def test_a_player_has_at_most_a_few_waiting_matches():
    ada, bob = make_players(2)
    first = services.match_create(user=ada, settings=UNTIMED)
    services.match_create(user=ada, settings=DAILY, is_private=True)
    err = assert_refused("too_many_waiting", services.match_create, user=ada, settings=UNTIMED)
    assert "2 matches waiting" in err.message
    assert services.match_create(user=ada, settings=UNTIMED, against_computer=True).status == Match.Status.ACTIVE
    services.match_create(user=bob, settings=UNTIMED)  # another player's count is their own
    services.seat_join(match_id=first.pk, user=bob)  # one started: room for another
    services.match_create(user=ada, settings=UNTIMED)
    assert Match.objects.filter(created_by=ada, status=Match.Status.WAITING).count() == 2


def test_a_waiting_match_is_listed_while_its_creator_is_at_it():
    ada, bob, cy = make_players(3)
    posted = services.match_create(user=ada, settings=UNTIMED)
    assert open_list() == []  # never opened: not offered
    services.presence_enter(match_id=posted.pk, channel_name="ada-page", user=ada)
    assert open_list() == [posted.pk]
    three = waiting_match(bob, MatchSettings("tictactoe-3player"), role="xplayer")
    services.seat_join(match_id=three.pk, user=cy)
    services.presence_enter(match_id=three.pk, channel_name="cy-page", user=cy)
    assert set(open_list()) == {posted.pk, three.pk}
    services.presence_leave(match_id=three.pk, channel_name=f"page-{three.pk}-{bob.pk}", user=bob)
    assert open_list() == [posted.pk]  # cy is there, but the match is bob's to offer


@override_settings(WAITING_EXPIRE_SECONDS=120)
def test_a_waiting_match_whose_page_was_never_opened_expires():
    ada, bob = make_players(2)
    never = services.match_create(user=ada, settings=UNTIMED)
    opened = waiting_match(bob, UNTIMED)
    assert services.waiting_matches_expire(now=timezone.now() + timedelta(seconds=60)) == 0
    assert services.waiting_matches_expire(now=timezone.now() + timedelta(seconds=121)) == 1
    assert Match.objects.get(pk=never.pk).status == Match.Status.ABORTED
    assert Match.objects.get(pk=opened.pk).status == Match.Status.WAITING  # bob is on its page
