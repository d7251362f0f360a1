"""Matches, seats and moves. Thin: fields, constraints, ``__str__``. Writes live in services.py."""

import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone


def new_token() -> str:
    return secrets.token_urlsafe(18)


class Match(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting"
        ACTIVE = "active"
        FINISHED = "finished"
        ABORTED = "aborted"

    game = models.CharField(max_length=40)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    is_private = models.BooleanField(default=False)
    rated = models.BooleanField(default=False, help_text="the result changes the players' ratings")
    invite_token = models.CharField(max_length=32, unique=True, default=new_token)
    random_token = models.CharField(max_length=32, default=new_token)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                                   related_name="created_matches")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    state = models.JSONField()
    version = models.PositiveIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)
    rematch_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="rematches")
    # The number of stored moves. ``version`` counts every change pages must see and only
    # grows; a takeback lowers ``plies`` and still raises ``version``.
    plies = models.PositiveIntegerField(default=0)
    # The time control (games.match.clocks.TimeControl): none, base + increment seconds, days a move, or per move.
    clock_base = models.PositiveIntegerField(null=True, blank=True)
    clock_increment = models.PositiveIntegerField(default=0)
    clock_days = models.PositiveSmallIntegerField(null=True, blank=True)
    # Per move, the GGP way: a start clock before the first move and a play clock for every move (seconds).
    clock_start = models.PositiveSmallIntegerField(null=True, blank=True)
    clock_play = models.PositiveSmallIntegerField(null=True, blank=True)
    # The clock of a timed match once it started (games.match.clocks), and when the mover's time runs out.
    clock = models.JSONField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    # Pending draw offers and takeback requests (games.match.conduct); empty when there are none.
    offers = models.CharField(max_length=200, blank=True, default="")
    # The resigned seats' roles, sorted and space-separated: also on the match row so that a move
    # read without a lock sees a resignation made meanwhile (games.services.statements).
    resigned = models.CharField(max_length=100, blank=True, default="")
    # An imported match's content key (games.history.ggp.import_key: game, names, moves, start time;
    # not the file's matchId, which result["imported_from"] keeps): one stored copy each.
    import_key = models.CharField(max_length=100, null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["status", "is_private", "-created_at"]),
            models.Index(fields=["status", "game", "-finished_at"]),
            models.Index(fields=["status", "-finished_at"]),
            models.Index(fields=["status", "deadline"]),
        ]
        constraints = [
            models.UniqueConstraint(fields=["game", "import_key"], name="match_imported_once",
                                    condition=models.Q(import_key__isnull=False)),
        ]

    def __str__(self) -> str:
        return f"{self.game} #{self.pk} ({self.status})"


class Outcome(models.TextChoices):
    """A seat's result once the match is finished: the top score wins unless every score is equal."""

    WON = "won"
    DRAWN = "drawn"
    LOST = "lost"


class Out(models.TextChoices):
    """How a seat left play (``Seat.resigned``): the pages say so instead of "resigned" for all."""

    RESIGNED = "resigned", "resigned"
    TIME = "time", "ran out of time"
    ABANDONED = "abandoned", "away, claimed against"
    LEFT = "left", "left the site"


class Seat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    role = models.CharField(max_length=20)
    order = models.PositiveSmallIntegerField()
    player = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                               related_name="seats")
    reserved_for = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                                     related_name="+", help_text="a rematch seat kept for this player")
    joined_at = models.DateTimeField(null=True, blank=True)
    resigned = models.BooleanField(default=False)
    out = models.CharField(max_length=10, choices=Out.choices, blank=True,
                           help_text="how a resigned seat left play (blank before this was kept: resigned)")
    out_ply = models.PositiveIntegerField(null=True, blank=True,
                                          help_text="moves played when the seat left play: its later turns "
                                                    "were played at random (null before this was kept)")
    away_since = models.DateTimeField(null=True, blank=True,
                                      help_text="when the player's last page on this match closed")
    score = models.PositiveSmallIntegerField(null=True, blank=True)
    outcome = models.CharField(max_length=5, choices=Outcome.choices, blank=True)
    # The player's rating for this game (shown scale) when seated, overwritten by the rating
    # just before the update in a rated match; ``rating_after`` once a rated match finished.
    rating_before = models.SmallIntegerField(null=True, blank=True)
    rating_provisional = models.BooleanField(default=False)
    rating_after = models.SmallIntegerField(null=True, blank=True)
    # The roles, space-separated, whose result against this seat did not count for the ratings
    # (the pair limit, ``games.match.ratings``): all the others, and ``rating_after`` stays empty.
    unrated_against = models.CharField(max_length=100, blank=True, default="")

    class Meta:
        ordering = ["order"]
        constraints = [
            models.UniqueConstraint(fields=["match", "role"], name="seat_unique_role"),
            models.UniqueConstraint(fields=["match", "player"], name="seat_one_role_per_player"),
        ]
        indexes = [models.Index(fields=["player", "match"]), models.Index(fields=["player", "outcome"])]

    def __str__(self) -> str:
        return f"{self.role} of match {self.match_id}: {self.player or 'free'}"


class Move(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="moves")
    ply = models.PositiveIntegerField()
    role = models.CharField(max_length=20)
    action = models.CharField(max_length=40)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["ply"]
        constraints = [models.UniqueConstraint(fields=["match", "ply"], name="move_unique_ply")]

    def __str__(self) -> str:
        return f"match {self.match_id} ply {self.ply}: {self.role} {self.action}"


class ChatMessage(models.Model):
    """A line the players of a match wrote to each other; everyone who can watch the match reads it."""

    MAX_LENGTH = 300

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="chat")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    text = models.CharField(max_length=MAX_LENGTH)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["match", "id"])]

    def __str__(self) -> str:
        return f"{self.author} on match {self.match_id}: {self.text[:40]}"


class Rating(models.Model):
    """A player's rating in one rule set: openskill's Plackett-Luce mean and deviation."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings")
    game = models.CharField(max_length=40)
    mu = models.FloatField()
    sigma = models.FloatField()
    games = models.PositiveIntegerField(default=0, help_text="rated matches finished that counted")
    opponents = models.PositiveIntegerField(default=0, help_text="different players met in results that counted")
    last_played = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "game"], name="rating_one_per_game")]
        indexes = [models.Index(fields=["game", "-mu"]), models.Index(fields=["game", "-last_played"])]

    def __str__(self) -> str:
        return f"{self.player} in {self.game}: {self.mu:.2f} +- {self.sigma:.2f}"


class PoolEntry(models.Model):
    """A player waiting for a quick game: one entry per player, held by one page (socket)."""

    player = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=100, help_text="MatchSettings.pool_key(): who may be paired together")
    settings = models.JSONField(help_text="MatchSettings.to_json()")
    rating = models.SmallIntegerField()
    channel_name = models.CharField(max_length=200)
    created_at = models.DateTimeField()
    seen_at = models.DateTimeField(help_text="the page last asked for partners: older entries are skipped")

    class Meta:
        indexes = [models.Index(fields=["key", "rating"]), models.Index(fields=["key", "created_at"])]

    def __str__(self) -> str:
        return f"{self.player} waiting for {self.key}"


class Challenge(models.Model):
    """One player's proposal of a match to another, with its settings."""

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        DECLINED = "declined"
        CANCELLED = "cancelled"
        EXPIRED = "expired"

    challenger = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    challenged = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    settings = models.JSONField(help_text="MatchSettings.to_json()")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        indexes = [models.Index(fields=["challenged", "status"]), models.Index(fields=["challenger", "status"])]

    def __str__(self) -> str:
        return f"{self.challenger} challenges {self.challenged} ({self.status})"


class Analysis(models.Model):
    """A finished match's post-game analysis, and its place in the queue (the queue is these rows,
    so it survives a restart). ``evaluations[n]`` is position n's ``{"scores": {role: 0..1},
    "best": action | None}`` (games/computer/analysis.py), filled in as the worker goes."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="analysis")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    rounds = models.PositiveIntegerField(help_text="search rounds per position (ANALYSIS_ROUNDS when asked)")
    positions = models.PositiveIntegerField(help_text="positions to evaluate: the match's moves + 1")
    evaluations = models.JSONField(default=list, blank=True)
    claim = models.CharField(max_length=32, blank=True, default="",
                             help_text="the worker run holding a running analysis; its writes name it")
    holder = models.CharField(max_length=300, blank=True, default="",
                              help_text="the process running it (host:pid:run): gone, a start on its host takes it back")
    heartbeat = models.DateTimeField(null=True, blank=True,
                                     help_text="a running analysis's last progress: long silent, another worker takes it")
    error = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["status", "created_at"]), models.Index(fields=["requested_by", "created_at"])]

    def __str__(self) -> str:
        return f"analysis of match {self.match_id} ({self.status}, {len(self.evaluations)}/{self.positions})"


class GGPPlayer(models.Model):
    """A GGP player someone registered: a program behind an HTTP address (games.ggp), seated in
    matches through its own program account (``account``, marked as a bot wherever it shows)."""

    class Status(models.TextChoices):
        CHECKING = "checking", "not checked yet"
        ONLINE = "online", "online"
        BUSY = "busy", "busy (in another match)"
        AWAY = "away", "away (no answer)"

    account = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ggp_player")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ggp_players")
    url = models.CharField(max_length=200, help_text="where it listens (games.ggp.client.check_url)")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.CHECKING)
    checked_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=200, blank=True, default="", help_text="what the last check found")
    created_at = models.DateTimeField(auto_now_add=True)
    removed_at = models.DateTimeField(null=True, blank=True,
                                      help_text="when its owner removed it: kept, as it still counts toward the "
                                                "owner's limit for a while (games.ggp.players)")

    class Meta:
        indexes = [models.Index(fields=["owner"])]

    def __str__(self) -> str:
        return f"GGP player {self.account} at {self.url} ({self.status})"


class GGPProgress(models.Model):
    """What the GGP game manager (games.ggp.manager) has told a match's GGP seats, and which task
    serves the match now: in the database, so that any worker process may serve its next step,
    one task at a time, and a restarted one carries on where the last one left off."""

    match = models.OneToOneField(Match, on_delete=models.CASCADE, primary_key=True, related_name="ggp_progress")
    started = models.BooleanField(default=False, help_text="START was sent")
    sent = models.IntegerField(default=-1, help_text="the plies of the last step sent with PLAY")
    sent_at = models.DateTimeField(null=True, blank=True,
                                   help_text="when that PLAY went out (the clocks' time): its mover's play clock runs from then")
    ended = models.BooleanField(default=False, help_text="STOP or ABORT was sent, or the match never began")
    claim = models.CharField(max_length=32, blank=True, default="",
                             help_text="the task serving the match now; its writes name it")
    held_until = models.DateTimeField(null=True, blank=True,
                                      help_text="past this, a task that fell silent loses the match to the next")
    asked = models.PositiveIntegerField(default=0,
                                        help_text="changes asked for; the serving task serves again when it grew")

    def play_stands(self, plies: int) -> str:
        """Where the PLAY of the step at ``plies`` stands, for the clock of the GGP seat to move:
        ``"sent"`` (its play clock runs from ``sent_at``), ``"held"`` (a task holds the match and
        will send it once every answer to the step before has come) or ``""`` (no task is at the
        match: its process went away). The flag (``games.ggp.manager.flag_deadline``) and the
        pages (``games.selectors.ggp_play``) both read it so."""
        if self.sent == plies and self.sent_at is not None:
            return "sent"
        if self.claim and self.held_until is not None and self.held_until > timezone.now():
            return "held"
        return ""

    def __str__(self) -> str:
        return f"GGP progress of match {self.match_id}: step {self.sent}{' (ended)' if self.ended else ''}"


class ReplacedMove(models.Model):
    """A turn a GGP seat did not answer in time or legally (or a person's per-move turn run
    out), or whose answer Boardhall lost (the task that asked died before it came, or the flag
    fell because the manager could not act: ``lost``, not the player's fault): the random legal
    move played in its place is ``Move`` ``ply``; pages and the replay show it as such."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="ggp_replaced")
    ply = models.PositiveIntegerField()
    role = models.CharField(max_length=20)
    reason = models.CharField(max_length=10, choices=[("late", "late"), ("illegal", "illegal"),
                                                      ("silent", "no answer"), ("lost", "answer lost")])
    answer = models.CharField(max_length=200, blank=True, default="", help_text="what it answered, if anything")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "ply"], name="ggp_replaced_once")]

    def __str__(self) -> str:
        return f"match {self.match_id} ply {self.ply}: {self.role}'s move replaced ({self.reason})"
