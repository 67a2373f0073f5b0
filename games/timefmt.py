"""Deadlines in words, for pages, e-mails and the calendar: local wall time and relative time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.utils import dateformat, timezone

# Day name and date spelled out, 24-hour clock, and the zone's abbreviation (JST, CET, UTC, -03).
WHEN_FORMAT = "D j M Y, H:i T"

_UNITS = (("day", 86400), ("hour", 3600), ("minute", 60))


def zone_for(name: str | None) -> tzinfo:
    """The user's zone; UTC when the stored name is empty or unknown to this machine."""
    try:
        return ZoneInfo(name) if name else UTC
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def when_text(moment: datetime, tz: tzinfo) -> str:
    """``moment`` as a reader in ``tz`` would say it: 'Tue 4 Mar 2025, 18:00 JST'."""
    return dateformat.format(timezone.localtime(moment, tz), WHEN_FORMAT)


def span_text(delta: timedelta) -> str:
    """A span in its largest unit and the next one: '2 days, 3 hours', '45 minutes'.

    Never '1 day, 5 minutes': two units only when they are adjacent, so the text is no more precise
    than it looks.
    """
    seconds = int(abs(delta).total_seconds())
    counts = []
    for unit, size in _UNITS:
        count, seconds = divmod(seconds, size)
        counts.append((count, unit))
    first = next((i for i, (count, _) in enumerate(counts) if count), None)
    if first is None:
        return "0 minutes"
    chosen = [counts[first]]
    if first + 1 < len(counts) and counts[first + 1][0]:
        chosen.append(counts[first + 1])
    return ", ".join(f"{count} {unit}{'' if count == 1 else 's'}" for count, unit in chosen)


def relative_text(moment: datetime, now: datetime) -> str:
    """'in 2 days, 3 hours' or '3 hours ago'; under a minute either way is 'now'."""
    delta = moment - now
    if abs(delta) < timedelta(minutes=1):
        return "now"
    text = span_text(delta)
    return f"in {text}" if delta > timedelta(0) else f"{text} ago"


def deadline_text(deadline: datetime, tz: tzinfo, now: datetime) -> str:
    """'Tue 4 Mar 2025, 18:00 JST (in 23 hours)'."""
    return f"{when_text(deadline, tz)} ({relative_text(deadline, now)})"
