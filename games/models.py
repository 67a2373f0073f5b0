"""Matches and their append-only move log.

The engine's full state and the RNG state are server-only: they live in ``Match.engine_state`` /
``Match.rng_state`` (and ``Move.state_after``) and no page, API answer or log ever serialises them.
What leaves the server is ``Match.public_view`` (what a spectator may know) plus, for a player, that
seat's ``HiddenHand`` (what only that seat may know).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse

from games.engines import registry
from games.engines.base import Engine


class Match(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Waiting for players"
        ACTIVE = "active", "In play"
        FINISHED = "finished", "Finished"
        ABANDONED = "abandoned", "Abandoned"

    game = models.CharField(max_length=32, choices=registry.choices)
    name = models.CharField(max_length=80, blank=True)
    options = models.JSONField(default=dict, blank=True)
    seat_count = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN, db_index=True)
    # Bumped by every applied move: a client submits the version it saw, so a stale page cannot move.
    version = models.PositiveIntegerField(default=0)
    move_time_limit = models.DurationField(
        null=True, blank=True, help_text="Time each player has for a move; empty for no limit."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_matches"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    result_text = models.CharField(max_length=200, blank=True)

    public_view = models.JSONField(null=True, blank=True, editable=False)
    engine_state = models.JSONField(null=True, blank=True, editable=False)  # server-only
    rng_state = models.JSONField(null=True, blank=True, editable=False)  # server-only

    class Meta:
        verbose_name_plural = "matches"
        indexes = [models.Index(fields=["status", "-updated_at"], name="match_status_updated")]

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
    reminded_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["match", "number", "seat__position"]
        indexes = [
            models.Index(fields=["deadline"], condition=Q(closed_at__isnull=True), name="turn_open_deadline"),
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

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="moves")
    seq = models.PositiveIntegerField()
    seat = models.ForeignKey(Seat, null=True, blank=True, on_delete=models.PROTECT, related_name="moves")
    move = models.JSONField(null=True, blank=True)
    notation = models.CharField(max_length=200, blank=True)
    events = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    # Snapshot after this move, so replays and pages never re-run the log. Server-only.
    state_after = models.JSONField(editable=False)

    class Meta:
        ordering = ["match", "seq"]
        constraints = [models.UniqueConstraint(fields=["match", "seq"], name="move_seq_unique")]

    def __str__(self) -> str:
        return f"match {self.match_id} #{self.seq} {self.notation}"


class HiddenHand(models.Model):
    """What only one seat may see (cards, sealed bids), kept apart from the public view."""

    seat = models.OneToOneField(Seat, on_delete=models.CASCADE, related_name="hidden_hand")
    data = models.JSONField(default=dict)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"hand of {self.seat}"
