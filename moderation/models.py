"""Players' reports, the record of every moderator action, and suspensions.

``ModerationAction`` is append-only: the admin shows it and nobody edits it. Its ``reason`` is public
(the same words appear in the match log); ``note`` is for moderators only.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from games.models import Match, Move, Seat


class Report(models.Model):
    class Reason(models.TextChoices):
        STALLING = "stalling", "Stalling: not moving"
        ABUSE = "abuse", "Abuse or harassment"
        CHEATING = "cheating", "Cheating"
        MULTIPLE_ACCOUNTS = "multiple_accounts", "Multiple accounts"

    class Status(models.TextChoices):
        OPEN = "open", "Waiting for a moderator"
        ASSIGNED = "assigned", "Being handled"
        RESOLVED = "resolved", "Resolved"
        DISMISSED = "dismissed", "Dismissed"

    UNRESOLVED = (Status.OPEN, Status.ASSIGNED)

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="reports_made"
    )
    reported = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="reports_received"
    )
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="reports")
    message = models.ForeignKey(
        "chat.ChatMessage", null=True, blank=True, on_delete=models.SET_NULL, related_name="reports"
    )
    reason = models.CharField(max_length=24, choices=Reason.choices)
    details = models.TextField(max_length=1000, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    assigned_to = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    resolution = models.TextField(blank=True, help_text="The moderator's note on what was done.")
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["status", "created_at"], name="report_status_created")]

    def __str__(self) -> str:
        return f"Report #{self.pk}: {self.get_reason_display()} by {self.reporter} about {self.reported}"


class ModerationAction(models.Model):
    """One thing a moderator did: who, when, what, why."""

    class Kind(models.TextChoices):
        PAUSE = "pause", "Paused a match"
        RESUME = "resume", "Resumed a match"
        EXTEND = "extend", "Extended a deadline"
        HAND_OVER = "hand_over", "Handed a seat over"
        REMOVE = "remove", "Removed a player"
        ROLLBACK = "rollback", "Took back a move"
        ADJUDICATE = "adjudicate", "Adjudicated a match"
        ABANDON = "abandon", "Abandoned a match"
        CANCEL = "cancel", "Cancelled a match"
        VIEW_HIDDEN = "view_hidden", "Looked at hidden information"
        HIDE_MESSAGE = "hide_message", "Hid a chat message"
        SUSPEND = "suspend", "Suspended a user"
        BAN = "ban", "Banned a user"
        LIFT = "lift", "Lifted a suspension"
        REPORT_ASSIGN = "report_assign", "Took a report"
        REPORT_RESOLVE = "report_resolve", "Resolved a report"
        REPORT_DISMISS = "report_dismiss", "Dismissed a report"

    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="moderation_actions"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    summary = models.CharField(max_length=400, help_text="What was done, in words.")
    reason = models.CharField(max_length=300, blank=True, help_text="Why; public (shown in the match log).")
    note = models.TextField(blank=True, help_text="For moderators only.")
    match = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="moderation_actions"
    )
    target_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    report = models.ForeignKey(
        Report, null=True, blank=True, on_delete=models.SET_NULL, related_name="actions"
    )
    message = models.ForeignKey(
        "chat.ChatMessage", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The line this action wrote in the match log.
    log_line = models.ForeignKey(Move, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["-created_at", "-pk"]
        permissions = [
            ("moderate_matches", "Can pause, hand over, take back, adjudicate and end matches"),
            ("view_hidden_state", "Can see a running match's hidden information (recorded)"),
            ("moderate_users", "Can suspend and ban users"),
            ("moderate_chat", "Can read every chat and hide messages"),
            ("work_reports", "Can work through players' reports"),
        ]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.moderator}: {self.summary}"


class Suspension(models.Model):
    """A user kept out of the site (``is_active`` off) until ``ends_at``, or for good when a ban has none."""

    class Kind(models.TextChoices):
        SUSPENSION = "suspension", "Suspension"
        BAN = "ban", "Ban"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="suspensions")
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.SUSPENSION)
    reason = models.CharField(max_length=300, help_text="Shown to the user when they try to log in.")
    moderator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    starts_at = models.DateTimeField(default=timezone.now)
    ends_at = models.DateTimeField(null=True, blank=True, help_text="Empty: a ban without end.")
    lifted_at = models.DateTimeField(null=True, blank=True, help_text="Ended early, or ran out.")
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # Whether the account was usable before (a closed account stays closed when this ends).
    was_active = models.BooleanField(default=True, editable=False)

    class Meta:
        ordering = ["-starts_at", "-pk"]
        indexes = [
            models.Index(
                fields=["ends_at"], condition=Q(lifted_at__isnull=True), name="suspension_running_end"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of {self.user}"

    def in_force(self, now: datetime | None = None) -> bool:
        now = now or timezone.now()
        return self.lifted_at is None and (self.ends_at is None or self.ends_at > now)


class ModeratedMatch(Match):
    """Matches as moderators see them in the admin, with their actions."""

    class Meta:
        proxy = True
        verbose_name = "match (moderation)"
        verbose_name_plural = "matches (moderation)"


class ModeratedSeat(Seat):
    """Seats in the admin, for the actions on one player: hand over, remove, more time, adjudicate."""

    class Meta:
        proxy = True
        verbose_name = "seat (moderation)"
        verbose_name_plural = "seats (moderation)"
