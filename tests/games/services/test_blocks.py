"""A block between two players, as the challenge and pairing services see it
(``games.services.blocks``, the read the social app hands them)."""

import pytest

from games import services
from games.match.errors import ServiceError
from games.match.settings import MatchSettings
from games.models import Challenge, Match, PoolEntry
from social import services as social
from tests.support.players import make_accounts

pytestmark = pytest.mark.django_db

CASUAL = MatchSettings("quarto-misere")


def test_a_blocked_player_cannot_challenge_the_one_who_blocked_them_nor_the_other_way():
    alice, bob = make_accounts(2)
    social.block_create(user=bob, player_id=alice.pk)
    with pytest.raises(ServiceError) as refused:
        services.challenge_create(user=alice, to_id=bob.pk, settings=CASUAL)
    assert refused.value.code == "blocked" and "does not accept challenges from you" in refused.value.message
    with pytest.raises(ServiceError) as refused:
        services.challenge_create(user=bob, to_id=alice.pk, settings=CASUAL)
    assert refused.value.code == "blocked" and "unblock" in refused.value.message
    assert not Challenge.objects.exists()
    social.block_delete(user=bob, player_id=alice.pk)
    assert services.challenge_create(user=alice, to_id=bob.pk, settings=CASUAL).status == Challenge.Status.PENDING


def test_a_challenge_made_before_a_block_cannot_be_accepted_after_it():
    alice, bob = make_accounts(2)
    challenge = services.challenge_create(user=alice, to_id=bob.pk, settings=CASUAL)
    social.block_create(user=alice, player_id=bob.pk)
    with pytest.raises(ServiceError) as refused:
        services.challenge_accept(user=bob, challenge_id=challenge.pk)
    assert refused.value.code == "blocked"
    assert Challenge.objects.get().status == Challenge.Status.PENDING and not Match.objects.exists()


def test_quick_pairing_never_pairs_two_players_of_whom_one_blocked_the_other():
    alice, bob, carol = make_accounts(3)
    social.block_create(user=alice, player_id=bob.pk)
    assert services.pool_enter(user=alice, settings=CASUAL, channel_name="page-a") is None
    assert services.pool_enter(user=bob, settings=CASUAL, channel_name="page-b") is None
    assert PoolEntry.objects.count() == 2
    match = services.pool_enter(user=carol, settings=CASUAL, channel_name="page-c")
    assert match is not None
    assert sorted(match.seats.values_list("player_id", flat=True)) == sorted([alice.pk, carol.pk])
    assert list(PoolEntry.objects.values_list("player_id", flat=True)) == [bob.pk]
    assert services.blocked_between(bob.pk, alice.pk) and not services.blocked_between(bob.pk, carol.pk)
