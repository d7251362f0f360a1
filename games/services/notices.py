"""What a player hears with the page closed (``notify``): the events of the games, handed over
after commit as ``notify.events.Notice`` values, and the reads the notifications make of a match,
handed to them once (``READS``, wired in ``games.services``). Only people are told; the rules
of who hears what and when live in ``notify.delivery``. Who follows a player belongs to the
``social`` app, above this one: its read arrives as one typed hand-off (``FollowerReads``),
installed at start-up by ``social.apps.SocialConfig.ready``."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import partial

from django.conf import settings as conf
from django.db import transaction
from django.urls import reverse

from games.match.clocks import TimeControl
from games.match.settings import MatchSettings
from games.models import Match, Move, Seat
from games.rules import get_game
from games.runtime import presence
from notify.delivery import notify_on_commit, submit
from notify.events import Notice, Reads


def _person(player) -> bool:
    return player is not None and not (player.is_guest or player.is_computer or player.is_bot)


def _name(player) -> str:
    return player.display_name or player.username


def turn_on_commit(match: Match, game, state, seats: list[Seat]) -> None:
    """In a correspondence match, the player to move hears of it once the move commits."""
    if match.status != Match.Status.ACTIVE or TimeControl.of(match).kind != "correspondence":
        return
    mover = game.to_move(state)
    for seat in seats:
        if seat.role == mover and not seat.resigned and _person(seat.player):
            others = ", ".join(_name(s.player) for s in seats if s.player is not None and s.player_id != seat.player_id)
            notify_on_commit(Notice(kind="turn", user_id=seat.player_id, key=match.pk, watched_match=match.pk,
                                    ply=match.plies, path=reverse("games:match", args=[match.pk]),
                                    game=game.name, by=others or "Your opponent"))


def challenge_on_commit(challenge, settings: MatchSettings) -> None:
    """The challenged player hears of a challenge (any open page of the site shows it)."""
    if _person(challenge.challenged):
        notify_on_commit(Notice(kind="challenge", user_id=challenge.challenged_id, key=challenge.challenger_id,
                                path=reverse("lobby:home"), game=get_game(settings.game).name,
                                by=_name(challenge.challenger)))


def rematch_on_commit(old: Match, seats: list[Seat], game, offerer) -> None:
    """The players a rematch waits for hear of the offer (the finished match's page shows it)."""
    for seat in seats:
        if seat.reserved_for is not None and _person(seat.reserved_for):
            notify_on_commit(Notice(kind="rematch", user_id=seat.reserved_for.pk, key=old.pk, watched_match=old.pk,
                                    path=reverse("games:match", args=[old.pk]), game=game.name, by=_name(offerer)))


@dataclass(frozen=True)
class FollowerReads:
    """``among(player_ids)``: {follower id: followed id} for each account following one of
    ``player_ids`` that neither blocked nor is blocked by any of them (one query)."""

    among: Callable[[Collection[int]], dict[int, int]]


_followers: FollowerReads | None = None


def followers_install(reads: FollowerReads) -> None:
    global _followers
    _followers = reads


def followed_on_commit(match: Match, game, seats: list[Seat]) -> None:
    """A public match of people starts (not a private one, nor one with the computer in it):
    once it commits, each account following one of its players hears of it, once per match."""
    if match.is_private or any(s.player is not None and s.player.is_computer for s in seats):
        return
    names = {s.player_id: _name(s.player) for s in seats if _person(s.player)}
    if names:
        transaction.on_commit(partial(_followers_tell, match.pk, game.name, names), robust=True)


def _followers_tell(match_id: int, game_name: str, names: dict[int, str]) -> None:
    if _followers is None:
        raise RuntimeError("games.services.notices: no FollowerReads installed "
                           "(social.apps.SocialConfig.ready installs them)")
    for follower_id, followed_id in _followers.among(set(names)).items():
        if follower_id not in names:  # a player of the match knows of it
            submit(Notice(kind="followed", user_id=follower_id, key=followed_id, watched_match=match_id,
                          path=reverse("games:match", args=[match_id]), game=game_name, by=names[followed_id]))


def page_open(user_id: int, match_id: int | None) -> bool:
    """Whether the player has a page open (pinged lately) on the match, or any page of the
    site for None."""
    fresh_after = time.time() - conf.PRESENCE_TIMEOUT_SECONDS
    pages = presence.store().pages(presence.SITE if match_id is None else match_id)
    return any(uid == user_id and seen >= fresh_after for uid, seen in pages)


def moved_since(user_id: int, match_id: int, ply: int) -> bool:
    """Whether the player made a move in the match after ``ply``."""
    roles = Seat.objects.filter(match_id=match_id, player_id=user_id).values_list("role", flat=True)
    return Move.objects.filter(match_id=match_id, ply__gt=ply, role__in=list(roles)).exists()


READS = Reads(page_open=page_open, moved_since=moved_since)
