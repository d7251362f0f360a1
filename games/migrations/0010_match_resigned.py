"""``Match.resigned``: the resigned seats' roles on the match row, filled from the seats."""

from django.db import migrations, models


def fill(apps, schema_editor):
    Match = apps.get_model("games", "Match")
    Seat = apps.get_model("games", "Seat")
    roles: dict[int, list[str]] = {}
    for match_id, role in Seat.objects.filter(resigned=True).values_list("match_id", "role"):
        roles.setdefault(match_id, []).append(role)
    for match_id, resigned in roles.items():
        Match.objects.filter(pk=match_id).update(resigned=" ".join(sorted(resigned)))


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0009_ratings_pairing_challenges"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="resigned",
            field=models.CharField(blank=True, default="", max_length=100),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
