"""A tournament's page is live: every write that changes what it shows raises the tournament's
``version`` and, after commit, tells the group ``tournament.<id>`` that its state is stale. Only
that small message leaves here: each server process with pages of that tournament open reads
the state once for all of them (``live.consumers.tournament``), so a change nobody watches costs
no read. Pages keep the newest version they were sent and ignore an older one."""

from __future__ import annotations

from django.db import transaction

from games.services import broadcast
from tournaments.models import Tournament


def group(tournament_id: int) -> str:
    return f"tournament.{tournament_id}"


def changed_on_commit(tournament: Tournament) -> None:
    """Raise ``tournament``'s version and tell its pages after commit. Call holding its row lock."""
    tournament.version += 1
    tournament.save(update_fields=["version"])
    tournament_id, version = tournament.pk, tournament.version
    transaction.on_commit(lambda: broadcast.send(group(tournament_id), {"type": "tournament.stale",
                                                                        "version": version}), robust=True)
