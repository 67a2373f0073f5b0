"""Clock arithmetic for correspondence play: time per move, a reserve bank, and paused weekends.

Pure functions over aware datetimes; weekends are Saturday and Sunday in the player's own time zone,
so a player in Tokyo and one in Lima each get their own weekend.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

ZERO = timedelta(0)


@dataclass(frozen=True)
class ClockRules:
    move_time: timedelta | None
    bank_increment: timedelta | None = None
    bank_max: timedelta | None = None
    pause_weekends: bool = False


def _weekday_segments(start: datetime, end: datetime, tz: ZoneInfo):
    """Yield (a, b) pieces of [start, end) that fall on Monday to Friday in ``tz``."""
    cursor = start.astimezone(tz)
    end = end.astimezone(tz)
    while cursor < end:
        next_midnight = datetime.combine(cursor.date() + timedelta(days=1), time(0), tzinfo=tz)
        piece_end = min(end, next_midnight)
        if cursor.weekday() < 5:
            yield cursor, piece_end
        cursor = piece_end


def clock_time_between(start: datetime, end: datetime, *, pause_weekends: bool, tz: ZoneInfo) -> timedelta:
    """How much the clock ran from ``start`` to ``end``."""
    if end <= start:
        return ZERO
    if not pause_weekends:
        return end - start
    return sum((b - a for a, b in _weekday_segments(start, end, tz)), ZERO)


def clock_add(start: datetime, amount: timedelta, *, pause_weekends: bool, tz: ZoneInfo) -> datetime:
    """The instant at which ``amount`` of clock time has run since ``start``."""
    if not pause_weekends:
        return start + amount
    left = amount
    cursor = start.astimezone(tz)
    while True:
        next_midnight = datetime.combine(cursor.date() + timedelta(days=1), time(0), tzinfo=tz)
        if cursor.weekday() < 5:
            if cursor + left <= next_midnight:
                return (cursor + left).astimezone(start.tzinfo)
            left -= next_midnight - cursor
        cursor = next_midnight


def deadline_for(
    started: datetime, rules: ClockRules, *, bank: timedelta | None, tz: ZoneInfo
) -> datetime | None:
    """When a turn that started at ``started`` runs out: the move's own time, then the reserve."""
    if rules.move_time is None:
        return None
    return clock_add(started, rules.move_time + (bank or ZERO), pause_weekends=rules.pause_weekends, tz=tz)


def bank_after_move(
    started: datetime, moved: datetime, rules: ClockRules, *, bank: timedelta | None, tz: ZoneInfo
) -> timedelta | None:
    """The reserve after a move: time used beyond the move's own time comes out of it, then the
    increment goes in, never past the cap."""
    if rules.move_time is None or bank is None:
        return bank
    used = clock_time_between(started, moved, pause_weekends=rules.pause_weekends, tz=tz)
    left = max(ZERO, bank - max(ZERO, used - rules.move_time))
    if rules.bank_increment:
        left += rules.bank_increment
        if rules.bank_max is not None:
            left = min(left, max(rules.bank_max, bank))
    return left


def reminder_schedule(
    deadline: datetime | None, leads_hours: list[int], *, now: datetime
) -> tuple[datetime, int] | None:
    """The next reminder still ahead: (when, lead in hours), the longest lead first; None if none."""
    if deadline is None:
        return None
    for lead in sorted({int(h) for h in leads_hours if int(h) > 0}, reverse=True):
        at = deadline - timedelta(hours=lead)
        if at > now:
            return at, lead
    return None


def next_reminder_after(
    deadline: datetime | None, leads_hours: list[int], *, lead_done: int, now: datetime
) -> tuple[datetime, int] | None:
    """The reminder that follows the one for ``lead_done`` hours (a shorter lead), if still ahead."""
    shorter = [h for h in leads_hours if int(h) < lead_done]
    return reminder_schedule(deadline, shorter, now=now)
