"""A private iCalendar feed (RFC 5545) of the deadlines a player must meet.

The ``icalendar`` package writes the text: CRLF line ends, escaped TEXT values, lines folded at 75
octets without splitting a character, typed properties. Times go out in UTC, which every calendar app
shows in its own zone and which needs no VTIMEZONE block.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from icalendar import Calendar, Event, vDatetime, vDuration, vText
from icalendar.parser import Contentline

from games import selectors

# A deadline is an instant, but RFC 5545 wants DTEND after DTSTART, and calendar apps show a short
# block better than a zero-length one.
EVENT_LENGTH = timedelta(minutes=15)
# Deadlines move (a reserve, a vacation day): ask subscribers to refresh often.
REFRESH = timedelta(hours=1)


@dataclass(frozen=True)
class CalendarEvent:
    uid: str
    start: datetime
    end: datetime
    summary: str
    description: str
    url: str


def ics_escape(text: str) -> str:
    """A TEXT value as the feed writes it (backslashes, separators and line breaks escaped)."""
    return vText(text).to_ical().decode()


def ics_fold(line: str) -> str:
    """A content line folded as the feed writes it: pieces of at most 75 octets, continuations
    starting with a space."""
    return Contentline(line).to_ical().decode()


def ics_time(moment: datetime) -> str:
    return vDatetime(moment.astimezone(UTC)).to_ical().decode()


def ics_calendar(*, events: Iterable[CalendarEvent], now: datetime, name: str) -> str:
    calendar = Calendar()
    calendar.add("prodid", "-//Wallsite//Deadlines//EN")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    # Extension properties default to an untyped value: say they are text and a duration, or the
    # name goes out unescaped and the TTL as Python's "1:00:00".
    calendar.add("x-wr-calname", vText(name))
    calendar.add("refresh-interval", REFRESH, parameters={"VALUE": "DURATION"})
    calendar.add("x-published-ttl", vDuration(REFRESH))
    stamp = now.astimezone(UTC)
    for item in events:
        event = Event()
        event.add("uid", item.uid)
        event.add("dtstamp", stamp)
        event.add("dtstart", item.start.astimezone(UTC))
        event.add("dtend", item.end.astimezone(UTC))
        event.add("summary", item.summary)
        event.add("description", item.description)
        event.add("url", item.url)
        event.add("transp", "TRANSPARENT")
        calendar.add_component(event)
    return calendar.to_ical().decode()


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
