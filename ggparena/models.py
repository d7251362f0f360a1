"""The always-on GGP arena's state, all of it in the database so that any process may own the
scheduler and a restarted one carries on: each program's entry (opted in, paused, its ladder
rating and record, its strikes), each match the arena made (settled once), and the one row
saying which process schedules now."""

from django.db import models

from games.match.ratings import INITIAL


class ArenaEntry(models.Model):
    """A registered GGP player in the arena: its owner opted it in (or out), the arena pauses it
    when it stops answering; its own ladder rating (openskill) and record."""

    player = models.OneToOneField("games.GGPPlayer", on_delete=models.CASCADE, primary_key=True,
                                  related_name="arena_entry")
    opted_in = models.BooleanField(default=False)
    paused_at = models.DateTimeField(null=True, blank=True, help_text="when the arena stopped scheduling it")
    paused_note = models.CharField(max_length=200, blank=True, default="", help_text="why it was paused")
    mu = models.FloatField(default=INITIAL[0])
    sigma = models.FloatField(default=INITIAL[1])
    played = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0)
    drawn = models.PositiveIntegerField(default=0)
    lost = models.PositiveIntegerField(default=0)
    aborted = models.PositiveIntegerField(default=0, help_text="arena matches called off that seated it")
    late = models.PositiveIntegerField(default=0, help_text="strikes: answers after the play clock")
    illegal = models.PositiveIntegerField(default=0, help_text="strikes: answers that were not a legal move")
    silent = models.PositiveIntegerField(default=0, help_text="strikes: no answer at all")

    def __str__(self) -> str:
        return f"arena entry of GGP player {self.player_id}"


class ArenaMatch(models.Model):
    """A match the arena made; ``settled`` once its result went into the ladder (exactly once)."""

    match = models.OneToOneField("games.Match", on_delete=models.CASCADE, primary_key=True,
                                 related_name="arena_match")
    created_at = models.DateTimeField(auto_now_add=True)
    settled = models.BooleanField(default=False)

    class Meta:
        indexes = [models.Index(fields=["settled"])]

    def __str__(self) -> str:
        return f"arena match {self.match_id}"


class ArenaState(models.Model):
    """The one row (pk 1): which process schedules now (``claim``, until ``held_until``) and the
    next rule set in the rotation."""

    claim = models.CharField(max_length=32, blank=True, default="")
    held_until = models.DateTimeField(null=True, blank=True)
    rotation = models.PositiveIntegerField(default=0, help_text="matches made so far: picks the next rule set")

    def __str__(self) -> str:
        return f"arena state (held by {self.claim or 'nobody'})"
