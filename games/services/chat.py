"""The match chat: players write, everyone who can watch reads."""

from __future__ import annotations

from django.db import transaction

from games import broadcast
from games.errors import ServiceError
from games.models import ChatMessage, Match
from games.services.common import seat_of


def chat_post(*, match_id: int, user, text: str) -> ChatMessage:
    """A player of the match writes a line to the chat (during the match and after it).

    Spectators read the chat but do not write in it, so the players are never heckled.
    """
    text = " ".join(text.split()) if isinstance(text, str) else ""
    if not text:
        raise ServiceError("bad_chat", "Write something first.")
    if len(text) > ChatMessage.MAX_LENGTH:
        raise ServiceError("bad_chat", f"A chat line holds at most {ChatMessage.MAX_LENGTH} characters.")
    with transaction.atomic():
        match = Match.objects.filter(pk=match_id).first()
        if match is None:
            raise ServiceError("not_found", "There is no such match.")
        seat = seat_of(match, user)
        message = ChatMessage.objects.create(match=match, author=seat.player, text=text)
        broadcast.chat_posted_on_commit(message)
    return message
