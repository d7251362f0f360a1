"""Timed matches against the database, with the clocks' time moved by hand (``fake_time``):
in real time each seat first has ``FIRST_MOVE_SECONDS`` for its first move (uncharged; too
late aborts the match), then its clock runs; moves are charged, late moves are refused, flags
fall by the service and by the sweep after a restart, once."""

import time
from datetime import datetime, timedelta
from datetime import timezone as tz

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import selectors, services
from games.computer import bots
from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import Match, Move, Rating
from games.rules import GAMES, get_game
from games.services import broadcast, flagfall, moves
from tests.games.services.test_services import assert_refused
from tests.support.players import make_accounts, make_players, start_match

pytestmark = pytest.mark.django_db

BLITZ = TimeControl(base=180, increment=2)


def move(match: Match, user, action: str | None = None) -> Match:
    match.refresh_from_db()
    game = get_game(match.game)
    state = game.state_from_json(match.state)
    services.move_submit(match_id=match.pk, user=user, action=action or game.legal_actions(state)[0],
                         version=match.version)
    match.refresh_from_db()
    return match


def every_seat_moves(match: Match, players: list) -> Match:
    """One move each, at once: the match has begun (a seat that never moved is not flagged but
    aborts the match), its clocks run, and the first player is to move again."""
    for player in players:
        match = move(match, player)
    return match


def test_an_untimed_match_has_no_clock(fake_time):
    x, o = make_players(2)
    match = move(start_match("nine-board-tictactoe", [x, o]), x)
    assert match.clock is None and match.deadline is None
    assert selectors.match_snapshot(match=match)["clock"]["kind"] == "untimed"


def test_the_clock_starts_when_the_last_seat_is_taken(fake_time):
    x, o = make_players(2)
    match = services.match_create(user=x, settings=MatchSettings("nine-board-tictactoe", time_control=BLITZ),
                                  role="xPlayer")
    assert match.clock is None and match.deadline is None
    fake_time.advance(30)  # waiting for an opponent costs nothing
    services.seat_join(match_id=match.pk, user=o)
    match.refresh_from_db()
    assert match.clock["remaining"] == {"xPlayer": 180_000, "oPlayer": 180_000}
    # X has FIRST_MOVE_SECONDS for its first move; its own clock starts at that move
    assert match.clock["running"] == "xPlayer" and match.deadline == fake_time.now + timedelta(seconds=30)
    assert match.clock["first"] == ["xPlayer", "oPlayer"]


def test_first_moves_are_not_charged_and_then_each_clock_runs(fake_time, settings):
    settings.FIRST_MOVE_SECONDS = 20
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o], time_control=BLITZ)
    fake_time.advance(15)
    match = move(match, x)
    assert match.clock["remaining"] == {"xPlayer": 180_000, "oPlayer": 180_000} and match.clock["first"] == ["oPlayer"]
    assert match.clock["running"] == "oPlayer" and match.deadline == fake_time.now + timedelta(seconds=20)
    fake_time.advance(19)
    match = move(match, o)
    assert match.clock["remaining"] == {"xPlayer": 180_000, "oPlayer": 180_000} and match.clock["first"] == []
    assert match.clock["running"] == "xPlayer" and match.deadline == fake_time.now + timedelta(seconds=180)
    public = selectors.match_snapshot(match=match)["clock"]
    assert public["first"] == [] and public["first_ms"] == 20_000


def test_correspondence_and_untimed_have_no_first_move_limit(fake_time):
    x, o, a, b = make_players(4)
    mail = start_match("nine-board-tictactoe", [x, o], time_control=TimeControl(days=1))
    untimed = start_match("nine-board-tictactoe", [a, b])
    assert "first" not in mail.clock and mail.deadline == fake_time.now + timedelta(days=1)
    assert untimed.clock is None and untimed.deadline is None


def test_a_move_is_charged_its_time_plus_the_increment(fake_time):
    x, o = make_players(2)
    match = every_seat_moves(start_match("nine-board-tictactoe", [x, o], time_control=BLITZ), [x, o])
    fake_time.advance(10)
    match = move(match, x)
    assert match.clock["remaining"] == {"xPlayer": 172_000, "oPlayer": 180_000}
    assert match.clock["running"] == "oPlayer" and match.deadline == fake_time.now + timedelta(seconds=180)
    fake_time.advance(100)
    match = move(match, o)
    assert match.clock["remaining"] == {"xPlayer": 172_000, "oPlayer": 82_000}
    snapshot = selectors.match_snapshot(match=match)
    assert snapshot["clock"]["remaining"] == match.clock["remaining"] and snapshot["clock"]["label"] == "3+2"


@pytest.mark.django_db(transaction=True)  # the memory is written on commit
def test_the_fast_path_charges_the_clock_too(fake_time):
    x, o = make_players(2)
    match = every_seat_moves(start_match("nine-board-tictactoe", [x, o], time_control=BLITZ), [x, o])
    match = move(match, x)
    assert match.pk in moves.known  # the next move is checked from memory
    fake_time.advance(7)
    match = move(match, o)
    assert match.clock["remaining"]["oPlayer"] == 175_000 and match.plies == 4


def test_quarto_choosing_and_placing_is_one_turn_of_one_clock(fake_time):
    white, black = make_players(2)
    match = start_match("quarto-misere", [white, black], time_control=TimeControl(base=60, increment=5))
    fake_time.advance(3)
    match = move(match, white)  # chooses a piece for itself
    assert match.clock["running"] == "white" and match.deadline == fake_time.now + timedelta(seconds=27)
    fake_time.advance(4)
    match = move(match, white)  # places it: its first turn ends, not charged
    assert match.clock["running"] == "black" and match.clock["remaining"]["white"] == 60_000
    match = every_seat_moves(match, [black, black])  # black's first turn: place, choose
    fake_time.advance(3)
    match = move(match, white)
    fake_time.advance(4)
    match = move(match, white)
    assert match.clock["running"] == "black" and match.clock["remaining"]["white"] == 60_000 - 7_000 + 5_000


def test_quarto_classic_order_each_action_is_its_movers(fake_time):
    white, black = make_players(2)
    match = start_match("quarto-misere-classic", [white, black], time_control=TimeControl(base=60))
    match = every_seat_moves(match, [white, black, black])  # black places, then chooses for white
    fake_time.advance(3)
    match = move(match, white)  # places the piece it was given
    match = move(match, white)  # chooses the piece black must place
    assert match.clock["running"] == "black" and match.clock["remaining"]["white"] == 57_000


def test_correspondence_gives_each_move_its_days(fake_time):
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o], time_control=TimeControl(days=3))
    fake_time.advance(2 * 86_400)
    match = move(match, x)
    assert match.deadline == fake_time.now + timedelta(days=3)
    assert match.clock["remaining"]["oPlayer"] == 3 * 86_400_000


def test_a_move_after_the_deadline_is_refused_and_the_match_ends_on_time(fake_time):
    x, o = make_players(2)
    match = every_seat_moves(start_match("nine-board-tictactoe", [x, o], time_control=BLITZ), [x, o])
    fake_time.advance(182)  # 180 s and one increment
    err = assert_refused("out_of_time", services.move_submit, match_id=match.pk, user=x,
                         action=get_game(match.game).legal_actions(get_game(match.game).state_from_json(match.state))[0],
                         version=match.version)
    assert "time" in err.message
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.plies == 2 and Move.objects.filter(match=match).count() == 2
    assert match.result["scores"] == {"xPlayer": 0, "oPlayer": 100}
    assert match.result["reason"] == "xPlayer ran out of time"
    assert match.clock["remaining"]["xPlayer"] == 0 and match.deadline is None


def test_the_flag_falls_once_and_not_before_the_deadline(fake_time):
    x, o = make_players(2)
    match = every_seat_moves(start_match("nine-board-tictactoe", [x, o], time_control=BLITZ), [x, o])
    fake_time.advance(179)
    assert services.clock_flag(match_id=match.pk) == match.deadline  # still ahead: nothing happens
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    fake_time.advance(1)
    assert services.clock_flag(match_id=match.pk) is None
    match.refresh_from_db()
    finished_at, version = match.finished_at, match.version
    assert match.status == Match.Status.FINISHED and match.result["winners"] == ["oPlayer"]
    assert services.clock_flag(match_id=match.pk) is None  # again: nothing changes
    match.refresh_from_db()
    assert (match.finished_at, match.version) == (finished_at, version)
    assert services.clock_flag(match_id=10**9) is None  # no such match


def test_three_players_the_flagged_seat_resigns_and_play_goes_on(fake_time):
    x, o, z = make_players(3)
    match = every_seat_moves(start_match("tictactoe-3player", [x, o, z], time_control=TimeControl(base=60)), [x, o, z])
    fake_time.advance(60)
    services.clock_flag(match_id=match.pk)
    match.refresh_from_db()
    seats = {s.role: (s.resigned, s.out) for s in match.seats.all()}
    assert match.status == Match.Status.ACTIVE and seats == {"xplayer": (True, "time"), "oplayer": (False, ""),
                                                             "zplayer": (False, "")}
    assert match.plies == 4  # the flagged seat's turn was played for it
    assert match.clock["running"] == "oplayer" and match.deadline == fake_time.now + timedelta(seconds=60)
    fake_time.advance(60)
    services.clock_flag(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.result["scores"] == {"xplayer": 0, "oplayer": 0, "zplayer": 100}
    assert match.result["reason"] == "oplayer ran out of time"


def test_the_sweep_flags_deadlines_missed_while_no_process_watched(fake_time):
    a, b, c, d, e, f = make_players(6)
    overdue = every_seat_moves(start_match("nine-board-tictactoe", [a, b], time_control=TimeControl(base=60)), [a, b])
    fake_time.advance(30)
    later = every_seat_moves(start_match("nine-board-tictactoe", [c, d], time_control=TimeControl(base=60)), [c, d])
    untimed = start_match("quarto-misere", [c, d])
    unmoved = start_match("quarto-misere", [e, f], time_control=TimeControl(base=60))  # 30 s for a first move
    moves.known.clear()  # a restart: this process remembers nothing and has no timers
    flagfall.reset()
    fake_time.advance(40)
    assert services.clock_sweep() == 2
    statuses = dict(Match.objects.values_list("pk", "status"))
    assert statuses == {overdue.pk: "finished", later.pk: "active", untimed.pk: "active", unmoved.pk: "aborted"}
    assert services.clock_sweep() == 0


def test_an_active_match_of_rules_the_site_no_longer_has_is_called_off_unrated_by_the_flag_and_the_sweep(
        fake_time, caplog, monkeypatch):
    """Its rule set removed since (or its row damaged): nobody can tell whose flag fell, and
    nobody can move, resign or abort it (``unknown_rules``). Its timer, or the sweep, calls it
    off, not rated, saying why, with one warning; an untimed one too, at the sweep; the sweep
    flags the other overdue matches and meets neither again. Before, the flag raised (then
    skipped it): it stayed active in its players' lists for good, met by every sweep."""
    a, b = make_accounts(2)
    c, d, e, f = make_players(4)
    gone = every_seat_moves(start_match("nine-board-tictactoe", [a, b], rated=True,
                                        time_control=TimeControl(base=60)), [a, b])
    untimed = every_seat_moves(start_match("nine-board-tictactoe", [e, f]), [e, f])
    overdue = every_seat_moves(start_match("nine-board-tictactoe", [c, d], time_control=TimeControl(base=60)), [c, d])
    Match.objects.filter(pk__in=[gone.pk, untimed.pk]).update(game="gone-rules")
    moves.known.clear()  # a restart: this process remembers nothing and has no timers
    flagfall.reset()
    told = []
    monkeypatch.setattr(broadcast, "mine_changed_on_commit", lambda players: told.extend(players))
    fake_time.advance(70)
    assert services.clock_flag(match_id=gone.pk) is None  # its timer
    assert services.clock_sweep() == 2  # the overdue match and the untimed one
    assert services.clock_sweep() == 0
    assert dict(Match.objects.values_list("pk", "status")) == {gone.pk: "aborted", untimed.pk: "aborted",
                                                               overdue.pk: "finished"}
    for match in (gone, untimed):
        match.refresh_from_db()
        assert match.result == {"aborted": True, "reason": "the site no longer has its rules (gone-rules)"}
        assert match.deadline is None
    assert not Rating.objects.filter(player__in=[a, b]).exists()  # not rated
    assert told == [a, b, e, f]  # their home pages read their lists again
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warned == [f"match {m.pk} names rules this site does not have (gone-rules): called off, not rated"
                      for m in (gone, untimed)]
    assert "Traceback" not in caplog.text and "Error" not in caplog.text


def test_only_a_processs_first_sweep_looks_for_rules_the_site_no_longer_has(fake_time):
    """That look reads every active match's ``game``, which the (status, deadline) index cannot
    answer, and a rule set goes only with a new release, whose processes sweep first. So the
    first sweep calls such a match off and the later ones read only the overdue deadlines: a
    row damaged meanwhile waits for its flag timer or the next start. Before, every sweep read
    every active match."""
    a, b, c, d = make_players(4)
    gone = every_seat_moves(start_match("nine-board-tictactoe", [a, b]), [a, b])
    damaged = every_seat_moves(start_match("nine-board-tictactoe", [c, d]), [c, d])
    Match.objects.filter(pk=gone.pk).update(game="gone-rules")
    with CaptureQueriesContext(connection) as first:
        assert services.clock_sweep() == 1
    Match.objects.filter(pk=damaged.pk).update(game="gone-rules")
    with CaptureQueriesContext(connection) as later:
        assert services.clock_sweep() == 0
    assert dict(Match.objects.values_list("pk", "status")) == {gone.pk: "aborted", damaged.pk: "active"}
    look = first.captured_queries[0]["sql"]
    assert '"deadline"' in look and '"game"' in look
    assert len(later.captured_queries) == 1  # the one look, which names no rule set
    assert '"deadline"' in later.captured_queries[0]["sql"] and '"game"' not in later.captured_queries[0]["sql"]


@pytest.mark.parametrize("control", [BLITZ, TimeControl(days=1)], ids=["real time", "correspondence"])
@pytest.mark.parametrize("moved", [0, 1])
def test_a_seat_out_of_time_before_its_first_move_calls_the_match_off(fake_time, moved, control):
    """As on lichess: a game nobody (or only the first player) began is aborted, not lost,
    and counts nowhere; a rated one changes no rating. In real time that is the first-move
    time (``FIRST_MOVE_SECONDS``), not the seat's clock."""
    from tests.support.players import make_accounts

    x, o = make_accounts(2)
    match = start_match("nine-board-tictactoe", [x, o], rated=True, time_control=control)
    match = every_seat_moves(match, [x, o][:moved])
    to_move = ["xPlayer", "oPlayer"][moved]
    fake_time.advance(29 if control.base else 86_399)
    assert services.clock_flag(match_id=match.pk) == match.deadline  # not yet
    fake_time.advance(1)
    assert services.clock_flag(match_id=match.pk) is None
    match.refresh_from_db()
    assert match.status == Match.Status.ABORTED and match.deadline is None
    assert match.result == {"aborted": True, "reason": f"{to_move} ran out of time before moving"}
    if control.base:
        assert match.clock["remaining"] == {"xPlayer": 180_000, "oPlayer": 180_000}  # no clock ever ran
    assert not match.seats.filter(resigned=True).exists()
    assert not match.seats.exclude(rating_after=None).exists()
    assert services.clock_sweep() == 0


def test_claims_are_for_untimed_matches(fake_time):
    x, o = make_players(2)
    match = start_match("nine-board-tictactoe", [x, o], time_control=BLITZ)
    assert_refused("timed_match", services.match_claim, match_id=match.pk, user=o)


def test_a_rematch_keeps_the_time_control(fake_time):
    x, o = make_players(2)
    match = every_seat_moves(start_match("nine-board-tictactoe", [x, o], time_control=BLITZ), [x, o])
    fake_time.advance(200)
    services.clock_flag(match_id=match.pk)
    new = services.rematch_offer(match_id=match.pk, user=o)
    assert TimeControl.of(new) == BLITZ and new.clock is None
    services.seat_join(match_id=new.pk, user=x)
    new.refresh_from_db()
    assert new.clock["running"] == "xPlayer" and new.deadline is not None


@pytest.mark.django_db(transaction=True)  # the computer is asked on commit
def test_the_computer_plays_against_its_clock(fake_time, settings):
    settings.COMPUTER_WORKERS = "inline"
    x, = make_players(1)
    match = services.match_create(user=x, settings=MatchSettings("nine-board-tictactoe", time_control=TimeControl(base=60)),
                                  role="oPlayer", against_computer=True, computer_level=1)
    match.refresh_from_db()
    assert match.plies == 1 and match.clock["running"] == "oPlayer"  # the computer moved first, on its clock


def test_the_computer_thinks_less_when_its_clock_runs_short(fake_time, settings):
    settings.COMPUTER_SECONDS = 2.0
    x, = make_players(1)
    match = services.match_create(user=x, settings=MatchSettings("nine-board-tictactoe", time_control=TimeControl(base=60)),
                                  role="xPlayer", against_computer=True, computer_level=1)
    match = move(match, x)  # not on commit: the computer's turn waits for the test
    turn = selectors.computer_turn(match_id=match.pk, version=match.version)
    assert turn.seconds == 2.0  # its first move: 30 s uncharged, half of it is more than its budget
    running_since = int(fake_time().timestamp() * 1000)
    Match.objects.filter(pk=match.pk).update(clock={**match.clock, "first": [], "since": running_since,
                                                    "remaining": {"xPlayer": 50_000, "oPlayer": 4_000}})
    fake_time.advance(1)
    turn = selectors.computer_turn(match_id=match.pk, version=match.version)
    assert turn.seconds == pytest.approx(3 / 20)  # 3 s left, spread over 20 moves
    call = bots._think_args(turn)
    assert call.keywords["seconds"] == turn.seconds
    assert call.keywords["answer_by"] - time.time() == pytest.approx(turn.seconds, abs=0.5)


def test_the_sweep_command_ends_overdue_matches(fake_time):
    from io import StringIO

    from django.core.management import call_command

    x, o = make_players(2)
    match = every_seat_moves(start_match("nine-board-tictactoe", [x, o], time_control=TimeControl(base=60)), [x, o])
    fake_time.advance(61)
    out = StringIO()
    call_command("clock_sweep", stdout=out)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and out.getvalue().strip() == "1 match ended on time."


@pytest.mark.parametrize("slug", [g.slug for g in GAMES])
def test_every_rule_set_runs_its_clock_and_flags(slug, fake_time):
    game = get_game(slug)
    players = make_players(len(game.roles))
    match = start_match(slug, players, time_control=TimeControl(base=60, increment=2))
    by_role = dict(zip(game.roles, players))
    for seconds in (3, 5, 7, 11, 2, 3, 4):
        state = game.state_from_json(match.state)
        fake_time.advance(seconds)
        match = move(match, by_role[game.to_move(state)])
        state = game.state_from_json(match.state)
        mover = game.to_move(state)
        assert match.clock["running"] == mover
        turn_began = datetime.fromtimestamp(match.clock["since"] / 1000, tz=tz.utc)
        assert turn_began <= fake_time.now  # the same player may still be in their turn (Quarto)
        allowed = 30_000 if mover in match.clock["first"] else match.clock["remaining"][mover]
        assert match.deadline == turn_began + timedelta(milliseconds=allowed)
        assert all(0 < left <= 62_000 for left in match.clock["remaining"].values())
    assert not match.clock["first"]  # every seat has moved
    flagged = game.to_move(game.state_from_json(match.state))
    fake_time.advance(62)
    services.clock_flag(match_id=match.pk)
    match.refresh_from_db()
    assert match.seats.get(role=flagged).resigned or match.result["scores"][flagged] == 0
    assert match.status == (Match.Status.ACTIVE if len(game.roles) == 3 else Match.Status.FINISHED)
