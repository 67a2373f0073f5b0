"""A private iCalendar feed (RFC 5545) of the deadlines a player must meet.

The text is written by hand: the feed needs a handful of properties, and the format's rules that
matter here (CRLF line ends, escaped text, lines folded at 75 octets, UTC times) fit in a page.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser

from games import selectors

CRLF = "\r\n"
MAX_OCTETS = 75
# A deadline is an instant, but RFC 5545 wants DTEND after DTSTART, and calendar apps show a short
# block better than a zero-length one.
EVENT_LENGTH = timedelta(minutes=15)


@dataclass(frozen=True)
class CalendarEvent:
    uid: str
    start: datetime
    end: datetime
    summary: str
    description: str
    url: str


def ics_escape(text: str) -> str:
    """TEXT value escaping: backslash first, then the separators, then line breaks."""
    text = text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
    return text.replace("\r\n", "\\n").replace("\r", "\\n").replace("\n", "\\n")


def ics_fold(line: str) -> str:
    """Split a content line into pieces of at most 75 octets, never inside a UTF-8 character; each
    continuation starts with a space (which counts towards its 75)."""
    pieces: list[str] = []
    current = ""
    size = 0
    limit = MAX_OCTETS
    for char in line:
        width = len(char.encode("utf-8"))
        if size + width > limit:
            pieces.append(current)
            current, size, limit = "", 0, MAX_OCTETS - 1
        current += char
        size += width
    pieces.append(current)
    return (CRLF + " ").join(pieces)


def ics_time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def ics_calendar(*, events: Iterable[CalendarEvent], now: datetime, name: str) -> str:
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//Wallsite//Deadlines//EN",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"X-WR-CALNAME:{ics_escape(name)}",
        # Deadlines move (a reserve, a vacation day): ask subscribers to refresh often.
        "REFRESH-INTERVAL;VALUE=DURATION:PT1H",
        "X-PUBLISHED-TTL:PT1H",
    ]
    stamp = ics_time(now)
    for event in events:
        lines += [
            "BEGIN:VEVENT",
            f"UID:{event.uid}",
            f"DTSTAMP:{stamp}",
            f"DTSTART:{ics_time(event.start)}",
            f"DTEND:{ics_time(event.end)}",
            f"SUMMARY:{ics_escape(event.summary)}",
            f"DESCRIPTION:{ics_escape(event.description)}",
            f"URL:{event.url}",
            "TRANSP:TRANSPARENT",
            "END:VEVENT",
        ]
    lines.append("END:VCALENDAR")
    return "".join(ics_fold(line) + CRLF for line in lines)


def calendar_for_user(*, user: AbstractBaseUser, now: datetime) -> str:
    """Every open turn of the user that has a deadline, as a calendar."""
    site = settings.SITE_URL.rstrip("/")
    events = []
    for turn in selectors.turns_awaiting(user=user).filter(deadline__isnull=False):
        match = turn.match
        url = site + match.get_absolute_url()
        title = match.engine.title
        events.append(
            CalendarEvent(
                uid=f"turn-{turn.pk}@wallsite",
                start=turn.deadline,
                end=turn.deadline + EVENT_LENGTH,
                summary=f"Move due: {match.display_name} ({title})",
                description=(
                    f"Your move in {match.display_name} ({title}) must be made by then; "
                    f"when time runs out: {match.get_timeout_policy_display().lower()}.\n{url}"
                ),
                url=url,
            )
        )
    return ics_calendar(events=events, now=now, name=f"Wallsite: {user.get_username()}'s deadlines")
