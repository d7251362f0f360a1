"""Time controls and the clock of a match: plain values and arithmetic, no database.

The server alone keeps time. A match's clock (``Match.clock``) holds each seat's remaining
milliseconds as of the moment the current turn began (``since``); the seat to move is the one
whose time is running, and ``Match.deadline`` is when it runs out. A turn ends when the seat
to move changes (in Quarto's self-selection order, placing and then choosing a piece is one
turn of one clock): the mover is charged the time since ``since`` and, in real time, gets the
increment. Correspondence gives each turn the same number of days, whatever was left before;
per move (the GGP way: a start clock and a play clock, in seconds) gives each turn the play
clock, and the first turn the start clock too. When a per-move turn runs out, a random legal
move is played for the mover and marked as such (``games.services.clocks``): the match goes on
(in a rated match, unless the seat does not play at all: ``absence``).
In real time (as on lichess) a seat's clock starts at its own first move: until then the
clock lists the seat in ``first``, and its turn has ``first_ms`` (``FIRST_MOVE_SECONDS``) to
make that move, or the match is aborted; that first turn is not charged to its time.

``now()`` is the only source of time for clocks; tests replace it (``use_time``) instead of
sleeping.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from datetime import timezone as tz
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext, ngettext

MIN_BASE_MINUTES, MAX_BASE_MINUTES = 1, 180
MAX_INCREMENT_SECONDS = 60
CORRESPONDENCE_DAYS = (1, 2, 3, 7)
REAL_TIME_PRESETS = ((1, 1), (3, 2), (5, 3), (10, 5))  # minutes + seconds per move
PER_MOVE_PRESETS = ((30, 10), (60, 20), (120, 60))  # start clock + play clock, seconds
MIN_PLAY_SECONDS, MAX_PLAY_SECONDS, MAX_START_SECONDS = 2, 600, 3600

_source: Callable[[], datetime] = timezone.now


def now() -> datetime:
    """The current time, as clocks see it."""
    return _source()


def use_time(source: Callable[[], datetime] | None) -> None:
    """Make ``source`` the clocks' time (tests); None restores the real time."""
    global _source
    _source = source or timezone.now


class OutOfTime(Exception):
    """The mover's time ran out before the action arrived."""


@dataclass(frozen=True)
class TimeControl:
    """Untimed (no fields), real time (``base`` seconds plus ``increment`` seconds a move),
    correspondence (``days`` per move) or per move (``start`` and ``play`` clocks in seconds)."""

    base: int | None = None
    increment: int = 0
    days: int | None = None
    start: int | None = None
    play: int | None = None

    @property
    def kind(self) -> str:
        if self.play:
            return "per_move"
        return "correspondence" if self.days else "real_time" if self.base else "untimed"

    @property
    def timed(self) -> bool:
        return self.kind != "untimed"

    @property
    def label(self) -> str:
        """Short, as lobbies show it: "5+3", "2 days", "untimed"."""
        if self.play:
            return f"{self.play} s/move"
        if self.days:
            return f"{self.days} day{'s' if self.days > 1 else ''}"
        if self.base:
            minutes = self.base / 60
            return f"{minutes:g}+{self.increment}"
        return "untimed"

    @property
    def description(self) -> str:
        """In words, for the match page and history."""
        if self.play:
            return f"Per move: {self.start} s to start, {self.play} s a move"
        if self.days:
            return f"Correspondence: {self.label} per move"
        if self.base:
            return f"Real time: {self.base // 60} min + {self.increment} s per move"
        return "Untimed"

    @property
    def words(self) -> str:
        """``description`` in the active language, for pages (the snapshot keeps the English)."""
        if self.play:
            return gettext("Per move: %(start)d s to start, %(play)d s a move") % {"start": self.start, "play": self.play}
        if self.days:
            return ngettext("Correspondence: %(days)d day per move", "Correspondence: %(days)d days per move",
                            self.days) % {"days": self.days}
        if self.base:
            return gettext("Real time: %(minutes)d min + %(increment)d s per move") % {
                "minutes": self.base // 60, "increment": self.increment}
        return gettext("Untimed")

    @property
    def short_words(self) -> str:
        """``label`` in the active language: "5+3", "2 Tage", "sin reloj"."""
        if self.play:
            return gettext("%(play)d s/move") % {"play": self.play}
        if self.days:
            return ngettext("%(days)d day", "%(days)d days", self.days) % {"days": self.days}
        return self.label if self.base else gettext("untimed")

    @property
    def code(self) -> str:
        """One string for forms and URLs: "untimed", "5+3", "d2", "m30/10" (``parse`` reads it back)."""
        if self.play:
            return f"m{self.start}/{self.play}"
        return f"d{self.days}" if self.days else f"{self.base // 60}+{self.increment}" if self.base else "untimed"

    @classmethod
    def parse(cls, code: str) -> TimeControl:
        """The time control ``code`` names, within the allowed bounds, or ValueError.

        >>> TimeControl.parse("5+3")
        TimeControl(base=300, increment=3, days=None, start=None, play=None)
        """
        if code == "untimed":
            return cls()
        per_move = re.fullmatch(r"m(\d{1,4})/(\d{1,3})", code, re.ASCII)
        if per_move and int(per_move[1]) <= MAX_START_SECONDS and MIN_PLAY_SECONDS <= int(per_move[2]) <= MAX_PLAY_SECONDS:
            return cls(start=int(per_move[1]), play=int(per_move[2]))
        days = re.fullmatch(r"d(\d)", code, re.ASCII)
        if days and int(days[1]) in CORRESPONDENCE_DAYS:
            return cls(days=int(days[1]))
        real = re.fullmatch(r"(\d{1,3})\+(\d{1,2})", code, re.ASCII)
        if real and MIN_BASE_MINUTES <= int(real[1]) <= MAX_BASE_MINUTES and int(real[2]) <= MAX_INCREMENT_SECONDS:
            return cls(base=int(real[1]) * 60, increment=int(real[2]))
        raise ValueError(f"{code!r} is not a time control: choose untimed, minutes+seconds "
                         f"({MIN_BASE_MINUTES} to {MAX_BASE_MINUTES} minutes, 0 to {MAX_INCREMENT_SECONDS} "
                         f"seconds), days per move ({', '.join(map(str, CORRESPONDENCE_DAYS))}) or per move "
                         f"(m<start seconds>/<play seconds>, {MIN_PLAY_SECONDS} to {MAX_PLAY_SECONDS} seconds a move).")

    @classmethod
    def of(cls, match) -> TimeControl:
        return cls(match.clock_base, match.clock_increment, match.clock_days, match.clock_start, match.clock_play)

    def fields(self) -> dict[str, Any]:
        """The match fields that store this time control."""
        return {"clock_base": self.base, "clock_increment": self.increment, "clock_days": self.days,
                "clock_start": self.start, "clock_play": self.play}

    def turn_ms(self) -> int:
        """What a seat has for its turn at the start of the match (correspondence, per move: every turn)."""
        if self.play:
            return self.play * 1000
        return (self.days * 86_400 if self.days else self.base or 0) * 1000


def choices() -> list[tuple[str, str]]:
    """The time controls a match can be created with, as (code, label), untimed first."""
    real = [TimeControl(m * 60, s) for m, s in REAL_TIME_PRESETS]
    days = [TimeControl(days=d) for d in CORRESPONDENCE_DAYS]
    per_move = [TimeControl(start=start, play=play) for start, play in PER_MOVE_PRESETS]
    return [(tc.code, tc.words) for tc in [TimeControl(), *real, *days, *per_move]]


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def start(control: TimeControl, roles, first: str, at: datetime, *,
          first_move_ms: int = 0) -> tuple[dict | None, datetime | None]:
    """The clock and deadline of a match that starts ``at`` with ``first`` to move. In real
    time with ``first_move_ms``, each seat has that long for its first move, uncharged.

    >>> start(TimeControl(60), ["x", "o"], "x", datetime(2026, 1, 1, tzinfo=tz.utc), first_move_ms=30_000)[1]
    datetime.datetime(2026, 1, 1, 0, 0, 30, tzinfo=datetime.timezone.utc)
    """
    if not control.timed:
        return None, None
    clock = {"remaining": {role: control.turn_ms() for role in roles}, "since": _ms(at), "running": first}
    if control.play:
        clock["remaining"][first] += (control.start or 0) * 1000
    if control.base and first_move_ms:
        clock.update(first=list(roles), first_ms=first_move_ms)
    return clock, deadline(clock)


def check(clock: dict | None, at: datetime) -> None:
    """Raise ``OutOfTime`` if the running clock reached zero before ``at``."""
    if clock is not None and clock["running"] is not None and _left(clock, at) <= 0:
        raise OutOfTime(clock["running"])


def advance(control: TimeControl, clock: dict | None, *, after: str | None,
            at: datetime) -> tuple[dict | None, datetime | None]:
    """The clock and deadline once an action ``at`` leaves ``after`` to move (None: the game
    is over). The turn ends only when the mover changes; in real time the mover who ends a
    turn (and the game goes on) gets the increment; a first turn (``first``) is not charged."""
    if clock is None:
        return None, None
    before = clock["running"]
    if before == after:
        return clock, deadline(clock)
    remaining, first = dict(clock["remaining"]), [role for role in clock.get("first", ()) if role != before]
    if before is not None and not _first_turn(clock):
        remaining[before] = _left(clock, at)
        if after is not None and control.base:
            remaining[before] += control.increment * 1000
    if after is not None and (control.days or control.play):
        remaining[after] = control.turn_ms()
    clock = {**clock, "remaining": remaining, "since": _ms(at), "running": after}
    if "first" in clock:
        clock["first"] = first
    return clock, deadline(clock)


def take_back(control: TimeControl, clock: dict | None, *, after: str, unmoved: list[str],
              at: datetime) -> tuple[dict | None, datetime | None]:
    """The clock and deadline once a takeback ``at`` leaves ``after`` to move. Time spent stays
    spent: the running turn ends as a move's does, charged but earning no increment (no move
    was made), and nobody's time is given back; ``after``'s turn runs from ``at``, even when
    it was running already. The seats left with no move (``unmoved``, in the roles' order) are
    back before their first move: in real time that move is uncharged again (``first``), as
    the one taken back was, and has its whole first-move time from ``at``.

    >>> clock, _ = start(TimeControl(60, 5), ["x", "o"], "x", datetime(2026, 1, 1, tzinfo=tz.utc))
    >>> clock, _ = advance(TimeControl(60, 5), clock, after="o", at=datetime(2026, 1, 1, 0, 0, 10, tzinfo=tz.utc))
    >>> take_back(TimeControl(60, 5), clock, after="x", unmoved=[],
    ...           at=datetime(2026, 1, 1, 0, 0, 12, tzinfo=tz.utc))[0]["remaining"]
    {'x': 55000, 'o': 58000}
    """
    # Stopped first: a turn that goes on (``after`` was to move) would keep its start, and a
    # first move again would count its time from there.
    stopped, _ = advance(replace(control, increment=0), clock, after=None, at=at)
    clock, _ = advance(control, stopped, after=after, at=at)
    if clock is not None and "first" in clock:
        clock = {**clock, "first": list(unmoved)}
    return clock, deadline(clock)


def flag(clock: dict) -> dict:
    """The clock once its running side ran out of time: zero left, and it stops."""
    return {**clock, "remaining": {**clock["remaining"], clock["running"]: 0}, "running": None}


def deadline(clock: dict | None) -> datetime | None:
    """When the running side's time runs out (None: no clock runs)."""
    if clock is None or clock["running"] is None:
        return None
    return datetime.fromtimestamp((clock["since"] + _allowed(clock)) / 1000, tz=tz.utc)


def _first_turn(clock: dict) -> bool:
    """Whether the running seat has not made its first move yet (real time: not charged)."""
    return clock["running"] in clock.get("first", ())


def _allowed(clock: dict) -> int:
    """The running turn's milliseconds from ``since``: the first-move time, or the seat's own."""
    return clock["first_ms"] if _first_turn(clock) else clock["remaining"][clock["running"]]


def _left(clock: dict, at: datetime) -> int:
    return max(_allowed(clock) - (_ms(at) - clock["since"]), 0)


# The computer's share of a real-time clock: what is left over this many more moves, plus most
# of the increment, and never more than half of what is left (the move still has to travel).
THINK_MOVES_AHEAD, THINK_INCREMENT_SHARE, THINK_LEFT_SHARE = 20, 0.8, 0.5


def think_seconds(control: TimeControl, clock: dict | None, role: str, at: datetime, most: float) -> float:
    """How long the computer in ``role`` may think at ``at``: ``most`` at most, and less when the
    clock says so. A real-time seat spends what it has left over ``THINK_MOVES_AHEAD`` moves
    plus most of the increment, never more than half of what is left; a per-move turn (and a
    first move, whose own time is not charged) half of the turn's time. Untimed and
    correspondence matches, and a clock not running for ``role``, leave ``most``.

    >>> think_seconds(TimeControl(60, 1), {"remaining": {"x": 10_000, "o": 60_000}, "since": 0,
    ...               "running": "x"}, "x", datetime.fromtimestamp(4, tz=tz.utc), 1.5)
    1.1
    """
    if clock is None or clock["running"] != role or control.days:
        return most
    left = _left(clock, at) / 1000
    if control.play or _first_turn(clock):
        return min(most, left * THINK_LEFT_SHARE)
    return min(most, left / THINK_MOVES_AHEAD + control.increment * THINK_INCREMENT_SHARE,
               left * THINK_LEFT_SHARE)


def from_play(control: TimeControl, clock: dict, sent_at: datetime) -> dict:
    """The clock of a GGP seat's turn as it really runs: the play clock from when its PLAY went
    out (``sent_at``; the GGP game manager judges its answer by that, ``games.ggp.manager``),
    not what is left of the turn begun by the move before it (the PLAY may leave later: a step
    goes out once every answer to the one before has come).

    >>> clock = {"remaining": {"x": 10_000, "o": 40_000}, "since": 0, "running": "o"}
    >>> from_play(TimeControl(start=30, play=10), clock, datetime.fromtimestamp(5, tz=tz.utc))
    {'remaining': {'x': 10000, 'o': 10000}, 'since': 5000, 'running': 'o'}
    """
    return {**clock, "remaining": {**clock["remaining"], clock["running"]: control.turn_ms()}, "since": _ms(sent_at)}


def held(control: TimeControl, clock: dict, at: datetime) -> dict:
    """The clock of a GGP seat's turn whose PLAY has not gone out yet, while the GGP game
    manager is at the match (it goes out once every answer to the step before has come): the
    seat's play clock has not started, so it shows whole and stands (``held``) until the PLAY
    leaves (``from_play``). The flag waits for the same (``games.ggp.manager.flag_deadline``).

    >>> clock = {"remaining": {"x": 10_000, "o": 4_000}, "since": 0, "running": "o"}
    >>> held(TimeControl(start=30, play=10), clock, datetime.fromtimestamp(5, tz=tz.utc))
    {'remaining': {'x': 10000, 'o': 10000}, 'since': 5000, 'running': 'o', 'held': True}
    """
    return {**from_play(control, clock, at), "held": True}


def public(control: TimeControl, clock: dict | None, at: datetime) -> dict[str, Any]:
    """What pages receive: the time control, each seat's remaining milliseconds when the turn
    began (``since``), whose clock runs, and the server's time now (pages count from there);
    the seats still to make their first move (``first``) and the time each has for it; whether
    the running clock stands until a GGP seat's PLAY goes out (``held``). In
    correspondence and per move a seat waiting for its turn has that whole turn to come, not
    what its last turn left over."""
    remaining = clock["remaining"] if clock else None
    if clock and clock["running"] is not None and (control.days or control.play):
        remaining = {role: ms if role == clock["running"] else control.turn_ms() for role, ms in remaining.items()}
    return {"kind": control.kind, "label": control.label, "description": control.description,
            "base": control.base, "increment": control.increment, "days": control.days,
            "start": control.start, "play": control.play,
            "remaining": remaining,
            "since": clock["since"] if clock else None,
            "running": clock["running"] if clock else None, "now": _ms(at),
            "first": clock.get("first", []) if clock else [], "first_ms": clock.get("first_ms") if clock else None,
            "held": bool(clock and clock.get("held"))}
