"""Chat lines stored before the text policy (games/match/text.py): characters it refuses (control,
bidi overrides, unpaired surrogates) are taken out and whitespace is made one space, as the
policy does now; a line left blank says it was unreadable. The policy is this migration's own
frozen copy (``frozen_line_clean``), so that what it does never changes with the app's code."""

import unicodedata

from django.db import migrations

UNREADABLE = "(a line that could not be read)"
MAX_LENGTH = 300
ALLOWED_FORMAT = {"\u200c", "\u200d"}  # joiners: every other format character is refused
BLANK_LOOKING = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800", "\u200c", "\u200d"}


def _refused(char):
    point = ord(char)
    category = unicodedata.category(char)
    return (0xD800 <= point <= 0xDFFF or point == 0xFFFD or (category == "Cc" and char not in "\t\n\r")
            or (category == "Cf" and char not in ALLOWED_FORMAT) or category in {"Co", "Cn"})


def frozen_line_clean(text):
    """``text_clean(without_refused(text), max_length=300)`` of ``games.match.text``, frozen as
    it was when this migration was written (commit e2c45df, 23 November 2026): the line without
    the characters the policy refuses, NFC-normalised, whitespace runs as one space, trimmed; or
    ``UNREADABLE`` where the policy refused what was left (blank-looking, over 300 characters).
    Character classes come from Python's ``unicodedata``, as the policy's do.
    tests/games/test_migrations.py checks that both still agree: a deliberate change of the
    policy (which needs a migration of its own for the stored lines) changes that test, never
    this copy."""
    kept = "".join(char for char in text if not _refused(char))
    cleaned = " ".join(unicodedata.normalize("NFC", kept).split())
    blank = all(char in BLANK_LOOKING or unicodedata.category(char).startswith("M") for char in cleaned)
    return UNREADABLE if blank or len(cleaned) > MAX_LENGTH else cleaned


def clean(apps, schema_editor):
    ChatMessage = apps.get_model("games", "ChatMessage")
    for line in ChatMessage.objects.only("id", "text").iterator(chunk_size=2000):
        cleaned = frozen_line_clean(line.text)
        if cleaned != line.text:
            line.text = cleaned
            line.save(update_fields=["text"])


class Migration(migrations.Migration):
    dependencies = [("games", "0006_canonical_actions")]
    operations = [migrations.RunPython(clean, migrations.RunPython.noop)]
