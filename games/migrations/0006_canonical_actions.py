"""Store every recorded action in its one spelling (games.rules canonical_action): moves stored
before the rules refused odd spellings keep their meaning and become labelable again. An action
the rules cannot read is left as it is (replay and export already report it)."""

from django.db import migrations

from games.rules import RulesError, get_game


def canonical(apps, schema_editor):
    Move = apps.get_model("games", "Move")
    changed = []
    for move in Move.objects.select_related("match").only("id", "action", "match__game").iterator(chunk_size=2000):
        try:
            spelling = get_game(move.match.game).canonical_action(move.action)
        except (RulesError, KeyError):
            continue
        if spelling != move.action:
            move.action = spelling
            changed.append(move)
    Move.objects.bulk_update(changed, ["action"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [("games", "0005_drop_presence_rows")]
    operations = [migrations.RunPython(canonical, migrations.RunPython.noop)]
