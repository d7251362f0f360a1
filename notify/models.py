"""Notification tables: each account's choices, its browsers' push subscriptions, what was sent
(for the throttle) and the server's VAPID key pair."""

from django.conf import settings
from django.db import models


class Preference(models.Model):
    """An account's choices: nothing is sent until it opts in, per channel and event. Email
    goes only to an address the account confirmed (a link sent to it)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notify_preference")
    email = models.EmailField(blank=True)
    email_confirmed = models.BooleanField(default=False)
    email_turn = models.BooleanField(default=False)
    email_challenge = models.BooleanField(default=False)
    email_rematch = models.BooleanField(default=False)
    email_followed = models.BooleanField(default=False)
    email_tournament = models.BooleanField(default=False)
    push_turn = models.BooleanField(default=False)
    push_challenge = models.BooleanField(default=False)
    push_rematch = models.BooleanField(default=False)
    push_followed = models.BooleanField(default=False)
    push_tournament = models.BooleanField(default=False)

    def wants(self, channel: str, kind: str) -> bool:
        return bool(getattr(self, f"{channel}_{kind}"))

    def __str__(self) -> str:
        return f"notification choices of {self.user_id}"


class PushSubscription(models.Model):
    """One browser's push subscription (the Push API's endpoint and keys)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions")
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=200)
    auth = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"push subscription {self.pk} of {self.user_id}"


class SendLog(models.Model):
    """When a player was last notified of an event of a kind, by key (the match, or the
    challenger): the throttle's memory, shared by every process."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=20)
    key = models.BigIntegerField()
    sent_at = models.DateTimeField()
    ply = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "kind", "key"], name="notify_sendlog_unique")]

    def __str__(self) -> str:
        return f"{self.kind} {self.key} to {self.user_id} at {self.sent_at}"


class VapidKey(models.Model):
    """The server's VAPID key pair (RFC 8292), made on first use and kept: one row, shared by
    every process, so subscriptions made through one process are served by all."""

    private_pem = models.TextField()
    public_key = models.CharField(max_length=100, help_text="the uncompressed P-256 point, base64url")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"VAPID key {self.public_key[:12]}…"
