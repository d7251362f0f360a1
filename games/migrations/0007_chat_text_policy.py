"""Chat lines stored before the text policy (games/match/text.py): characters it refuses (control,
bidi overrides, unpaired surrogates) are taken out and whitespace is made one space, as the
policy does now; a line left blank says it was unreadable."""

from django.db import migrations

from games.match.text import TextRefused, text_clean, without_refused

UNREADABLE = "(a line that could not be read)"


def clean(apps, schema_editor):
    ChatMessage = apps.get_model("games", "ChatMessage")
    for line in ChatMessage.objects.only("id", "text").iterator(chunk_size=2000):
        try:
            cleaned = text_clean(without_refused(line.text), max_length=300)
        except TextRefused:
            cleaned = UNREADABLE
        if cleaned != line.text:
            line.text = cleaned
            line.save(update_fields=["text"])


class Migration(migrations.Migration):
    dependencies = [("games", "0006_canonical_actions")]
    operations = [migrations.RunPython(clean, migrations.RunPython.noop)]
