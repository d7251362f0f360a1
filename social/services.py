"""Following and blocking: each write in one transaction, idempotent (doing it twice changes
nothing more). Following needs a signed-up account, as on lichess; blocking needs only a
signed-in player (a guest receives challenges too)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from games.match.errors import ServiceError
from social.models import Block, Follow

FOLLOW_MAX = 400  # players one account may follow
BLOCK_MAX = 500  # players one player may block


def _require_signed_in(user) -> None:
    if user is None or not user.is_authenticated or not user.is_active:
        raise ServiceError("not_signed_in", _("Choose a name (play as a guest) or log in first."))


def _other_player(user, player_id: int):
    player = get_user_model().objects.filter(pk=player_id).first()
    if player is None:
        raise ServiceError("no_such_player", _("There is no such player."))
    if player.pk == user.pk:
        raise ServiceError("yourself", _("That is you."))
    return player


def follow_create(*, user, player_id: int) -> Follow:
    """``user`` follows the player ``player_id`` (nobody else ever sees it). Refused for a guest
    (``sign_up_required``), for oneself, for a player ``user`` has blocked, past ``FOLLOW_MAX``."""
    _require_signed_in(user)
    if user.is_guest:
        raise ServiceError("sign_up_required", _("Sign up to follow players: a guest's name is not kept."))
    player = _other_player(user, player_id)
    with transaction.atomic():
        existing = Follow.objects.filter(follower=user, followed=player).first()
        if existing is not None:
            return existing
        if Block.objects.filter(blocker=user, blocked=player).exists():
            raise ServiceError("blocked", _("You have blocked %(name)s: unblock them first to follow them.") % {"name": player})
        if Follow.objects.filter(follower=user).count() >= FOLLOW_MAX:
            raise ServiceError("too_many_follows", _("You follow %(count)d players, the most one account may: "
                                                     "unfollow someone first.") % {"count": FOLLOW_MAX})
        follow, _created = Follow.objects.get_or_create(follower=user, followed=player)
    return follow


def follow_delete(*, user, player_id: int) -> bool:
    """``user`` stops following ``player_id``. True if they were following."""
    _require_signed_in(user)
    deleted, _ = Follow.objects.filter(follower=user, followed_id=player_id).delete()
    return bool(deleted)


def block_create(*, user, player_id: int) -> Block:
    """``user`` blocks ``player_id``: neither can challenge the other nor be paired together by
    quick pairing, ``player_id`` no longer sees ``user`` in their following list, and ``user``
    stops following them."""
    _require_signed_in(user)
    player = _other_player(user, player_id)
    with transaction.atomic():
        existing = Block.objects.filter(blocker=user, blocked=player).first()
        if existing is not None:
            return existing
        if Block.objects.filter(blocker=user).count() >= BLOCK_MAX:
            raise ServiceError("too_many_blocks", _("You have blocked %(count)d players, the most one player may: "
                                                    "unblock someone first.") % {"count": BLOCK_MAX})
        block, _created = Block.objects.get_or_create(blocker=user, blocked=player)
        Follow.objects.filter(follower=user, followed=player).delete()
    return block


def block_delete(*, user, player_id: int) -> bool:
    """``user`` unblocks ``player_id``. True if they had blocked them."""
    _require_signed_in(user)
    deleted, _ = Block.objects.filter(blocker=user, blocked_id=player_id).delete()
    return bool(deleted)
