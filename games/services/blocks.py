"""Whether players have blocked one another, as the challenge and pairing services ask it.

The blocks themselves belong to the ``social`` app, above the games app (``social.models.Block``):
so its read arrives here as one typed hand-off, installed once at start-up by
``social.apps.SocialConfig.ready``, and the games app imports nothing of the app above it. A
services call made before the hand-off fails at once, naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from games.match.errors import ServiceError


@dataclass(frozen=True)
class BlockReads:
    """``among(player_ids)``: every (blocker id, blocked id) pair within ``player_ids``, one query."""

    among: Callable[[Collection[int]], set[tuple[int, int]]]


_reads: BlockReads | None = None


def install(reads: BlockReads) -> None:
    global _reads
    _reads = reads


def blocks_among(player_ids: Collection[int]) -> set[tuple[int, int]]:
    """(blocker id, blocked id) for every block between two of ``player_ids``."""
    if _reads is None:
        raise RuntimeError("games.services.blocks: no BlockReads installed (social.apps.SocialConfig.ready installs them)")
    ids = {i for i in player_ids if i is not None}
    return _reads.among(ids) if len(ids) > 1 else set()


def blocked_between(a_id: int, b_id: int) -> bool:
    """Whether either of the two players has blocked the other."""
    return bool(blocks_among({a_id, b_id}))


def require_not_blocked(*, user, target) -> None:
    """Refuse a challenge between two players when either has blocked the other (``blocked``)."""
    blocks = blocks_among({user.pk, target.pk})
    if (target.pk, user.pk) in blocks:
        raise ServiceError("blocked", f"{target} does not accept challenges from you.")
    if (user.pk, target.pk) in blocks:
        raise ServiceError("blocked", f"You have blocked {target}: unblock them on their page to challenge them.")
