"""Registered GGP players: registration, the INFO check and its status, removal.

A GGP player is a program account (``lobby.User`` with ``is_bot``: marked as a program
wherever its name shows, never in the quick-game pool, never signing in) and a ``GGPPlayer``
row with its address and last known status: ``online`` (answered INFO ``available``),
``busy`` (answered ``busy``, or START with ``busy``: in another match) or ``away`` (no
answer, or not one the protocol knows). The check runs off the request path
(``offpath``); registration stores the player as ``checking`` and asks for it.

A removed player's row stays, marked ``removed_at``: it is no longer seated, listed or
called, but counts toward its owner's ``MAX_PER_OWNER`` for ``REMOVED_COUNTS_DAYS``, so that
removing and registering again does not make a stream of fresh opponents.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from games.ggp import client, offpath, protocol
from games.ggp.manager import ACCOUNT_PREFIX
from games.match import text
from games.match.errors import ServiceError
from games.models import GGPPlayer

MAX_PER_OWNER = 10
REMOVED_COUNTS_DAYS = 30  # a removed player counts toward its owner's limit this long after


def ggp_player_register(*, owner, name: str, url: str) -> GGPPlayer:
    """Register the GGP player ``name`` listening at ``url`` for ``owner`` (a signed-up
    person); its INFO check follows after commit. ServiceError: the name or address refused."""
    if not owner.is_authenticated or owner.is_guest or owner.is_bot or owner.is_computer:
        raise ServiceError("not_allowed", "Sign up to register a GGP player.")
    try:
        name = text.display_name_clean(name)
    except text.TextRefused as err:
        raise ServiceError("invalid_name", str(err), {"reason": err.code}) from None
    try:
        target = client.check_url(url)
    except client.Refused as err:
        raise ServiceError("url_refused", str(err)) from None
    key = text.name_key(name)
    User = get_user_model()
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=owner.pk).first()
        _require_room_to_register(owner)
        if User.objects.filter(name_key=key).exists():
            raise ServiceError("name_taken", f"Another player is called {name!r} (or nearly so); choose another name.")
        account = User(username=f"{ACCOUNT_PREFIX}{secrets.token_hex(6)}", display_name=name, name_key=key, is_bot=True)
        account.set_unusable_password()
        try:
            with transaction.atomic():
                account.save()
        except IntegrityError:
            raise ServiceError("name_taken", f"Another player is called {name!r}; choose another name.") from None
        player = GGPPlayer.objects.create(account=account, owner=owner, url=target.url)
        offpath.run_on_commit("ggp_player_check", player.pk)
    return player


def _require_room_to_register(owner) -> None:
    """At most ``MAX_PER_OWNER`` players, counting those removed in the last
    ``REMOVED_COUNTS_DAYS``. Call holding the owner's row lock."""
    since = timezone.now() - timedelta(days=REMOVED_COUNTS_DAYS)
    counted = list(GGPPlayer.objects.filter(owner=owner).filter(Q(removed_at__isnull=True) | Q(removed_at__gt=since))
                   .order_by("removed_at").values_list("removed_at", flat=True))
    if len(counted) < MAX_PER_OWNER:
        return
    removed = [at for at in counted if at is not None]
    if not removed:
        raise ServiceError("too_many", f"You have {MAX_PER_OWNER} GGP players, as many as one may have: a player you "
                                       f"remove still counts for {REMOVED_COUNTS_DAYS} days.")
    frees = (removed[0] + timedelta(days=REMOVED_COUNTS_DAYS)).date().isoformat()
    raise ServiceError("too_many", f"You have registered {MAX_PER_OWNER} GGP players, counting the ones removed in "
                                   f"the last {REMOVED_COUNTS_DAYS} days: you may register another on {frees}.")


def ggp_player_recheck(*, owner, player_id: int) -> GGPPlayer:
    """Ask again whether ``owner``'s player answers (after commit, off the request path)."""
    player = _owned(owner, player_id)
    with transaction.atomic():
        GGPPlayer.objects.filter(pk=player.pk).update(status=GGPPlayer.Status.CHECKING)
        offpath.run_on_commit("ggp_player_check", player.pk)
    player.status = GGPPlayer.Status.CHECKING
    return player


def ggp_player_remove(*, owner, player_id: int) -> None:
    """Remove ``owner``'s player: its account stays (its matches keep their names), retired; its
    row stays too, marked removed (it counts toward the owner's limit for a while)."""
    player = _owned(owner, player_id)
    with transaction.atomic():
        account = player.account
        GGPPlayer.objects.filter(pk=player.pk).update(removed_at=timezone.now())
        account.is_active = False
        account.save(update_fields=["is_active"])


def _owned(owner, player_id: int) -> GGPPlayer:
    player = (GGPPlayer.objects.select_related("account")
              .filter(pk=player_id, owner=owner, removed_at__isnull=True).first())
    if player is None:
        raise ServiceError("not_found", "You have no such GGP player.")
    return player


@offpath.task
def ggp_player_check(player_id: int) -> str | None:
    """Send INFO to the player and store what its answer says (no lock held while waiting)."""
    player = GGPPlayer.objects.filter(pk=player_id, removed_at__isnull=True).first()
    if player is None:
        return None
    status, note = info_ask(player.url)
    status_set(player_id, status, note)
    return status


def info_ask(url: str) -> tuple[str, str]:
    """Send INFO to ``url`` (no database touched): the status its answer says and a note on it."""
    answer = client.call(url, protocol.info(), seconds=settings.GGP_INFO_SECONDS)
    status, note = GGPPlayer.Status.AWAY, answer.failure or ""
    if answer.ok:
        try:
            said, _ = protocol.read_info(answer.text)
            status = GGPPlayer.Status.BUSY if said == "busy" else GGPPlayer.Status.ONLINE
            note = ""
        except protocol.AnswerError as err:
            note = f"INFO answered, not as the protocol says: {err}"
    return status, note[:200]


def status_set(player_id: int, status: str, note: str = "") -> None:
    GGPPlayer.objects.filter(pk=player_id).update(status=status, note=note, checked_at=timezone.now())


def ggp_players_of(owner) -> list[GGPPlayer]:
    return list(GGPPlayer.objects.filter(owner=owner, removed_at__isnull=True).select_related("account")
                .order_by("created_at"))


def ggp_players_listed() -> list[GGPPlayer]:
    """Every registered player, the ones online first: whom one can seat or challenge."""
    order = {GGPPlayer.Status.ONLINE: 0, GGPPlayer.Status.BUSY: 1, GGPPlayer.Status.CHECKING: 2, GGPPlayer.Status.AWAY: 3}
    players = (GGPPlayer.objects.filter(account__is_active=True, removed_at__isnull=True)
               .select_related("account", "owner"))
    return sorted(players, key=lambda p: (order.get(p.status, 9), str(p.account).casefold()))
