"""Quick pairing: players wait in a pool, one per ``MatchSettings.pool_key()``, and are paired
with the first compatible players waiting there (the longest waiting first).

Compatible: each one's rating lies within the other's range, which starts at
``RANGE_START`` points and widens by ``RANGE_PER_SECOND`` every second spent waiting, until
after ``RANGE_ANYONE_AFTER`` seconds anyone will do. A newcomer looks for partners as it enters;
a waiting player's page asks again every few seconds (its range has grown), ``pool_pair``; an
entry whose page has not asked for ``STALE_SECONDS`` (its server process stopped) is skipped.

Safe across processes: a pairing takes the entries it pairs with row locks and deletes them
in the transaction that creates the match; entries another pairing holds are skipped
(``SKIP LOCKED`` on PostgreSQL), so nobody is paired twice. Each player has one entry at most
(one pool at a time), so nobody lands in two matches from the pool. A pairing takes its
players' rows without waiting either (a player busy starting another match is skipped this
time), and a real-time match it makes closes its players' other searches (``playing``).
SQLite has one writer.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from games.match import ratings
from games.match.errors import ServiceError
from games.match.settings import MatchSettings
from games.models import Match, PoolEntry
from games.rules import get_game
from games.services import broadcast
from games.services.blocks import blocks_among
from games.services.guards import lock_player, require_player
from games.services.matches import match_create
from games.services.playing import is_real_time, lock_players, require_not_playing
from games.services.ratings import is_ratable, seat_rating

RANGE_START = 100
RANGE_PER_SECOND = 20
RANGE_ANYONE_AFTER = 45  # seconds
CANDIDATES = 50  # entries looked at per attempt, longest waiting first
STALE_SECONDS = 10  # a waiting page asks again every 1.5 to 2.5 s; one silent this long is gone (its server stopped)


def rating_range(waited_seconds: float) -> int | None:
    """How far (in shown points) a player who has waited this long will go; None: anyone."""
    if waited_seconds >= RANGE_ANYONE_AFTER:
        return None
    return RANGE_START + int(RANGE_PER_SECOND * max(0.0, waited_seconds))


def pool_enter(*, user, settings: MatchSettings, channel_name: str) -> Match | None:
    """Wait for a quick game with ``settings`` on the page ``channel_name`` (a new search replaces
    the player's old one). Returns the match if partners were waiting, else None. The pages of
    everyone paired hear ``site.paired`` after commit."""
    require_player(user)
    if user.is_computer:
        raise ServiceError("not_signed_in", "The computer does not wait in the pool.")
    if user.is_bot:
        raise ServiceError("bots_not_pooled", "Bot accounts play by challenges and open matches, not quick games.")
    if settings.rated and not is_ratable(user):
        raise ServiceError("rated_needs_accounts", "Rated games are for signed-up players: sign up, or choose casual.")
    rating, _ = seat_rating(user=user, game=settings.game)
    now = timezone.now()
    with transaction.atomic():
        lock_player(user)  # two pages entering at once: the later replaces the earlier
        if is_real_time(settings.time_control):
            require_not_playing([user], user=user)
        PoolEntry.objects.filter(player=user).delete()
        entry = PoolEntry.objects.create(player=user, key=settings.pool_key(), settings=settings.to_json(),
                                         rating=rating if rating is not None else ratings.SHOWN_BASE,
                                         channel_name=channel_name, created_at=now, seen_at=now)
        entry.player = user
        return _pair(entry, settings, now)


def pool_pair(*, user, channel_name: str) -> Match | None:
    """Look again for partners of ``user``'s waiting entry, with the range it has now grown to.
    Returns the match, or None while still waiting; refuses with ``not_waiting`` once the entry
    is gone (paired elsewhere, or left).

    Most retries find nobody, and every waiting page retries: so a retry first looks without a
    lock or a write (one read), and only takes locks when partners seem to be there. The entry's
    ``seen_at`` is written at most every ``STALE_SECONDS / 2``.

    An entry whose stored settings this site can no longer read (its rule set removed since it
    was stored, or a damaged row) ends its search: it is deleted and its page hears
    ``site.unpooled`` saying why (None here; the page's next retry is ``not_waiting``)."""
    now = timezone.now()
    entry = PoolEntry.objects.filter(player=user, channel_name=channel_name).first()
    if entry is None:
        raise ServiceError("not_waiting", "You are not waiting for a quick game.")
    try:
        settings = MatchSettings.from_json(entry.settings)
    except ServiceError as err:
        _end_search(entry, err)
        return None
    if _choose(entry, settings, _candidates(entry, now), now) is None:
        if now - entry.seen_at > timedelta(seconds=STALE_SECONDS / 2):
            PoolEntry.objects.filter(pk=entry.pk).update(seen_at=now)
        return None
    with transaction.atomic():
        entry = (PoolEntry.objects.select_for_update(skip_locked=True, of=("self",)).select_related("player")
                 .filter(pk=entry.pk).first())
        if entry is None:
            return None  # another pairing holds it (or took it: its page hears so)
        entry.seen_at = now
        entry.save(update_fields=["seen_at"])
        return _pair(entry, settings, now)


def _end_search(entry: PoolEntry, err: ServiceError) -> None:
    """Delete ``entry``, whose settings cannot be read (``err``); its page hears why."""
    PoolEntry.objects.filter(pk=entry.pk).delete()
    message = f"Your quick-game search ended. {err.message} Choose a game and search again."
    broadcast.player_notify_on_commit(entry.player_id, {"type": "site.unpooled", "channel": entry.channel_name,
                                                        "code": err.code, "message": message})


def pool_leave(*, user, channel_name: str) -> bool:
    """Stop waiting (the page cancelled or closed). True if the page was waiting."""
    deleted, _ = PoolEntry.objects.filter(player=user, channel_name=channel_name).delete()
    return bool(deleted)


def compatible(a: PoolEntry, b: PoolEntry, now) -> bool:
    gap = abs(a.rating - b.rating)
    return all(reach is None or gap <= reach
               for reach in (rating_range((now - e.created_at).total_seconds()) for e in (a, b)))


def _candidates(entry: PoolEntry, now):
    """The entries of ``entry``'s pool within its range whose pages still ask, longest waiting
    first (the index on (pool, rating) finds them; at most ``CANDIDATES``)."""
    candidates = (PoolEntry.objects.filter(key=entry.key, seen_at__gte=now - timedelta(seconds=STALE_SECONDS))
                  .exclude(pk=entry.pk))
    reach = rating_range((now - entry.created_at).total_seconds())
    if reach is not None:
        candidates = candidates.filter(rating__gte=entry.rating - reach, rating__lte=entry.rating + reach)
    return candidates.select_related("player").order_by("created_at", "pk")[:CANDIDATES]


def _choose(entry: PoolEntry, settings: MatchSettings, candidates, now) -> list[PoolEntry] | None:
    """The first candidates compatible with ``entry`` (waiting with ``settings``) and each other,
    as many as the game needs; two players of whom one blocked the other are never paired
    (one query for the blocks among them)."""
    need = len(get_game(settings.game).roles) - 1
    candidates = list(candidates)
    if len(candidates) < need:
        return None
    blocked = {frozenset(pair) for pair in blocks_among([entry.player_id, *(c.player_id for c in candidates)])}
    chosen: list[PoolEntry] = []
    for candidate in candidates:
        if all(compatible(candidate, other, now) and frozenset((candidate.player_id, other.player_id)) not in blocked
               for other in (entry, *chosen)):
            chosen.append(candidate)
            if len(chosen) == need:
                return chosen
    return None


def _pair(entry: PoolEntry, settings: MatchSettings, now) -> Match | None:
    """Pair ``entry`` (locked, or new in this transaction; waiting with ``settings``) with the
    first compatible entries of its pool, if there are enough (taken with row locks, skipping
    any another pairing holds); create the match and delete the entries."""
    chosen = _choose(entry, settings, _candidates(entry, now).select_for_update(skip_locked=True, of=("self",)), now)
    if chosen is None:
        return None
    paired = sorted([entry, *chosen], key=lambda e: (e.created_at, e.pk))
    if len(lock_players((e.player_id for e in paired), skip_locked=True)) < len(paired):
        return None  # one of them is busy starting something (playing.py): look again later
    PoolEntry.objects.filter(pk__in=[e.pk for e in paired]).delete()
    match = match_create(user=paired[0].player, settings=settings, opponents=[e.player for e in paired[1:]])
    for e in paired:
        broadcast.player_notify_on_commit(e.player_id, {"type": "site.paired", "match": match.pk,
                                                         "channel": e.channel_name})
    return match
