"""The reads of the hot paths, written out once: a page opening (the session, the user, the
match, its seats with their players, the chat) and closing, and a match's first move in a
process.

The ORM compiles every query again each time it runs, and for a join with two related
models that took about sixteen times as long as fetching the rows (2.1 ms against 0.13 ms,
median of 2,000 reads of a match's seats on SQLite, on a loaded machine). Here each SQL text
is built once per database vendor from the models' own metadata, and each row becomes model
instances the way the ORM makes them: the backend's and the fields' converters applied, then
``Model.from_db``.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection

from games.models import ChatMessage, Match, Seat

MAX_ID = 2**63 - 1  # the largest id a BigAutoField (SQLite's integer, PostgreSQL's bigint) holds


class _Part:
    """The columns of one model in a query, under a table alias, and how to read them back."""

    def __init__(self, model, alias: str) -> None:
        quote = connection.ops.quote_name
        self.model, self.fields = model, list(model._meta.concrete_fields)
        self.sql = ", ".join(f"{alias}.{quote(f.column)}" for f in self.fields)
        self.attnames = [f.attname for f in self.fields]
        self.converters = []
        for field in self.fields:
            column = field.get_col(alias)
            self.converters.append((connection.ops.get_db_converters(column) + column.get_db_converters(connection),
                                    column))

    def instance(self, values) -> Any:
        """The model instance of these values (None for the nulls of an outer join)."""
        if values[0] is None:
            return None
        converted = []
        for value, (converters, column) in zip(values, self.converters):
            for convert in converters:
                value = convert(value, column, connection)
            converted.append(value)
        return self.model.from_db(connection.alias, self.attnames, converted)


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _column(model, name: str) -> str:
    return connection.ops.quote_name(model._meta.get_field(name).column)


@cache
def _seats(vendor: str) -> tuple[str, _Part, _Part, _Part]:
    user = get_user_model()
    seat, player, kept = _Part(Seat, "s"), _Part(user, "p"), _Part(user, "r")
    sql = (f"SELECT {seat.sql}, {player.sql}, {kept.sql} FROM {_table(Seat)} s "
           f"LEFT JOIN {_table(user)} p ON p.{_column(user, 'id')} = s.{_column(Seat, 'player')} "
           f"LEFT JOIN {_table(user)} r ON r.{_column(user, 'id')} = s.{_column(Seat, 'reserved_for')} "
           f"WHERE s.{_column(Seat, 'match')} = %s ORDER BY s.{_column(Seat, 'order')}")
    return sql, seat, player, kept


def seats_with_players(match_id: int) -> list[Seat]:
    """Every seat of the match in turn order, with its player and the player it is kept for."""
    sql, seat_part, player_part, kept_part = _seats(connection.vendor)
    with connection.cursor() as cursor:
        cursor.execute(sql, [match_id])
        rows = cursor.fetchall()
    seats, n, m = [], len(seat_part.fields), len(player_part.fields)
    for row in rows:
        seat = seat_part.instance(row[:n])
        seat.player = player_part.instance(row[n:n + m])
        seat.reserved_for = kept_part.instance(row[n + m:])
        seats.append(seat)
    return seats


@cache
def _match(vendor: str) -> tuple[str, _Part]:
    part = _Part(Match, "m")
    return f"SELECT {part.sql} FROM {_table(Match)} m WHERE m.{_column(Match, 'id')} = %s", part


def match_by_id(match_id: int) -> Match | None:
    if not 0 < match_id <= MAX_ID:  # no such row, and the database would refuse the number
        return None
    sql, part = _match(connection.vendor)
    with connection.cursor() as cursor:
        cursor.execute(sql, [match_id])
        row = cursor.fetchone()
    return part.instance(row) if row else None


@cache
def _chat(vendor: str) -> tuple[str, _Part, _Part]:
    user = get_user_model()
    line, author = _Part(ChatMessage, "c"), _Part(user, "a")
    sql = (f"SELECT {line.sql}, {author.sql} FROM {_table(ChatMessage)} c "
           f"JOIN {_table(user)} a ON a.{_column(user, 'id')} = c.{_column(ChatMessage, 'author')} "
           f"WHERE c.{_column(ChatMessage, 'match')} = %s ORDER BY c.{_column(ChatMessage, 'id')} DESC LIMIT %s")
    return sql, line, author


def last_chat_lines(match_id: int, limit: int) -> list[ChatMessage]:
    """The match's last ``limit`` chat lines with their authors, newest first."""
    sql, line_part, author_part = _chat(connection.vendor)
    with connection.cursor() as cursor:
        cursor.execute(sql, [match_id, limit])
        rows = cursor.fetchall()
    n, lines = len(line_part.fields), []
    for row in rows:
        line = line_part.instance(row[:n])
        line.author = author_part.instance(row[n:])
        lines.append(line)
    return lines


@cache
def _by_key(model, key: str, vendor: str) -> tuple[str, _Part]:
    part = _Part(model, "t")
    return f"SELECT {part.sql} FROM {_table(model)} t WHERE t.{_column(model, key)} = %s", part


def user_by_id(user_id) -> Any | None:
    """The user with this primary key (what ``ModelBackend.get_user`` reads), or None."""
    sql, part = _by_key(get_user_model(), "id", connection.vendor)
    with connection.cursor() as cursor:
        cursor.execute(sql, [user_id])
        row = cursor.fetchone()
    return part.instance(row) if row else None


def session_unexpired(model, session_key: str, now) -> Any | None:
    """The session row with this key if it expires after ``now`` (what the database session
    store reads), or None."""
    sql, part = _by_key(model, "session_key", connection.vendor)
    sql += f" AND t.{_column(model, 'expire_date')} > %s"
    with connection.cursor() as cursor:
        cursor.execute(sql, [session_key, connection.ops.adapt_datetimefield_value(now)])
        row = cursor.fetchone()
    return part.instance(row) if row else None
