"""Display names under the text policy (games/match/text.py): every account gets its name_key, and a
name the policy refuses (control or direction characters, blank-looking, passing for the
computer) is replaced by "Player <id>", which its owner can change by signing up again."""

from django.db import migrations, models

from games.match import text


def apply_policy(apps, schema_editor):
    User = apps.get_model("lobby", "User")
    for user in User.objects.only("pk", "display_name", "is_computer").iterator():
        name = user.display_name
        if not user.is_computer:
            try:
                name = text.display_name_clean(name)
            except text.TextRefused:
                name = f"Player {user.pk}"
        User.objects.filter(pk=user.pk).update(display_name=name, name_key=text.name_key(name))


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
