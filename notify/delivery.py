"""Sending: the rules that decide whether a notice goes out, and where the sending runs.

A notice goes to a person's account only (never a guest, the computer or a bot), on the
channels it opted into for that event (email only to a confirmed address, and only when the
server has SMTP), never while the player has the page open that shows the event already, and
at most once per key within the kind's window (``WINDOWS``): a turn in the same match once an
hour, unless the player moved in it since the last one.

``notify_on_commit`` is what the games' services call: after commit, the notice goes to this
process's thread pool (``NOTIFY_THREADS``), off the request and database threads; every
failure is logged there, never raised into the move that caused it.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from functools import partial
from typing import Callable

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connections, transaction
from django.utils import timezone, translation

from notify.events import CHANNELS, Notice, Reads
from notify.mail import email_enabled, email_send
from notify.models import Preference, PushSubscription, SendLog
from notify.push import endpoint_allowed, push_send
from notify.texts import WHAT, text_of

logger = logging.getLogger(__name__)

WINDOWS = {"turn": timedelta(hours=1), "challenge": timedelta(minutes=10), "rematch": timedelta(hours=1),
           # a followed player's matches: one notice an hour per followed player (a round robin
           # by correspondence starts all its matches at once); a tournament: one per entry
           "followed": timedelta(hours=1), "tournament": timedelta(days=30)}

_reads: Reads | None = None
_pool: ThreadPoolExecutor | None = None


def use(reads: Reads) -> None:
    """Receive what the notifications read of the games (``games.services.wiring``, at start-up)."""
    global _reads
    _reads = reads


def reads() -> Reads:
    if _reads is None:
        raise RuntimeError("notify.delivery.use(...) was not called: games.services.wiring.wire() sets it at start-up")
    return _reads


def notify_on_commit(notice: Notice) -> None:
    """Send ``notice`` once the current transaction commits (at once outside one)."""
    transaction.on_commit(partial(submit, notice), robust=True)


def submit(notice: Notice) -> None:
    run_off_thread(partial(deliver_logged, notice))


def run_off_thread(work: Callable[[], object]) -> None:
    """Run ``work`` (which logs its own failures) where sending runs: ``NOTIFY_WORKERS``
    "thread" (this process's pool), "inline" (the calling thread: tests), or "off"."""
    mode = settings.NOTIFY_WORKERS
    if mode == "off":
        return
    if mode == "inline":
        work()
        return
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=settings.NOTIFY_THREADS, thread_name_prefix="notify")
    _pool.submit(_in_pool, work)


def _in_pool(work: Callable[[], object]) -> None:
    try:
        work()
    finally:
        connections.close_all()  # a pool thread gives its connections back between tasks


def deliver_logged(notice: Notice) -> list[str]:
    try:
        return deliver(notice)
    except Exception:
        logger.exception("could not send the %s notice to player %s", notice.kind, notice.user_id)
        return []


def is_person(user) -> bool:
    """Only a signed-up person's account is ever notified."""
    return (user is not None and user.is_active and not user.is_guest and not user.is_computer
            and not getattr(user, "is_bot", False))


def deliver(notice: Notice) -> list[str]:
    """Apply the rules and send; returns the channels the notice went out on (each channel's
    failure is logged and leaves the others going)."""
    user = get_user_model().objects.filter(pk=notice.user_id).first()
    if not is_person(user):
        return []
    preference = Preference.objects.filter(user=user).first()
    if preference is None:
        return []
    channels = [c for c in CHANNELS if preference.wants(c, notice.kind)]
    if "email" in channels and not (preference.email_confirmed and preference.email and email_enabled()):
        channels.remove("email")
    subscriptions = list(PushSubscription.objects.filter(user=user)) if "push" in channels else []
    if "push" in channels and not subscriptions:
        channels.remove("push")
    if not channels or reads().page_open(user.pk, notice.watched_match):
        return []
    if not claim(notice):
        return []
    with translation.override(recipient_language(user)):
        return _send(notice, user, preference, channels, subscriptions)


def recipient_language(user) -> str:
    """The language the recipient chose in the footer's menu (kept on the account), else the
    site's default."""
    chosen = getattr(user, "language", "")
    codes = {code for code, _name in settings.LANGUAGES}
    return chosen if chosen in codes else settings.LANGUAGE_CODE


def _send(notice: Notice, user, preference: Preference, channels: list, subscriptions: list) -> list[str]:
    sent = []
    for channel in channels:
        text = text_of(notice, channel)
        try:
            if channel == "email":
                email_send(to=preference.email, text=text, kind_said=WHAT[notice.kind])
                sent.append(channel)
            else:
                if _push_each(subscriptions, push_message(notice)):
                    sent.append(channel)
        except Exception:
            logger.exception("could not send the %s notice to player %s by %s", notice.kind, user.pk, channel)
    return sent


def push_message(notice: Notice) -> dict:
    """What a push carries, for the service worker (static/js/sw.js) to show."""
    text = text_of(notice, "push")
    return {"title": text.title, "body": text.body, "url": text.url, "unsubscribe": text.unsubscribe_url,
            "tag": f"{notice.kind}-{notice.key}"}


def _push_each(subscriptions: list[PushSubscription], message: dict) -> bool:
    """Send ``message`` to each browser; whether any took it (one failing, the others go on)."""
    accepted = False
    for subscription in subscriptions:
        if not endpoint_allowed(subscription.endpoint):
            continue
        try:
            accepted = push_send(subscription, message) or accepted
        except Exception:
            logger.exception("could not push to subscription %s", subscription.pk)
    return accepted


def claim(notice: Notice) -> bool:
    """Whether this notice may go now, taking its place in the send log if so: one sender
    wins when processes race (a conditional update on the log's row)."""
    now = timezone.now()
    row = SendLog.objects.filter(user_id=notice.user_id, kind=notice.kind, key=notice.key).first()
    if row is None:
        try:
            with transaction.atomic():
                SendLog.objects.create(user_id=notice.user_id, kind=notice.kind, key=notice.key, sent_at=now,
                                       ply=notice.ply)
        except IntegrityError:
            return False
        return True
    if row.sent_at > now - WINDOWS[notice.kind]:
        moved = notice.kind == "turn" and reads().moved_since(notice.user_id, notice.key, row.ply)
        if not moved:
            return False
    return SendLog.objects.filter(pk=row.pk, sent_at=row.sent_at).update(sent_at=now, ply=notice.ply) == 1
