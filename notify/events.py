"""What crosses from the games to the notifications: the event (``Notice``) and the reads the
notifications need of a match (``Reads``), both plain values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal

Kind = Literal["turn", "challenge", "rematch", "followed", "tournament"]
KINDS: tuple[Kind, ...] = ("turn", "challenge", "rematch", "followed", "tournament")
Channel = Literal["email", "push"]
CHANNELS: tuple[Channel, ...] = ("email", "push")


@dataclass(frozen=True)
class Notice:
    """One event for one player.

    ``key`` is what the throttle counts by: the match for a turn or a rematch offer, the
    challenger for a challenge, the followed player for a followed player's new match, the entry for a
    tournament about to start. ``watched_match`` is the match whose open page already shows
    the event (None: any open page of the site does, as for a challenge). ``ply`` is the
    match's ply count when the turn came (a turn only)."""

    kind: Kind
    user_id: int
    key: int
    path: str
    game: str
    by: str
    watched_match: int | None = None
    ply: int = 0


@dataclass(frozen=True)
class Reads:
    """What the notifications read of the games, handed over once at start-up
    (``notify.delivery.use``, from ``games.services.wiring``).

    ``page_open(user_id, match_id)``: the player has a page open on the match (None: any
    page of the site). ``moved_since(user_id, match_id, ply)``: the player made a move in the
    match at or after ``ply``."""

    page_open: Callable[[int, int | None], bool]
    moved_since: Callable[[int, int, int], bool]
