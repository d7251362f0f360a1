"""Signed tokens in links: unsubscribing from one event on one channel (no login, no expiry:
an old email still works), and confirming an email address (three days)."""

from __future__ import annotations

from dataclasses import dataclass

from django.core import signing

from notify.events import CHANNELS, KINDS

UNSUBSCRIBE_SALT = "notify.unsubscribe"
CONFIRM_SALT = "notify.confirm"
CONFIRM_MAX_AGE = 3 * 24 * 3600


class BadToken(Exception):
    """A link's token that was not made here, was changed, or has expired."""


@dataclass(frozen=True)
class Unsubscribe:
    user_id: int
    channel: str
    kind: str


def unsubscribe_token(*, user_id: int, channel: str, kind: str) -> str:
    return signing.dumps([user_id, channel, kind], salt=UNSUBSCRIBE_SALT, compress=True)


def unsubscribe_read(token: str) -> Unsubscribe:
    try:
        user_id, channel, kind = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except (signing.BadSignature, ValueError, TypeError):
        raise BadToken from None
    if not isinstance(user_id, int) or channel not in CHANNELS or kind not in KINDS:
        raise BadToken
    return Unsubscribe(user_id=user_id, channel=channel, kind=kind)


def confirm_token(*, user_id: int, email: str) -> str:
    return signing.dumps([user_id, email], salt=CONFIRM_SALT, compress=True)


def confirm_read(token: str) -> tuple[int, str]:
    """The account and address a confirmation link was made for; ``BadToken`` if it was not
    made here or is older than three days."""
    try:
        user_id, email = signing.loads(token, salt=CONFIRM_SALT, max_age=CONFIRM_MAX_AGE)
    except (signing.BadSignature, ValueError, TypeError):
        raise BadToken from None
    if not isinstance(user_id, int) or not isinstance(email, str):
        raise BadToken
    return user_id, email
