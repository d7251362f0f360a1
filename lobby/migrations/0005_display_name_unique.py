"""Two players may not go by the same name (games.match.text.name_key): later accounts that share a
name with an earlier one get their id added ("Ada #42"), then the database holds the rule. The
key is 0004's frozen copy (``frozen_name_key``), so that what this does never changes with the
app's code."""

import importlib

from django.db import migrations, models

NAME_MAX = 30
frozen_name_key = importlib.import_module("lobby.migrations.0004_user_name_key").frozen_name_key


def rename_later_duplicates(apps, schema_editor):
    User = apps.get_model("lobby", "User")
    taken = set()
    for user in User.objects.exclude(name_key="").order_by("pk").only("pk", "display_name", "name_key").iterator():
        if user.name_key not in taken:
            taken.add(user.name_key)
            continue
        suffix = f" #{user.pk}"
        name = user.display_name[:NAME_MAX - len(suffix)].rstrip() + suffix
        User.objects.filter(pk=user.pk).update(display_name=name, name_key=frozen_name_key(name))
        taken.add(frozen_name_key(name))


class Migration(migrations.Migration):

    dependencies = [
        ("lobby", "0004_user_name_key"),
    ]

    operations = [
        migrations.RunPython(rename_later_duplicates, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(condition=models.Q(("name_key", ""), _negated=True),
                                               fields=("name_key",), name="display_name_unique"),
        ),
    ]
