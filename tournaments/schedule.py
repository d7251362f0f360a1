"""The site's own scheduled tournaments (``ScheduledEvent``, set up in the admin, no code): the
sweep lists each one ``lead_minutes`` before each of its daily start times. A start is created
once (a unique constraint on the event and the start time), however many processes sweep."""

from __future__ import annotations

import logging
import re
from datetime import datetime, time, timedelta
from datetime import timezone as dt_timezone

from django.db import IntegrityError, transaction

from games.match.clocks import TimeControl
from games.rules import SLUGS, get_game
from tournaments import arena, services
from tournaments.models import ScheduledEvent, Tournament

logger = logging.getLogger(__name__)

FORMATS = (Tournament.Format.ROUND_ROBIN, Tournament.Format.SWISS, Tournament.Format.ARENA)


def parse_times(text: str) -> list[time]:
    """Start times of day, UTC, written ``HH:MM`` and separated by spaces or commas; ValueError
    saying which one is wrong.

    >>> parse_times("18:00, 9:30")
    [datetime.time(9, 30), datetime.time(18, 0)]
    """
    found = set()
    for part in re.split(r"[\s,]+", text.strip()):
        match = re.fullmatch(r"([01]?\d|2[0-3]):([0-5]\d)", part)
        if not match:
            raise ValueError(f"{part!r} is not a time of day: write it as HH:MM (UTC), e.g. 18:00.")
        found.add(time(int(match[1]), int(match[2])))
    return sorted(found)


def starts_between(times: list[time], after: datetime, until: datetime) -> list[datetime]:
    """Every moment at one of ``times`` (UTC) with ``after`` < moment <= ``until``."""
    day, found = after.astimezone(dt_timezone.utc).date(), []
    while datetime.combine(day, time.min, dt_timezone.utc) <= until:
        found += [moment for t in times if after < (moment := datetime.combine(day, t, dt_timezone.utc)) <= until]
        day += timedelta(days=1)
    return found


def event_problems(event: ScheduledEvent) -> dict[str, str]:
    """What is wrong with an event's settings, by field (empty when it can run)."""
    problems = {}
    if event.game not in SLUGS:
        problems["game"] = f"There is no game called {event.game!r}: use a slug such as {SLUGS[0]}."
    elif len(get_game(event.game).roles) != 2:
        problems["game"] = "Scheduled tournaments are for two-player games."
    if event.format not in FORMATS:
        problems["format"] = "Scheduled events run round robins, Swiss tournaments and arenas."
    try:
        clock = TimeControl.parse(event.clock)
        if clock.kind == "per_move":
            problems["clock"] = "Tournaments are played in real time, by correspondence or untimed."
        elif event.format == Tournament.Format.SWISS and not clock.timed:
            problems["clock"] = "A Swiss needs a clock: real time or correspondence."
        elif event.format == Tournament.Format.ARENA and clock.kind != "real_time":
            problems["clock"] = "An arena is played in real time: a clock such as 3+2."
    except ValueError as err:
        problems["clock"] = str(err)
    try:
        parse_times(event.times)
    except ValueError as err:
        problems["times"] = str(err)
    if event.format == Tournament.Format.SWISS and not (
            services.SWISS_ROUNDS_MIN <= event.rounds <= services.SWISS_ROUNDS_MAX):
        problems["rounds"] = f"A Swiss has {services.SWISS_ROUNDS_MIN} to {services.SWISS_ROUNDS_MAX} rounds."
    if event.format == Tournament.Format.ARENA and not arena.MINUTES_MIN <= event.minutes <= arena.MINUTES_MAX:
        problems["minutes"] = f"An arena lasts {arena.MINUTES_MIN} to {arena.MINUTES_MAX} minutes."
    if event.cycles not in (1, 2):
        problems["cycles"] = "Everyone meets once or twice."
    most = {Tournament.Format.SWISS: services.SWISS_PLAYERS_MAX,
            Tournament.Format.ARENA: arena.PLAYERS_MAX}.get(event.format, services.PLAYERS_MAX)
    if not services.PLAYERS_MIN <= event.min_players <= event.max_players <= most:
        problems["max_players"] = f"The least and the most players lie between {services.PLAYERS_MIN} and {most}."
    return problems


def schedule_sweep(*, now: datetime) -> int:
    """Create the tournaments of every active event whose start falls within its lead time.
    Returns how many it created; an event with bad settings is skipped with a warning."""
    created = 0
    for event in ScheduledEvent.objects.filter(active=True):
        problems = event_problems(event)
        if problems:
            logger.warning("scheduled event %s (%s) skipped: %s", event.pk, event.name, "; ".join(problems.values()))
            continue
        taken = set(Tournament.objects.filter(scheduled_by=event, starts_at__gt=now).values_list("starts_at", flat=True))
        for start in starts_between(parse_times(event.times), now, now + timedelta(minutes=event.lead_minutes)):
            if start in taken:
                continue
            try:
                with transaction.atomic():
                    _create(event, start)
            except IntegrityError:
                continue  # another process created it
            created += 1
    return created


def _create(event: ScheduledEvent, start: datetime) -> Tournament:
    swiss, is_arena = event.format == Tournament.Format.SWISS, event.format == Tournament.Format.ARENA
    return Tournament.objects.create(
        name=event.name, game=event.game, format=event.format, rounds=event.rounds if swiss else 0,
        cycles=event.cycles if event.format == Tournament.Format.ROUND_ROBIN else 1,
        minutes=event.minutes if is_arena else 0, rated=event.rated, min_players=event.min_players,
        max_players=event.max_players, starts_at=start, created_by=event.host, scheduled_by=event,
        **TimeControl.parse(event.clock).fields())
