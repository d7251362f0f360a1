"""games.selectors.rows: the hot reads give the same model instances the ORM gives, on every database."""

import pytest
from django.contrib.sessions.models import Session
from django.utils import timezone

from games import services
from games.match.clocks import TimeControl
from games.models import ChatMessage, Match, Seat
from games.selectors import rows
from tests.support.players import make_accounts, make_players, play_out, session_cookie, start_match

pytestmark = pytest.mark.django_db


def same(a, b, fields) -> None:
    for name in fields:
        assert getattr(a, name) == getattr(b, name), name
        assert type(getattr(a, name)) is type(getattr(b, name)), name


def test_seats_with_players_match_the_orm():
    x, o, z = make_players(3)
    old = play_out(start_match("tictactoe-3player", [x, o, z]), [x, o, z])
    new = services.rematch_offer(match_id=old.pk, user=o)
    for match in (old, new):
        orm = list(Seat.objects.filter(match=match).select_related("player", "reserved_for").order_by("order"))
        fast = rows.seats_with_players(match.pk)
        assert [s.pk for s in fast] == [s.pk for s in orm]
        seat_fields = [f.attname for f in Seat._meta.concrete_fields]
        user_fields = [f.attname for f in type(x)._meta.concrete_fields]
        for a, b in zip(fast, orm):
            same(a, b, seat_fields)
            assert (a.player is None) == (b.player is None) and (a.reserved_for is None) == (b.reserved_for is None)
            if a.player:
                same(a.player, b.player, user_fields)
            if a.reserved_for:
                same(a.reserved_for, b.reserved_for, user_fields)
            assert a.joined_at is None or a.joined_at.tzinfo is not None
    assert rows.seats_with_players(10**9) == []


def test_match_by_id_matches_the_orm(fake_time):
    x, o = make_players(2)
    match = play_out(start_match("quarto-misere", [x, o], time_control=TimeControl(base=60, increment=1)), [x, o],
                     max_moves=3)
    fast, orm = rows.match_by_id(match.pk), Match.objects.get(pk=match.pk)
    same(fast, orm, [f.attname for f in Match._meta.concrete_fields])
    assert isinstance(fast.state, dict) and isinstance(fast.clock, dict) and fast.deadline.tzinfo is not None
    assert rows.match_by_id(10**9) is None


def test_last_chat_lines_match_the_orm():
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o])
    for i in range(5):
        services.chat_post(match_id=match.pk, user=[x, o][i % 2], text=f"line {i}")
    fast = rows.last_chat_lines(match.pk, 3)
    orm = list(ChatMessage.objects.filter(match=match).select_related("author").order_by("-pk")[:3])
    assert [(c.pk, c.text, c.author.display_name, c.created_at) for c in fast] == \
           [(c.pk, c.text, c.author.display_name, c.created_at) for c in orm]


def test_user_by_id_matches_the_orm():
    (member,) = make_accounts(1)
    orm = type(member).objects.get(pk=member.pk)
    same(rows.user_by_id(member.pk), orm, [f.attname for f in type(member)._meta.concrete_fields])
    assert rows.user_by_id(10**9) is None


def test_session_unexpired_matches_the_orm():
    (player,) = make_players(1)
    key = session_cookie(player)
    orm = Session.objects.get(session_key=key)
    fast = rows.session_unexpired(Session, key, timezone.now())
    same(fast, orm, ["session_key", "session_data", "expire_date"])
    assert rows.session_unexpired(Session, key, orm.expire_date) is None  # expired by then
    assert rows.session_unexpired(Session, "no such key", timezone.now()) is None
