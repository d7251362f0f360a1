"""Push committed changes to the channel layer. Only ever after commit: nobody may see a
move that later rolls back. Delivery is at-most-once (channels-redis drops messages over
capacity), so every message carries the full state and its version."""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from games import selectors

LOBBY_GROUP = "lobby"


def match_group(match_id: int) -> str:
    return f"match.{match_id}"


def match_changed_on_commit(match_id: int, last_moves: list[tuple[int, str, str]] | None = None) -> None:
    """After commit, send the match's full snapshot to everyone on its page."""
    transaction.on_commit(lambda: _send_match_state(match_id, last_moves or []))


def lobby_changed_on_commit() -> None:
    transaction.on_commit(_send_lobby)


def chat_posted_on_commit(message) -> None:
    """After commit, send one new chat line to everyone on the match's page."""
    line = selectors.chat_json(message)
    transaction.on_commit(lambda: _group_send(match_group(message.match_id), {"type": "match.chat", "line": line}))


def presence_changed(match_id: int) -> None:
    _group_send(match_group(match_id), {"type": "match.presence", "presence": selectors.match_presence(match_id=match_id)})


def _send_match_state(match_id: int, last_moves: list[tuple[int, str, str]]) -> None:
    snapshot = selectors.match_snapshot_by_id(match_id=match_id)
    last_move = snapshot["moves"][-1] if last_moves and snapshot["moves"] else None
    _group_send(match_group(match_id), {"type": "match.state", "snapshot": snapshot, "last_move": last_move})


def _send_lobby() -> None:
    _group_send(LOBBY_GROUP, {"type": "lobby.update", "lists": selectors.lobby_lists()})


def _group_send(group: str, message: dict) -> None:
    async_to_sync(get_channel_layer().group_send)(group, message)
