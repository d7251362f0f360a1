"""No two user names may differ only in case. Sign-up always checked it, but two sign-ups at the
same moment could both pass the check; the database now holds the rule, and signing in finds an
account whatever the case typed (lobby.models.Users).

User names that already differ only in case (left by such a race) keep the earliest account's
name; each later one gets its id added ("ada-42", as display names did in 0005) and is printed,
so the operator can tell its owner the name to sign in with."""

import itertools

from django.db import migrations, models
from django.db.models import Count, Value
from django.db.models.functions import Lower

import lobby.models

USERNAME_MAX = 150


def rename_later_duplicates(apps, schema_editor):
    """Names are compared by the database's own lower(), the constraint's (SQLite folds only ASCII)."""
    User = apps.get_model("lobby", "User")
    keyed = User.objects.annotate(key=Lower("username"))
    clashes = keyed.values("key").annotate(accounts=Count("pk")).filter(accounts__gt=1).values_list("key", flat=True)
    for key in list(clashes):
        for user in list(keyed.filter(key=key).order_by("pk"))[1:]:
            for n in itertools.count():
                suffix = f"-{user.pk}" + (f"-{n}" if n else "")
                name = user.username[:USERNAME_MAX - len(suffix)] + suffix
                if not keyed.filter(key=Lower(Value(name))).exists():
                    break
            User.objects.filter(pk=user.pk).update(username=name)
            print(f"\n  lobby 0006: user {user.pk}'s name {user.username!r} differed only in case from an "
                  f"earlier account's; it is now {name!r}")


class Migration(migrations.Migration):

    dependencies = [
        ("lobby", "0005_display_name_unique"),
    ]

    operations = [
        migrations.AlterModelManagers(
            name="user",
            managers=[("objects", lobby.models.Users())],
        ),
        migrations.RunPython(rename_later_duplicates, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(Lower("username"), name="username_unique_ignoring_case"),
        ),
    ]
