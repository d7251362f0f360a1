"""Reads of following and blocking. No writes here."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.db.models import Q

from games.selectors import players_now
from social.models import Block, Follow


def blocks_among(player_ids: Collection[int]) -> set[tuple[int, int]]:
    """(blocker id, blocked id) for every block between two of ``player_ids`` (one query)."""
    ids = list(player_ids)
    return set(Block.objects.filter(blocker_id__in=ids, blocked_id__in=ids).values_list("blocker_id", "blocked_id"))


def followers_among(player_ids: Collection[int]) -> dict[int, int]:
    """{follower id: followed id} for each account following one of ``player_ids``, leaving out
    whoever blocked, or is blocked by, any of them (one query). A follower of two of them is
    named once, with one of them."""
    ids = list(player_ids)
    return dict(Follow.objects.filter(followed_id__in=ids)
                .exclude(follower_id__in=Block.objects.filter(blocked_id__in=ids).values("blocker_id"))
                .exclude(follower_id__in=Block.objects.filter(blocker_id__in=ids).values("blocked_id"))
                .order_by("followed_id").values_list("follower_id", "followed_id"))


def relation(*, user, player_id: int) -> dict[str, bool]:
    """What ``user`` has chosen about the player ``player_id``: following, blocking (two queries;
    nothing for a visitor). Never whether the player follows or blocked ``user``."""
    if user is None or not user.is_authenticated:
        return {"following": False, "blocking": False}
    return {"following": Follow.objects.filter(follower=user, followed_id=player_id).exists(),
            "blocking": Block.objects.filter(blocker=user, blocked_id=player_id).exists()}


def following_list(*, user) -> list[dict[str, Any]]:
    """The players ``user`` follows, online first then by name: each with whether they are online
    and the match they are playing now that ``user`` may see. A player who blocked ``user`` is
    left out (they do not show in their lists). Two queries and the presence store."""
    if user is None or not user.is_authenticated:
        return []
    follows = (Follow.objects.filter(follower=user).select_related("followed")
               .exclude(followed__in=Block.objects.filter(blocked=user).values("blocker"))
               .filter(Q(followed__is_active=True)))
    players = [f.followed for f in follows]
    now = players_now(player_ids=[p.pk for p in players], viewer=user)
    rows = [{"id": p.pk, "name": p.display_name or p.username, "bot": p.is_bot, "guest": p.is_guest, **now[p.pk]}
            for p in players]
    return sorted(rows, key=lambda r: (not r["online"] and r["playing"] is None, r["name"].casefold(), r["id"]))
