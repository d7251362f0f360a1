"""Writes of the bot API's own: personal tokens and the upgrade to a bot account. Each in one
transaction; refusals are ``ServiceError`` with a stable code, as everywhere else."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from botapi.models import ApiToken
from games.match.text import TextRefused, text_clean
from games.models import Seat
from games.services import ServiceError, broadcast

SECRET_PREFIX = "bh_"  # tells a Boardhall token apart in a program's configuration
TOKENS_MAX = 10  # live tokens per account
NAME_MAX = ApiToken._meta.get_field("name").max_length
USED_AT_GRANULARITY = timedelta(minutes=1)  # last_used_at is rewritten at most this often


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def _require_account(user) -> None:
    if user is None or not user.is_authenticated:
        raise ServiceError("not_signed_in", "Log in first.")
    if user.is_guest or user.is_computer:
        raise ServiceError("account_needed", "API tokens and bot accounts are for signed-up accounts: sign up first.")


def token_create(*, user, name: str, scopes: set[str]) -> tuple[ApiToken, str]:
    """A new token for ``user`` with ``scopes`` (``ApiToken.Scope`` values); returns it and its
    secret, which is shown to the owner once and never stored."""
    _require_account(user)
    try:
        name = text_clean(name or "", max_length=NAME_MAX, what="The token's name")
    except TextRefused as refused:
        raise ServiceError("bad_name", f"Name the token (at most {NAME_MAX} characters), e.g. after your program."
                           if refused.code == "blank" else str(refused), {"reason": refused.code}) from None
    if not scopes or not scopes <= set(ApiToken.Scope.values):
        raise ServiceError("bad_scopes", f"Choose at least one scope of: {', '.join(ApiToken.Scope.values)}.")
    secret = SECRET_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).exists()  # one creation at a time
        if ApiToken.objects.filter(user=user, revoked_at__isnull=True).count() >= TOKENS_MAX:
            raise ServiceError("too_many_tokens", f"You have {TOKENS_MAX} tokens: revoke one first.")
        token = ApiToken.objects.create(user=user, name=name, digest=digest(secret),
                                        hint=secret[:len(SECRET_PREFIX) + 4],
                                        scopes=" ".join(sorted(scopes)))
    return token, secret


def token_group(token_id: int) -> str:
    """The channel-layer group of a token's open streams: told when the token is revoked."""
    return f"apitoken.{token_id}"


def token_revoke(*, user, token_id: int) -> ApiToken:
    """Revoke one of ``user``'s tokens: from now on it opens nothing, and the streams it opened
    end at once (told on commit, ``token_group``; each also checks at its keep-alives)."""
    _require_account(user)
    with transaction.atomic():
        token = ApiToken.objects.select_for_update().filter(pk=token_id, user=user).first()
        if token is None:
            raise ServiceError("no_such_token", "There is no such token.")
        if token.revoked_at is None:
            token.revoked_at = timezone.now()
            token.save(update_fields=["revoked_at"])
            transaction.on_commit(lambda: broadcast.send(token_group(token.pk), {"type": "token.revoked"}),
                                  robust=True)
    return token


def token_find(*, secret: str) -> ApiToken | None:
    """The live token whose secret is ``secret`` (with its user), if its account may still act."""
    if not secret.startswith(SECRET_PREFIX) or len(secret) > 100:
        return None
    token = (ApiToken.objects.select_related("user")
             .filter(digest=digest(secret), revoked_at__isnull=True, user__is_active=True).first())
    if token is not None:
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at > USED_AT_GRANULARITY:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
            token.last_used_at = now
    return token


def token_live(*, token_id: int) -> bool:
    """Whether a token is still unrevoked and its account active (a stream checks now and then)."""
    return ApiToken.objects.filter(pk=token_id, revoked_at__isnull=True, user__is_active=True).exists()


def bot_upgrade(*, user):
    """Make ``user``'s account a bot account, for good: only while it has played no match (as
    on lichess), so a bot's record and ratings are a program's from the start."""
    _require_account(user)
    with transaction.atomic():
        account = get_user_model().objects.select_for_update().get(pk=user.pk)
        if account.is_bot:
            raise ServiceError("already_bot", "This account is a bot account already.")
        if Seat.objects.filter(player=account).exists():
            raise ServiceError("has_played", "Only an account that has played no match can become a bot account: "
                                             "sign up a new account for your program.")
        account.is_bot = True
        account.save(update_fields=["is_bot"])
    user.is_bot = True
    return account
