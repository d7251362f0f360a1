"""Following and blocking: the writes, their refusals, and that doing one twice changes nothing."""

import pytest

from games.match.errors import ServiceError
from social import services
from social.models import Block, Follow
from tests.support.players import make_accounts, make_players

pytestmark = pytest.mark.django_db


def test_following_twice_keeps_one_follow_and_unfollowing_twice_is_quiet():
    alice, bob = make_accounts(2)
    first = services.follow_create(user=alice, player_id=bob.pk)
    assert services.follow_create(user=alice, player_id=bob.pk) == first
    assert Follow.objects.filter(follower=alice, followed=bob).count() == 1
    assert not Follow.objects.filter(follower=bob).exists()  # one-way
    assert services.follow_delete(user=alice, player_id=bob.pk) is True
    assert services.follow_delete(user=alice, player_id=bob.pk) is False
    assert not Follow.objects.exists()


def test_nobody_follows_or_blocks_themselves_or_nobody():
    (alice,) = make_accounts(1)
    for write in (services.follow_create, services.block_create):
        with pytest.raises(ServiceError) as refused:
            write(user=alice, player_id=alice.pk)
        assert refused.value.code == "yourself"
        with pytest.raises(ServiceError) as refused:
            write(user=alice, player_id=alice.pk + 1000)
        assert refused.value.code == "no_such_player"
    assert not Follow.objects.exists() and not Block.objects.exists()


def test_a_guest_cannot_follow_but_may_block():
    (guest,) = make_players(1)
    (member,) = make_accounts(1)
    with pytest.raises(ServiceError) as refused:
        services.follow_create(user=guest, player_id=member.pk)
    assert refused.value.code == "sign_up_required"
    assert not Follow.objects.exists()
    services.block_create(user=guest, player_id=member.pk)
    assert Block.objects.filter(blocker=guest, blocked=member).exists()


def test_a_visitor_not_signed_in_is_refused():
    from django.contrib.auth.models import AnonymousUser
    (member,) = make_accounts(1)
    for write in (services.follow_create, services.follow_delete, services.block_create, services.block_delete):
        with pytest.raises(ServiceError) as refused:
            write(user=AnonymousUser(), player_id=member.pk)
        assert refused.value.code == "not_signed_in"


def test_blocking_twice_keeps_one_block_ends_following_and_refuses_following_until_unblocked():
    alice, bob = make_accounts(2)
    services.follow_create(user=alice, player_id=bob.pk)
    first = services.block_create(user=alice, player_id=bob.pk)
    assert services.block_create(user=alice, player_id=bob.pk) == first
    assert Block.objects.count() == 1 and not Follow.objects.exists()
    with pytest.raises(ServiceError) as refused:
        services.follow_create(user=alice, player_id=bob.pk)
    assert refused.value.code == "blocked"
    assert services.block_delete(user=alice, player_id=bob.pk) is True
    assert services.block_delete(user=alice, player_id=bob.pk) is False
    services.follow_create(user=alice, player_id=bob.pk)
    assert Follow.objects.filter(follower=alice, followed=bob).exists()


def test_following_has_a_ceiling(monkeypatch):
    monkeypatch.setattr(services, "FOLLOW_MAX", 2)
    alice, *others = make_accounts(4)
    for other in others[:2]:
        services.follow_create(user=alice, player_id=other.pk)
    with pytest.raises(ServiceError) as refused:
        services.follow_create(user=alice, player_id=others[2].pk)
    assert refused.value.code == "too_many_follows"
    assert Follow.objects.count() == 2
