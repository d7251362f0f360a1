"""games.match.clocks: time controls and clock arithmetic, with no database and no real time."""

from datetime import datetime, timedelta
from datetime import timezone as tz

import pytest

from games.match import clocks
from games.match.clocks import OutOfTime, TimeControl

pytestmark = pytest.mark.pure  # no database, no channel layer: stage 1 only (bin/test)

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=tz.utc)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


@pytest.mark.parametrize("code, control, label", [
    ("untimed", TimeControl(), "untimed"),
    ("5+3", TimeControl(base=300, increment=3), "5+3"),
    ("1+0", TimeControl(base=60, increment=0), "1+0"),
    ("d2", TimeControl(days=2), "2 days"),
    ("d1", TimeControl(days=1), "1 day"),
])
def test_codes_round_trip(code, control, label):
    assert TimeControl.parse(code) == control
    assert control.code == code and control.label == label


@pytest.mark.parametrize("code", ["", "0+0", "181+0", "5+61", "5+-1", "d4", "d0", "dx", "5", "+3", "5+3+1", "５+3",
                                  "untimed ", "x" * 1000])
def test_out_of_bounds_codes_are_refused(code):
    with pytest.raises(ValueError):
        TimeControl.parse(code)


def test_choices_offer_untimed_presets_days_and_per_move():
    codes = [code for code, _ in clocks.choices()]
    assert codes == ["untimed", "1+1", "3+2", "5+3", "10+5", "d1", "d2", "d3", "d7", "m30/10", "m60/20", "m120/60"]
    assert all(TimeControl.parse(code).code == code for code in codes)


def test_untimed_has_no_clock():
    assert clocks.start(TimeControl(), ["x", "o"], "x", T0) == (None, None)
    assert clocks.advance(TimeControl(), None, after="o", at=at(5)) == (None, None)
    clocks.check(None, at(10**6))  # never out of time


def test_real_time_charges_the_mover_and_adds_the_increment():
    control = TimeControl(base=60, increment=2)
    clock, deadline = clocks.start(control, ["x", "o"], "x", T0)
    assert clock["remaining"] == {"x": 60_000, "o": 60_000} and clock["running"] == "x" and deadline == at(60)
    clock, deadline = clocks.advance(control, clock, after="o", at=at(10.5))
    assert clock["remaining"] == {"x": 51_500, "o": 60_000} and clock["running"] == "o"
    assert deadline == at(70.5)
    clock, deadline = clocks.advance(control, clock, after="x", at=at(20.5))
    assert clock["remaining"] == {"x": 51_500, "o": 52_000} and deadline == at(20.5 + 51.5)


def test_a_turn_of_several_actions_is_charged_once():
    control = TimeControl(base=60, increment=5)
    clock, _ = clocks.start(control, ["white", "black"], "white", T0)
    same, deadline = clocks.advance(control, clock, after="white", at=at(4))  # chose a piece, places next
    assert same == clock and deadline == at(60)
    clock, _ = clocks.advance(control, same, after="black", at=at(9))
    assert clock["remaining"]["white"] == 60_000 - 9_000 + 5_000


def test_out_of_time_at_the_deadline_not_before():
    control = TimeControl(base=60)
    clock, _ = clocks.start(control, ["x", "o"], "x", T0)
    clocks.check(clock, at(59.999))
    with pytest.raises(OutOfTime):
        clocks.check(clock, at(60))


def test_the_last_move_stops_the_clock_without_increment():
    control = TimeControl(base=60, increment=10)
    clock, _ = clocks.start(control, ["x", "o"], "x", T0)
    clock, deadline = clocks.advance(control, clock, after=None, at=at(7))
    assert clock["remaining"]["x"] == 53_000 and clock["running"] is None and deadline is None


def test_correspondence_gives_every_turn_the_same_days():
    control = TimeControl(days=2)
    clock, deadline = clocks.start(control, ["x", "o"], "x", T0)
    assert deadline == at(2 * 86_400)
    clock, _ = clocks.advance(control, clock, after="o", at=at(86_000))
    clock, deadline = clocks.advance(control, clock, after="x", at=at(90_000))
    assert clock["remaining"]["x"] == 2 * 86_400_000 and deadline == at(90_000 + 2 * 86_400)


def test_three_players_each_have_a_clock():
    control = TimeControl(base=60)
    clock, _ = clocks.start(control, ["x", "o", "z"], "x", T0)
    clock, _ = clocks.advance(control, clock, after="o", at=at(5))
    clock, _ = clocks.advance(control, clock, after="z", at=at(12))
    assert clock["remaining"] == {"x": 55_000, "o": 53_000, "z": 60_000}


def test_flag_zeroes_and_stops_the_running_clock():
    clock, _ = clocks.start(TimeControl(base=60), ["x", "o"], "x", T0)
    flagged = clocks.flag(clock)
    assert flagged["remaining"] == {"x": 0, "o": 60_000} and flagged["running"] is None
    assert clocks.deadline(flagged) is None


def test_public_view_counts_from_the_turn_start():
    control = TimeControl(base=180, increment=2)
    clock, _ = clocks.start(control, ["x", "o"], "x", T0)
    view = clocks.public(control, clock, at(3))
    assert view["label"] == "3+2" and view["running"] == "x" and view["remaining"] == {"x": 180_000, "o": 180_000}
    assert view["now"] - view["since"] == 3000
    assert clocks.public(TimeControl(), None, at(3))["kind"] == "untimed"


@pytest.mark.parametrize("control, turn_ms", [(TimeControl(days=1), 86_400_000), (TimeControl(start=30, play=10), 10_000)])
def test_public_view_gives_a_waiting_seat_its_whole_next_turn(control, turn_ms):
    """Correspondence and per move: every turn has the whole time, so the seat waiting for its
    turn shows that, not what its last turn left over (a per-move seat that moved at the last
    moment read 0:00.0, in red, as if its flag had fallen, while the other side thought)."""
    clock, _ = clocks.start(control, ["x", "o"], "x", T0)
    clock, _ = clocks.advance(control, clock, after="o", at=at(9.5))
    assert clocks.public(control, clock, at(10))["remaining"] == {"x": turn_ms, "o": turn_ms}
    ended, _ = clocks.advance(control, clock, after=None, at=at(12))
    assert clocks.public(control, ended, at(13))["remaining"] == ended["remaining"]  # over: as it ended


# -- the computer's thinking time (think_seconds) -------------------------------------------------

def running(role: str, left_ms: int, **extra) -> dict:
    return {"remaining": {"x": left_ms, "o": 60_000}, "since": 0, "running": role, **extra}


@pytest.mark.parametrize("control", [TimeControl(), TimeControl(days=2)])
def test_the_computer_thinks_its_whole_budget_without_a_clock_to_follow(control):
    clock = None if not control.timed else running("x", 172_800_000)
    assert clocks.think_seconds(control, clock, "x", T0, 1.5) == 1.5


def test_the_computer_thinks_its_whole_budget_while_its_real_time_clock_is_full():
    assert clocks.think_seconds(TimeControl(60, 1), running("x", 60_000), "x",
                                datetime.fromtimestamp(0, tz=tz.utc), 1.5) == 1.5


def test_a_real_time_computer_short_of_time_spends_a_share_of_what_is_left_plus_the_increment():
    control = TimeControl(60, 2)
    # 10 s left at the start of the turn, 2 s of it gone: 8 s over 20 moves, and 80% of the 2 s increment
    assert clocks.think_seconds(control, running("x", 10_000, since=0), "x",
                                datetime.fromtimestamp(2, tz=tz.utc), 5.0) == pytest.approx(8 / 20 + 1.6)
    # without an increment, the share of what is left alone
    assert clocks.think_seconds(TimeControl(60), running("x", 10_000), "x",
                                datetime.fromtimestamp(0, tz=tz.utc), 5.0) == pytest.approx(0.5)


def test_the_computer_never_thinks_more_than_half_of_what_it_has_left():
    control = TimeControl(60, 10)  # the increment alone would ask for 8 s
    assert clocks.think_seconds(control, running("x", 3_000), "x",
                                datetime.fromtimestamp(0, tz=tz.utc), 30.0) == pytest.approx(1.5)
    assert clocks.think_seconds(control, running("x", 3_000), "x",
                                datetime.fromtimestamp(5, tz=tz.utc), 30.0) == 0.0  # flagged: nothing left


def test_a_per_move_turn_and_an_uncharged_first_move_take_half_of_their_own_time():
    per_move = TimeControl(start=30, play=2)
    clock = {"remaining": {"x": 2_000, "o": 2_000}, "since": 0, "running": "x"}
    assert clocks.think_seconds(per_move, clock, "x", datetime.fromtimestamp(0, tz=tz.utc), 1.5) == 1.0
    first = running("x", 60_000, first=["x", "o"], first_ms=1_000)
    assert clocks.think_seconds(TimeControl(60), first, "x", datetime.fromtimestamp(0, tz=tz.utc), 1.5) == 0.5


def test_a_clock_running_for_another_seat_leaves_the_whole_budget():
    assert clocks.think_seconds(TimeControl(60), running("o", 1_000), "x", T0, 1.5) == 1.5
