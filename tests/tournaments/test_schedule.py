"""The site's scheduled events: each start listed once within its lead time, round robins and
Swiss tournaments, a broken event skipped, settings checked field by field (the admin's form
too), start times across midnight."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from games.match.clocks import TimeControl
from tests.support.players import make_accounts
from tournaments import schedule
from tournaments.admin import ScheduledEventForm
from tournaments.models import Entry, ScheduledEvent, Tournament

pytestmark = pytest.mark.django_db
GAME = "nine-board-tictactoe"


def event(host, **overrides) -> ScheduledEvent:
    fields = {"name": "Hourly Swiss", "game": GAME, "format": Tournament.Format.SWISS, "clock": "3+2",
              "rounds": 5, "times": "18:00 20:30", "lead_minutes": 120, "host": host}
    return ScheduledEvent.objects.create(**{**fields, **overrides})


def test_a_scheduled_event_lists_each_start_once_within_its_lead_time():
    (host,) = make_accounts(1, prefix="site")
    weekly = event(host)
    now = datetime(2026, 12, 6, 17, 0, tzinfo=UTC)
    assert schedule.schedule_sweep(now=now) == 1
    assert schedule.schedule_sweep(now=now + timedelta(minutes=5)) == 0  # once, however often it sweeps
    (made,) = Tournament.objects.filter(scheduled_by=weekly)
    assert (made.format, made.rounds, made.starts_at, made.created_by_id) == ("swiss", 5, now + timedelta(hours=1),
                                                                              host.pk)
    assert TimeControl.of(made) == TimeControl(base=180, increment=2)
    assert not Entry.objects.filter(tournament=made).exists()  # the host is not entered
    assert schedule.schedule_sweep(now=now + timedelta(hours=2)) == 1  # 20:30 comes within two hours


def test_a_scheduled_round_robin_and_a_broken_event():
    (host,) = make_accounts(1, prefix="site")
    event(host, format=Tournament.Format.ROUND_ROBIN, cycles=2, times="09:00")
    event(host, name="broken", game="chess", times="25:00")
    assert schedule.schedule_sweep(now=datetime(2026, 12, 6, 8, 0, tzinfo=UTC)) == 1
    (made,) = Tournament.objects.all()
    assert (made.format, made.cycles) == ("round_robin", 2)


def test_a_scheduled_arena_is_listed_and_then_started_and_paired_by_the_sweep():
    """The site's hourly arena: listed ahead, started at its time by the arenas' sweep with the
    players who joined, who are paired at once."""
    from tournaments import arena

    (host,) = make_accounts(1, prefix="site")
    hourly = event(host, name="Hourly arena", format=Tournament.Format.ARENA, minutes=30, times="18:00")
    now = datetime(2026, 12, 6, 17, 30, tzinfo=UTC)
    assert schedule.schedule_sweep(now=now) == 1
    (made,) = Tournament.objects.filter(scheduled_by=hourly)
    assert (made.format, made.minutes, made.cycles) == ("arena", 30, 1)
    a, b = make_accounts(2, prefix="arena")
    for player in (a, b):
        arena.arena_join(tournament_id=made.pk, user=player, now=now)
    arena.arenas_sweep(now=now + timedelta(minutes=31))
    made.refresh_from_db()
    assert made.status == Tournament.Status.RUNNING
    assert made.games.exclude(match=None).count() == 1


def test_a_scheduled_arena_needs_a_real_time_clock_and_a_duration():
    (host,) = make_accounts(1, prefix="site")
    problems = schedule.event_problems(ScheduledEvent(name="x", game=GAME, format=Tournament.Format.ARENA,
                                                      clock="d1", minutes=500, times="18:00", host=host))
    assert set(problems) == {"clock", "minutes"}


def test_event_settings_are_checked_field_by_field():
    (host,) = make_accounts(1, prefix="site")
    problems = schedule.event_problems(ScheduledEvent(name="x", game="chess", clock="m30/10", times="7pm",
                                                      rounds=1, host=host))
    assert set(problems) == {"game", "clock", "times", "rounds"}


def test_start_times_are_found_across_midnight():
    times = schedule.parse_times("23:30, 00:15")
    after = datetime(2026, 12, 6, 23, 0, tzinfo=UTC)
    assert schedule.starts_between(times, after, after + timedelta(hours=2)) == [
        datetime(2026, 12, 6, 23, 30, tzinfo=UTC), datetime(2026, 12, 7, 0, 15, tzinfo=UTC)]
    with pytest.raises(ValueError, match="HH:MM"):
        schedule.parse_times("18h")


def test_the_admin_form_refuses_settings_that_cannot_run_and_saves_good_ones():
    (host,) = make_accounts(1, prefix="site")
    fields = {"name": "Nightly", "game": GAME, "format": "swiss", "clock": "5+3", "rounds": 5, "cycles": 1, "minutes": 60,
              "min_players": 2, "max_players": 20, "times": "21:00", "lead_minutes": 60, "host": host.pk,
              "rated": "on", "active": "on"}
    bad = ScheduledEventForm(data={**fields, "clock": "m30/10", "times": "9pm"})
    assert not bad.is_valid() and set(bad.errors) == {"clock", "times"}
    good = ScheduledEventForm(data=fields)
    assert good.is_valid(), good.errors
    good.save()
    assert ScheduledEvent.objects.get().times == "21:00"
