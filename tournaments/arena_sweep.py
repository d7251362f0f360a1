"""What keeps arenas pairing without a click: each server process runs a pairing wave in every
running arena (and starts the due ones) every ``ARENA_SWEEP_SECONDS``; a game's end pairs its
arena at once (``arena.arena_match_ended``, from ``tournaments.sweep``). Waves of several
processes take the tournament's row lock in turn: a player is never paired twice."""

from __future__ import annotations

from django.conf import settings

from games.runtime.timers import repeat_from_start
from tournaments import arena


def wire() -> None:
    repeat_from_start("the arena pairing sweep", arena.arenas_sweep, lambda: settings.ARENA_SWEEP_SECONDS)
