"""Reads of following: who is online, what each plays now, and what a block hides."""

import pytest

from games import services as game_services
from games.models import Match
from social import selectors, services
from tests.support.players import make_accounts, start_match

pytestmark = pytest.mark.django_db


def test_the_following_list_says_who_is_online_and_what_they_play_now():
    me, playing, online, away, opponent = make_accounts(5)
    for player in (playing, online, away):
        services.follow_create(user=me, player_id=player.pk)
    match = start_match("nine-board-tictactoe", [playing, opponent])
    game_services.online_enter(user=online, channel_name="page-of-online")
    rows = {row["id"]: row for row in selectors.following_list(user=me)}
    assert set(rows) == {playing.pk, online.pk, away.pk}
    assert rows[playing.pk]["playing"]["id"] == match.pk and not rows[playing.pk]["online"]
    assert rows[online.pk]["online"] and rows[online.pk]["playing"] is None
    assert not rows[away.pk]["online"] and rows[away.pk]["playing"] is None
    # Online or playing first.
    assert [row["id"] for row in selectors.following_list(user=me)][-1] == away.pk


def test_a_finished_or_private_match_is_not_offered_to_watch():
    me, friend, opponent, third = make_accounts(4)
    services.follow_create(user=me, player_id=friend.pk)
    start_match("nine-board-tictactoe", [friend, opponent], is_private=True)
    assert selectors.following_list(user=me)[0]["playing"] is None
    Match.objects.update(status=Match.Status.FINISHED)
    start_match("nine-board-tictactoe", [third, friend])
    Match.objects.filter(status=Match.Status.ACTIVE).update(status=Match.Status.FINISHED)
    assert selectors.following_list(user=me)[0]["playing"] is None


def test_a_player_who_blocked_you_leaves_your_following_list():
    me, friend = make_accounts(2)
    services.follow_create(user=me, player_id=friend.pk)
    services.block_create(user=friend, player_id=me.pk)
    assert selectors.following_list(user=me) == []
    services.block_delete(user=friend, player_id=me.pk)
    assert [row["id"] for row in selectors.following_list(user=me)] == [friend.pk]


def test_the_relation_is_what_you_chose_never_what_they_chose():
    me, them = make_accounts(2)
    services.follow_create(user=them, player_id=me.pk)
    services.block_create(user=them, player_id=me.pk)
    assert selectors.relation(user=me, player_id=them.pk) == {"following": False, "blocking": False}
    services.follow_create(user=me, player_id=them.pk)
    assert selectors.relation(user=me, player_id=them.pk) == {"following": True, "blocking": False}
    assert selectors.blocks_among({me.pk, them.pk}) == {(them.pk, me.pk)}


def test_the_followers_among_players_leave_out_who_blocked_or_is_blocked_by_any_of_them():
    one, two, fan, blocker, blocked, other = make_accounts(6)
    for follower in (fan, blocker, blocked):
        services.follow_create(user=follower, player_id=one.pk)
    services.follow_create(user=other, player_id=two.pk)
    services.block_create(user=blocker, player_id=two.pk)
    services.block_create(user=one, player_id=blocked.pk)
    assert selectors.followers_among([one.pk, two.pk]) == {fan.pk: one.pk, other.pk: two.pk}
    assert selectors.followers_among([]) == {}
