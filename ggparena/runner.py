"""What keeps the GGP arena going: every server process ticks it every ``GGP_ARENA_SECONDS``
(``services.arena_tick``); the database claim lets exactly one of them schedule at a time, and
another takes over when that one stops ticking."""

from __future__ import annotations

import secrets

from django.conf import settings

from games.runtime.timers import repeat_from_start
from ggparena import services

OWNER = secrets.token_hex(8)  # this process's name in the arena's claim


def wire() -> None:
    repeat_from_start("the GGP arena", lambda: services.arena_tick(owner=OWNER),
                      lambda: settings.GGP_ARENA_SECONDS)
