"""Web push: the server's VAPID key pair (RFC 8292), made on first use and kept in the
database, and one message sent to one subscription, encrypted for it (RFC 8291, aes128gcm)."""

from __future__ import annotations

import base64
import json
from functools import lru_cache
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from django.conf import settings
from django.db import IntegrityError, transaction
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

from notify.models import PushSubscription, VapidKey

# Gone for good: the push service forgot the subscription (the browser unsubscribed, or its
# data was cleared); the row is deleted.
GONE = {404, 410}
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def vapid_key() -> VapidKey:
    """The key pair, made on first use: processes that start together agree on one (the
    first insert wins, the others read it)."""
    key = VapidKey.objects.order_by("pk").first()
    if key is not None:
        return key
    pair = Vapid()
    pair.generate_keys()
    public = pair.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    try:
        with transaction.atomic():
            VapidKey.objects.create(pk=1, private_pem=pair.private_pem().decode("ascii"), public_key=b64url(public))
    except IntegrityError:
        pass
    return VapidKey.objects.order_by("pk").first()


@lru_cache(maxsize=4)
def _signer(private_pem: str) -> Vapid:
    return Vapid.from_pem(private_pem.encode("ascii"))


def endpoint_allowed(endpoint: str) -> bool:
    """Whether the server may post to ``endpoint``: HTTPS to a push service named in
    ``PUSH_SERVICE_HOSTS`` (the host or a parent domain), never any other host of its
    network. A loopback host listed there may be plain HTTP (a test's push service)."""
    try:
        parts = urlsplit(endpoint)
        host = (parts.hostname or "").lower()
    except ValueError:
        return False
    listed = any(host == allowed or host.endswith("." + allowed) for allowed in settings.PUSH_SERVICE_HOSTS)
    if not listed or parts.username or parts.password:
        return False
    return parts.scheme == "https" or (parts.scheme == "http" and host in LOOPBACK)


def push_send(subscription: PushSubscription, message: dict) -> bool:
    """Send ``message`` (JSON) to one browser. Returns whether it was accepted; a subscription
    the push service no longer knows is deleted. Any other failure raises."""
    key = vapid_key()
    info = {"endpoint": subscription.endpoint, "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth}}
    try:
        webpush(info, json.dumps(message), vapid_private_key=_signer(key.private_pem),
                vapid_claims={"sub": settings.PUSH_CONTACT}, ttl=settings.PUSH_TTL_SECONDS,
                timeout=settings.PUSH_TIMEOUT_SECONDS)
    except WebPushException as err:
        if err.response is not None and getattr(err.response, "status_code", None) in GONE:
            PushSubscription.objects.filter(pk=subscription.pk).delete()
            return False
        raise
    return True
