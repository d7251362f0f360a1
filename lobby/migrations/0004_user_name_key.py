"""Display names under the text policy (games/match/text.py): every account gets its name_key, and a
name the policy refuses (control or direction characters, blank-looking, passing for the
computer) is replaced by "Player <id>", which its owner can change by signing up again. The policy
is this migration's own frozen copy (``frozen_display_name`` and ``frozen_name_key``), so that
what it does never changes with the app's code."""

import importlib
import unicodedata

from django.db import migrations, models

# The characters the policy refuses and the ones that look blank: the frozen copy games 0007
# made of the same policy at the same commit (the names' and the chat's are one policy).
chat_policy = importlib.import_module("games.migrations.0007_chat_text_policy")
NAME_MAX = 30
LOOKALIKES = str.maketrans("аеорсхуіјѕԁɡοαν", "aeopcxyijsdgoav")


def frozen_name_key(name):
    """``games.match.text.name_key`` frozen as it was when this migration was written (commit
    a921cf6, 23 November 2026, unchanged since): NFKC, case folded, a few Cyrillic and Greek
    look-alikes as Latin letters, without whitespace and joiners. 0005 uses it too."""
    folded = unicodedata.normalize("NFKC", name).casefold().translate(LOOKALIKES)
    return "".join(char for char in folded if not char.isspace() and char not in chat_policy.ALLOWED_FORMAT)


def frozen_display_name(name):
    """``games.match.text.display_name_clean`` frozen as this migration ran it from commit
    e2c45df (23 November 2026; when it was written, at a921cf6, U+FFFD was still allowed): the
    name NFC-normalised, whitespace runs as one space, trimmed; or None where the policy refused
    it (a refused character, blank-looking, over 30 characters, starting with "computer" up to
    ``frozen_name_key``'s folding). Character classes come from Python's ``unicodedata``, as
    the policy's do. tests/games/test_migrations.py checks that both still agree: a deliberate
    change of the policy (which needs a migration of its own for the stored names) changes that
    test, never this copy."""
    if not isinstance(name, str) or any(chat_policy._refused(char) for char in name):
        return None
    cleaned = " ".join(unicodedata.normalize("NFC", name).split())
    blank = all(char in chat_policy.BLANK_LOOKING or unicodedata.category(char).startswith("M") for char in cleaned)
    if blank or len(cleaned) > NAME_MAX or frozen_name_key(cleaned).startswith("computer"):
        return None
    return cleaned


def apply_policy(apps, schema_editor):
    User = apps.get_model("lobby", "User")
    for user in User.objects.only("pk", "display_name", "is_computer").iterator():
        name = user.display_name
        if not user.is_computer:
            name = frozen_display_name(name) or f"Player {user.pk}"
        User.objects.filter(pk=user.pk).update(display_name=name, name_key=frozen_name_key(name))


class Migration(migrations.Migration):

    dependencies = [
        ("lobby", "0003_user_computer_level"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="name_key",
            field=models.CharField(blank=True, db_index=True, max_length=120),
        ),
        migrations.RunPython(apply_policy, migrations.RunPython.noop),
    ]
