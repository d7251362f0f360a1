"""Reads about private invitations (``games.services.invites``): how one that ended reads on
the match page, and the recent endings on its creator's home page."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from games.match import invites
from games.match.rulesets import ruleset_name
from games.match.settings import MatchSettings
from games.models import Match

ENDED_SHOWN_HOURS = 24  # the home page lists the invitations that ended this recently


def invite_ended_view(*, match: Match, user) -> dict[str, Any] | None:
    """For the page of a private invitation that ended: the sentence for this viewer (its
    creator or anyone else), and whom to ask for a new one (``creator``, with the settings a
    challenge to them would propose), or None if ``match`` is not such an invitation."""
    ended = (match.result or {}).get("invite_ended") if match.status == Match.Status.ABORTED else None
    if not ended:
        return None
    creator = user.is_authenticated and user.pk == match.created_by_id
    by = ended.get("by") or {}
    return {
        "text": invites.ended_text(ended, creator=creator, grace_seconds=settings.INVITE_GRACE_SECONDS),
        "creator": None if creator else by,
        "settings": MatchSettings.of_match(match).to_json(),
    }


def invites_ended(*, user) -> list[dict[str, Any]]:
    """The private invitations ``user`` made that ended in the last ``ENDED_SHOWN_HOURS``,
    newest first, each with its sentence for them."""
    if not user.is_authenticated:
        return []
    since = timezone.now() - timedelta(hours=ENDED_SHOWN_HOURS)
    ended = (Match.objects.filter(created_by=user, status=Match.Status.ABORTED, is_private=True,
                                  finished_at__gte=since, result__invite_ended__isnull=False)
             .order_by("-finished_at")[:10])
    return [{"id": m.pk, "game": m.game, "game_name": ruleset_name(m.game),
             "text": invites.ended_text(m.result["invite_ended"], creator=True,
                                        grace_seconds=settings.INVITE_GRACE_SECONDS)}
            for m in ended]
