"""Writes of the notification settings: an account's choices and email address, its browsers'
push subscriptions, and the two links sent out (unsubscribe, confirm an address)."""

from __future__ import annotations

import base64
import binascii
import logging
from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from notify.delivery import is_person, run_off_thread
from notify.events import CHANNELS, KINDS
from notify.mail import confirmation_send
from notify.models import Preference, PushSubscription, SendLog
from notify.push import endpoint_allowed
from notify.texts import absolute
from notify.tokens import BadToken, confirm_read, confirm_token, unsubscribe_read

logger = logging.getLogger(__name__)

MAX_SUBSCRIPTIONS = 10  # browsers per account; the oldest goes when another subscribes
CONFIRM_EVERY = timedelta(minutes=1)  # confirmation emails, per account
CHOICES = [f"{channel}_{kind}" for channel in CHANNELS for kind in KINDS]


class NotifyError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


@dataclass(frozen=True)
class Unsubscribed:
    channel: str
    kind: str
    was_on: bool


def _require_person(user) -> None:
    if not (user.is_authenticated and is_person(user)):
        raise NotifyError("not_for_guests", _("Notifications are for signed-up accounts: sign up to get them."))


def preference_of(user) -> Preference:
    """The account's choices (all off until saved)."""
    return Preference.objects.filter(user=user).first() or Preference(user=user)


def preference_update(*, user, choices: set[str], email: str) -> Preference:
    """Save the account's choices (``choices``: names from ``CHOICES``; the others go off)
    and its address. A new address waits for its confirmation: a link is emailed to it, at
    most once a minute per account."""
    _require_person(user)
    email = email.strip()
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise NotifyError("bad_email", _("%(address)s is not an email address.") % {"address": email[:80]}) from None
        if len(email) > 254:
            raise NotifyError("bad_email", _("That email address is too long."))
    with transaction.atomic():
        preference = Preference.objects.select_for_update().filter(user=user).first() or Preference(user=user)
        new_address = email.lower() != preference.email.lower()
        if new_address and email:
            _confirmation_allowed(user)
        for name in CHOICES:
            setattr(preference, name, name in choices)
        if new_address:
            preference.email, preference.email_confirmed = email, False
        preference.save()
        if new_address and email:
            transaction.on_commit(partial(run_off_thread, partial(_confirmation_logged, user.pk, email, translation.get_language())), robust=True)
    return preference


def _confirmation_allowed(user) -> None:
    now = timezone.now()
    row = SendLog.objects.filter(user=user, kind="confirm", key=0).first()
    if row is not None and row.sent_at > now - CONFIRM_EVERY:
        raise NotifyError("too_soon", _("A confirmation email was sent less than a minute ago: "
                                        "wait a minute before changing the address again."))
    SendLog.objects.update_or_create(user=user, kind="confirm", key=0, defaults={"sent_at": now})


def _confirmation_logged(user_id: int, email: str, language: str | None) -> None:
    """Send the confirmation, in the language of the page that asked for it."""
    try:
        with translation.override(language):
            confirmation_send(to=email, settings_url=absolute(reverse("notify:settings")),
                              confirm_url=absolute(reverse("notify:confirm", args=[confirm_token(user_id=user_id, email=email)])))
    except Exception:
        logger.exception("could not send the confirmation email of player %s", user_id)


def email_confirm(*, token: str) -> Preference:
    """Confirm the address a link was sent to, if it is still the account's."""
    try:
        user_id, email = confirm_read(token)
    except BadToken:
        raise NotifyError("bad_link", _("This confirmation link is not valid or has expired (links last three days): "
                                        "save your address again to get a new one.")) from None
    with transaction.atomic():
        preference = Preference.objects.select_for_update().filter(user_id=user_id).first()
        if preference is None or preference.email.lower() != email.lower():
            raise NotifyError("other_address", _("This link is for an address the account no longer uses."))
        if not preference.email_confirmed:
            preference.email_confirmed = True
            preference.save(update_fields=["email_confirmed"])
    return preference


def unsubscribe(*, token: str) -> Unsubscribed:
    """Turn off the one event on the one channel a notification's link names. Any number of
    times: the second click finds it off and says so."""
    try:
        wanted = unsubscribe_read(token)
    except BadToken:
        raise NotifyError("bad_link", _("This unsubscribe link is not valid: it may have been cut short. "
                                        "Open your notification settings to turn notifications off.")) from None
    field = f"{wanted.channel}_{wanted.kind}"
    changed = Preference.objects.filter(user_id=wanted.user_id, **{field: True}).update(**{field: False})
    return Unsubscribed(channel=wanted.channel, kind=wanted.kind, was_on=changed > 0)


def _key(value: str, size: int, name: str) -> str:
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != size:
        raise NotifyError("bad_subscription", _("The browser's %(name)s key is not valid.") % {"name": name})
    return value.rstrip("=")


def push_subscribe(*, user, endpoint: str, p256dh: str, auth: str) -> PushSubscription:
    """Keep this browser's subscription (one row per endpoint; at most ``MAX_SUBSCRIPTIONS``
    per account, the oldest going first)."""
    _require_person(user)
    if not isinstance(endpoint, str) or len(endpoint) > 1000 or not endpoint_allowed(endpoint):
        raise NotifyError("push_service", _("This browser's push service is not one this server sends to."))
    p256dh, auth = _key(str(p256dh), 65, "p256dh"), _key(str(auth), 16, "auth")
    with transaction.atomic():
        subscription, _created = PushSubscription.objects.update_or_create(
            endpoint=endpoint, defaults={"user": user, "p256dh": p256dh, "auth": auth})
        kept = PushSubscription.objects.filter(user=user).order_by("-created_at", "-pk").values_list("pk", flat=True)
        PushSubscription.objects.filter(user=user).exclude(pk__in=list(kept[:MAX_SUBSCRIPTIONS])).delete()
    return subscription


def push_unsubscribe(*, user, endpoint: str) -> int:
    return PushSubscription.objects.filter(user=user, endpoint=endpoint).delete()[0]
