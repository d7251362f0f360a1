"""The match chat: players write, everyone who can watch reads."""

from __future__ import annotations

from django.db import transaction

from games.match.errors import ServiceError
from games.match.text import TextRefused, text_clean
from games.models import ChatMessage, Match
from games.services import broadcast
from games.services.guards import seat_of


def chat_post(*, match_id: int, user, text: str) -> ChatMessage:
    """A player of the match writes a line to the chat (during the match and after it).

    Spectators read the chat but do not write in it, so the players are never heckled.
    """
    try:
        text = text_clean(text, max_length=ChatMessage.MAX_LENGTH, what="A chat line")
    except TextRefused as refused:
        raise ServiceError("bad_chat", "Write something first." if refused.code == "blank" else str(refused),
                           {"detail": refused.code}) from None
    with transaction.atomic():
        match = Match.objects.filter(pk=match_id).first()
        if match is None:
            raise ServiceError("not_found", "There is no such match.")
        seat = seat_of(match, user)
        message = ChatMessage.objects.create(match=match, author=seat.player, text=text)
        broadcast.chat_posted_on_commit(message)
    return message
