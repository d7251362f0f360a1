"""Match conduct against the database: abort before every seat moved, draws by agreement
(two and three players), takeback requests and the undo they lead to."""

from datetime import timedelta
from unittest import mock

import pytest
from django.conf import settings

from games import selectors, services
from games.computer import bots
from games.match import conduct
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import Match, Move, ReplacedMove
from games.rules import get_game
from tests.games.services.test_clock_services import move
from tests.games.services.test_services import assert_refused
from tests.support.players import current_version, make_players, play_first_moves, start_match

pytestmark = pytest.mark.django_db


def offers(match: Match) -> dict:
    match.refresh_from_db()
    return conduct.parse(match.offers)


def replayed(match: Match):
    """The state the rules give for the stored moves."""
    game = get_game(match.game)
    state = game.initial_state()
    for m in Move.objects.filter(match=match).order_by("ply"):
        state = game.play(state, m.role, m.action)
    return game.state_to_json(state)


def test_offers_text_round_trips():
    assert conduct.parse("") == {"draw": [], "takeback": [], "declined": [], "takeback_declined": []}
    assert conduct.format({"draw": ["x", "o"], "takeback": ["o"]}) == "draw:x,o;takeback:o"
    assert conduct.parse("draw:x,o;takeback:o;junk:z") == {"draw": ["x", "o"], "takeback": ["o"], "declined": [],
                                                          "takeback_declined": []}
    longest = conduct.format({"draw": ["xplayer", "oplayer"], "takeback": ["xplayer", "oplayer"],
                              "declined": ["xplayer", "oplayer", "zplayer"],
                              "takeback_declined": ["xplayer", "oplayer", "zplayer"]})
    assert len(longest) <= Match._meta.get_field("offers").max_length
    assert conduct.after_move("draw:x;takeback:o", "x") == "draw:x"
    assert conduct.after_move("draw:x", "o") == ""


def test_abort_until_every_seat_has_moved():
    x, o, spectator = make_players(3)
    match = start_match("nine-board-tictactoe", [x, o])
    match = move(match, x)
    assert_refused("not_seated", services.match_abort, match_id=match.pk, user=spectator)
    services.match_abort(match_id=match.pk, user=o)
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED
    assert match.result == {"aborted": True, "reason": "oPlayer aborted it before every player had moved"}
    assert_refused("match_over", services.match_abort, match_id=match.pk, user=x)
    assert_refused("match_over", services.move_submit, match_id=match.pk, user=o, action="x", version=match.version)

    under_way = move(move(start_match("nine-board-tictactoe", [x, o]), x), o)
    assert_refused("match_under_way", services.match_abort, match_id=under_way.pk, user=x)


def test_abort_stops_the_clock(fake_time):
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o], time_control=TimeControl(base=60))
    match = move(match, x)
    fake_time.advance(5)
    services.match_abort(match_id=match.pk, user=x)
    match.refresh_from_db()
    # neither clock ever ran: each starts at its seat's first move
    assert match.deadline is None and match.clock["running"] is None
    assert match.clock["remaining"] == {"xPlayer": 60_000, "oPlayer": 60_000}
    assert services.clock_sweep() == 0


def test_a_match_ended_without_a_move_is_sent_at_a_new_version():
    """Pages apply a state at their own version or newer, so two states of one version cannot
    be told apart: an abort, a resignation or an agreed draw raises the version like a move."""
    x, o = make_players(2)
    never_began = start_match("nine-board-tictactoe", [x, o])
    services.match_resign(match_id=never_began.pk, user=x)  # before any move: aborted
    never_began.refresh_from_db()
    assert (never_began.status, never_began.version) == (Match.Status.ABORTED, 1)

    aborted = move(start_match("nine-board-tictactoe", [x, o]), x)
    services.match_abort(match_id=aborted.pk, user=o)
    aborted.refresh_from_db()
    assert (aborted.status, aborted.version) == (Match.Status.ABORTED, 2)

    resigned = play_first_moves(start_match("nine-board-tictactoe", [x, o]), [x, o])
    services.match_resign(match_id=resigned.pk, user=o)
    resigned.refresh_from_db()
    assert (resigned.status, resigned.version) == (Match.Status.FINISHED, 3)

    drawn = play_first_moves(start_match("nine-board-tictactoe", [x, o]), [x, o])
    services.draw_offer(match_id=drawn.pk, user=x)
    services.draw_accept(match_id=drawn.pk, user=o)
    drawn.refresh_from_db()
    assert (drawn.status, drawn.version) == (Match.Status.FINISHED, 3)


def test_a_draw_offered_and_accepted_scores_fifty_each():
    x, o = make_players(2)
    match = move(start_match("quarto-misere", [x, o]), x)
    assert_refused("draw_too_early", services.draw_offer, match_id=match.pk, user=x)  # black has not moved
    match = play_first_moves(match, [x, o])
    services.draw_offer(match_id=match.pk, user=x)
    assert offers(match)["draw"] == ["white"]
    assert selectors.match_snapshot(match=match)["offers"]["draw"] == ["white"]
    assert_refused("already_offered", services.draw_offer, match_id=match.pk, user=x)
    assert_refused("already_offered", services.draw_accept, match_id=match.pk, user=x)  # not your own
    services.draw_accept(match_id=match.pk, user=o)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.result["draw"] is True
    assert match.result["scores"] == {"white": 50, "black": 50} and match.result["reason"] == "drawn by agreement"
    assert {s.outcome for s in match.seats.all()} == {"drawn"} and match.offers == ""


def test_a_draw_offer_lapses_when_the_opponent_moves_and_stands_when_the_offerer_does():
    x, o = make_players(2)
    match = play_first_moves(start_match("nine-board-tictactoe", [x, o]), [x, o])
    services.draw_offer(match_id=match.pk, user=x)
    match = move(match, x)  # the offerer moves: the offer stands
    assert offers(match)["draw"] == ["xPlayer"]
    match = move(match, o)  # the opponent moves instead of answering: it lapses
    assert offers(match)["draw"] == []
    assert_refused("no_offer", services.draw_accept, match_id=match.pk, user=o)


def test_a_declined_draw_is_gone():
    x, o, spectator = make_players(3)
    match = play_first_moves(start_match("nine-board-tictactoe", [x, o]), [x, o])
    assert_refused("no_offer", services.draw_decline, match_id=match.pk, user=o)
    services.draw_offer(match_id=match.pk, user=o)
    assert_refused("no_offer", services.draw_decline, match_id=match.pk, user=o)  # not your own
    assert_refused("not_seated", services.draw_decline, match_id=match.pk, user=spectator)
    services.draw_decline(match_id=match.pk, user=x)
    match.refresh_from_db()
    assert offers(match)["draw"] == [] and match.status == Match.Status.ACTIVE


def test_a_player_whose_draw_was_declined_offers_again_only_after_moving():
    """No offering again and again (as on lichess); the other player may still offer, and moving
    frees the offerer."""
    x, o = make_players(2)
    match = move(play_first_moves(start_match("nine-board-tictactoe", [x, o]), [x, o]), x)
    services.draw_offer(match_id=match.pk, user=o)
    services.draw_decline(match_id=match.pk, user=x)
    error = assert_refused("draw_declined", services.draw_offer, match_id=match.pk, user=o)
    assert "after your next move" in error.message
    assert selectors.match_snapshot_by_id(match_id=match.pk)["offers"]["declined"] == ["oPlayer"]
    services.draw_offer(match_id=match.pk, user=x)  # x may: it was o's offer that was declined
    services.draw_decline(match_id=match.pk, user=o)
    match = move(match, o)
    assert offers(match)["declined"] == ["xPlayer"]
    services.draw_offer(match_id=match.pk, user=o)
    assert offers(match)["draw"] == ["oPlayer"]


def test_in_three_players_a_declined_draw_holds_back_its_offerer_only():
    """x offers, o accepts, z declines: only x was declined (the page's "Your draw offer was
    declined" reads ``offers.declined``); o, who only accepted, may offer at once, as z may.
    Before, o was told its offer was declined and had to move before offering."""
    x, o, z = make_players(3)
    match = play_first_moves(start_match("tictactoe-3player", [x, o, z]), [x, o, z])
    services.draw_offer(match_id=match.pk, user=x)
    services.draw_accept(match_id=match.pk, user=o)
    services.draw_decline(match_id=match.pk, user=z)
    assert offers(match)["declined"] == ["xplayer"]
    assert selectors.match_snapshot_by_id(match_id=match.pk)["offers"]["declined"] == ["xplayer"]
    assert_refused("draw_declined", services.draw_offer, match_id=match.pk, user=x)
    services.draw_offer(match_id=match.pk, user=o)
    assert offers(match)["draw"] == ["oplayer"]
    services.draw_decline(match_id=match.pk, user=z)  # o's own offer declined: now o waits for its move
    assert offers(match)["declined"] == ["oplayer", "xplayer"]
    assert "after your next move" in assert_refused("draw_declined", services.draw_offer,
                                                    match_id=match.pk, user=o).message


def test_three_players_draw_when_every_player_still_playing_agrees():
    x, o, z = make_players(3)
    match = play_first_moves(start_match("tictactoe-3player", [x, o, z]), [x, o, z])
    services.draw_offer(match_id=match.pk, user=x)
    services.draw_accept(match_id=match.pk, user=o)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and offers(match)["draw"] == ["xplayer", "oplayer"]
    services.draw_accept(match_id=match.pk, user=z)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and set(match.result["scores"].values()) == {50}

    resigned = play_first_moves(start_match("tictactoe-3player", [x, o, z]), [x, o, z])
    services.match_resign(match_id=resigned.pk, user=z)
    services.draw_offer(match_id=resigned.pk, user=x)
    services.draw_accept(match_id=resigned.pk, user=o)
    resigned.refresh_from_db()
    assert resigned.result["scores"] == {"xplayer": 50, "oplayer": 50, "zplayer": 0}


def test_the_computer_does_not_take_draws(settings):
    x, o = make_players(2)
    match = services.match_create(user=x, settings=MatchSettings("nine-board-tictactoe"), role="xPlayer",
                                  against_computer=True)
    assert_refused("computer_plays_on", services.draw_offer, match_id=match.pk, user=x)
    three = services.match_create(user=x, settings=MatchSettings("tictactoe-3player"), role="xplayer")
    services.seat_join(match_id=three.pk, user=o, role="oplayer")
    services.seat_join(match_id=three.pk, user=services.computer_user(1), role="zplayer")
    assert_refused("computer_plays_on", services.draw_offer, match_id=three.pk, user=o)


def test_a_takeback_undoes_the_requesters_last_action_and_what_followed():
    x, o = make_players(2)
    match = move(move(start_match("nine-board-tictactoe", [x, o]), x), o)
    before = match.state
    match = move(move(match, x), o)
    version = match.version
    services.takeback_offer(match_id=match.pk, user=x, version=current_version(match))  # x's last action was ply 3; o answered with ply 4
    assert offers(match)["takeback"] == ["xPlayer"]
    assert_refused("takeback_pending", services.takeback_offer, match_id=match.pk, user=o, version=current_version(match))
    services.takeback_accept(match_id=match.pk, user=o, version=current_version(match))
    match.refresh_from_db()
    assert match.plies == 2 and list(match.moves.values_list("ply", flat=True)) == [1, 2]
    assert match.version > version  # pages never see the version go back
    assert match.state == replayed(match) == before and match.offers == ""
    assert get_game(match.game).to_move(get_game(match.game).state_from_json(match.state)) == "xPlayer"
    assert_refused("stale_version", services.move_submit, match_id=match.pk, user=x, action="x", version=version)
    match = move(match, x)  # play goes on from there, numbering the plies again
    assert match.plies == 3 and match.state == replayed(match)


def test_takeback_refusals():
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o])
    assert_refused("nothing_to_take_back", services.takeback_offer, match_id=match.pk, user=x, version=current_version(match))
    assert_refused("no_offer", services.takeback_accept, match_id=match.pk, user=o, version=current_version(match))
    match = move(match, x)
    services.takeback_offer(match_id=match.pk, user=x, version=current_version(match))
    assert_refused("no_offer", services.takeback_accept, match_id=match.pk, user=x, version=current_version(match))  # not your own
    services.takeback_decline(match_id=match.pk, user=o)
    match.refresh_from_db()
    assert offers(match)["takeback"] == [] and match.plies == 1
    match = move(match, o)
    services.takeback_offer(match_id=match.pk, user=o, version=current_version(match))
    match = move(match, x)  # a move drops the request
    assert offers(match)["takeback"] == []

    timed = move(start_match("nine-board-tictactoe", [x, o], time_control=TimeControl(base=60)), x)
    assert_refused("takebacks_off", services.takeback_offer, match_id=timed.pk, user=x, version=current_version(timed))


@pytest.mark.parametrize("players", [2, 3])
def test_a_declined_takeback_may_be_asked_again_only_after_a_move_of_ones_own(players):
    """As draws (and lichess): no asking again and again; the others may still ask."""
    slug = {2: "nine-board-tictactoe", 3: "tictactoe-3player"}[players]
    seated = make_players(players)
    first, second = seated[0], seated[1]
    match = play_first_moves(start_match(slug, seated), seated)
    services.takeback_offer(match_id=match.pk, user=first, version=current_version(match))
    for other in seated[1:]:
        if offers(match)["takeback"]:
            services.takeback_decline(match_id=match.pk, user=other)
    error = assert_refused("takeback_declined", services.takeback_offer, match_id=match.pk, user=first, version=current_version(match))
    assert "after your next move" in error.message
    assert selectors.match_snapshot_by_id(match_id=match.pk)["offers"]["takeback_declined"] == [get_game(slug).roles[0]]
    services.takeback_offer(match_id=match.pk, user=second, version=current_version(match))  # another player may ask
    services.takeback_decline(match_id=match.pk, user=first)
    assert offers(match)["takeback_declined"] == sorted(get_game(slug).roles[:2])
    match = move(match, first)  # the first seat is to move: moving frees it, and only it
    assert offers(match)["takeback_declined"] == [get_game(slug).roles[1]]
    services.takeback_offer(match_id=match.pk, user=first, version=current_version(match))
    assert offers(match)["takeback"] == [get_game(slug).roles[0]]
    assert_refused("takeback_pending", services.takeback_offer, match_id=match.pk, user=seated[-1], version=current_version(match))


def test_takebacks_in_correspondence_restart_the_movers_days(fake_time):
    x, o = make_players(2)
    match = move(start_match("nine-board-tictactoe", [x, o], time_control=TimeControl(days=1)), x)
    fake_time.advance(3600)
    services.takeback_offer(match_id=match.pk, user=x, version=current_version(match))
    services.takeback_accept(match_id=match.pk, user=o, version=current_version(match))
    match.refresh_from_db()
    assert match.plies == 0 and match.clock["running"] == "xPlayer"
    assert match.clock["remaining"]["xPlayer"] == 86_400_000


@pytest.mark.django_db(transaction=True)  # the computer is asked on commit
def test_the_computer_grants_takebacks_at_once(settings):
    settings.COMPUTER_WORKERS = "inline"
    x, = make_players(1)
    match = services.match_create(user=x, settings=MatchSettings("nine-board-tictactoe"), role="xPlayer",
                                  against_computer=True, computer_level=1)
    match = move(match, x)
    assert match.plies == 2  # the computer answered
    services.takeback_offer(match_id=match.pk, user=x, version=current_version(match))
    match.refresh_from_db()
    assert match.plies == 0 and match.state == replayed(match)


def test_a_takeback_takes_back_the_requesters_whole_turn():
    """A Quarto turn is two actions (choose a piece, place it): both go back together."""
    white, black = make_players(2)
    match = start_match("quarto-misere", [white, black])
    for player in (white, white, black, black):
        match = move(match, player)
    services.takeback_offer(match_id=match.pk, user=black, version=current_version(match))
    services.takeback_accept(match_id=match.pk, user=white, version=current_version(match))
    match.refresh_from_db()
    assert match.plies == 2 and match.state == replayed(match)
    assert get_game(match.game).to_move(get_game(match.game).state_from_json(match.state)) == "black"


@pytest.fixture
def computer_asked():
    """The versions at which the computer is asked for its turn; it answers only when the test
    plays it (``computer_answers``): until then it is thinking."""
    asked: list[int] = []
    with mock.patch("games.computer.bots.computer_turn_on_commit", lambda match_id, version: asked.append(version)):
        yield asked


def computer_answers(match: Match, turn: selectors.ComputerTurn | None = None) -> Match:
    """The computer's answer to ``turn`` (by default its turn now), submitted as its turns are:
    refused and ignored if the match has moved on since."""
    turn = turn or selectors.computer_turn(match_id=match.pk, version=match.version)
    bots._submit_turn(turn, turn.game.legal_actions(turn.state)[0])
    match.refresh_from_db()
    return match


def test_against_the_computer_a_real_time_takeback_is_granted_at_once_and_its_late_answer_is_stale(
        fake_time, computer_asked):
    x, = make_players(1)
    match = services.match_create(user=x, settings=MatchSettings("nine-board-tictactoe",
                                                                 time_control=TimeControl(60, 2)),
                                  role="xPlayer", against_computer=True, computer_level=1)
    match = computer_answers(move(match, x))
    after_the_first_moves = match.state
    fake_time.advance(5)
    match = move(match, x)  # charged 5 s, plus the 2 s increment
    assert computer_asked[-1] == match.version == 3
    thinking = selectors.computer_turn(match_id=match.pk, version=3)
    fake_time.advance(3)
    services.takeback_offer(match_id=match.pk, user=x, version=current_version(match))
    match.refresh_from_db()
    assert match.plies == 2 and match.state == after_the_first_moves == replayed(match) and match.offers == ""
    assert match.version == 4
    # Time spent stays spent: the computer's 3 s of thinking are charged (no increment: it made no
    # move), x keeps what its move left it; x's clock runs from the takeback.
    assert match.clock["remaining"] == {"xPlayer": 57_000, "oPlayer": 57_000} and match.clock["running"] == "xPlayer"
    assert match.deadline == fake_time.now + timedelta(seconds=57)
    match = computer_answers(match, thinking)  # its late answer, thought about before the takeback
    assert match.plies == 2 and match.version == 4
    assert computer_asked == [1, 3]  # not asked at the takeback: it is x's turn
    match = move(match, x)
    assert computer_asked[-1] == match.version == 5  # it thinks again, at the new version
    match = computer_answers(match)
    assert match.plies == 4 and match.moves.last().role == "oPlayer" and match.state == replayed(match)


def test_taking_back_a_first_move_against_the_computer_makes_it_a_first_move_again(fake_time, computer_asked):
    """In real time a seat's first move is not charged and has its own time: once taken back,
    the next one is a first move again (and the match, not begun, can be aborted)."""
    x, = make_players(1)
    match = services.match_create(user=x, settings=MatchSettings("nine-board-tictactoe",
                                                                 time_control=TimeControl(60, 0)),
                                  role="xPlayer", against_computer=True, computer_level=1)
    match = computer_answers(move(match, x))
    fake_time.advance(4)
    services.takeback_offer(match_id=match.pk, user=x, version=current_version(match))
    match.refresh_from_db()
    assert match.plies == 0 and match.clock["first"] == ["xPlayer", "oPlayer"]
    assert match.clock["remaining"] == {"xPlayer": 56_000, "oPlayer": 60_000}  # x's 4 s stay spent
    assert match.deadline == fake_time.now + timedelta(seconds=settings.FIRST_MOVE_SECONDS)
    services.match_abort(match_id=match.pk, user=x)


def test_a_first_move_taken_back_after_a_long_think_gets_its_whole_first_move_time(fake_time, computer_asked):
    """The first-move time counts from the takeback: counted from the start of the turn taken
    back, a player who had thought longer than it saw the match aborted at once."""
    x, = make_players(1)
    match = services.match_create(user=x, settings=MatchSettings("nine-board-tictactoe",
                                                                 time_control=TimeControl(300, 0)),
                                  role="xPlayer", against_computer=True, computer_level=1)
    match = computer_answers(move(match, x))
    fake_time.advance(settings.FIRST_MOVE_SECONDS + 10)  # thinking about the second move, on x's own clock
    services.takeback_offer(match_id=match.pk, user=x, version=current_version(match))
    match.refresh_from_db()
    assert match.deadline == fake_time.now + timedelta(seconds=settings.FIRST_MOVE_SECONDS)
    assert services.clock_sweep() == 0
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.clock["first"] == ["xPlayer", "oPlayer"]
    # the time spent stays spent, on x's own clock
    assert match.clock["remaining"] == {"xPlayer": (300 - settings.FIRST_MOVE_SECONDS - 10) * 1000, "oPlayer": 300_000}


def per_move_against_the_computer(x) -> Match:
    """A casual per-move match (30 s to start, 10 s a move) of ``x`` against the computer."""
    return services.match_create(user=x, settings=MatchSettings("nine-board-tictactoe",
                                                                time_control=TimeControl(start=30, play=10)),
                                 role="xPlayer", against_computer=True, computer_level=1)


def random_turn(match: Match, fake_time) -> Match:
    """The mover's per-move clock runs out: its turn is played at random."""
    match.refresh_from_db()
    fake_time.advance((match.deadline - fake_time.now).total_seconds() + 1)
    services.clock_flag(match_id=match.pk)
    match.refresh_from_db()
    return match


def test_a_takeback_takes_back_the_mark_of_a_move_played_at_random(fake_time, computer_asked):
    """Per move, x's turn ran out and was played at random, then taken back: x's own move at
    that ply is its own, on the match page, in the replay and in the GGP export."""
    from django.test import Client

    x, = make_players(1)
    match = per_move_against_the_computer(x)
    match = computer_answers(random_turn(match, fake_time))
    assert list(ReplacedMove.objects.filter(match=match).values_list("ply", "reason")) == [(1, "late")]
    services.takeback_offer(match_id=match.pk, user=x, version=current_version(match))
    match.refresh_from_db()
    assert match.plies == 0 and not ReplacedMove.objects.filter(match=match).exists()
    match = computer_answers(move(match, x))
    assert "replaced" not in selectors.match_snapshot(match=match)["moves"][0]
    services.match_resign(match_id=match.pk, user=x)
    assert "(at random" not in Client().get(f"/matches/{match.pk}/replay/").content.decode()
    assert "replacedMoves" not in Client().get(f"/matches/{match.pk}/export.json").json()


def test_a_turn_taken_back_may_run_out_again(fake_time, computer_asked):
    """A random move taken back leaves nothing behind that the next one at its ply collides with."""
    x, = make_players(1)
    match = per_move_against_the_computer(x)
    match = computer_answers(random_turn(match, fake_time))
    services.takeback_offer(match_id=match.pk, user=x, version=current_version(match))
    match = random_turn(match, fake_time)
    assert match.plies == 1 and match.status == Match.Status.ACTIVE
    assert list(ReplacedMove.objects.filter(match=match).values_list("ply", "reason")) == [(1, "late")]


def test_real_time_takebacks_stay_off_with_another_person_seated_or_in_a_rated_match():
    x, o = make_players(2)
    three = services.match_create(user=x, settings=MatchSettings("tictactoe-3player", time_control=TimeControl(60)),
                                  role="xplayer")
    services.seat_join(match_id=three.pk, user=o, role="oplayer")
    services.seat_give_to_computer(match_id=three.pk, user=x, role="zplayer", level=1)
    three = move(three, x)
    assert_refused("takebacks_off", services.takeback_offer, match_id=three.pk, user=x, version=current_version(three))
    services.match_resign(match_id=three.pk, user=x)  # one real-time match at a time
    rated = services.match_create(user=x, settings=MatchSettings("nine-board-tictactoe",
                                                                 time_control=TimeControl(60)),
                                  role="xPlayer", against_computer=True)
    Match.objects.filter(pk=rated.pk).update(rated=True)  # the computer plays casual only: should one be rated
    rated = move(rated, x)
    assert_refused("takebacks_off", services.takeback_offer, match_id=rated.pk, user=x, version=current_version(rated))


def test_per_move_takebacks_between_people_are_off_as_in_real_time():
    """The guide allows takebacks in untimed and correspondence matches only: a per-move match
    (the GGP way, seconds a move) offered and granted them, while the other side's play clock
    ran and a turn played at random could be taken back as the player's own."""
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o], time_control=TimeControl(start=30, play=10))
    match = move(move(match, x), o)
    assert_refused("takebacks_off", services.takeback_offer, match_id=match.pk, user=x, version=current_version(match))
    assert offers(match)["takeback"] == []
