"""The text policy for what people type or upload: display names, imported names, chat lines;
and the JSON objects clients send, in which a field may stand once (``json_fields_once``).

Pure (standard library only), so the services, the GGP import and the socket layer share it.
``text_clean`` is the one barrier: it NFC-normalises, collapses whitespace and refuses what
cannot be shown safely (unpaired surrogates, NUL and other control characters, bidi
overrides and other invisible format characters, private-use and unassigned code points),
blank-looking text and text over the length limit. ``display_name_clean`` adds the rules for
names people go by; ``name_key`` is what two names must not share.

Example::

    >>> text_clean("  Ada   Lovelace ", max_length=30)
    'Ada Lovelace'
    >>> name_key("ＡＤＡ  lovelace") == name_key("Ada Lovelace")
    True
"""

from __future__ import annotations

import unicodedata
from typing import Any

NAME_MAX = 30
# Joiners shape emoji sequences and Persian or Indic words; every other format character
# (bidi embeddings, overrides and isolates, zero-width spaces, word joiners, BOM) is refused.
ALLOWED_FORMAT = {"\u200c", "\u200d"}
# Letters and symbols that draw nothing: a name made only of them looks blank.
BLANK_LOOKING = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800", "\u200c", "\u200d"}
RESERVED_NAMES = ("computer",)
# A few letters from other scripts that look like Latin ones, for ``name_key``.
LOOKALIKES = str.maketrans("аеорсхуіјѕԁɡοαν", "aeopcxyijsdgoav")


class TextRefused(ValueError):
    """Text the policy refuses; ``code`` is a stable word, ``str(err)`` says why, for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _refusal(char: str) -> str | None:
    point = ord(char)
    if 0xD800 <= point <= 0xDFFF:
        return "an unpaired surrogate (broken text encoding)"
    if point == 0xFFFD:  # what bytes that were not UTF-8 were decoded to
        return "a replacement character (U+FFFD: broken text encoding)"
    category = unicodedata.category(char)
    if category == "Cc" and char not in "\t\n\r":  # whitespace, collapsed to a space below
        return f"a control character (U+{point:04X})"
    if category == "Cf" and char not in ALLOWED_FORMAT:
        return f"an invisible formatting character (U+{point:04X}), such as a text direction override"
    if category in {"Co", "Cn"}:
        return f"a private or unassigned character (U+{point:04X})"
    return None


def without_refused(text: str) -> str:
    """``text`` with every character the policy refuses taken out (for rows stored before it)."""
    return "".join(char for char in text if _refusal(char) is None)


def text_clean(text: object, *, max_length: int, what: str = "The text") -> str:
    """``text`` normalised (NFC, runs of whitespace as one space, trimmed), or ``TextRefused``.

    Codes: ``not_text``, ``bad_character``, ``blank``, ``too_long``.
    """
    if not isinstance(text, str):
        raise TextRefused("not_text", f"{what} must be text.")
    for char in text:
        reason = _refusal(char)
        if reason:
            raise TextRefused("bad_character", f"{what} contains {reason}; remove it and try again.")
    cleaned = " ".join(unicodedata.normalize("NFC", text).split())
    if not cleaned or all(char in BLANK_LOOKING or unicodedata.category(char).startswith("M") for char in cleaned):
        raise TextRefused("blank", f"{what} is empty; write something visible.")
    if len(cleaned) > max_length:
        raise TextRefused("too_long", f"{what} has at most {max_length} characters; this has {len(cleaned)}.")
    return cleaned


def name_key(name: str) -> str:
    """What two display names must not share: case, width, spacing and look-alike letters folded."""
    folded = unicodedata.normalize("NFKC", name).casefold().translate(LOOKALIKES)
    return "".join(char for char in folded if not char.isspace() and char not in ALLOWED_FORMAT)


def display_name_clean(name: object) -> str:
    """A display name by the text policy, not passing for the computer player. ``TextRefused``.

    Codes: those of ``text_clean`` and ``reserved_name``. Uniqueness among players needs the
    database: ``lobby.services`` compares ``name_key``.
    """
    cleaned = text_clean(name, max_length=NAME_MAX, what="A display name")
    if name_key(cleaned).startswith(RESERVED_NAMES):
        raise TextRefused("reserved_name", "Names starting with 'Computer' belong to the computer player; "
                                           "choose another.")
    return cleaned


def json_fields_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``'s ``object_pairs_hook`` for what clients send (the sockets' frames, the bot
    API's bodies): an object that gives a field twice raises ``ValueError``, where ``json.loads``
    alone would keep the last value."""
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"the field {key[:40]!r} is given twice")
        seen.add(key)
    return dict(pairs)
