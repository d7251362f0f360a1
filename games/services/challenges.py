"""Direct challenges: one player proposes a match with chosen settings to another, who
accepts (the match is created and both pages open it) or declines; the challenger may cancel;
a challenge nobody answered expires after ``CHALLENGE_SECONDS``. Both players' pages hear
every change after commit (``site.challenge``)."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

from django.conf import settings as conf
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games.ggp import manager as ggp_manager
from games.match.errors import ServiceError
from games.match.settings import MatchSettings
from games.models import Challenge, PoolEntry
from games.runtime.dbthreads import db
from games.services import notices
from games.services.blocks import require_not_blocked
from games.services.guards import lock_player, require_player
from games.services.matches import match_create
from games.services.playing import challenge_changed_on_commit, is_real_time, lock_players, require_not_playing
from games.services.ratings import is_ratable

logger = logging.getLogger(__name__)

MAX_OPEN = 5  # challenges one player may have waiting for an answer at once


def can_answer_challenges(player) -> bool:
    """Whether ``player`` could ever answer a challenge: a person (not the computer) whose
    account is still active (a guest who logged out or expired is not, nor a closed account)."""
    return player.is_active and not player.is_computer


def challenge_create(*, user, to_id: int, settings: MatchSettings) -> Challenge:
    require_player(user)
    target = get_user_model().objects.filter(pk=to_id).first()
    if target is None or not can_answer_challenges(target):
        raise ServiceError("no_such_player", "There is no such player to challenge: they may have left the site.")
    if target.pk == user.pk:
        raise ServiceError("no_such_player", "You cannot challenge yourself.")
    require_not_blocked(user=user, target=target)
    if ggp_manager.is_ggp(target):  # a program that answers at once: played from its page, not asked
        raise ServiceError("ggp_player", f"{target} is a GGP player: play it from the GGP players page "
                                         "(/ggp/), where it takes its seat at once.")
    if settings.rated and not (is_ratable(user) and is_ratable(target)):
        raise ServiceError("rated_needs_accounts", "Rated matches are between signed-up players: "
                                                   "challenge a guest to a casual match.")
    now = timezone.now()
    with transaction.atomic():
        lock_player(user)  # the checks below count what is there: one challenge at a time per challenger
        if is_real_time(settings.time_control):
            require_not_playing([user], user=user)
        pending = Challenge.objects.filter(
            challenger=user, status=Challenge.Status.PENDING, expires_at__gt=now)
        if any(c.challenged_id == target.pk for c in pending):
            raise ServiceError("already_challenged", f"You have already challenged {target}: wait for the answer, "
                                                     "or cancel that challenge first.")
        if len(pending) >= MAX_OPEN:
            raise ServiceError("too_many_challenges", f"You have {MAX_OPEN} challenges waiting for an answer: "
                                                      "cancel one, or wait until they are answered.")
        challenge = Challenge.objects.create(challenger=user, challenged=target, settings=settings.to_json(),
                                             expires_at=now + timedelta(seconds=conf.CHALLENGE_SECONDS))
        challenge_changed_on_commit(challenge)
        notices.challenge_on_commit(challenge, settings)
    return challenge


def challenge_accept(*, user, challenge_id: int) -> Challenge:
    """The challenged player accepts: the match starts (a three-player game waits for a third
    player in the lobby). Neither player keeps waiting in the quick-game pool. A real-time
    match is refused while either plays one (``playing``)."""
    with transaction.atomic():
        players = Challenge.objects.filter(pk=challenge_id).values_list("challenger_id", "challenged_id").first() or ()
        # Neither keeps searching. A pairing holding a player's row makes the accept wait for it;
        # an entry gone meanwhile means a quick game was just made (or the search stopped): ask.
        searching = list(PoolEntry.objects.filter(player__in=players).values_list("pk", flat=True))
        lock_players(players)  # before the challenge's row (playing.py)
        challenge = _lock_open(challenge_id, user, challenged=True)
        require_not_blocked(user=challenge.challenged, target=challenge.challenger)  # a block made since
        settings = MatchSettings.from_json(challenge.settings)
        if is_real_time(settings.time_control):
            require_not_playing([challenge.challenged, challenge.challenger], user=user)
        if PoolEntry.objects.filter(pk__in=searching).delete()[0] < len(searching):
            raise ServiceError("just_paired", "One of you was just paired for a quick game (or stopped searching): "
                                              "accept again to play this challenge as well.")
        challenge.status = Challenge.Status.ACCEPTED  # first: starting the match withdraws the others
        challenge.save(update_fields=["status"])
        challenge.match = match_create(user=challenge.challenger, settings=settings, opponents=[challenge.challenged])
        challenge.save(update_fields=["match"])
        challenge_changed_on_commit(challenge)
    return challenge


def challenge_decline(*, user, challenge_id: int) -> Challenge:
    return _close(challenge_id, user, Challenge.Status.DECLINED, challenged=True)


def challenge_cancel(*, user, challenge_id: int) -> Challenge:
    return _close(challenge_id, user, Challenge.Status.CANCELLED, challenged=False)


def challenge_expire(*, challenge_id: int) -> Challenge | None:
    """Expire the challenge if it is still unanswered past its time (called when that time
    comes); returns it if it expired now."""
    with transaction.atomic():
        challenge = Challenge.objects.select_for_update().filter(
            pk=challenge_id, status=Challenge.Status.PENDING, expires_at__lte=timezone.now()).first()
        if challenge is None:
            return None
        challenge.status = Challenge.Status.EXPIRED
        challenge.save(update_fields=["status"])
        challenge_changed_on_commit(challenge)
    return challenge


def _close(challenge_id: int, user, status: str, *, challenged: bool) -> Challenge:
    with transaction.atomic():
        challenge = _lock_open(challenge_id, user, challenged=challenged)
        challenge.status = status
        challenge.save(update_fields=["status"])
        challenge_changed_on_commit(challenge)
    return challenge


def _lock_open(challenge_id: int, user, *, challenged: bool) -> Challenge:
    """The challenge, locked, if ``user`` is its challenged player (or its challenger) and it
    still waits for an answer."""
    require_player(user)
    challenge = (Challenge.objects.select_for_update(of=("self",)).select_related("challenger", "challenged")
                 .filter(pk=challenge_id).first())
    if challenge is None or user.pk not in (challenge.challenger_id, challenge.challenged_id):
        raise ServiceError("no_such_challenge", "There is no such challenge.")
    if (challenge.challenged_id if challenged else challenge.challenger_id) != user.pk:
        raise ServiceError("not_yours", "Only the challenged player can answer a challenge, "
                                        "and only the challenger can cancel it.")
    if challenge.status != Challenge.Status.PENDING or challenge.expires_at <= timezone.now():
        status = challenge.status if challenge.status != Challenge.Status.PENDING else Challenge.Status.EXPIRED
        raise ServiceError("challenge_closed", f"This challenge is no longer open: it was {status}.")
    return challenge


def challenge_expire_later(*, challenge_id: int, expires_at) -> None:
    """Expire the challenge when its time comes, unless answered by then (a timer of this
    process, started where the challenge was made: the site socket or the bot API; if the
    process stops first, the challenge is still treated as expired wherever it is read)."""
    delay = max(0.0, (expires_at - timezone.now()).total_seconds())

    async def expire() -> None:
        try:
            await db(challenge_expire)(challenge_id=challenge_id)
        except Exception:
            logger.exception("could not expire challenge %s", challenge_id)

    asyncio.get_running_loop().call_later(delay + 0.05, lambda: asyncio.ensure_future(expire()))
