"""Data migrations of the accounts, run forward on rows an older schema allowed."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("lobby", "0005_display_name_unique")
AFTER = ("lobby", "0006_username_unique_ignoring_case")


def migrate(*targets):
    """Migrate to ``targets`` (every app's latest when none) and return the models of that state."""
    executor = MigrationExecutor(connection)
    targets = list(targets) or executor.loader.graph.leaf_nodes()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_user_names_differing_only_in_case_keep_the_earliest_and_number_the_rest(capsys):
    old = migrate(BEFORE)
    try:
        User = old.get_model("lobby", "User")
        ada = User.objects.create(username="Ada", display_name="Ada", name_key="ada")
        second = User.objects.create(username="ADA", display_name="Ada L", name_key="ada l")
        taken = User.objects.create(username=f"ada-{second.pk}", display_name="Other", name_key="other")
        third = User.objects.create(username="adA", display_name="Ada B", name_key="ada b")
        bob = User.objects.create(username="bob", display_name="Bob", name_key="bob")
        new = migrate(AFTER)
        names = dict(new.get_model("lobby", "User").objects.values_list("pk", "username"))
    finally:
        migrate()
    assert names == {ada.pk: "Ada", second.pk: f"ADA-{second.pk}-1", taken.pk: f"ada-{second.pk}",
                     third.pk: f"adA-{third.pk}", bob.pk: "bob"}
    printed = capsys.readouterr().out
    assert f"it is now 'ADA-{second.pk}-1'" in printed and f"it is now 'adA-{third.pk}'" in printed
