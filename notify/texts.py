"""What a notification says, for each event: a title, a line, and the links (absolute, from
``SITE_URL``: an email is read far from the site)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from notify.events import Notice
from notify.tokens import unsubscribe_token

# Each event as the end of "... when <it happens>" (the unsubscribe page and the email's footer).
WHAT = {"turn": gettext_lazy("it is your turn in a correspondence match"),
        "challenge": gettext_lazy("someone challenges you"),
        "rematch": gettext_lazy("someone offers you a rematch"),
        "followed": gettext_lazy("a player you follow starts a public match"),
        "tournament": gettext_lazy("a tournament you entered is about to start")}


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
    """The notice's words in the active language (``notify.delivery`` activates the recipient's)."""
    names = {"by": notice.by, "game": notice.game}
    if notice.kind == "turn":
        title = _("Your turn: %(game)s") % names
        body = _("%(by)s moved: it is your turn in your %(game)s match.") % names
    elif notice.kind == "challenge":
        title = _("%(by)s challenges you") % names
        body = _("%(by)s challenges you to %(game)s. Answer soon: a challenge is open for a few minutes.") % names
    elif notice.kind == "followed":
        title = _("%(by)s starts a match") % names
        body = _("%(by)s, whom you follow, starts a public %(game)s match.") % names
    elif notice.kind == "tournament":
        # (here ``by`` is the tournament's name)
        title = _("%(by)s starts soon") % names
        body = _("The %(game)s tournament %(by)s, which you entered, starts in a few minutes.") % names
    else:
        title = _("%(by)s offers a rematch") % names
        body = _("%(by)s offers you a rematch of your %(game)s match.") % names
    token = unsubscribe_token(user_id=notice.user_id, channel=channel, kind=notice.kind)
    return Text(title=title, body=body, url=absolute(notice.path),
                unsubscribe_url=absolute(reverse("notify:unsubscribe", args=[token])),
                settings_url=absolute(reverse("notify:settings")))
