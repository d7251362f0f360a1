"""The move path's memory of active matches (games/services/moves.py): a remembered match is
played in two statements, and whatever another process (or another service) did meanwhile is
never overwritten: the conditional update refuses, and the careful path decides."""

import contextlib

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.match.settings import MatchSettings
from games.models import Match, Move, Outcome
from games.rules import get_game
from games.selectors import match_seats, rows
from games.services import ServiceError, moves
from tests.support.players import make_players, play_out, race_moves, start_match

pytestmark = pytest.mark.django_db(transaction=True)  # the memory is written when a move commits


@contextlib.contextmanager
def another_process():
    """Run the block as a second server process would: with a memory of its own. Afterwards
    this process remembers what it did before, now out of date."""
    mine = dict(moves.known)
    moves.known.clear()
    try:
        yield
    finally:
        moves.known.clear()
        moves.known.update(mine)


def assert_written_without_a_read(queries) -> None:
    statements = [q["sql"].split()[0] for q in queries]
    if connection.vendor == "postgresql":
        assert statements == ["WITH"]  # the conditional update and the insert, one statement, no transaction
    else:
        assert [s for s in statements if s not in {"BEGIN", "COMMIT"}] == ["UPDATE", "INSERT"]  # no read


def moves_of(match):
    return list(Move.objects.filter(match=match).order_by("ply").values_list("role", "action"))


def test_a_remembered_match_is_played_without_a_read():
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o])
    services.move_submit(match_id=match.pk, user=x, action="(play 2 2 2 2 x)", version=0)
    assert moves.known[match.pk].match.version == 1
    with CaptureQueriesContext(connection) as queries:
        services.move_submit(match_id=match.pk, user=o, action="(play 2 2 1 1 o)", version=1)
    assert_written_without_a_read(queries)
    match.refresh_from_db()
    assert match.version == 2 and moves.known[match.pk].match.version == 2
    game = get_game(match.game)
    assert game.state_from_json(match.state) == game.replay([a for _, a in moves_of(match)])


def test_refusals_from_memory_write_nothing(django_assert_num_queries):
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o])
    services.move_submit(match_id=match.pk, user=x, action="(play 2 2 2 2 x)", version=0)
    for user, action, code in [(x, "(play 2 2 1 1 x)", "not_your_turn"), (o, "(play 1 1 1 1 o)", "illegal_action"),
                               (o, "(play 2 2 9 9 o)", "illegal_action")]:
        with django_assert_num_queries(0), pytest.raises(ServiceError) as refused:
            services.move_submit(match_id=match.pk, user=user, action=action, version=1)
        assert refused.value.code == code
    assert moves_of(match) == [("xPlayer", "(play 2 2 2 2 x)")]


def test_a_move_made_by_another_process_is_not_overwritten():
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o])
    services.move_submit(match_id=match.pk, user=x, action="(play 2 2 2 2 x)", version=0)
    with another_process():
        services.move_submit(match_id=match.pk, user=o, action="(play 2 2 1 1 o)", version=1)
    # This process still remembers version 1: a second move at version 1 is stale all the same.
    with pytest.raises(ServiceError) as refused:
        services.move_submit(match_id=match.pk, user=o, action="(play 2 2 3 3 o)", version=1)
    assert refused.value.code == "stale_version" and refused.value.extra == {"version": 2}
    services.move_submit(match_id=match.pk, user=x, action="(play 1 1 2 2 x)", version=2)
    assert [a for _, a in moves_of(match)] == ["(play 2 2 2 2 x)", "(play 2 2 1 1 o)", "(play 1 1 2 2 x)"]


def test_a_resignation_elsewhere_ends_a_remembered_two_player_match():
    white, black = make_players(2)
    match = start_match("quarto-misere", [white, black])
    for version, (user, action) in enumerate([(white, "(select p0000)"), (white, "(place p0000 1 1)"),
                                              (black, "(select p0001)"), (black, "(place p0001 2 2)"),
                                              (white, "(select p0010)")]):  # each seat has begun
        services.move_submit(match_id=match.pk, user=user, action=action, version=version)
    with another_process():
        services.match_resign(match_id=match.pk, user=white)
    with pytest.raises(ServiceError) as refused:
        services.move_submit(match_id=match.pk, user=white, action="(place p0010 3 3)", version=5)
    assert refused.value.code == "match_over"
    match.refresh_from_db()
    assert match.version == 6 and match.result["winners"] == ["black"]  # the resignation raised it


def test_a_resignation_elsewhere_in_three_player_is_played_for():
    x, o, z = make_players(3)
    match = first_round(start_match("tictactoe-3player", [x, o, z]), [x, o, z])
    services.move_submit(match_id=match.pk, user=x, action="(mark 1 2)", version=3)
    with another_process():
        services.match_resign(match_id=match.pk, user=z)  # not z's turn: nothing is played, the version rises
    with pytest.raises(ServiceError) as refused:
        services.move_submit(match_id=match.pk, user=o, action="(mark 2 1)", version=4)  # not seen by o's page yet
    assert refused.value.code == "stale_version" and refused.value.extra == {"version": 5}
    services.move_submit(match_id=match.pk, user=o, action="(mark 2 1)", version=5)
    match.refresh_from_db()
    assert [r for r, _ in moves_of(match)][3:] == ["xplayer", "oplayer", "zplayer"]  # z's turn played at random
    assert match.version == 7


def first_round(match, players):
    """Each of the three seats' first move (x, o, z): the match has begun."""
    for version, (user, action) in enumerate(zip(players, ["(mark 1 1)", "(mark 2 2)", "(mark 3 3)"])):
        services.move_submit(match_id=match.pk, user=user, action=action, version=version)
    return match


def test_racing_submissions_on_a_remembered_match_give_exactly_one_move():
    for round_ in range(5):
        x, o = make_players(2, f"racer{round_}")
        match = start_match("nine-board-tictactoe", [x, o])
        services.move_submit(match_id=match.pk, user=x, action="(play 2 2 2 2 x)", version=0)
        outcomes = race_moves(match, o, ["(play 2 2 1 1 o)", "(play 2 2 3 3 o)"], version=1)
        assert sorted(outcomes) == ["ok", "stale_version"]
        match.refresh_from_db()
        assert match.version == 2 and len(moves_of(match)) == 2
        assert Match.objects.get(pk=match.pk).state == match.state


@pytest.mark.parametrize("spelling", ["( PLAY 2 2 2 2 X )", "(play  2 2\t2 2 x)"])
def test_a_move_is_stored_in_its_one_spelling(spelling):
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o])
    services.move_submit(match_id=match.pk, user=x, action=spelling, version=0)
    assert moves_of(match) == [("xPlayer", "(play 2 2 2 2 x)")]


@pytest.mark.parametrize("spelling", ["(play 2 2 2 2\u3000x)", "(play ٢ 2 2 2 x)", "(play 02 2 2 2 x)"])
def test_odd_spellings_of_an_action_are_refused(spelling):
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o])
    with pytest.raises(ServiceError) as refused:
        services.move_submit(match_id=match.pk, user=x, action=spelling, version=0)
    assert refused.value.code == "illegal_action" and moves_of(match) == []


@pytest.mark.parametrize("text", ["\u202egnp.exe", "a\u0007b", "\u200b\u200b"])
def test_chat_lines_follow_the_text_policy(text):
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o])
    with pytest.raises(ServiceError) as refused:
        services.chat_post(match_id=match.pk, user=x, text=text)
    assert refused.value.code == "bad_chat"


def test_the_migration_respells_moves_stored_before_and_leaves_unreadable_ones():
    import importlib

    from django.apps import apps

    migration = importlib.import_module("games.migrations.0006_canonical_actions")
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o])
    services.move_submit(match_id=match.pk, user=x, action="(play 2 2 2 2 x)", version=0)
    services.move_submit(match_id=match.pk, user=o, action="(play 2 2 1 1 o)", version=1)
    Move.objects.filter(match=match, ply=1).update(action="( PLAY 2 2 2 2 X )")  # as stored before
    Move.objects.filter(match=match, ply=2).update(action="(play ٢ 2 1 1 o)")  # no reading of it
    migration.canonical(apps, None)
    assert [a for _, a in moves_of(match)] == ["(play 2 2 2 2 x)", "(play ٢ 2 1 1 o)"]


def test_the_migration_cleans_chat_lines_stored_before_the_text_policy():
    import importlib

    from django.apps import apps

    from games.models import ChatMessage

    migration = importlib.import_module("games.migrations.0007_chat_text_policy")
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o])
    lines = [ChatMessage.objects.create(match=match, author=x, text=t)
             for t in ["good game", "\u202eevil\u202c text", "\u200b\u200b", "tab\there"]]
    migration.clean(apps, None)
    assert [ChatMessage.objects.get(pk=line.pk).text for line in lines] == [
        "good game", "evil text", migration.UNREADABLE, "tab here"]


def test_the_last_move_stores_every_seats_result_without_compiling_a_bulk_update():
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o])
    with CaptureQueriesContext(connection) as queries:
        match = play_out(match, [x, o])
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert not any("CASE" in q["sql"] for q in queries)  # the seats' results are written out
    scores, winners = match.result["scores"], match.result["winners"]
    stored = {s.role: (s.score, s.outcome) for s in match.seats.all()}
    assert stored == {role: (scores[role], Outcome.DRAWN if match.result["draw"] else
                             Outcome.WON if role in winners else Outcome.LOST) for role in scores}


def test_a_match_read_by_a_page_opening_is_moved_in_without_a_read():
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o])
    moves.known.clear()  # a fresh process
    services.move_memory_prime(match=rows.match_by_id(match.pk), seats=match_seats(match.pk))
    with CaptureQueriesContext(connection) as queries:
        services.move_submit(match_id=match.pk, user=x, action="(play 2 2 2 2 x)", version=0)
    assert_written_without_a_read(queries)
    assert moves_of(match) == [("xPlayer", "(play 2 2 2 2 x)")]


def test_a_page_read_older_than_the_memory_or_than_the_match_changes_nothing_wrong():
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o])
    read_before = rows.match_by_id(match.pk)
    services.move_submit(match_id=match.pk, user=x, action="(play 2 2 2 2 x)", version=0)
    services.move_memory_prime(match=read_before, seats=match_seats(match.pk))  # a slow page's older read
    assert moves.known[match.pk].match.version == 1  # the newer memory is kept
    with another_process():
        services.move_memory_prime(match=rows.match_by_id(match.pk), seats=match_seats(match.pk))
        services.move_submit(match_id=match.pk, user=o, action="(play 2 2 1 1 o)", version=1)
    with another_process():  # this one read version 1, before the move it did not make
        services.move_memory_prime(match=read_before, seats=match_seats(match.pk))
        with pytest.raises(ServiceError) as refused:
            services.move_submit(match_id=match.pk, user=o, action="(play 2 2 3 3 o)", version=1)
        assert refused.value.code == "stale_version"
        services.move_submit(match_id=match.pk, user=x, action="(play 1 1 2 2 x)", version=2)
    assert [a for _, a in moves_of(match)] == ["(play 2 2 2 2 x)", "(play 2 2 1 1 o)", "(play 1 1 2 2 x)"]


def test_only_active_matches_are_remembered_from_a_read():
    x, o = make_players(2)
    waiting = services.match_create(user=x, settings=MatchSettings("nine-board-tictactoe"))
    finished = start_match("nine-board-tictactoe", [x, o])
    play_out(finished, [x, o])
    moves.known.clear()
    for match in (waiting, finished):
        services.move_memory_prime(match=rows.match_by_id(match.pk), seats=match_seats(match.pk))
    assert moves.known == {}


def committed(queries) -> int:
    return sum(q["sql"].split()[0] == "COMMIT" for q in queries)


def test_moves_submitted_together_commit_once_and_each_gets_its_own_answer():
    x, o = make_players(2)
    a, b, c = (start_match("nine-board-tictactoe", [x, o]) for _ in range(3))
    services.move_submit(match_id=c.pk, user=x, action="(play 2 2 2 2 x)", version=0)  # c is remembered
    calls = [
        {"match_id": a.pk, "user": x, "action": "(play 2 2 2 2 x)", "version": 0},
        {"match_id": b.pk, "user": x, "action": "(play 2 2 9 9 x)", "version": 0},  # illegal
        {"match_id": a.pk, "user": x, "action": "(play 2 2 1 1 x)", "version": 0},  # a has moved on
        {"match_id": c.pk, "user": x, "action": "(play 2 2 1 1 x)", "version": 1},  # o's turn
        {"match_id": c.pk, "user": o, "action": "(play 2 2 1 1 o)", "version": 1},
    ]
    with CaptureQueriesContext(connection) as queries:
        results = services.move_submit_many(calls)
    assert committed(queries) == 1
    assert [r.code if isinstance(r, ServiceError) else r.version for r in results] == [
        1, "illegal_action", "stale_version", "not_your_turn", 2]
    assert moves_of(a) == [("xPlayer", "(play 2 2 2 2 x)")] and moves_of(b) == []
    assert moves_of(c) == [("xPlayer", "(play 2 2 2 2 x)"), ("oPlayer", "(play 2 2 1 1 o)")]
    assert moves.known[a.pk].match.version == 1 and moves.known[c.pk].match.version == 2


def test_a_move_that_fails_in_a_batch_undoes_itself_alone():
    x, o = make_players(2)
    a, b = (start_match("nine-board-tictactoe", [x, o]) for _ in range(2))
    for match in (a, b):
        services.move_submit(match_id=match.pk, user=x, action="(play 2 2 2 2 x)", version=0)
    # Another writer put a move at b's next ply without raising its version: b's conditional
    # update applies, then its insert fails on (match, ply).
    Move.objects.create(match=b, ply=2, role="oPlayer", action="(play 2 2 3 3 o)")
    results = services.move_submit_many([
        {"match_id": b.pk, "user": o, "action": "(play 2 2 1 1 o)", "version": 1},
        {"match_id": a.pk, "user": o, "action": "(play 2 2 1 1 o)", "version": 1},
    ])
    assert isinstance(results[0], ServiceError) and results[0].code == "stale_version"
    assert results[1].version == 2
    assert Match.objects.get(pk=b.pk).version == 1  # its update was rolled back with its insert
    assert Match.objects.get(pk=a.pk).version == 2 and len(moves_of(a)) == 2


def test_a_move_too_late_in_a_batch_still_ends_its_match_on_time(fake_time):
    from games.match.clocks import TimeControl

    x, o = make_players(2)
    from tests.support.players import play_out

    timed = start_match("nine-board-tictactoe", [x, o], time_control=TimeControl(base=60, increment=0))
    timed = play_out(timed, [x, o], max_moves=2)  # each seat's first move, at once
    other = start_match("nine-board-tictactoe", [x, o])
    game = get_game(timed.game)
    late = game.legal_actions(game.state_from_json(timed.state))[0]
    fake_time.advance(61)
    results = services.move_submit_many([
        {"match_id": timed.pk, "user": x, "action": late, "version": 2},
        {"match_id": other.pk, "user": x, "action": "(play 2 2 2 2 x)", "version": 0},
    ])
    assert isinstance(results[0], ServiceError) and results[0].code == "out_of_time"
    timed.refresh_from_db()
    assert timed.status == Match.Status.FINISHED and timed.result["winners"] == ["oPlayer"]
    assert len(moves_of(timed)) == 2 and results[1].version == 1


@pytest.mark.django_db(transaction=True)
def test_a_resignation_at_the_moment_of_a_move_never_leaves_the_resigned_seat_to_move():
    """Three players: z resigns while o moves from the move path's memory. On PostgreSQL the
    move's conditional update waited for the resignation's row lock, then re-checked only the
    match row, where nothing had changed: the move went in without z's turn being played for it,
    and the match waited for a player who had resigned (7 to 13 rounds in 30, before the match
    row carried its resigned roles)."""
    from tests.support.players import run_at_once

    game = get_game("tictactoe-3player")
    for n in range(15):
        x, o, z = make_players(3, prefix=f"round {n}")
        match = first_round(start_match("tictactoe-3player", [x, o, z]), [x, o, z])
        services.move_submit(match_id=match.pk, user=x, action="(mark 1 2)", version=3)  # remembered
        outcomes = run_at_once([
            lambda: services.move_submit(match_id=match.pk, user=o, action="(mark 2 1)", version=4),
            lambda: services.match_resign(match_id=match.pk, user=z)])
        assert set(outcomes) <= {"ok", "stale_version"}, outcomes
        match.refresh_from_db()
        resigned = {s.role for s in match.seats.all() if s.resigned}
        assert resigned == {"zplayer"} and match.resigned == "zplayer"
        state = game.state_from_json(match.state)
        assert match.status != Match.Status.ACTIVE or game.to_move(state) not in resigned, \
            f"{game.to_move(state)} resigned but is to move at version {match.version}"
