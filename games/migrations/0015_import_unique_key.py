"""One stored copy per imported match: the file's matchId gets a column of its own, unique per
game. Copies imported twice before (two imports at once could both store theirs) stay, without
the key; each is printed."""

from django.db import migrations, models


def key_earlier_imports(apps, schema_editor):
    Match = apps.get_model("games", "Match")
    keyed = set()
    imported = Match.objects.filter(result__imported_from__isnull=False).order_by("pk")
    for match in imported.only("pk", "game", "result").iterator():
        match_id = match.result.get("imported_from")
        if not match_id:
            continue
        if (match.game, match_id) in keyed:
            print(f"\n  Match {match.pk} is a second copy of the import of matchId {match_id!r}: left without the key.")
            continue
        keyed.add((match.game, match_id))
        Match.objects.filter(pk=match.pk).update(imported_from=match_id)


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0014_offers_room_for_declined_takebacks"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="imported_from",
            field=models.CharField(blank=True, max_length=100, null=True),
        ),
        migrations.RunPython(key_earlier_imports, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="match",
            constraint=models.UniqueConstraint(condition=models.Q(("imported_from__isnull", False)),
                                               fields=("game", "imported_from"), name="match_imported_once"),
        ),
    ]
