"""Personal API tokens: what a program shows in ``Authorization: Bearer`` to act for its account.

Only a digest of the secret is stored (``botapi.services.token_create`` shows the secret once).
"""

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    class Scope(models.TextChoices):
        PLAY = "play", "play: move, offer, chat and challenge in your matches"
        READ = "read", "read: your event stream and account"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=40, help_text="the owner's label, e.g. the program's name")
    digest = models.CharField(max_length=64, unique=True, help_text="sha256 of the secret, hex")
    hint = models.CharField(max_length=12, help_text="the secret's first characters, to tell tokens apart")
    scopes = models.CharField(max_length=40, help_text="space-separated Scope values")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}…)"

    @property
    def scope_set(self) -> set[str]:
        return set(self.scopes.split())
