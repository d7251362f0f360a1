"""One stored copy per imported match, kept by the database: two imports of one file at the
same moment store it once and send the second importer to the first copy."""

import json
import threading

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from games.history import services
from games.models import Match
from games.services import ServiceError
from tests.history.test_history_ggp import export
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


def test_the_migration_keys_the_first_of_earlier_copies_and_names_the_others(capsys):
    executor = MigrationExecutor(connection)
    executor.migrate([("games", "0014_offers_room_for_declined_takebacks")])
    old = executor.loader.project_state([("games", "0014_offers_room_for_declined_takebacks")]).apps
    try:
        Match = old.get_model("games", "Match")

        def imported(match_id, game="nine-board-tictactoe", token=None):
            return Match.objects.create(game=game, status="finished", state={}, result={"imported_from": match_id},
                                        invite_token=token or f"t{Match.objects.count()}").pk

        first, copy, other_game, unnamed = (imported("m1"), imported("m1"), imported("m1", game="quarto-misere"),
                                            imported(""))
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    from games.models import Match as Current
    keyed = dict(Current.objects.values_list("pk", "imported_from"))
    assert keyed == {first: "m1", copy: None, other_game: "m1", unnamed: None}
    assert f"Match {copy} is a second copy of the import of matchId 'm1'" in capsys.readouterr().out
