from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import presence
from games.models import Match, Seat, Turn
from games.presence import STAMP_REFRESH
from tests.conftest import play_random

pytestmark = pytest.mark.django_db

# A Monday morning in UTC: 18:00 the same day in Tokyo.
START = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)


def seat_of(match: Match, user) -> Seat:
    return Seat.objects.get(match=match, user=user)


# --- presence ---------------------------------------------------------------------------------------


def test_opening_the_match_page_marks_the_player_present(client, started_match, alice):
    match = started_match()
    client.force_login(alice)
    with time_machine.travel(START, tick=False):
        assert client.get(match.get_absolute_url()).status_code == 200
    assert seat_of(match, alice).last_seen_at == START


def test_watchers_and_visitors_leave_no_trace(client, started_match, carol):
    match = started_match()
    client.get(match.get_absolute_url())
    client.force_login(carol)
    client.get(match.get_absolute_url())
    assert not Seat.objects.filter(match=match, last_seen_at__isnull=False).exists()


def test_the_page_costs_one_update_for_presence_and_none_while_the_stamp_is_fresh(
    client, started_match, alice
):
    match = started_match()
    client.force_login(alice)
    with time_machine.travel(START, tick=False):
        client.get(match.get_absolute_url())  # warm caches (session, engine registry)
    for moment, expected in ((START + STAMP_REFRESH / 2, 0), (START + STAMP_REFRESH, 1)):
        with time_machine.travel(moment, tick=False), CaptureQueriesContext(connection) as captured:
            client.get(match.get_absolute_url())
        updates = [q["sql"] for q in captured.captured_queries if q["sql"].startswith("UPDATE")]
        assert len(updates) == expected and all("last_seen_at" in sql for sql in updates)
    assert seat_of(match, alice).last_seen_at == START + STAMP_REFRESH


def test_the_heartbeat_records_presence(client, started_match, alice):
    match = started_match()
    client.force_login(alice)
    with time_machine.travel(START, tick=False):
        response = client.post(reverse("match-seen", args=[match.pk]))
    assert response.status_code == 204
    assert seat_of(match, alice).last_seen_at == START


def test_the_heartbeat_refuses_what_it_should(client, started_match, alice, carol):
    match = started_match()
    url = reverse("match-seen", args=[match.pk])
    anonymous = client.post(url)
    assert anonymous.status_code == 302 and reverse("login") in anonymous["Location"]
    client.force_login(carol)
    assert client.post(url).status_code == 403
    assert client.post(reverse("match-seen", args=[match.pk + 1000])).status_code == 404
    client.force_login(alice)
    assert client.get(url).status_code == 405


def test_the_heartbeat_needs_the_csrf_token(started_match, alice):
    from django.test import Client

    match = started_match()
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post(reverse("match-seen", args=[match.pk])).status_code == 403
    assert seat_of(match, alice).last_seen_at is None


def test_the_match_page_loads_the_heartbeat_script_for_seated_players_only(
    client, started_match, alice, carol
):
    match = started_match()
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "js/presence.js" in page and reverse("match-seen", args=[match.pk]) in page
    client.force_login(carol)
    assert "js/presence.js" not in client.get(match.get_absolute_url()).content.decode()


# --- coming back from autopilot ---------------------------------------------------------------------


def test_a_player_back_at_the_page_takes_the_seat_back_from_the_computer(client, started_match, bob):
    match = started_match()
    Seat.objects.filter(match=match, user=bob).update(autopilot=True)
    client.force_login(bob)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "Welcome back: the computer stopped playing for you." in page
    assert "Computer playing for this seat" not in page
    assert seat_of(match, bob).autopilot is False
    assert "Welcome back" not in client.get(match.get_absolute_url()).content.decode()


def test_others_see_that_the_computer_is_playing_for_a_seat(client, started_match, alice, bob):
    match = started_match()
    Seat.objects.filter(match=match, user=bob).update(autopilot=True)
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "Computer playing for this seat until its player returns" in page
    assert seat_of(match, bob).autopilot is True


def test_seat_return_is_a_no_op_without_autopilot(started_match, alice, carol):
    match = started_match()
    assert presence.seat_return(match_id=match.pk, user=alice) is False
    assert presence.seat_return(match_id=match.pk, user=carol) is False


# --- deadlines in the viewer's time zone ------------------------------------------------------------


def make_timed_match(started_match, **kwargs) -> Match:
    with time_machine.travel(START, tick=False):
        return started_match(move_time_limit=timedelta(days=2), **kwargs)


def test_the_match_page_shows_my_deadline_in_my_zone_and_relative(client, started_match, alice):
    alice.time_zone = "Asia/Tokyo"
    alice.save()
    match = make_timed_match(started_match)
    deadline = Turn.objects.get(match=match, closed_at__isnull=True).deadline
    tokyo = timezone.localtime(deadline, timezone=ZoneInfo("Asia/Tokyo"))
    client.force_login(alice)
    with time_machine.travel(START + timedelta(hours=21), tick=False):
        page = client.get(match.get_absolute_url()).content.decode()
    expected = f"{tokyo:%a} {tokyo.day} {tokyo:%b %Y, %H:%M} JST"
    assert "Your move is due" in page
    assert expected in page
    assert "(in 1 day, 3 hours)" in page
    assert "Asia/Tokyo" in page


def test_a_viewer_in_utc_sees_the_same_deadline_in_utc(client, started_match, bob):
    match = make_timed_match(started_match)
    deadline = Turn.objects.get(match=match, closed_at__isnull=True).deadline.astimezone(UTC)
    client.force_login(bob)
    with time_machine.travel(START, tick=False):
        page = client.get(match.get_absolute_url()).content.decode()
    assert f"{deadline:%a} {deadline.day} {deadline:%b %Y, %H:%M} UTC" in page
    assert "(in 2 days)" in page
    assert "Your move is due" not in page  # it is alice's move


def test_an_overdue_deadline_reads_as_past(client, started_match, alice):
    match = make_timed_match(started_match)
    client.force_login(alice)
    with time_machine.travel(START + timedelta(days=2, hours=3), tick=False):
        page = client.get(match.get_absolute_url()).content.decode()
    assert "(3 hours ago)" in page


def test_the_match_page_explains_the_clock(client, started_match, alice):
    match = make_timed_match(
        started_match,
        bank_initial=timedelta(days=1),
        bank_increment=timedelta(hours=6),
        pause_weekends=True,
        timeout_policy=Match.Timeout.BOT,
    )
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "Weekends pause the clock" in page
    assert "When time runs out: a computer plays until the player returns." in page
    assert "Reserve: 1 day at the start, 6 hours more per move" in page
    assert "reserve 1 day" in page  # each seat's own reserve


def test_my_matches_has_a_deadline_column_in_my_zone(client, started_match, alice, bob):
    alice.time_zone = "Asia/Tokyo"
    alice.save()
    match = make_timed_match(started_match, name="Timed one")
    started_match(name="Untimed one")
    client.force_login(alice)
    with time_machine.travel(START, tick=False):
        page = client.get(reverse("my-matches")).content.decode()
    assert "<th>Deadline</th>" in page
    assert "JST" in page and "(in 2 days)" in page and "no time limit" in page
    # Most urgent first: the timed match is listed before the untimed one.
    assert page.index("Timed one") < page.index("Untimed one")
    play_random(match, moves=1)
    client.force_login(bob)
    with time_machine.travel(START, tick=False):
        page = client.get(reverse("my-matches")).content.decode()
    assert "UTC" in page


def test_my_matches_stays_at_a_fixed_number_of_queries(
    client, started_match, alice, django_assert_max_num_queries
):
    for _ in range(4):
        make_timed_match(started_match)
    client.force_login(alice)
    with django_assert_max_num_queries(8):
        client.get(reverse("my-matches"))
