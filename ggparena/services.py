"""The always-on GGP arena's writes: owners opt their programs in, one process at a time owns the
scheduler (``arena_claim``), and each tick (``arena_tick``) settles the arena's ended matches
into the ladder, asks the idle opted-in programs INFO, pauses the ones that stopped answering
and seats the ones that answer ``available`` in new casual matches, rule sets in turn.

Everything lives in the database (``ggparena.models``): the claim is a row's value with a time
limit, like the GGP manager's (``games.ggp.manager._claim``); a match and its ``ArenaMatch`` row
commit together, and a match is settled once, under its row's lock. So a process that dies
mid-tick loses nothing: the next owner settles what it left and schedules from there.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from games.ggp.players import info_ask, status_set
from games.match.clocks import TimeControl
from games.match.errors import ServiceError
from games.match.ratings import INITIAL, rate
from games.match.settings import MatchSettings
from games.models import GGPPlayer, Match, Outcome, ReplacedMove, Seat
from games.rules import SLUGS, get_game
from games.services import match_create
from ggparena.models import ArenaEntry, ArenaMatch, ArenaState

logger = logging.getLogger(__name__)

# The account that creates the arena's matches (it takes no seat): a user name people may not
# sign up with (lobby.services.RESERVED_USERNAMES: "computer...").
ACCOUNT = "computer-ggp-arena"
HOLD_TICKS = 3  # the owner holds the scheduler this many ticks: another process takes over after
STRIKES = ("late", "illegal", "silent")


def arena_opt_in(*, owner, player_id: int, opted_in: bool) -> ArenaEntry:
    """``owner`` puts their program ``player_id`` in the arena or takes it out; putting it in
    again resumes a program the arena paused. ServiceError: not theirs (or removed)."""
    player = GGPPlayer.objects.filter(pk=player_id, owner_id=getattr(owner, "pk", None),
                                      removed_at__isnull=True).first()
    if player is None:
        raise ServiceError("not_found", "You have no such GGP player.")
    with transaction.atomic():
        entry, _ = ArenaEntry.objects.select_for_update().get_or_create(player=player)
        entry.opted_in, entry.paused_at, entry.paused_note = opted_in, None, ""
        entry.save(update_fields=["opted_in", "paused_at", "paused_note"])
    return entry


def arena_claim(*, owner: str) -> bool:
    """Take the scheduler for ``owner`` (a token naming this process), or keep it: True while it
    is ``owner``'s. Another process's claim stands until its time is up (``HOLD_TICKS`` ticks
    after its last tick), so exactly one process schedules, and one that died is replaced."""
    ArenaState.objects.get_or_create(pk=1)
    now = timezone.now()
    until = now + timedelta(seconds=HOLD_TICKS * max(settings.GGP_ARENA_SECONDS, 1.0))
    return bool(ArenaState.objects.filter(pk=1).filter(Q(claim=owner) | Q(claim="") | Q(held_until__lt=now))
                .update(claim=owner, held_until=until))


@dataclass(frozen=True)
class Tick:
    settled: list[int]  # matches whose results went into the ladder
    paused: list[int]  # programs paused: they stopped answering INFO
    made: list[int]  # matches made


def arena_tick(*, owner: str, rng: random.Random | None = None) -> Tick | None:
    """One turn of the scheduler, if ``owner`` holds it (None otherwise)."""
    if not arena_claim(owner=owner):
        return None
    ended = (ArenaMatch.objects.filter(settled=False, match__status__in=[Match.Status.FINISHED, Match.Status.ABORTED])
             .order_by("pk").values_list("pk", flat=True))
    settled = [match_id for match_id in ended if arena_settle(match_id=match_id)]
    ready, paused = _ask_idle()
    made = _schedule(owner, ready, rng or random.Random())
    arena_claim(owner=owner)  # held from the end of this tick: its calls took time
    return Tick(settled, paused, made)


def arena_settle(*, match_id: int) -> bool:
    """Put an ended arena match into the ladder, once: strikes to each program's record, its
    ratings (openskill's Plackett-Luce over every seat: the computer counts at the initial
    skill and is not rated) and results if it finished; a program with a turn it left
    unanswered, or that did not answer START, is paused. False: not ended, or settled already."""
    with transaction.atomic():
        row = ArenaMatch.objects.select_for_update().select_related("match").filter(pk=match_id, settled=False).first()
        if row is None or row.match.status not in {Match.Status.FINISHED, Match.Status.ABORTED}:
            return False
        seats = list(Seat.objects.filter(match_id=match_id).order_by("order"))
        entries = {e.player.account_id: e for e in ArenaEntry.objects.select_for_update().select_related("player")
                   .filter(player__account_id__in=[s.player_id for s in seats])}
        strikes = Counter(ReplacedMove.objects.filter(match_id=match_id).values_list("role", "reason"))
        finished = row.match.status == Match.Status.FINISHED
        if finished:
            skills = [(e.mu, e.sigma) if (e := entries.get(s.player_id)) else INITIAL for s in seats]
            for seat, skill in zip(seats, rate(skills, [s.score or 0 for s in seats])):
                if (entry := entries.get(seat.player_id)) is not None:
                    entry.mu, entry.sigma = skill
                    _record(entry, seat.outcome)
        for seat in seats:
            entry = entries.get(seat.player_id)
            if entry is None:
                continue
            for reason in STRIKES:
                setattr(entry, reason, getattr(entry, reason) + strikes[(seat.role, reason)])
            if not finished:
                entry.aborted += 1
            if strikes[(seat.role, "silent")]:
                _pause(entry, f"left {strikes[(seat.role, 'silent')]} turns unanswered in match {match_id}")
            elif not finished and entry.player.status == GGPPlayer.Status.AWAY:
                _pause(entry, entry.player.note or "did not answer START")
            entry.save()
        row.settled = True
        row.save(update_fields=["settled"])
    return True


def _record(entry: ArenaEntry, outcome: str) -> None:
    entry.played += 1
    if outcome == Outcome.WON:
        entry.won += 1
    elif outcome == Outcome.DRAWN:
        entry.drawn += 1
    else:
        entry.lost += 1


def _pause(entry: ArenaEntry, why: str) -> None:
    if entry.paused_at is None:
        entry.paused_at, entry.paused_note = timezone.now(), why[:200]


def _ask_idle() -> tuple[list[ArenaEntry], list[int]]:
    """INFO to every opted-in, unpaused program not seated in an unsettled arena match (all at
    once, no database connection held by the calls): the ones that answer ``available``, in
    the order of their entries, and the ones paused for not answering."""
    seated = Seat.objects.filter(match__arena_match__settled=False).values("player_id")
    idle = list(ArenaEntry.objects.select_related("player")
                .filter(opted_in=True, paused_at__isnull=True, player__removed_at__isnull=True,
                        player__account__is_active=True)
                .exclude(player__account_id__in=seated).order_by("pk"))
    if not idle:
        return [], []
    with ThreadPoolExecutor(max_workers=min(len(idle), settings.GGP_THREADS)) as pool:
        said = list(pool.map(lambda entry: info_ask(entry.player.url), idle))
    ready, paused = [], []
    for entry, (status, note) in zip(idle, said):
        status_set(entry.player_id, status, note)
        if status == GGPPlayer.Status.ONLINE:
            ready.append(entry)
        elif status == GGPPlayer.Status.AWAY:
            paused.append(entry.pk)
            ArenaEntry.objects.filter(pk=entry.pk, paused_at__isnull=True).update(
                paused_at=timezone.now(), paused_note=f"stopped answering INFO: {note}"[:200])
    return ready, paused


def clock_range(text: str) -> tuple[int, int]:
    """A range of seconds as the settings write it: ``clock_range("5-15") == (5, 15)``,
    ``clock_range("10") == (10, 10)``. ValueError: not one."""
    low, _, high = text.partition("-")
    low_s, high_s = int(low), int(high or low)
    if not 1 <= low_s <= high_s:
        raise ValueError(f"not a range of seconds: {text!r} (write low-high, e.g. 5-15)")
    return low_s, high_s


def arena_games() -> list[str]:
    """The rule sets the arena plays in turn (``GGP_ARENA_GAMES``; empty: all of them)."""
    return [slug for slug in settings.GGP_ARENA_GAMES if slug in SLUGS] or list(SLUGS)


def _schedule(owner: str, ready: list[ArenaEntry], rng: random.Random) -> list[int]:
    """Seat ``ready`` programs, two or more a match, rule sets in turn; the computer takes the
    seats left. Each match commits with its ``ArenaMatch`` row and the rotation, under the
    state row's lock and only while ``owner`` holds the scheduler."""
    rng.shuffle(ready)
    games, made = arena_games(), []
    starts, plays = clock_range(settings.GGP_ARENA_START_SECONDS), clock_range(settings.GGP_ARENA_PLAY_SECONDS)
    while len(ready) >= 2:
        try:
            with transaction.atomic():
                state = ArenaState.objects.select_for_update().get(pk=1)
                if state.claim != owner:
                    break
                game = get_game(games[state.rotation % len(games)])
                seated, ready = ready[:len(game.roles)], ready[len(game.roles):]
                roles = rng.sample(list(game.roles), len(seated))
                control = TimeControl(start=rng.randint(*starts), play=rng.randint(*plays))
                match = match_create(user=arena_account(), settings=MatchSettings(game.slug, time_control=control),
                                     ggp_players={r: e.player_id for r, e in zip(roles, seated)}, watch=True,
                                     against_computer=len(seated) < len(game.roles),
                                     computer_level=settings.GGP_ARENA_COMPUTER_LEVEL,
                                     watched_max=settings.GGP_ARENA_MATCHES, rng=rng)
                ArenaMatch.objects.create(match=match)
                state.rotation += 1
                state.save(update_fields=["rotation"])
        except ServiceError as err:
            if err.code == "too_many_watched":
                break  # as many arena matches as it may run: the next tick tries again
            logger.warning("the GGP arena could not make a match: %s", err.message)
            continue
        made.append(match.pk)
    return made


def arena_account():
    """The account that creates the arena's matches and watches them (made on first use)."""
    user, created = get_user_model().objects.get_or_create(
        username=ACCOUNT, defaults={"display_name": "GGP arena", "is_bot": True})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user
