from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings
from django.urls import reverse
from icalendar import Calendar

from games.calendar import CalendarEvent, ics_calendar, ics_escape, ics_fold
from games.models import Turn
from tests.conftest import play_random

NOW = datetime(2025, 3, 4, 12, 30, 5, tzinfo=UTC)


def unfold(text: str) -> list[str]:
    """The content lines of an iCalendar text, folding undone (RFC 5545 section 3.1)."""
    return text.replace("\r\n ", "").split("\r\n")


def events_of(text: str) -> list:
    """The VEVENTs of an iCalendar text, read back by an independent parser."""
    return Calendar.from_ical(text).walk("VEVENT")


def feed_url(user) -> str:
    return reverse("calendar-feed", args=[user.calendar_token])


# --- the format, without a database -----------------------------------------------------------------


def test_text_values_escape_backslashes_separators_and_line_breaks():
    assert ics_escape("a\\b; c, d\ne") == "a\\\\b\\; c\\, d\\ne"
    assert ics_escape("one\r\ntwo") == "one\\ntwo"


def test_long_lines_fold_at_75_octets_without_splitting_a_character():
    line = "SUMMARY:" + "Mauer " * 10 + "Grosse Mauer \u2013 " + "長城" * 30
    folded = ics_fold(line)
    pieces = folded.split("\r\n")
    assert len(pieces) > 1
    assert all(len(piece.encode("utf-8")) <= 75 for piece in pieces)
    assert all(piece.startswith(" ") for piece in pieces[1:])
    assert folded.replace("\r\n ", "") == line
    assert ics_fold("SHORT:line") == "SHORT:line"


def test_a_calendar_has_crlf_lines_utc_times_and_one_event_per_deadline():
    deadline = datetime(2025, 3, 6, 9, 0, tzinfo=UTC)
    event = CalendarEvent(
        uid="turn-7@wallsite",
        start=deadline,
        end=deadline + timedelta(minutes=15),
        summary="Move due: Walls, towers; and\nmore (Wall Go)",
        description="Line one\nLine two with a very long tail " + "x" * 80,
        url="http://example.com/matches/7/",
    )
    text = ics_calendar(events=[event], now=NOW, name="Deadlines, mine; all")
    assert text.endswith("\r\n")
    assert "\n" not in text.replace("\r\n", "")  # no bare line feeds
    assert all(len(line.encode()) <= 75 for line in text.split("\r\n"))
    lines = unfold(text)
    assert lines[0] == "BEGIN:VCALENDAR" and lines[-2] == "END:VCALENDAR" and lines[-1] == ""
    assert "VERSION:2.0" in lines and any(line.startswith("PRODID:") for line in lines)
    assert lines.count("BEGIN:VEVENT") == 1 and lines.count("END:VEVENT") == 1
    assert "UID:turn-7@wallsite" in lines
    assert "DTSTAMP:20250304T123005Z" in lines
    assert "DTSTART:20250306T090000Z" in lines
    assert "DTEND:20250306T091500Z" in lines
    assert "X-WR-CALNAME:Deadlines\\, mine\\; all" in lines
    assert "REFRESH-INTERVAL;VALUE=DURATION:PT1H" in lines and "X-PUBLISHED-TTL:PT1H" in lines
    assert "SUMMARY:Move due: Walls\\, towers\\; and\\nmore (Wall Go)" in lines
    assert "DESCRIPTION:Line one\\nLine two with a very long tail " + "x" * 80 in lines
    assert "URL:http://example.com/matches/7/" in lines
    # Read back, every value of the event is what went in.
    [parsed] = events_of(text)
    assert str(parsed["UID"]) == "turn-7@wallsite"
    assert parsed.decoded("DTSTAMP") == NOW
    assert parsed.decoded("DTSTART") == deadline
    assert parsed.decoded("DTEND") == deadline + timedelta(minutes=15)
    assert str(parsed["SUMMARY"]) == event.summary
    assert str(parsed["DESCRIPTION"]) == event.description
    assert str(parsed["URL"]) == event.url


def test_times_in_other_zones_are_written_in_utc():
    from zoneinfo import ZoneInfo

    tokyo_nine = datetime(2025, 3, 6, 9, 0, tzinfo=ZoneInfo("Asia/Tokyo"))
    event = CalendarEvent("u@x", tokyo_nine, tokyo_nine + timedelta(minutes=15), "s", "d", "http://x/")
    text = ics_calendar(events=[event], now=NOW, name="n")
    assert "DTSTART:20250306T000000Z" in unfold(text)
    [parsed] = events_of(text)
    assert parsed.decoded("DTSTART") == tokyo_nine
    assert parsed.decoded("DTSTART").utcoffset() == timedelta(0)


# --- the feed ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_feed_lists_the_users_open_turns_with_deadlines(client, started_match, alice, bob):
    match = started_match(move_time_limit=timedelta(days=2), name="Quick, sharp; game")
    started_match(name="No clock")  # an open turn without a deadline: not in the calendar
    turn = Turn.objects.get(match=match, closed_at__isnull=True)
    response = client.get(feed_url(alice))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/calendar")
    text = response.content.decode()
    lines = unfold(text)
    assert lines.count("BEGIN:VEVENT") == 1
    assert f"UID:turn-{turn.pk}@wallsite" in lines
    assert f"DTSTART:{turn.deadline.astimezone(UTC):%Y%m%dT%H%M%SZ}" in lines
    assert "SUMMARY:Move due: Quick\\, sharp\\; game (Wall Go)" in lines
    assert f"URL:{settings.SITE_URL}{match.get_absolute_url()}" in lines
    [event] = events_of(text)
    assert str(event["UID"]) == f"turn-{turn.pk}@wallsite"
    assert event.decoded("DTSTART") == turn.deadline.replace(microsecond=0)  # the format has seconds
    assert str(event["SUMMARY"]) == "Move due: Quick, sharp; game (Wall Go)"
    assert str(event["URL"]) == f"{settings.SITE_URL}{match.get_absolute_url()}"
    # Nothing beyond the user's own deadlines: not the clockless match, not the secret address
    # itself, no e-mail address, no other player.
    for hidden in ("No clock", alice.calendar_token, alice.email, bob.email, bob.username):
        assert hidden not in text, hidden
    # Bob is not to move anywhere yet; after alice moves, the deadline is his.
    assert unfold(client.get(feed_url(bob)).content.decode()).count("BEGIN:VEVENT") == 0
    play_random(match, moves=1)
    assert unfold(client.get(feed_url(alice)).content.decode()).count("BEGIN:VEVENT") == 0
    assert unfold(client.get(feed_url(bob)).content.decode()).count("BEGIN:VEVENT") == 1


@pytest.mark.django_db
def test_an_unknown_calendar_address_is_404(client, alice):
    assert client.get(reverse("calendar-feed", args=["not-a-real-token"])).status_code == 404


@pytest.mark.django_db
def test_a_new_secret_address_kills_the_old_one(client, alice):
    old = feed_url(alice)
    assert client.get(old).status_code == 200
    client.force_login(alice)
    response = client.post(reverse("calendar-token-reset"), follow=True)
    assert "the old one no longer works" in response.content.decode()
    alice.refresh_from_db()
    assert feed_url(alice) != old
    assert feed_url(alice) in response.content.decode()
    client.logout()
    assert client.get(old).status_code == 404
    assert client.get(feed_url(alice)).status_code == 200


@pytest.mark.django_db
def test_resetting_the_address_needs_a_post(client, alice):
    client.force_login(alice)
    token = alice.calendar_token
    assert client.get(reverse("calendar-token-reset")).status_code == 405
    alice.refresh_from_db()
    assert alice.calendar_token == token
