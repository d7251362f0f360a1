"""games.history.selectors: filters, order, pagination, privacy, records, replays."""

import pytest

from games import services
from games.history import selectors
from games.history.selectors import HistoryFilters
from games.models import Match
from games.rules import get_game
from games.selectors import match_can_view
from tests.games.history.conftest import finished_match
from tests.support.players import make_players, play_out, start_match

pytestmark = pytest.mark.django_db


def ids(user, **filters):
    return [m.pk for m in selectors.history_matches(user=user, filters=HistoryFilters(**filters))]


def test_newest_first_and_only_finished(players):
    a, b, *_ = players
    old = finished_match("quarto-misere", [a, b], ["won", "lost"], minutes_ago=30)
    new = finished_match("quarto-misere", [a, b], ["lost", "won"], minutes_ago=1)
    start_match("quarto-misere", [a, b])  # active: not history
    assert ids(None) == [new.pk, old.pk]


def test_filters_by_game_player_and_result(players):
    a, b, c, _ = players
    m1 = finished_match("quarto-misere", [a, b], ["won", "lost"], minutes_ago=4)
    m2 = finished_match("tictactoe-x9", [a, c], ["drawn", "drawn"], minutes_ago=3)
    m3 = finished_match("tictactoe-x9", [b, a], ["won", "lost"], minutes_ago=2)
    m4 = finished_match("tictactoe-3player", [b, c, a], ["lost", "won", "lost"], scores=[33, 66, 33], minutes_ago=1)
    assert ids(None, game="tictactoe-x9") == [m3.pk, m2.pk]
    assert ids(None, player_id=c.pk) == [m4.pk, m2.pk]
    assert ids(None, player_id=a.pk, result="won") == [m1.pk]
    assert ids(None, player_id=a.pk, result="drawn") == [m2.pk]
    assert ids(None, player_id=a.pk, result="lost") == [m4.pk, m3.pk]
    assert ids(None, player_id=a.pk, result="lost", game="tictactoe-x9") == [m3.pk]


def test_pages_of_25(players):
    a, b, *_ = players
    made = [finished_match("quarto-misere", [a, b], ["won", "lost"], minutes_ago=i) for i in range(30)]
    first, rows = selectors.history_page(user=None, page=1)
    assert [r["id"] for r in rows] == [m.pk for m in made[:25]]
    second, rows = selectors.history_page(user=None, page=2)
    assert [r["id"] for r in rows] == [m.pk for m in made[25:]]
    assert first.paginator.num_pages == 2 and first.paginator.count == 30
    _, rows = selectors.history_page(user=None, page="nonsense")
    assert len(rows) == 25


def test_row_shows_players_result_length_and_date(players):
    a, b, *_ = players
    match = finished_match("quarto-misere", [a, b], ["lost", "won"], length=14)
    row = selectors.history_row(match=match)
    assert row["players"][0] == {"role": "white", "label": "White", "id": a.pk, "name": a.display_name, "bot": False, "outcome": "lost",
                                 "score": 0, "rating": None, "provisional": False, "change": None,
                                 "unrated_against": [], "unrated": ""}
    assert row["result"] == f"{b.display_name} won" and row["length"] == 14 and row["date"] == match.finished_at


def test_private_matches_only_for_their_players(players):
    a, b, stranger, _ = players
    private = finished_match("quarto-misere", [a, b], ["won", "lost"], private=True)
    public = finished_match("quarto-misere", [a, b], ["won", "lost"], minutes_ago=5)
    assert ids(None) == [public.pk]
    assert ids(stranger) == [public.pk]
    assert ids(stranger, player_id=a.pk) == [public.pk]
    assert ids(a) == [private.pk, public.pk] and ids(b, player_id=a.pk) == [private.pk, public.pk]
    assert not match_can_view(match=private, user=stranger)
    assert not match_can_view(match=private, user=None)
    assert match_can_view(match=private, user=b)
    assert selectors.player_record(player=a, viewer=stranger)[0]["played"] == 1
    assert selectors.player_record(player=a, viewer=a)[0]["played"] == 2


def test_player_record_per_game(players):
    a, b, c, _ = players
    finished_match("quarto-misere", [a, b], ["won", "lost"])
    finished_match("quarto-misere", [b, a], ["won", "lost"])
    finished_match("quarto-misere", [a, b], ["drawn", "drawn"])
    finished_match("tictactoe-3player", [a, b, c], ["lost", "lost", "won"], scores=[66, 33, 100])
    finished_match("tictactoe-3player", [c, b, a], ["lost", "won", "lost"], scores=[33, 100, 33])
    record = {r["game"]: r for r in selectors.player_record(player=a, viewer=None)}
    assert list(record) == ["tictactoe-3player", "quarto-misere"]  # lobby order
    quarto = record["quarto-misere"]
    assert (quarto["played"], quarto["won"], quarto["drawn"], quarto["lost"], quarto["average"]) == (3, 1, 1, 1, 50.0)
    three = record["tictactoe-3player"]
    assert (three["played"], three["won"], three["drawn"], three["lost"], three["average"]) == (2, 0, 0, 2, 49.5)


def test_replay_is_rebuilt_by_the_rules(played):
    match, _ = played("nine-board-tictactoe-pie", seed=3)
    game = get_game(match.game)
    replay = selectors.match_replay(match=match)
    assert len(replay["views"]) == match.version + 1 == len(replay["moves"]) + 1
    assert replay["views"][-1] == game.view(game.state_from_json(match.state))
    assert replay["views"][0] == game.view(game.initial_state())
    actions = [m["action"] for m in replay["moves"]]
    assert replay["views"][5] == game.view(game.replay(actions[:5]))
    assert replay["moves"][0]["label"] == game.action_label(actions[0])


@pytest.mark.parametrize("slug, first", [("nine-board-tictactoe", ("X", "B2 b2")),
                                         ("tictactoe-x9", ("X", "B2 b2")),
                                         ("nine-board-tictactoe-pie", ("Red", "x B2 b2"))])
def test_the_replays_move_list_names_the_mark_once(slug, first):
    """Beside the mover's label ("X"), a move's label leaves out a mark that says the same; a
    pie player's mark (it changes with the swap) stays."""
    people = make_players(2, prefix=slug)
    game = get_game(slug)
    match = start_match(slug, people)
    services.move_submit(match_id=match.pk, user=people[0], version=0,
                         action=next(a for a in game.legal_actions(game.initial_state()) if "2 2 2 2" in a))
    match.refresh_from_db()
    move = selectors.match_replay(match=match)["moves"][0]
    assert (move["role_label"], move["label"]) == first


def test_replay_of_a_live_match_stops_at_its_current_ply():
    people = make_players(3)
    match = play_out(start_match("tictactoe-3player", people), people, max_moves=4)
    assert match.status == Match.Status.ACTIVE
    game = get_game(match.game)
    replay = selectors.match_replay(match=match)
    assert len(replay["views"]) == 5 and replay["views"][4] == game.view(game.state_from_json(match.state))


def test_replay_marks_the_moves_played_at_random_for_a_seat_that_left():
    x, o, z = make_players(3)
    match = start_match("tictactoe-3player", [x, o, z])
    services.move_submit(match_id=match.pk, user=x, action="(mark 3 3)", version=0)
    services.move_submit(match_id=match.pk, user=o, action="(mark 1 1)", version=1)
    services.move_submit(match_id=match.pk, user=z, action="(mark 2 2)", version=2)
    services.match_resign(match_id=match.pk, user=o)  # after playing one turn itself
    match.refresh_from_db()
    match = play_out(match, [x, o, z], seed=2)
    moves = selectors.match_replay(match=match)["moves"]
    assert [m["at_random"] for m in moves] == [m["role"] == "oplayer" and m["ply"] > 2 for m in moves]
    assert any(m["at_random"] for m in moves) and not moves[1]["at_random"]
    assert [m["note"] for m in moves] == ["at random" if m["at_random"] else "" for m in moves]


@pytest.mark.parametrize("count", [3, 30])
def test_queries_do_not_grow_with_the_matches(count, django_assert_num_queries):
    people = make_players(3)
    for i in range(count):
        finished_match("tictactoe-3player", people, ["won", "lost", "lost"], scores=[100, 33, 0], minutes_ago=i)
    viewer = people[0]
    with django_assert_num_queries(3):  # count, page, seats with players
        selectors.history_page(user=viewer, filters=HistoryFilters(player_id=viewer.pk, result="won"))
    with django_assert_num_queries(1):
        selectors.player_record(player=viewer, viewer=people[1])
