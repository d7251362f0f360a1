"""Who follows whom (private: only the follower sees it) and who blocked whom."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone


class Follow(models.Model):
    follower = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    followed = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["follower", "followed"], name="follow_once"),
                       models.CheckConstraint(condition=~Q(follower=F("followed")), name="follow_not_self")]

    def __str__(self) -> str:
        return f"{self.follower_id} follows {self.followed_id}"


class Block(models.Model):
    blocker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    blocked = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["blocker", "blocked"], name="block_once"),
                       models.CheckConstraint(condition=~Q(blocker=F("blocked")), name="block_not_self")]
        # "Has anyone among these players blocked one of them" reads by the blocked side too.
        indexes = [models.Index(fields=["blocked", "blocker"])]

    def __str__(self) -> str:
        return f"{self.blocker_id} blocks {self.blocked_id}"
