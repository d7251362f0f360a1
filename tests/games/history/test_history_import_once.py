"""One stored copy per imported match, kept by the database: two imports of one file at the
same moment store it once and send the second importer to the first copy."""

import importlib
import json
import threading

import pytest
from django.apps import apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from games.history import services
from games.history.ggp import import_key
from games.models import Match
from games.services import ServiceError
from tests.games.history.test_history_ggp import export
from tests.support.players import make_players

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.services  # bin/test stage 2: two writers at once need PostgreSQL (SQLite takes one at a time)
def test_two_imports_at_once_store_one_copy_and_the_second_is_sent_to_it(played, monkeypatch):
    assert connection.vendor == "postgresql", "two writers at once: PostgreSQL (bin/test stage 2)"
    match, _ = played("nine-board-tictactoe")
    content = json.dumps(export(Client(), match)).encode()
    first, second = make_players(2, "importer")
    checked, waited = threading.Barrier(2, timeout=30), threading.local()
    check = services._refuse_if_imported

    def check_then_wait(game, match_id):  # both have found no copy before either stores one
        check(game, match_id)
        if not hasattr(waited, "once"):
            waited.once = True
            checked.wait()

    monkeypatch.setattr(services, "_refuse_if_imported", check_then_wait)
    results = {}

    def import_as(user):
        try:
            results[user.pk] = services.match_import(user=user, content=content)
        except ServiceError as err:
            results[user.pk] = err
        finally:
            connection.close()

    threads = [threading.Thread(target=import_as, args=(user,)) for user in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    stored = [r for r in results.values() if isinstance(r, Match)]
    refused = [r for r in results.values() if isinstance(r, ServiceError)]
    assert len(stored) == 1 and len(refused) == 1, results
    assert refused[0].code == "already_imported" and refused[0].extra == {"match_id": stored[0].pk}
    assert Match.objects.exclude(pk=match.pk).count() == 1
    assert stored[0].moves.count() == match.moves.count()


def test_the_database_refuses_a_second_copy_whatever_the_code_checked(played):
    match, _ = played("nine-board-tictactoe")
    content = json.dumps(export(Client(), match)).encode()
    user, = make_players(1, "importer")
    stored = services.match_import(user=user, content=content)
    copy = Match.objects.get(pk=stored.pk)
    copy.pk, copy.invite_token = None, "another"
    with pytest.raises(Exception, match="(?i)unique"):
        copy.save()


def migrated(target: str | None):
    """The models at games' migration ``target`` once the database is migrated there (None: all of them)."""
    executor = MigrationExecutor(connection)
    executor.migrate([("games", target)] if target else executor.loader.graph.leaf_nodes())
    return executor.loader.project_state([("games", target)]).apps if target else None


def test_the_migration_keys_the_first_of_earlier_copies_and_names_the_others(capsys):
    old = migrated("0014_offers_room_for_declined_takebacks")
    try:
        Match = old.get_model("games", "Match")

        def imported(match_id, game="nine-board-tictactoe", token=None):
            return Match.objects.create(game=game, status="finished", state={}, result={"imported_from": match_id},
                                        invite_token=token or f"t{Match.objects.count()}").pk

        first, copy, other_game, unnamed = (imported("m1"), imported("m1"), imported("m1", game="quarto-misere"),
                                            imported(""))
        keyed = dict(migrated("0015_import_unique_key").get_model("games", "Match").objects
                     .values_list("pk", "imported_from"))
    finally:
        migrated(None)
    assert keyed == {first: "m1", copy: None, other_game: "m1", unnamed: None}
    assert f"Match {copy} is a second copy of the import of matchId 'm1'" in capsys.readouterr().out


def test_the_content_key_migration_keys_each_match_once_whatever_its_match_id(capsys):
    old = migrated("0019_replaced_move_lost")
    names, steps, start_ms = {"white": "Ada"}, [("white", "(select 3)"), ("black", "(place 1 1)")], 1764590400123
    try:
        Old, Move = old.get_model("games", "Match"), old.get_model("games", "Move")

        def imported(match_id, started_at=services._moment(start_ms)):
            match = Old.objects.create(
                game="quarto-misere", status="finished", state={}, started_at=started_at,
                result={"imported_from": match_id, "imported_names": names}, imported_from=match_id or None,
                invite_token=f"t{Old.objects.count()}")
            Move.objects.bulk_create([Move(match=match, ply=ply, role=role, action=action)
                                      for ply, (role, action) in enumerate(steps, start=1)])
            return match.pk

        first, unnamed, renamed = imported("m1"), imported(""), imported("m2")
        later = imported("", started_at=services._moment(start_ms + 1))
        played = Old.objects.create(game="quarto-misere", status="finished", state={}, invite_token="p").pk
    finally:
        migrated(None)
    keyed = dict(Match.objects.values_list("pk", "import_key"))
    assert keyed[first] == import_key(game_slug="quarto-misere", names=names, steps=steps, start_ms=start_ms)
    assert keyed[later] not in (None, keyed[first])
    assert keyed[unnamed] is keyed[renamed] is keyed[played] is None
    printed = capsys.readouterr().out
    for copy in (unnamed, renamed):
        assert f"Match {copy} is a second copy of the import of match {first}" in printed


def test_the_content_key_migration_keeps_its_own_copy_of_import_key_which_agrees_with_todays(played):
    """0020 keys earlier imports with a copy of ``import_key`` frozen in the migration: run on
    matches imported today, it gives each the key the import stored. A deliberate change of
    ``import_key`` fails here: change this test then (and key the stored imports again in a
    migration of its own), never the frozen copy."""
    migration = importlib.import_module("games.migrations.0020_import_key")
    user, = make_players(1, "importer")
    stored = {}
    for n, game in enumerate(["nine-board-tictactoe", "tictactoe-3player", "quarto-misere"]):
        data = export(Client(), played(game, seed=n)[0])
        data["playerNamesFromHost"][0] = "Zoë «the first»"  # beyond ASCII, as names may be
        match = services.match_import(user=user, content=json.dumps(data).encode())
        stored[match.pk] = match.import_key
    assert all(stored.values())
    Match.objects.filter(pk__in=stored).update(import_key=None)
    migration.key_imports_by_content(apps, schema_editor=None)
    assert dict(Match.objects.filter(pk__in=stored).values_list("pk", "import_key")) == stored
    steps = [("xPlayer", "(play 1 1 2 2 x)")]
    for names, start_ms in [({}, 0), ({"xPlayer": "Zoë", "oPlayer": "名前"}, 1764590400123)]:
        assert (migration.frozen_import_key(game_slug="tictactoe-x9", names=names, steps=steps, start_ms=start_ms)
                == import_key(game_slug="tictactoe-x9", names=names, steps=steps, start_ms=start_ms))
