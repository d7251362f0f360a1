"""The shape of every message a client may send on a match socket (``SHAPES``) or on the site
socket every page of a signed-in player opens (``SITE_SHAPES``), decided once.

``parse`` turns a websocket frame into ``(kind, fields)`` or raises ``Malformed``: anything
that is not JSON text of a known kind with fields of the right types, whatever its size,
depth or encoding; unknown or repeated fields are refused too. Which actions are legal is the
rules' business.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from django.utils.translation import gettext as _

from games.match.text import json_fields_once

MAX_FRAME_CHARS = 4096
MAX_VERSION = 2**31 - 1
MAX_ACTION_CHARS = 40  # games.models.Move.action
MAX_CHAT_CHARS = 1000  # the chat service has its own, lower limit and says so
MAX_GAME_CHARS = 40  # games.models.Match.game
MAX_CLOCK_CHARS = 10  # a games.match.clocks.TimeControl code: "untimed", "5+3", "d2"


class Field(NamedTuple):
    kind: type  # str, int or bool; bool is not an int here
    max_chars: int = 0
    required: bool = True


SHAPES: dict[str, dict[str, Field]] = {
    "action": {"action": Field(str, MAX_ACTION_CHARS), "version": Field(int)},
    "resign": {},
    "claim": {},
    "claim_draw": {},
    "draw_offer": {},
    "draw_accept": {},
    "draw_decline": {},
    "takeback_offer": {"version": Field(int)},  # as an action: a stale page undoes nothing
    "takeback_accept": {"version": Field(int)},
    "takeback_decline": {},
    "chat": {"text": Field(str, MAX_CHAT_CHARS)},
    "sync": {"version": Field(int, required=False)},  # the version the page has, for the log
    "ping": {},
}
# Quick pairing and challenges: the match settings travel as flat fields (``MatchSettings``).
SETTINGS = {"game": Field(str, MAX_GAME_CHARS), "rated": Field(bool), "clock": Field(str, MAX_CLOCK_CHARS)}
SITE_SHAPES: dict[str, dict[str, Field]] = {
    "pool_enter": SETTINGS,
    "pool_leave": {},
    "challenge": {"to": Field(int), **SETTINGS},
    "challenge_accept": {"id": Field(int)},
    "challenge_decline": {"id": Field(int)},
    "challenge_cancel": {"id": Field(int)},
    "ping": {},
}


class Malformed(Exception):
    """The frame is not a message of the protocol; ``str()`` says what was expected."""


def parse(text_data: str | None, bytes_data: bytes | None = None,
          shapes: dict[str, dict[str, Field]] = SHAPES) -> tuple[str, dict[str, Any]]:
    if text_data is None:
        raise Malformed(_("Messages are JSON text, not binary frames."))
    if len(text_data) > MAX_FRAME_CHARS:
        raise Malformed(_("Messages must be JSON text of at most %(count)d characters.") % {"count": MAX_FRAME_CHARS})
    if _brackets_outside_strings(text_data) > MAX_BRACKETS:
        raise Malformed(_("A message is one flat JSON object; this one nests arrays or objects."))
    try:
        content = json.loads(text_data, object_pairs_hook=json_fields_once)
    except (ValueError, RecursionError):
        raise Malformed(_("That message is not valid JSON (or repeats a field).")) from None
    kind = content.get("type") if isinstance(content, dict) else None
    if not isinstance(kind, str) or kind not in shapes:
        raise Malformed(_('Expected a JSON object with "type": one of %(types)s.') % {"types": ", ".join(shapes)})
    shape = shapes[kind]
    unknown = sorted(set(content) - set(shape) - {"type"})
    if unknown:
        raise Malformed(_("A %(type)s message has no field “%(field)s”.") % {"type": kind, "field": unknown[0]})
    fields = {}
    for name, field in shape.items():
        if name not in content and not field.required:
            continue
        value = content.get(name)
        if field.kind is int:
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_VERSION:
                raise Malformed(_('A %(type)s message needs "%(field)s", a whole number from 0 to %(max)d.')
                                % {"type": kind, "field": name, "max": MAX_VERSION})
        elif field.kind is bool:
            if not isinstance(value, bool):
                raise Malformed(_('A %(type)s message needs "%(field)s": true or false.') % {"type": kind, "field": name})
        elif not _is_clean_text(value, field.max_chars):
            raise Malformed(_('A %(type)s message needs "%(field)s": text of at most %(count)d characters, '
                              "with no NUL or unpaired surrogate characters.")
                            % {"type": kind, "field": name, "count": field.max_chars})
        fields[name] = value
    return kind, fields


# Every message is one flat object. A frame with more brackets than that is refused before it
# is parsed, so no frame makes the JSON parser recurse deeply: a garbage collection that ran
# finalizers at such a depth made them fail with RecursionError.
MAX_BRACKETS = 4
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def _brackets_outside_strings(text: str) -> int:
    if "[" not in text and text.count("{") <= 1:
        return text.count("{")  # the usual message: one object, nothing to strip
    outside = _STRINGS.sub("", text)
    return outside.count("[") + outside.count("{")


def _is_clean_text(value: Any, max_chars: int) -> bool:
    if not isinstance(value, str) or len(value) > max_chars or "\x00" in value:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
