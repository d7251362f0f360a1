"""A tournament, its players (``Entry``) and its games (``TournamentGame``: a pairing of a round,
with the match once it is created). Standings are computed from the games (``standings``); an
entry's ``score`` keeps the last computed score for lists."""

import secrets

from django.conf import settings
from django.db import models


def new_invite_secret() -> str:
    return secrets.token_urlsafe(12)


class Tournament(models.Model):
    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin", "Round robin"
        SWISS = "swiss", "Swiss"
        ARENA = "arena", "Arena"

    class Status(models.TextChoices):
        UPCOMING = "upcoming"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    name = models.CharField(max_length=60)
    game = models.CharField(max_length=40, help_text="a rule set's slug (games.rules.SLUGS)")
    format = models.CharField(max_length=20, choices=Format.choices, default=Format.ROUND_ROBIN)
    cycles = models.PositiveSmallIntegerField(default=1, help_text="1: everyone meets once; 2: twice, both first movers")
    # The time control as a match stores it (games.match.clocks.TimeControl.fields()).
    clock_base = models.PositiveIntegerField(null=True, blank=True)
    clock_increment = models.PositiveIntegerField(default=0)
    clock_days = models.PositiveSmallIntegerField(null=True, blank=True)
    clock_start = models.PositiveIntegerField(null=True, blank=True)
    clock_play = models.PositiveIntegerField(null=True, blank=True)
    rated = models.BooleanField(default=False)
    is_private = models.BooleanField(default=False)
    invite_secret = models.CharField(max_length=32, default=new_invite_secret)
    min_players = models.PositiveSmallIntegerField(default=2)
    max_players = models.PositiveSmallIntegerField(default=8)
    starts_at = models.DateTimeField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.UPCOMING)
    status_reason = models.CharField(max_length=200, blank=True)
    current_round = models.PositiveSmallIntegerField(default=0, help_text="the last round created (0: none yet)")
    rounds = models.PositiveSmallIntegerField(default=0, help_text="how many rounds it has, set when it starts")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # An arena (tournaments.arena): how long it runs, and when it ends once started.
    minutes = models.PositiveSmallIntegerField(default=0, help_text="an arena's duration (0: not an arena)")
    ends_at = models.DateTimeField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0, help_text="of the live state its page is sent (tournaments.push)")

    # Hashed as account passwords are (empty: none); asked of those who join without the invite link.
    password = models.CharField(max_length=128, blank=True)
    scheduled_by = models.ForeignKey("tournaments.ScheduledEvent", null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="tournaments")

    class Meta:
        indexes = [models.Index(fields=["status", "starts_at"])]
        constraints = [models.UniqueConstraint(fields=["scheduled_by", "starts_at"], name="one_scheduled_start")]

    def __str__(self) -> str:
        return self.name


class Entry(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    score = models.FloatField(default=0)
    withdrawn = models.BooleanField(default=False)
    paused = models.BooleanField(default=False, help_text="an arena's player taking a break: not paired")
    joined_at = models.DateTimeField(auto_now_add=True)
    joined_round = models.PositiveSmallIntegerField(default=0, help_text="a Swiss: the rounds begun when they joined")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "player"], name="one_entry_per_player")]

    def __str__(self) -> str:
        return f"{self.player} in {self.tournament}"


class TournamentGame(models.Model):
    """A pairing of ``round`` (``first`` moves first, then ``second``, then ``third`` in a
    three-player game); ``match`` once it is created (a real-time
    game whose player was busy elsewhere waits for the next try)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="games")
    round = models.PositiveSmallIntegerField()
    first = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    third = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                              related_name="+", help_text="a three-player game's third seat (tournaments.trios)")
    match = models.OneToOneField("games.Match", null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="tournament_game")
    berserk_first = models.BooleanField(default=False, help_text="an arena's player halved their own clock")
    berserk_second = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "round", "first"], name="one_game_per_round")]

    def __str__(self) -> str:
        return f"{self.tournament} round {self.round}: {self.first} - {self.second}"


class Bye(models.Model):
    """A Swiss player's round without a game that scores: the pairing-allocated bye (1) or a
    late joiner's half-point bye (1/2). A round with neither and no game scores 0 (absent)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="byes")
    round = models.PositiveSmallIntegerField()
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    points = models.FloatField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "round", "player"], name="one_bye_per_round")]

    def __str__(self) -> str:
        return f"{self.player}: {self.points} in round {self.round} of {self.tournament}"


class ScheduledEvent(models.Model):
    """The site's own recurring tournament, set up in the admin: every day at each of ``times``
    (UTC), the sweep creates one (``tournaments.schedule``) ``lead_minutes`` ahead, hosted by
    ``host``."""

    name = models.CharField(max_length=60)
    game = models.CharField(max_length=40, help_text="a rule set's slug (games.rules.SLUGS), a two-player one")
    format = models.CharField(max_length=20, choices=Tournament.Format.choices, default=Tournament.Format.SWISS)
    clock = models.CharField(max_length=20, default="5+3", help_text="a time control's code: 5+3, d2, untimed")
    rounds = models.PositiveSmallIntegerField(default=5, help_text="a Swiss: how many rounds")
    cycles = models.PositiveSmallIntegerField(default=1, help_text="a round robin: 1 or 2")
    minutes = models.PositiveSmallIntegerField(default=60, help_text="an arena: how long it runs")
    rated = models.BooleanField(default=True)
    min_players = models.PositiveSmallIntegerField(default=2)
    max_players = models.PositiveSmallIntegerField(default=20)
    times = models.CharField(max_length=200, help_text="start times each day, UTC, separated by spaces: 18:00 20:30")
    lead_minutes = models.PositiveIntegerField(default=60, help_text="how long before its start it is listed")
    host = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+",
                             help_text="the account it is listed under (not entered in it)")
    active = models.BooleanField(default=True)

    def __str__(self) -> str:
        return self.name
