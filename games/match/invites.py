"""Why a private invitation ended, in words: the one wording the match page, the home page and
the site socket's note share (``games.services.invites`` stores the ending in ``Match.result``).

>>> ended_text({"why": "left", "by": {"name": "Ada"}}, creator=False)
'This invitation ended: Ada left the site.'
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, gettext_lazy, ngettext

LEFT = "left"  # every player seated left the site for longer than the grace period
CALLED_OFF = "called_off"  # its creator called it off
LOGGED_OUT = "logged_out"  # its creator, a guest, logged out
PLAYING = "playing"  # its creator started a real-time match elsewhere

# The sentences, whole, in the active language (docs/translating.md).
_OTHERS = {LEFT: gettext_lazy("This invitation ended: %(name)s left the site."),
           CALLED_OFF: gettext_lazy("This invitation ended: %(name)s called it off."),
           LOGGED_OUT: gettext_lazy("This invitation ended: %(name)s left the site."),
           PLAYING: gettext_lazy("This invitation ended: %(name)s started another match.")}
_CREATOR = {LEFT: gettext_lazy("Your invitation ended: you left the site for more than %(grace)s."),
            CALLED_OFF: gettext_lazy("Your invitation ended: you called it off."),
            LOGGED_OUT: gettext_lazy("Your invitation ended: you logged out."),
            PLAYING: gettext_lazy("Your invitation ended: you started another match.")}


_REASONS = {LEFT: "the invitation ended: its players left the site",
            CALLED_OFF: "its creator called the invitation off",
            LOGGED_OUT: "the invitation ended: its creator left the site",
            PLAYING: "the invitation ended: its creator started another match"}


def reason(why: str) -> str:
    """The abort's ``reason`` (``Match.result``) for an invitation ended for ``why``: names no
    player nor role, so it reads the same on every page."""
    return _REASONS[why]


def grace_words(seconds: int) -> str:
    """``300`` -> "5 minutes", ``90`` -> "90 seconds", ``60`` -> "1 minute"."""
    if seconds % 60 or not seconds:
        return ngettext("%(count)d second", "%(count)d seconds", seconds) % {"count": seconds}
    minutes = seconds // 60
    return ngettext("%(count)d minute", "%(count)d minutes", minutes) % {"count": minutes}


def ending(why: str, by: dict[str, Any] | None) -> dict[str, Any]:
    """What ``Match.result["invite_ended"]`` holds: why, and who (the creator, as ``player_json``)."""
    if why not in _OTHERS:
        raise ValueError(f"unknown invitation ending {why!r}")
    return {"why": why, "by": by}


def ended_text(ended: dict[str, Any], *, creator: bool, grace_seconds: int = 0) -> str:
    """The sentence for a page: to its creator ("Your invitation ended: you left the site for
    more than 5 minutes.") or to anyone else ("This invitation ended: Ada left the site.")."""
    why = ended.get("why", LEFT)
    if creator:
        return _CREATOR.get(why, _CREATOR[LEFT]) % {"grace": grace_words(grace_seconds)}
    name = (ended.get("by") or {}).get("name") or gettext("its creator")
    return _OTHERS.get(why, _OTHERS[LEFT]) % {"name": name}
