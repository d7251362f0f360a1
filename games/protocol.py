"""The shape of every message a client may send on a match socket, decided once.

``parse`` turns a websocket frame into ``(kind, fields)`` or raises ``Malformed``: anything
that is not JSON text of a known kind with fields of the right types, whatever its size,
depth or encoding. Extra fields are ignored. Which actions are legal is the rules' business.
"""

from __future__ import annotations

import json
from typing import Any

MAX_FRAME_CHARS = 4096
MAX_TEXT_CHARS = 1000  # any one string field; chat lines and actions have their own, lower limits
MAX_VERSION = 2**31 - 1

# kind -> {field: type}; bool is not an int here.
SHAPES: dict[str, dict[str, type]] = {
    "action": {"action": str, "version": int},
    "resign": {},
    "claim": {},
    "chat": {"text": str},
    "sync": {},
    "ping": {},
}
KINDS = ", ".join(SHAPES)


class Malformed(Exception):
    """The frame is not a message of the protocol; ``str()`` says what was expected."""


def parse(text_data: str | None, bytes_data: bytes | None = None) -> tuple[str, dict[str, Any]]:
    if text_data is None:
        raise Malformed("Messages are JSON text, not binary frames.")
    if len(text_data) > MAX_FRAME_CHARS:
        raise Malformed(f"Messages must be JSON text of at most {MAX_FRAME_CHARS} characters.")
    try:
        content = json.loads(text_data)
    except (ValueError, RecursionError):
        raise Malformed("That message is not valid JSON.") from None
    kind = content.get("type") if isinstance(content, dict) else None
    if not isinstance(kind, str) or kind not in SHAPES:
        raise Malformed(f'Expected a JSON object with "type": one of {KINDS}.')
    fields = {}
    for name, kind_of in SHAPES[kind].items():
        value = content.get(name)
        if kind_of is int:
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_VERSION:
                raise Malformed(f'A {kind} message needs "{name}", a whole number from 0 to {MAX_VERSION}.')
        elif not _is_clean_text(value):
            raise Malformed(f'A {kind} message needs "{name}": text of at most {MAX_TEXT_CHARS} characters, '
                            "with no NUL or unpaired surrogate characters.")
        fields[name] = value
    return kind, fields


def _is_clean_text(value: Any) -> bool:
    if not isinstance(value, str) or len(value) > MAX_TEXT_CHARS or "\x00" in value:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
