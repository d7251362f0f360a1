"""What a notification says, for each event: a title, a line, and the links (absolute, from
``SITE_URL``: an email is read far from the site)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.urls import reverse

from notify.events import Notice
from notify.tokens import unsubscribe_token

WHAT = {"turn": "it is your turn in a correspondence match",
        "challenge": "someone challenges you",
        "rematch": "someone offers you a rematch",
        "followed": "a player you follow starts a public match",
        "tournament": "a tournament you entered is about to start"}


@dataclass(frozen=True)
class Text:
    title: str
    body: str
    url: str
    unsubscribe_url: str
    settings_url: str


def absolute(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def text_of(notice: Notice, channel: str) -> Text:
    if notice.kind == "turn":
        title, body = f"Your turn: {notice.game}", f"{notice.by} moved: it is your turn in your {notice.game} match."
    elif notice.kind == "challenge":
        title, body = f"{notice.by} challenges you", f"{notice.by} challenges you to {notice.game}. Answer soon: a challenge is open for a few minutes."
    elif notice.kind == "followed":
        title, body = f"{notice.by} starts a match", f"{notice.by}, whom you follow, starts a public {notice.game} match."
    elif notice.kind == "tournament":
        title, body = f"{notice.by} starts soon", f"The {notice.game} tournament {notice.by}, which you entered, starts in a few minutes."
    else:
        title, body = f"{notice.by} offers a rematch", f"{notice.by} offers you a rematch of your {notice.game} match."
    token = unsubscribe_token(user_id=notice.user_id, channel=channel, kind=notice.kind)
    return Text(title=title, body=body, url=absolute(notice.path),
                unsubscribe_url=absolute(reverse("notify:unsubscribe", args=[token])),
                settings_url=absolute(reverse("notify:settings")))
