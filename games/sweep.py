"""The minute sweep: claim due work with conditional updates, then queue it.

Each claim is one ``UPDATE ... WHERE <still due> RETURNING id``: when two sweeps run at once, the
database lets each row go to one of them only (PostgreSQL re-checks the WHERE clause after waiting on
the row lock; SQLite runs one writer at a time). What a sweep claims but cannot queue is released or
left pending, so the next sweep tries again.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from games import dispatch, notifications
from games.clock import next_reminder_after
from games.models import Match, Turn
from games.services.recording import automatic_work

log = logging.getLogger(__name__)

# A claimed expiry whose task never ran (lost with a broker) is claimed again after this long.
EXPIRY_RECLAIM = timedelta(minutes=10)


@dataclass
class SweepReport:
    expired: list[int] = field(default_factory=list)
    reminders: list[int] = field(default_factory=list)
    notifications: list[int] = field(default_factory=list)
    matches: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, int]:
        return {name: len(ids) for name, ids in asdict(self).items()}


def sweep_run(*, now: datetime | None = None, limit: int = 5000) -> SweepReport:
    now = now or timezone.now()
    report = SweepReport()
    report.expired = _claim_expired_turns(now=now, limit=limit)
    report.reminders = _claim_reminders(now=now, limit=limit)
    report.notifications = _due_notifications(now=now, limit=limit)
    report.matches = _owed_work(now=now, limit=limit)

    if report.expired and not dispatch.turns_expire_enqueue(report.expired):
        Turn.objects.filter(pk__in=report.expired).update(expiry_claimed_at=None)
    if report.notifications:
        dispatch.notifications_enqueue(report.notifications)
    if report.matches:
        _requeue_work(report.matches)
    return report


# A paused match's clocks are stopped: its turns neither expire nor remind until it resumes. Correlated
# on the primary key, so each candidate turn costs one index probe, not a scan of every match. The raw
# SQL here takes its table names from the models' _meta and binds every value (hence the nosec marks).
_NOT_PAUSED = (
    f"NOT EXISTS (SELECT 1 FROM {Match._meta.db_table} paused "  # nosec B608
    "WHERE paused.id = match_id AND paused.paused_at IS NOT NULL)"
)


def _returning(sql: str, params: list) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _dt(value: datetime):
    return connection.ops.adapt_datetimefield_value(value)


def _claim_expired_turns(*, now: datetime, limit: int) -> list[int]:
    table = Turn._meta.db_table
    reclaim = now - EXPIRY_RECLAIM
    due = (
        "closed_at IS NULL AND deadline <= %s AND (expiry_claimed_at IS NULL OR expiry_claimed_at < %s)"
        f" AND {_NOT_PAUSED}"
    )
    rows = _returning(
        f"UPDATE {table} SET expiry_claimed_at = %s "  # nosec B608
        f"WHERE id IN (SELECT id FROM {table} WHERE {due} ORDER BY deadline LIMIT %s) AND {due} "
        "RETURNING id",
        [_dt(now), _dt(now), _dt(reclaim), limit, _dt(now), _dt(reclaim)],
    )
    return sorted(row[0] for row in rows)


def _claim_reminders(*, now: datetime, limit: int) -> list[int]:
    """Claim due reminders, write their notifications and schedule each turn's next reminder."""
    table = Turn._meta.db_table
    due = f"closed_at IS NULL AND remind_at <= %s AND {_NOT_PAUSED}"
    with transaction.atomic():
        rows = _returning(
            f"UPDATE {table} SET remind_at = NULL "  # nosec B608
            f"WHERE id IN (SELECT id FROM {table} WHERE {due} ORDER BY remind_at LIMIT %s) AND {due} "
            "RETURNING id, remind_lead",
            [_dt(now), limit, _dt(now)],
        )
        if not rows:
            return []
        leads = dict(rows)
        # Only what the reminders need: the seat's player, never the match and its state.
        turns = list(
            Turn.objects.filter(pk__in=leads)
            .select_related("seat__user")
            .only(
                "pk",
                "match_id",
                "deadline",
                "seat__autopilot",
                "seat__user__is_active",
                "seat__user__notify",
                "seat__user__on_vacation",
                "seat__user__reminder_hours",
            )
        )
        claimed = [(turn, leads[turn.pk]) for turn in turns if leads[turn.pk] is not None]
        created = notifications.reminders_create(turns=claimed, now=now)
        # Each turn's next, shorter lead; one UPDATE per lead, the time computed from the deadline.
        following: dict[int, list[int]] = {}
        for turn, lead in claimed:
            if turn.seat.user_id:
                upcoming = next_reminder_after(
                    turn.deadline, turn.seat.user.reminder_hours, lead_done=lead, now=now
                )
                if upcoming:
                    following.setdefault(upcoming[1], []).append(turn.pk)
        for lead, ids in following.items():
            Turn.objects.filter(pk__in=ids).update(
                remind_at=F("deadline") - timedelta(hours=lead), remind_lead=lead
            )
        if created:
            notifications.queue_send(created)
    return sorted(leads)


def _due_notifications(*, now: datetime, limit: int) -> list[int]:
    """Pending notifications the queue may have missed, and digests due now."""
    digests = notifications.digests_create(now=now)
    stale = now - settings.REQUEUE_AFTER
    missed = notifications.pending_ids(due_by=stale, limit=limit)
    return sorted(set(digests) | set(missed))


def _owed_work(*, now: datetime, limit: int) -> list[int]:
    stale = now - settings.REQUEUE_AFTER
    return list(
        Match.objects.filter(status=Match.Status.ACTIVE, work_due_at__lte=stale)
        .order_by("work_due_at")
        .values_list("pk", flat=True)[:limit]
    )


def _requeue_work(match_ids: list[int]) -> None:

    work = []
    for match in Match.objects.filter(pk__in=match_ids):
        owed = automatic_work(match, match.engine, match.engine_state)
        if owed:
            work.extend(owed)
        else:
            Match.objects.filter(pk=match.pk, version=match.version).update(work_due_at=None)
    if work:
        dispatch.work_enqueue(work)
