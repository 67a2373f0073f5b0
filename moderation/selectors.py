"""Reads for the moderation pages."""

from __future__ import annotations

from datetime import UTC, datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from moderation.models import ModerationAction, Report, Suspension

QUEUE_FILTERS = {
    "unresolved": Q(status__in=Report.UNRESOLVED),
    "open": Q(status=Report.Status.OPEN),
    "assigned": Q(status=Report.Status.ASSIGNED),
    "closed": Q(status__in=[Report.Status.RESOLVED, Report.Status.DISMISSED]),
    "all": Q(),
}


def reports_queue(*, status: str = "unresolved", reason: str = "", mine_for: AbstractBaseUser | None = None):
    """Reports oldest first (the longest waiting on top), with what a row of the queue shows."""
    reports = Report.objects.filter(QUEUE_FILTERS.get(status, QUEUE_FILTERS["unresolved"]))
    if reason in Report.Reason.values:
        reports = reports.filter(reason=reason)
    if mine_for is not None:
        reports = reports.filter(assigned_to=mine_for)
    if status == "closed":
        reports = reports.order_by("-resolved_at", "-pk")
    return reports.select_related("reporter", "reported", "assigned_to", "resolved_by", "match", "message")


def unresolved_report_count() -> int:
    return Report.objects.filter(status__in=Report.UNRESOLVED).count()


def actions_recent(
    *, match_id: int | None = None, user: AbstractBaseUser | None = None
) -> QuerySet[ModerationAction]:
    actions = ModerationAction.objects.select_related("moderator", "target_user", "match", "report")
    if match_id is not None:
        actions = actions.filter(match_id=match_id)
    if user is not None:
        actions = actions.filter(Q(target_user=user) | Q(moderator=user))
    return actions


def suspension_in_force(*, user: AbstractBaseUser, now: datetime | None = None) -> Suspension | None:
    now = now or timezone.now()
    return (
        Suspension.objects.filter(user=user, lifted_at__isnull=True)
        .filter(Q(ends_at__isnull=True) | Q(ends_at__gt=now))
        # The one that lasts longest: a ban for good, then the latest end.
        .order_by(F("ends_at").desc(nulls_first=True))
        .first()
    )


def suspension_text(suspension: Suspension) -> str:
    """What the suspended user is told, in UTC (they are not logged in, so their zone is unknown)."""
    what = "banned" if suspension.kind == Suspension.Kind.BAN else "suspended"
    if suspension.ends_at is None:
        return f"Your account is {what}: {suspension.reason}"
    until = suspension.ends_at.astimezone(UTC)
    return f"Your account is {what} until {until:%d %B %Y, %H:%M} UTC: {suspension.reason}"
