from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from games import services
from games.models import Match, Turn
from ratings import chart
from ratings.models import Rating
from tests.conftest import no_vacation
from tests.ratings.conftest import play_scores

pytestmark = pytest.mark.django_db


def test_the_leaderboard_orders_players_by_their_cautious_rating(client, alice, bob, carol, score_match):
    play_scores(score_match(alice, bob), [9, 1])
    play_scores(score_match(alice, carol), [9, 1])
    page = client.get(reverse("leaderboard", args=["testscores"]))
    assert page.status_code == 200
    rows = re.findall(r'href="/players/(\w+)/"', page.content.decode().split('data-testid="leaderboard"')[1])
    assert rows[0] == "alice" and set(rows) == {"alice", "bob", "carol"}
    assert client.get(reverse("leaderboard", args=["chess"])).status_code == 404
    assert "testscores" in client.get(reverse("leaderboards")).content.decode()


def test_the_profile_shows_ratings_with_their_uncertainty_and_a_chart(client, alice, bob, score_match):
    play_scores(score_match(alice, bob, name="<b>Final</b>"), [9, 1])
    play_scores(score_match(bob, alice), [2, 6])
    page = client.get(reverse("profile", args=["alice"])).content.decode()
    rated = Rating.objects.get(user=alice, game="testscores")
    assert f"{rated.ordinal:.1f}" in page
    assert f"{rated.mu:.1f} ± {rated.sigma:.1f}" in page
    svg = page.split('data-testid="rating-chart-testscores"')[1].split("</svg>")[0]
    assert 'role="img"' in svg and "<title" in svg and "2 rated matches" in svg
    assert svg.count("<polyline") == 2 and "<polygon" in svg
    assert "<b>Final</b>" not in page and "&lt;b&gt;Final&lt;/b&gt;" in page


def test_the_chart_escapes_its_text_and_describes_itself():
    now = timezone.now()
    points = [chart.Point(at=now, mu=25.0, sigma=8.3), chart.Point(at=now, mu=27.5, sigma=7.9)]
    svg = chart.history_svg(points, title='<script>"x"</script>', chart_id="c<1>")
    assert "<script>" not in svg and "&lt;script&gt;" in svg and 'id="c&lt;1&gt;-title"' in svg
    assert "1 rated match." in svg and "now 27.5 plus or minus 7.9" in svg
    assert "polyline" not in chart.history_svg(points[:1], title="t", chart_id="c")


def test_the_profile_shows_results_and_reliability(client, alice, bob, carol, score_match):
    play_scores(score_match(alice, bob), [9, 1])
    play_scores(score_match(alice, carol), [4, 4])
    late = score_match(alice, bob, move_time_limit=timedelta(days=1), timeout_policy=Match.Timeout.SKIP)
    no_vacation(alice)
    turn = Turn.objects.get(match=late, closed_at__isnull=True)
    services.turn_expire(turn_id=turn.pk, now=timezone.now() + timedelta(days=2))
    page = client.get(reverse("profile", args=["alice"])).content.decode()
    records = page.split('data-testid="profile-records"')[1].split("</table>")[0]
    assert re.search(r"<td>2</td><td>1</td><td>1</td><td>0</td>", records)
    reliability = page.split('data-testid="profile-reliability"')[1].split("</dl>")[0]
    # Two untimed moves do not count; the one timed turn ran out.
    assert "0%" in reliability and "(0 of 1 turns with a deadline)" in reliability
    assert "<dt>Timeouts</dt><dd>1</dd>" in reliability
    assert "Won" in page and "Drew" in page and "1st of 2" in page


def test_moves_in_time_and_abandoned_matches_make_the_reliability(alice, bob, score_match):
    from accounts.selectors import reliability_for

    timed = score_match(alice, bob, move_time_limit=timedelta(days=1), timeout_policy=Match.Timeout.FORFEIT)
    play_scores(timed, [5, 5])
    gone = score_match(alice, bob, move_time_limit=timedelta(days=1), timeout_policy=Match.Timeout.FORFEIT)
    no_vacation(alice)
    turn = Turn.objects.get(match=gone, closed_at__isnull=True)
    services.turn_expire(turn_id=turn.pk, now=timezone.now() + timedelta(days=2))
    mine = reliability_for(user=alice)
    assert (mine.moves_timed, mine.moves_in_time, mine.timeouts) == (1, 1, 1)
    assert mine.in_time_percent == 50.0
    assert (mine.matches_started, mine.forfeited, mine.completed_percent) == (2, 1, 50.0)
    assert reliability_for(user=bob).forfeited == 0


def test_the_profile_shows_the_time_zone_to_all_and_preferences_to_the_owner(client, alice):
    alice.time_zone = "Europe/Berlin"
    alice.save()
    page = client.get(reverse("profile", args=["alice"])).content.decode()
    assert "Europe/Berlin" in page and "Turn e-mails" not in page
    client.force_login(alice)
    page = client.get(reverse("profile", args=["alice"])).content.decode()
    assert "Turn e-mails" in page and "24, 2 hours before a deadline" in page


def test_a_match_is_rated_unless_its_creator_says_otherwise(client, alice):
    client.force_login(alice)
    form = {"game": "testscores", "seat_count": 2, "move_time_unit": "days"}
    client.post(reverse("match-create"), {**form, "name": "Friendly"})
    client.post(reverse("match-create"), {**form, "name": "Serious", "rated": "on"})
    client.post(reverse("match-create"), {**form, "name": "Bots", "rated": "on", "bot_count": 1})
    rated = dict(Match.objects.values_list("name", "rated"))
    assert rated == {"Friendly": False, "Serious": True, "Bots": False}


def test_the_api_creates_rated_matches_by_default_and_says_so(alice):
    api = APIClient()
    api.force_authenticate(alice)
    default = api.post("/api/matches/", {"game": "testscores", "seat_count": 2}, format="json")
    friendly = api.post(
        "/api/matches/", {"game": "testscores", "seat_count": 2, "rated": False}, format="json"
    )
    assert default.status_code == friendly.status_code == 201
    assert (default.json()["rated"], friendly.json()["rated"]) == (True, False)
    bad = api.post("/api/matches/", {"game": "testscores", "seat_count": 2, "rated": "maybe"}, format="json")
    assert bad.status_code == 400 and Match.objects.count() == 2
