"""One stored copy per imported match, whatever its matchId: the key becomes the match's content
(game, names, moves, start time: ``frozen_import_key`` below) in place of the file's matchId,
which a file could leave out or change. Every earlier import is keyed again from what it stored;
a later copy of the same match (imported without a matchId, or under another) stays, without the
key, and is printed. An import of a file without times started "now", so a second upload of that
file is not recognised as its copy: it is stored once more, then refused."""

import hashlib
import json
from datetime import datetime, timedelta, timezone

from django.conf import settings
from django.db import migrations, models

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def frozen_import_key(*, game_slug, names, steps, start_ms):
    """``games.history.ggp.import_key`` frozen as it was when this migration was written (commit
    fd8383a, 27 November 2026), so that what the migration computes never changes with the app's
    code. tests/games/history/test_history_import_once.py checks that both still give the same key: a
    deliberate change of ``import_key`` (which needs its own migration to key the stored imports
    again) changes that test, never this copy."""
    content = json.dumps([game_slug, names, [list(step) for step in steps], start_ms],
                         sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(content.encode()).hexdigest()


def key_imports_by_content(apps, schema_editor):
    Match = apps.get_model("games", "Match")
    Move = apps.get_model("games", "Move")
    keyed = {}
    imported = Match.objects.filter(result__imported_from__isnull=False).order_by("pk")
    for match in imported.only("pk", "game", "result", "started_at").iterator():
        steps = Move.objects.filter(match_id=match.pk).order_by("ply").values_list("role", "action")
        start_ms = (match.started_at - EPOCH) // timedelta(milliseconds=1) if match.started_at else 0
        key = frozen_import_key(game_slug=match.game, names=match.result.get("imported_names") or {},
                                steps=steps, start_ms=start_ms)
        if (match.game, key) in keyed:
            print(f"\n  Match {match.pk} is a second copy of the import of match {keyed[match.game, key]}: "
                  "left without the key.")
            key = None
        else:
            keyed[match.game, key] = match.pk
        Match.objects.filter(pk=match.pk).update(import_key=key)


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0019_replaced_move_lost'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='match',
            name='match_imported_once',
        ),
        migrations.RenameField(
            model_name='match',
            old_name='imported_from',
            new_name='import_key',
        ),
        migrations.RunPython(key_imports_by_content, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='match',
            constraint=models.UniqueConstraint(condition=models.Q(('import_key__isnull', False)), fields=('game', 'import_key'), name='match_imported_once'),
        ),
    ]
