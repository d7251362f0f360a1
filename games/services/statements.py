"""The statements of a move, written out once instead of compiled by the ORM on every move
(which cost more than the database did). Names are quoted and values prepared by the models'
own fields. Two statements in a transaction on any database; on PostgreSQL, a move that does
not end the game is one statement in autocommit (the update and the insert joined by a
data-modifying WITH): one round trip instead of four (BEGIN, UPDATE, INSERT, COMMIT).
"""

from __future__ import annotations

from functools import cache

from django.db import connection
from django.utils import timezone

from games.models import Match, Move, Seat


def _column(model, name: str) -> str:
    return connection.ops.quote_name(model._meta.get_field(name).column)


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@cache
def _update_sql(fields: tuple[str, ...], vendor: str) -> str:
    sets = ", ".join(f"{_column(Match, f)} = %s" for f in fields)
    # Conditions on the row alone: on PostgreSQL an update that waited for another transaction's
    # row lock re-checks them against the row that transaction left, where a subquery (on the
    # seats, say) would still see the rows as they were before it.
    return (f"UPDATE {_table(Match)} SET {sets} WHERE {_column(Match, 'id')} = %s "
            f"AND {_column(Match, 'version')} = %s AND {_column(Match, 'status')} = %s "
            f"AND {_column(Match, 'offers')} = '' AND {_column(Match, 'resigned')} = %s")


def _update_params(match: Match, fields: list[str], since: int, resigned: set[str]) -> list:
    params = [Match._meta.get_field(f).get_db_prep_save(getattr(match, f), connection) for f in fields]
    return params + [match.pk, since, Match.Status.ACTIVE, resigned_text(resigned)]


def resigned_text(roles) -> str:
    """``Match.resigned`` for these resigned roles."""
    return " ".join(sorted(roles))


def update_if_unchanged(match: Match, fields: list[str], since: int, resigned: set[str]) -> bool:
    """Write ``fields`` of ``match`` if its row is still at version ``since``, still active, with
    no pending offers, and no seat outside ``resigned`` has resigned. True if it did (the row is then locked)."""
    with connection.cursor() as cursor:
        cursor.execute(_update_sql(tuple(fields), connection.vendor),
                       _update_params(match, fields, since, resigned))
        return cursor.rowcount == 1


ONE_STATEMENT = {"postgresql"}  # databases where update_and_insert_if_unchanged is available


@cache
def _update_and_insert_sql(fields: tuple[str, ...], rows: int, vendor: str) -> str:
    update = _update_sql(fields, vendor) + f" RETURNING {_column(Match, 'id')}"
    columns = ", ".join(_column(Move, f) for f in ("match", "ply", "role", "action", "created_at"))
    values = ", ".join(["(%s::integer, %s::varchar, %s::varchar, %s::timestamptz)"] * rows)
    return (f"WITH changed AS ({update}) INSERT INTO {_table(Move)} ({columns}) "
            f"SELECT changed.id, v.ply, v.role, v.action, v.created FROM changed, "
            f"(VALUES {values}) AS v (ply, role, action, created)")


def update_and_insert_if_unchanged(match: Match, fields: list[str], since: int, resigned: set[str],
                                   moves: list[Move]) -> bool:
    """``update_if_unchanged`` and ``insert_moves`` as one statement (PostgreSQL): outside a
    transaction it commits on its own, all or nothing. True if it applied."""
    created = timezone.now()
    params = _update_params(match, fields, since, resigned)
    for move in moves:
        move.created_at = created
        params += [move.ply, move.role, move.action, created]
    with connection.cursor() as cursor:
        cursor.execute(_update_and_insert_sql(tuple(fields), len(moves), connection.vendor), params)
        return cursor.rowcount == len(moves)


@cache
def _insert_sql(rows: int, vendor: str) -> str:
    columns = ", ".join(_column(Move, f) for f in ("match", "ply", "role", "action", "created_at"))
    values = ", ".join(["(%s, %s, %s, %s, %s)"] * rows)
    return f"INSERT INTO {_table(Move)} ({columns}) VALUES {values}"


def insert_moves(moves: list[Move]) -> None:
    """Insert ``moves`` in one statement (their ids are not read back: nothing uses them)."""
    created = timezone.now()
    now = Move._meta.get_field("created_at").get_db_prep_save(created, connection)
    params = []
    for move in moves:
        move.created_at = created
        params += [move.match_id, move.ply, move.role, move.action, now]
    with connection.cursor() as cursor:
        cursor.execute(_insert_sql(len(moves), connection.vendor), params)


@cache
def _seat_update_sql(fields: tuple[str, ...], vendor: str) -> str:
    sets = ", ".join(f"{_column(Seat, f)} = %s" for f in fields)
    return f"UPDATE {_table(Seat)} SET {sets} WHERE {_column(Seat, 'id')} = %s"


def update_seats(seats: list[Seat], fields: list[str]) -> None:
    """Write ``fields`` of each seat (a finished match's results): what ``bulk_update`` does,
    without compiling its ``CASE`` expression on every finish."""
    prepared = [Seat._meta.get_field(f) for f in fields]
    rows = [[field.get_db_prep_save(getattr(seat, field.attname), connection) for field in prepared] + [seat.pk]
            for seat in seats]
    with connection.cursor() as cursor:
        cursor.executemany(_seat_update_sql(tuple(fields), connection.vendor), rows)
