"""Matches and their append-only move log.

The engine's full state and the RNG state are server-only: they live in ``Match.engine_state`` /
``Match.rng_state`` (and ``Move.state_after``) and no page, API answer or log ever serialises them.
``Match.seed`` is server-only too until the match has ended (``Match.seed_revealed``); its SHA-256,
``Match.seed_commitment``, is public from the start.
What leaves the server is ``Match.public_view`` (what a spectator may know) plus, for a player, that
seat's ``HiddenHand`` (what only that seat may know).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse

from games.engines import registry
from games.engines.base import Engine
from games.errors import NotFound


class Match(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Waiting for players"
        ACTIVE = "active", "In play"
        FINISHED = "finished", "Finished"
        ABANDONED = "abandoned", "Abandoned"
        CANCELLED = "cancelled", "Cancelled"

    game = models.CharField(max_length=32, choices=registry.choices)
    name = models.CharField(max_length=80, blank=True)
    options = models.JSONField(default=dict, blank=True)
    seat_count = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    # Bumped by every applied move: a client submits the version it saw, so a stale page cannot move.
    version = models.PositiveIntegerField(default=0)
    # How many log lines (Move rows) the match has: the next one's seq, without a MAX() per move.
    log_length = models.PositiveIntegerField(default=0, editable=False)
    rated = models.BooleanField(default=True, help_text="The result changes the players' ratings.")
    # Set while a moderator holds the match: no clock runs and nobody can move.
    paused_at = models.DateTimeField(null=True, blank=True)
    spectators_read_chat = models.BooleanField(
        default=False, help_text="People not playing may read the match's chat."
    )

    class Timeout(models.TextChoices):
        SKIP = "skip", "Skip the turn"
        FORFEIT = "forfeit", "The player is out"
        BOT = "bot", "A computer plays until the player returns"

    move_time_limit = models.DurationField(
        null=True, blank=True, help_text="Time each player has for a move; empty for no limit."
    )
    bank_initial = models.DurationField(null=True, blank=True, help_text="Reserve each player starts with.")
    bank_increment = models.DurationField(null=True, blank=True, help_text="Added to the reserve per move.")
    bank_max = models.DurationField(null=True, blank=True, help_text="The reserve never grows past this.")
    pause_weekends = models.BooleanField(default=False, help_text="Clocks stop on Saturdays and Sundays.")
    timeout_policy = models.CharField(max_length=16, choices=Timeout.choices, default=Timeout.SKIP)
    # Set while an automatic step (chance, a computer's move) is owed, so the sweep can redo a lost task.
    work_due_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_matches"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    result_text = models.CharField(max_length=200, blank=True)
    # The match this one replays (its "rematch"): a finished match has at most one, which its page offers.
    rematch_of = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch"
    )

    public_view = models.JSONField(null=True, blank=True, editable=False)
    engine_state = models.JSONField(null=True, blank=True, editable=False)  # server-only
    # Matches from before seeds only: their Mersenne Twister, which they keep drawing from (games/rng.py).
    rng_state = models.JSONField(null=True, blank=True, editable=False)  # server-only
    # Provable dice (games/rng.py): the secret seed, told once the match has ended, and its SHA-256,
    # public from the start; empty for a match from before seeds. ``chance_steps`` counts the numbered
    # random steps drawn so far (0 is the setup): the next one's number.
    seed = models.CharField(max_length=64, blank=True, editable=False)  # server-only until the end
    seed_commitment = models.CharField(max_length=64, blank=True, editable=False)
    chance_steps = models.PositiveIntegerField(default=0, editable=False)
    # The engine's ``rules_version`` when the match started: a record is replayed under today's rules,
    # and this says whether those are the rules it was played under. Empty for a match not yet begun and
    # for one from before versions were kept.
    rules_version = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    # A rated match takes no takebacks unless its creator allowed them; an unrated one always may.
    allow_takebacks = models.BooleanField(
        default=False, help_text="Players may take back a move by consent even though the match is rated."
    )

    class Meta:
        verbose_name_plural = "matches"
        indexes = [
            # The lobby's order; it also serves every lookup by status alone. No index holds a column a
            # move changes (updated_at, version, the state), so PostgreSQL updates the row in place
            # (a HOT update) instead of adding an entry to every index on every move.
            models.Index(fields=["status", "-created_at"], name="match_status_created"),
            models.Index(
                fields=["work_due_at"], condition=Q(work_due_at__isnull=False), name="match_work_due"
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.display_name}"

    def get_absolute_url(self) -> str:
        return reverse("match-detail", args=[self.pk])

    @property
    def engine(self) -> Engine:
        return registry.get_engine(self.game)

    @property
    def display_name(self) -> str:
        return self.name or self.engine.title

    @property
    def provable(self) -> bool:
        """Whether the match draws from a committed seed (not an old match's Mersenne Twister)."""
        return bool(self.seed_commitment)

    @property
    def ended(self) -> bool:
        return self.status in ENDED

    @property
    def seed_revealed(self) -> str:
        """The seed once the match has ended (anyone may then re-run its draws); "" until then."""
        return self.seed if self.ended and self.provable else ""

    @property
    def takebacks_on(self) -> bool:
        return not self.rated or self.allow_takebacks


# A match in one of these states draws nothing more: its seed may be told.
ENDED = (Match.Status.FINISHED, Match.Status.ABANDONED, Match.Status.CANCELLED)


class Seat(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing", "Playing"
        RESIGNED = "resigned", "Resigned"
        FORFEITED = "forfeited", "Forfeited"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="seats"
    )
    bot = models.CharField(max_length=32, blank=True, help_text="Computer opponent's kind, if no user.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PLAYING)
    joined_at = models.DateTimeField(auto_now_add=True)
    score = models.FloatField(null=True, blank=True)
    rank = models.PositiveSmallIntegerField(null=True, blank=True, help_text="1 is first; equal ranks tie.")
    bank = models.DurationField(null=True, blank=True, help_text="Reserve time left on this seat's clock.")
    autopilot = models.BooleanField(
        default=False, help_text="A computer moves for the seat until its return."
    )
    last_seen_at = models.DateTimeField(null=True, blank=True, help_text="When the player last had it open.")
    timeouts = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["match", "position"], name="seat_position_unique"),
            models.UniqueConstraint(
                fields=["match", "user"], condition=Q(user__isnull=False), name="seat_user_once_per_match"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match_id}:{self.position} {self.player_name}"

    @property
    def player_name(self) -> str:
        if self.user_id:
            return self.user.username
        return f"Computer ({self.bot})" if self.bot else "Empty seat"


class Turn(models.Model):
    """One seat's awaited input; several are open at once when seats act simultaneously."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="turns")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="turns")
    number = models.PositiveIntegerField(help_text="The match version when the turn opened.")
    started_at = models.DateTimeField()
    deadline = models.DateTimeField(null=True, blank=True)
    # The next reminder still to send, and the lead (hours before the deadline) it belongs to.
    remind_at = models.DateTimeField(null=True, blank=True)
    remind_lead = models.PositiveSmallIntegerField(null=True, blank=True)
    # Set by the sweep that queued the expiry; cleared again if the queue was unreachable.
    expiry_claimed_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.CharField(max_length=16, blank=True, help_text="move, timeout, vacation, end ...")

    class Meta:
        ordering = ["match", "number", "seat__position"]
        indexes = [
            models.Index(fields=["deadline"], condition=Q(closed_at__isnull=True), name="turn_open_deadline"),
            models.Index(fields=["remind_at"], condition=Q(closed_at__isnull=True), name="turn_open_remind"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["seat"], condition=Q(closed_at__isnull=True), name="turn_one_open_per_seat"
            ),
        ]

    def __str__(self) -> str:
        return f"match {self.match_id} turn {self.number} seat {self.seat_id}"


class Move(models.Model):
    """Append-only log: one row per applied move (or automatic step, with no seat)."""

    # No index of its own: the unique (match, seq) serves every look-up by match, and a move's INSERT
    # would keep both up to date.
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="moves", db_index=False)
    seq = models.PositiveIntegerField()
    seat = models.ForeignKey(Seat, null=True, blank=True, on_delete=models.PROTECT, related_name="moves")
    move = models.JSONField(null=True, blank=True)
    notation = models.CharField(max_length=200, blank=True)
    # The seats that may read the notation (a sealed bid: the mover alone); null: everyone.
    notation_visible_to = models.JSONField(null=True, blank=True, editable=False)
    events = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    # The number of the random step this line drew from (a chance step, a skipped turn), if any: with
    # the revealed seed, anyone can draw it again.
    chance_step = models.PositiveIntegerField(null=True, blank=True, editable=False)
    # Snapshot after this move, so replays and pages never re-run the log. Server-only.
    state_after = models.JSONField(editable=False)

    class Meta:
        ordering = ["match", "seq"]
        constraints = [models.UniqueConstraint(fields=["match", "seq"], name="move_seq_unique")]

    def __str__(self) -> str:
        return f"match {self.match_id} #{self.seq} {self.public_notation}"

    def notation_readable_by(self, position: int | None) -> bool:
        seats = self.notation_visible_to
        return seats is None or (position is not None and position in seats)

    @property
    def public_notation(self) -> str:
        """The notation as everybody may read it: a sealed move's is withheld."""
        return self.notation if self.notation_visible_to is None else "(sealed)"


class HiddenHand(models.Model):
    """What only one seat may see (cards, sealed bids), kept apart from the public view."""

    seat = models.OneToOneField(Seat, on_delete=models.CASCADE, related_name="hidden_hand")
    data = models.JSONField(default=dict)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"hand of {self.seat}"


class Notification(models.Model):
    """One message to one user, written in the transaction that caused it and sent by a task.

    The row is the outbox: a message survives a queue outage and is sent by the next sweep; its
    unique key makes a second copy of the same event impossible.
    """

    class Kind(models.TextChoices):
        YOUR_TURN = "your_turn", "Your turn"
        REMINDER = "reminder", "Deadline reminder"
        MATCH_EVENT = "match_event", "Something happened in a match"
        DIGEST = "digest", "Daily digest"

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting to be sent"
        SENT = "sent", "Sent"
        SKIPPED = "skipped", "Not needed any more"
        FAILED = "failed", "Could not be sent"

    # No index of its own: the unique (user, key) serves every look-up by user.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications", db_index=False
    )
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    turn = models.ForeignKey(Turn, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    key = models.CharField(
        max_length=120, help_text="What event this is about; one message per user and key."
    )
    text = models.TextField(blank=True, help_text="The event in words, for match events.")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    due_at = models.DateTimeField(help_text="Not sent before this.")
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    skip_reason = models.CharField(max_length=120, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="notification_once_per_key")]
        indexes = [
            models.Index(fields=["due_at"], condition=Q(status="pending"), name="notification_pending_due"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} to {self.user_id}: {self.key} ({self.status})"


def match_key(match_id: Any) -> int:
    """The match id in ``match_id`` (a URL part, a form value), or NotFound: never a failed query."""
    try:
        key = int(match_id)
    except (ValueError, TypeError):
        raise NotFound("There is no such match.") from None
    if not 0 < key < 2**63:  # beyond the id column's range: no such row, and no query to overflow
        raise NotFound("There is no such match.")
    return key


class Forecast(models.Model):
    """A seat's conditional moves: lines of "if they play X, I reply Y", several deep, each a list of
    notations that alternate the opponent's move and the owner's reply. Only its owner ever sees it."""

    seat = models.OneToOneField(Seat, on_delete=models.CASCADE, related_name="forecast")
    # The match version the lines start from: a plan for another position is void.
    version = models.PositiveIntegerField()
    lines = models.JSONField(default=list)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"forecast of seat {self.seat_id} at version {self.version}"


class Takeback(models.Model):
    """A seat's request to take back its last move, which the other seats accept or refuse."""

    class Status(models.TextChoices):
        OPEN = "open", "Waiting for answers"
        ACCEPTED = "accepted", "Accepted"
        REFUSED = "refused", "Refused"
        WITHDRAWN = "withdrawn", "Withdrawn"
        LAPSED = "lapsed", "Lapsed"  # the position changed before everyone answered

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="takebacks")
    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="takebacks")
    move = models.ForeignKey(Move, on_delete=models.CASCADE, related_name="takebacks")
    version = models.PositiveIntegerField(help_text="The match version when it was asked.")
    answers = models.JSONField(default=dict, blank=True, help_text="Seat position -> accepted (true/false).")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # One open request per match at a time.
            models.UniqueConstraint(
                fields=["match"], condition=Q(status="open"), name="takeback_one_open_per_match"
            ),
        ]

    def __str__(self) -> str:
        return f"takeback of move {self.move_id} ({self.status})"


class Analysis(models.Model):
    """The search bot's review of a finished match: each seat's moves rated from that seat's own view."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="analysis")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    done = models.PositiveIntegerField(default=0, help_text="Positions analysed so far.")
    total = models.PositiveIntegerField(default=0, help_text="Positions to analyse.")
    # One entry per rated move: {"seq", "mark" ("?" or "??" or ""), "loss", "best", "best_move"}.
    marks = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "analyses"

    def __str__(self) -> str:
        return f"analysis of match {self.match_id} ({self.status})"
