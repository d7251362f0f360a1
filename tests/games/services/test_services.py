"""games.services against the database: seats, moves, resignation, rematch, concurrency."""

import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.test import override_settings
from django.utils import timezone

from games import selectors, services
from games.match.labels import result_sentence
from games.match.settings import MatchSettings
from games.models import Match, Move, Seat
from games.rules import GAMES, get_game
from games.runtime import presence
from games.services import ServiceError
from tests.support.players import make_accounts, make_players, play_first_moves, play_out, race_moves, start_match

pytestmark = pytest.mark.django_db

FIVE_GAMES = ["nine-board-tictactoe", "tictactoe-x9", "nine-board-tictactoe-pie", "tictactoe-3player", "quarto-misere"]


def assert_refused(code, call, **kwargs):
    with pytest.raises(ServiceError) as info:
        call(**kwargs)
    assert info.value.code == code, info.value.message
    return info.value


def test_create_seats_the_creator_and_waits():
    alice, = make_players(1)
    match = services.match_create(user=alice, settings=MatchSettings("nine-board-tictactoe"), role="oPlayer")
    seats = {s.role: s.player_id for s in match.seats.all()}
    assert seats == {"xPlayer": None, "oPlayer": alice.pk}
    assert match.status == Match.Status.WAITING and match.version == 0


def test_create_random_seat_and_refusals(settings):
    settings.WAITING_MATCHES_MAX = 12
    alice, = make_players(1)
    import random
    roles = {services.match_create(user=alice, settings=MatchSettings("quarto-misere"), rng=random.Random(seed))
             .seats.get(player=alice).role for seed in range(12)}
    assert roles == {"white", "black"}
    assert_refused("unknown_game", MatchSettings, game="chess")
    assert_refused("unknown_role", services.match_create, user=alice, settings=MatchSettings("quarto-misere"), role="red")


def test_join_fills_seats_and_starts_when_full():
    a, b, c = make_players(3)
    match = services.match_create(user=a, settings=MatchSettings("tictactoe-3player"), role="xplayer")
    services.seat_join(match_id=match.pk, user=b)
    match.refresh_from_db()
    assert match.status == Match.Status.WAITING
    assert_refused("already_seated", services.seat_join, match_id=match.pk, user=b)
    assert_refused("seat_taken", services.seat_join, match_id=match.pk, user=c, role="oplayer")
    services.seat_join(match_id=match.pk, user=c, role="zplayer")
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.started_at is not None
    d, = make_players(1, "late")
    assert_refused("match_started", services.seat_join, match_id=match.pk, user=d)


@pytest.mark.parametrize("slug", [g.slug for g in GAMES])
def test_a_whole_game_stores_moves_state_and_result(slug):
    game = get_game(slug)
    players = make_players(len(game.roles))
    match = play_out(start_match(slug, players), players, seed=3)
    assert match.status == Match.Status.FINISHED
    actions = list(match.moves.values_list("action", flat=True))
    assert list(match.moves.values_list("ply", flat=True)) == list(range(1, len(actions) + 1))
    replayed = game.replay(actions)
    assert game.state_from_json(match.state) == replayed
    assert match.version == len(actions)
    assert match.result["scores"] == game.goals(replayed)
    assert {s.role: s.score for s in match.seats.all()} == game.goals(replayed)


def test_refusals_change_nothing():
    x, o, stranger = make_players(3)
    match = start_match("nine-board-tictactoe", [x, o])
    services.move_submit(match_id=match.pk, user=x, action="(play 1 1 2 2 x)", version=0)
    before = Match.objects.get(pk=match.pk)

    assert_refused("illegal_action", services.move_submit, match_id=match.pk, user=o,
                   action="(play 3 3 1 1 o)", version=1)  # wrong sub-board
    err = assert_refused("illegal_action", services.move_submit, match_id=match.pk, user=o,
                         action="(play 2 2 1 1 x)", version=1)
    assert err.extra["detail"] == "wrong_marker"
    assert_refused("not_your_turn", services.move_submit, match_id=match.pk, user=x, action="(play 2 2 1 1 x)", version=1)
    err = assert_refused("stale_version", services.move_submit, match_id=match.pk, user=o,
                         action="(play 2 2 1 1 o)", version=0)
    assert err.extra["version"] == 1
    assert_refused("not_seated", services.move_submit, match_id=match.pk, user=stranger,
                   action="(play 2 2 1 1 o)", version=1)

    after = Match.objects.get(pk=match.pk)
    assert (after.version, after.state, after.status) == (before.version, before.state, before.status)
    assert Move.objects.filter(match=match).count() == 1


def test_refusals_to_give_a_seat_to_the_computer_change_nothing():
    alice, bob = make_players(2)
    match = services.match_create(user=alice, settings=MatchSettings("tictactoe-3player"), role="xplayer")
    services.seat_join(match_id=match.pk, user=bob, role="oplayer")
    give = services.seat_give_to_computer
    assert_refused("not_creator", give, match_id=match.pk, user=bob, role="zplayer", level=2)
    assert_refused("seat_taken", give, match_id=match.pk, user=alice, role="oplayer", level=2)
    assert_refused("unknown_role", give, match_id=match.pk, user=alice, role="wplayer", level=2)
    for level in (0, 5):
        assert_refused("unknown_level", give, match_id=match.pk, user=alice, role="zplayer", level=level)
    seats = list(match.seats.values_list("role", "player_id"))
    assert seats == [("xplayer", alice.pk), ("oplayer", bob.pk), ("zplayer", None)]
    assert Match.objects.get(pk=match.pk).status == Match.Status.WAITING

    started = start_match("nine-board-tictactoe", [alice, bob])
    assert_refused("match_started", give, match_id=started.pk, user=alice, role="oPlayer", level=2)

    member, = make_accounts(1)
    rated = services.match_create(user=member, settings=MatchSettings("quarto-misere", rated=True), role="black")
    err = assert_refused("rated_needs_accounts", give, match_id=rated.pk, user=member, role="white", level=2)
    assert err.message.startswith("Games against the computer are casual")
    assert rated.seats.get(role="white").player is None
    assert not get_user_model().objects.filter(is_computer=True).exists()


def test_moves_refused_before_start_and_after_end():
    x, o = make_players(2)
    match = services.match_create(user=x, settings=MatchSettings("nine-board-tictactoe"), role="xPlayer")
    assert_refused("match_not_started", services.move_submit, match_id=match.pk, user=x,
                   action="(play 1 1 1 1 x)", version=0)
    services.seat_join(match_id=match.pk, user=o)
    match = play_out(Match.objects.get(pk=match.pk), [x, o])
    game = get_game(match.game)
    assert_refused("match_over", services.move_submit, match_id=match.pk, user=x,
                   action=game.legal_moves(game.initial_state(), "xPlayer")[0], version=match.version)


def test_two_player_resignation_ends_the_match():
    white, black = make_players(2)
    match = play_first_moves(start_match("quarto-misere", [white, black]), [white, black])
    services.match_resign(match_id=match.pk, user=black)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.result["scores"] == {"white": 100, "black": 0}
    assert match.result["winners"] == ["white"] and match.result["resigned"] == ["black"]
    assert match.seats.get(player=black).out == "resigned"
    assert_refused("match_over", services.match_resign, match_id=match.pk, user=white)


def test_three_player_resignation_plays_random_moves_for_the_resigned_seat():
    x, o, z = make_players(3)
    match = play_first_moves(start_match("tictactoe-3player", [x, o, z]), [x, o, z])
    services.match_resign(match_id=match.pk, user=x)  # x is to move: its turn is played for it at once
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    assert list(match.moves.values_list("role", flat=True)) == ["xplayer", "oplayer", "zplayer", "xplayer"]
    assert_refused("already_resigned", services.match_resign, match_id=match.pk, user=x)
    match = play_out(match, [x, o, z], seed=5)
    game = get_game(match.game)
    roles = list(match.moves.values_list("role", flat=True))
    assert roles == [game.roles[i % 3] for i in range(len(roles))]
    assert match.result["scores"]["xplayer"] == 0
    assert match.result["resigned"] == ["xplayer"]
    assert game.state_from_json(match.state) == game.replay(match.moves.values_list("action", flat=True))


def test_second_three_player_resignation_finishes_the_match():
    x, o, z = make_players(3)
    match = play_first_moves(start_match("tictactoe-3player", [x, o, z]), [x, o, z])
    services.match_resign(match_id=match.pk, user=o)
    services.match_resign(match_id=match.pk, user=z)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.result["scores"] == {"xplayer": 100, "oplayer": 0, "zplayer": 0}


def test_a_resigned_seat_is_not_credited_with_its_three_when_the_others_finish():
    x, o, z = make_players(3)
    match = start_match("tictactoe-3player", [x, o, z])
    # x has a three on row 1, o three on row 5; x resigns on o's turn, and o makes four.
    for user, m, n in ((x, 1, 1), (o, 5, 1), (z, 3, 1), (x, 1, 2), (o, 5, 2), (z, 3, 3), (x, 1, 3), (o, 5, 3),
                       (z, 2, 5), (x, 4, 5)):
        match = services.move_submit(match_id=match.pk, user=user, action=f"(mark {m} {n})", version=match.version)
    services.match_resign(match_id=match.pk, user=x)
    match.refresh_from_db()
    services.move_submit(match_id=match.pk, user=o, action="(mark 5 4)", version=match.version)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.result["scores"] == {"xplayer": 0, "oplayer": 100, "zplayer": 0}
    assert match.result["reason"] == "oplayer made four in a row (100 points); zplayer has no three (0 points); xplayer resigned"
    names = {"xplayer": "Xena", "oplayer": "Otto", "zplayer": "Zed"}
    assert result_sentence(match.result, names) == \
        "Otto made four in a row (100 points) and won; Zed has no three (0 points); Xena resigned."


def match_presence(match):
    return presence.match_presence(match_id=match.pk, seats=selectors.match_seats(match.pk))


def test_a_players_last_page_closing_marks_them_away_and_coming_back_clears_it():
    white, black = make_players(2)
    match = start_match("quarto-misere", [white, black])
    services.presence_enter(match_id=match.pk, channel_name="phone", user=black)
    services.presence_enter(match_id=match.pk, channel_name="laptop", user=black)
    services.presence_leave(match_id=match.pk, channel_name="phone", user=black)
    assert Seat.objects.get(match=match, player=black).away_since is None  # the laptop is still open
    services.presence_leave(match_id=match.pk, channel_name="laptop", user=black)
    assert Seat.objects.get(match=match, player=black).away_since is not None
    assert match_presence(match)["away"] == {"white": 0, "black": 0}
    services.presence_enter(match_id=match.pk, channel_name="laptop again", user=black)
    assert Seat.objects.get(match=match, player=black).away_since is None
    assert set(match_presence(match)["away"]) == {"white"}  # white never opened the page


def test_a_page_that_stopped_answering_counts_as_away_since_its_last_ping(monkeypatch):
    white, black = make_players(2)
    match = start_match("quarto-misere", [white, black])
    real_time = time.time
    with monkeypatch.context() as patch:
        patch.setattr(presence.time, "time", lambda: real_time() - 300)
        services.presence_enter(match_id=match.pk, channel_name="frozen", user=black)
    state = match_presence(match)
    assert state["online"]["black"] is False and 299 <= state["away"]["black"] <= 301


def test_spectators_pages_are_counted_without_writing_to_the_database(django_assert_num_queries):
    white, black, fan = make_players(3)
    match = start_match("quarto-misere", [white, black])
    with django_assert_num_queries(2) as queries:  # the seats each page shows, read once
        services.presence_enter(match_id=match.pk, channel_name="fan", user=fan)
        services.presence_enter(match_id=match.pk, channel_name="anonymous", user=None)
    assert all(q["sql"].startswith("SELECT") for q in queries.captured_queries)
    services.presence_enter(match_id=match.pk, channel_name="white", user=white)
    assert match_presence(match)["spectators"] == 2 and match_presence(match)["online"] == {"white": True,
                                                                                              "black": False}
    services.presence_leave(match_id=match.pk, channel_name="anonymous", user=None)
    assert match_presence(match)["spectators"] == 1


def leave(match, user, seconds_ago):
    Seat.objects.filter(match=match, player=user).update(away_since=timezone.now() - timedelta(seconds=seconds_ago))


@override_settings(ABANDON_SECONDS=60)
def test_the_match_can_be_claimed_from_an_absent_player_whose_turn_it_is():
    white, black = make_players(2)
    match = start_match("quarto-misere", [white, black])
    services.presence_enter(match_id=match.pk, channel_name="white", user=white)
    services.move_submit(match_id=match.pk, user=white, action="(select p0000)", version=0)
    services.move_submit(match_id=match.pk, user=white, action="(place p0000 1 1)", version=1)
    services.move_submit(match_id=match.pk, user=black, action="(select p0001)", version=2)  # black has begun
    services.presence_enter(match_id=match.pk, channel_name="black", user=black)
    assert_refused("not_abandoned", services.match_claim, match_id=match.pk, user=white)  # black is here
    services.presence_leave(match_id=match.pk, channel_name="black", user=black)
    leave(match, black, 30)
    error = assert_refused("not_abandoned", services.match_claim, match_id=match.pk, user=white)
    assert "60 seconds" in error.message
    assert_refused("not_abandoned", services.match_claim, match_id=match.pk, user=black)  # its own turn
    assert_refused("not_seated", services.match_claim, match_id=match.pk, user=make_players(1, "fan")[0])
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.version == 3
    leave(match, black, 61)
    services.match_claim(match_id=match.pk, user=white)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.version == 4  # an ending raises it like a move
    assert match.result["scores"] == {"white": 100, "black": 0} and match.result["winners"] == ["white"]
    assert match.result["reason"] == "black left the match and the win was claimed"
    assert match.seats.get(player=black).outcome == "lost"
    seats = {s["role"]: s["out"] for s in selectors.match_snapshot_by_id(match_id=match.pk)["seats"]}
    assert seats == {"white": "", "black": "abandoned"}  # the page says how black left, not "resigned"
    assert_refused("match_over", services.match_claim, match_id=match.pk, user=white)


@override_settings(ABANDON_SECONDS=60)
def test_a_match_can_be_called_a_draw_instead_of_claimed_from_a_player_who_left():
    white, black = make_players(2)
    match = start_match("quarto-misere", [white, black])
    services.move_submit(match_id=match.pk, user=white, action="(select p0000)", version=0)
    services.move_submit(match_id=match.pk, user=white, action="(place p0000 1 1)", version=1)
    services.move_submit(match_id=match.pk, user=black, action="(select p0001)", version=2)  # black has begun
    leave(match, black, 30)
    assert_refused("not_abandoned", services.match_claim_draw, match_id=match.pk, user=white)  # too soon
    assert_refused("not_abandoned", services.match_claim_draw, match_id=match.pk, user=black)  # its own turn
    assert_refused("not_seated", services.match_claim_draw, match_id=match.pk, user=make_players(1, "fan")[0])
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.offers == ""
    leave(match, black, 61)
    services.match_claim_draw(match_id=match.pk, user=white)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.version == 4
    assert match.result["scores"] == {"white": 50, "black": 50} and match.result["draw"] is True
    assert match.result["reason"] == "black left the match and it was called a draw"
    assert {s.role: (s.outcome, s.resigned) for s in match.seats.all()} == {
        "white": ("drawn", False), "black": ("drawn", False)}
    assert_refused("match_over", services.match_claim_draw, match_id=match.pk, user=white)


@override_settings(ABANDON_SECONDS=60)
def test_a_draw_cannot_be_called_while_a_third_player_plays_on():
    x, o, z = make_players(3)
    match = play_first_moves(start_match("tictactoe-3player", [x, o, z]), [x, o, z])
    match = play_out(match, [x, o, z], max_moves=1)  # x moved: o's turn
    leave(match, o, 120)
    assert_refused("draw_needs_two", services.match_claim_draw, match_id=match.pk, user=z)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and not match.seats.get(role="oplayer").resigned
    services.match_resign(match_id=match.pk, user=x)  # with x out, z and the absent o are the two left
    services.match_claim_draw(match_id=match.pk, user=z)  # still o's turn
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED  # as an agreed draw: the seats still playing share it
    assert match.result["scores"] == {"xplayer": 0, "oplayer": 50, "zplayer": 50}
    assert match.result["winners"] == ["oplayer", "zplayer"]


@override_settings(ABANDON_SECONDS=60)
def test_a_claim_in_three_player_tic_tac_toe_lets_the_others_play_on():
    x, o, z = make_players(3)
    match = play_first_moves(start_match("tictactoe-3player", [x, o, z]), [x, o, z])
    match = play_out(match, [x, o, z], max_moves=1)  # x moved: o's turn
    assert_refused("not_abandoned", services.match_claim, match_id=match.pk, user=x)  # o just arrived
    leave(match, o, 120)
    leave(match, x, 120)  # x is away too, but it is not x's turn: only o's absence blocks the game
    services.match_claim(match_id=match.pk, user=z)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.version == 6  # o's seat out (+1), its turn played (+1)
    assert list(match.moves.values_list("role", flat=True)) == ["xplayer", "oplayer", "zplayer", "xplayer", "oplayer"]
    assert match.seats.get(role="oplayer").resigned and not match.seats.get(role="xplayer").resigned
    seats = {s["role"]: s["out_ply"] for s in selectors.match_snapshot_by_id(match_id=match.pk)["seats"]}
    assert seats == {"xplayer": None, "oplayer": 4, "zplayer": None}  # o's turns from the fifth move on are random
    match = play_out(match, [x, o, z], seed=3)
    assert match.result["scores"]["oplayer"] == 0 and match.result["resigned"] == ["oplayer"]


@override_settings(ABANDON_SECONDS=0, COMPUTER_WORKERS="inline", COMPUTER_ITERATIONS=20)
def test_the_computer_is_never_away(django_capture_on_commit_callbacks):
    human, = make_players(1)
    match = services.match_create(user=human, settings=MatchSettings("quarto-misere"), role="white", against_computer=True)
    assert match_presence(match)["away"] == {"white": 0}
    with django_capture_on_commit_callbacks(execute=False):  # the computer has not answered yet
        services.move_submit(match_id=match.pk, user=human, action="(select p0000)", version=0)
        services.move_submit(match_id=match.pk, user=human, action="(place p0000 1 1)", version=1)
    assert_refused("not_abandoned", services.match_claim, match_id=match.pk, user=human)


def test_players_write_in_the_chat_and_nobody_else_does(django_capture_on_commit_callbacks):
    white, black, fan = make_players(3)
    match = start_match("quarto-misere", [white, black])
    with django_capture_on_commit_callbacks() as sent:
        line = services.chat_post(match_id=match.pk, user=white, text="  good   luck\n ")
    assert line.text == "good luck" and len(sent) == 1  # broadcast only once committed
    assert_refused("not_seated", services.chat_post, match_id=match.pk, user=fan, text="boo")
    assert_refused("not_seated", services.chat_post, match_id=match.pk, user=AnonymousUser(), text="boo")
    assert_refused("bad_chat", services.chat_post, match_id=match.pk, user=black, text=" \n ")
    assert_refused("bad_chat", services.chat_post, match_id=match.pk, user=black, text="x" * 301)
    assert_refused("not_found", services.chat_post, match_id=match.pk + 99, user=black, text="hi")
    services.match_resign(match_id=match.pk, user=black)
    services.chat_post(match_id=match.pk, user=black, text="x" * 300)  # after the game too: "gg"
    lines = selectors.match_chat(match_id=match.pk)
    assert [(line["author"]["name"], line["text"]) for line in lines] == [("player 1", "good luck"),
                                                                          ("player 2", "x" * 300)]


def test_abort_while_waiting_only_by_a_player():
    a, b = make_players(2)
    match = services.match_create(user=a, settings=MatchSettings("quarto-misere"), role="white")
    assert_refused("not_seated", services.match_abort, match_id=match.pk, user=b)
    services.match_abort(match_id=match.pk, user=a)
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED
    assert_refused("match_started", services.seat_join, match_id=match.pk, user=b)


def test_rematch_rotates_seats_and_starts_when_accepted():
    x, o, z = make_players(3)
    old = play_out(start_match("tictactoe-3player", [x, o, z]), [x, o, z])
    new = services.rematch_offer(match_id=old.pk, user=o)
    assert services.rematch_offer(match_id=old.pk, user=x).pk == new.pk  # one pending rematch
    seats = {s.role: (s.player_id, s.reserved_for_id) for s in new.seats.all()}
    assert seats == {"xplayer": (None, z.pk), "oplayer": (None, x.pk), "zplayer": (o.pk, None)}
    stranger, = make_players(1, "stranger")
    assert_refused("seat_taken", services.seat_join, match_id=new.pk, user=stranger)
    services.seat_join(match_id=new.pk, user=x)
    services.seat_join(match_id=new.pk, user=z)
    new.refresh_from_db()
    assert new.status == Match.Status.ACTIVE and new.rematch_of_id == old.pk
    assert {s.role: s.player_id for s in new.seats.all()} == {"xplayer": z.pk, "oplayer": x.pk, "zplayer": o.pk}


def test_a_rematch_offer_is_declined_by_a_player_it_waits_for():
    x, o = make_players(2)
    stranger, = make_players(1, "stranger")
    old = play_out(start_match("quarto-misere", [x, o]), [x, o])
    assert_refused("no_offer", services.rematch_decline, match_id=old.pk, user=x)
    offered = services.rematch_offer(match_id=old.pk, user=o)
    for someone in (o, stranger, AnonymousUser()):  # the offerer calls it off instead (abort)
        assert_refused("not_yours", services.rematch_decline, match_id=old.pk, user=someone)
    services.rematch_decline(match_id=old.pk, user=x)
    offered.refresh_from_db()
    assert offered.status == Match.Status.ABORTED
    assert offered.result == {"aborted": True, "reason": "the rematch offer was declined", "declined": True,
                              "by": {"id": x.pk, "name": str(x), "guest": True, "computer": False,
                                     "bot": False}}  # its page says who
    snapshot = selectors.match_snapshot_by_id(match_id=old.pk)
    assert snapshot["rematch"] is None and snapshot["rematch_declined"] == [o.pk]
    # no offering again and again: declined once, the offerer may not offer another after this match
    error = assert_refused("rematch_declined", services.rematch_offer, match_id=old.pk, user=o)
    assert "declined" in error.message
    assert Match.objects.filter(rematch_of=old).count() == 1
    assert services.rematch_offer(match_id=old.pk, user=x).created_by == x  # the other side still may


def test_a_rematch_offer_its_offerer_called_off_may_be_made_again():
    x, o = make_players(2)
    old = play_out(start_match("quarto-misere", [x, o]), [x, o])
    offered = services.rematch_offer(match_id=old.pk, user=o)
    assert services.rematch_offer(match_id=old.pk, user=o).pk == offered.pk  # one offer pending at a time
    assert services.rematch_offer(match_id=old.pk, user=x).pk == offered.pk
    services.match_abort(match_id=offered.pk, user=o)
    assert services.rematch_offer(match_id=old.pk, user=o).pk != offered.pk


def test_rematch_needs_a_finished_match():
    a, b = make_players(2)
    match = start_match("quarto-misere", [a, b])
    assert_refused("match_not_over", services.rematch_offer, match_id=match.pk, user=a)


@pytest.mark.django_db(transaction=True)
def test_simultaneous_submissions_at_one_version_exactly_one_wins():
    """Two players' threads race for ply 1 of a match many times; one wins each race."""
    for round_ in range(5):
        x, o = make_players(2, f"racer{round_}")
        match = start_match("nine-board-tictactoe", [x, o])
        # Both submissions come from the mover's seat (two tabs of one player): same version, different cells.
        outcomes = race_moves(match, x, ["(play 1 1 1 1 x)", "(play 3 3 3 3 x)"], version=0)
        assert sorted(outcomes) == ["ok", "stale_version"]
        match.refresh_from_db()
        assert match.version == 1
        assert list(Move.objects.filter(match=match).values_list("ply", flat=True)) == [1]
        game = get_game(match.game)
        assert game.state_from_json(match.state) == game.replay(Move.objects.filter(match=match)
                                                                .values_list("action", flat=True))


def test_seat_constraints_hold_in_the_database():
    from django.db import IntegrityError, transaction
    a, = make_players(1)
    match = services.match_create(user=a, settings=MatchSettings("quarto-misere"), role="white")
    with pytest.raises(IntegrityError), transaction.atomic():
        Seat.objects.filter(match=match, role="black").update(player=a)
    with pytest.raises(IntegrityError), transaction.atomic():
        Move.objects.bulk_create([Move(match=match, ply=1, role="white", action="(select p0000)"),
                                  Move(match=match, ply=1, role="white", action="(select p0001)")])
