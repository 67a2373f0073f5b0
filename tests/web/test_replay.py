"""Replaying a match move by move: each step's board as the viewer saw it then, and its log line."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.models import Move
from tests.conftest import play_random

pytestmark = pytest.mark.django_db


def replay(client, match, at=None):
    url = reverse("match-replay", args=[match.pk]) + ("" if at is None else f"?at={at}")
    response = client.get(url)
    assert response.status_code == 200
    return response


def test_each_step_shows_the_board_after_that_move_and_its_line(client, started_match):
    match = play_random(started_match(), moves=6)
    engine = match.engine
    for seq in (1, 4, 6):
        step = replay(client, match, seq).context["step"]
        stored = Move.objects.get(match=match, seq=seq)
        expected = engine.public_view(stored.state_after)
        expected["private"] = {}
        assert step.seq == seq and step.last == 6
        assert step.svg == engine.render_svg(expected, None, interactive=False)
        assert step.line.notation == stored.notation
    # The latest step by default; out-of-range and nonsense numbers land on the nearest step.
    assert replay(client, match).context["step"].seq == 6
    assert replay(client, match, 0).context["step"].seq == 1
    assert replay(client, match, 99).context["step"].seq == 6
    assert replay(client, match, "x").context["step"].seq == 6


def test_the_navigation_links_step_through_and_stop_at_the_ends(client, started_match):
    match = play_random(started_match(), moves=3)
    first = replay(client, match, 1).content.decode()
    assert 'data-testid="replay-next"' in first and 'data-testid="replay-prev"' not in first
    last = replay(client, match, 3).content.decode()
    assert 'data-testid="replay-prev"' in last and 'data-testid="replay-next"' not in last
    assert "Move 3 of 3" in last


def test_a_match_without_moves_says_so_and_a_missing_one_is_404(client, started_match):
    match = started_match()
    assert "Nothing has been played yet" in replay(client, match).content.decode()
    assert client.get(reverse("match-replay", args=[999999])).status_code == 404


def test_a_step_costs_the_same_queries_early_and_late(client, started_match):
    match = play_random(started_match(), moves=30, seed=3)
    counts = []
    for seq in (2, 29):
        with CaptureQueriesContext(connection) as queries:
            replay(client, match, seq)
        counts.append(len(queries))
    assert counts[0] == counts[1] <= 6


def test_the_match_page_links_to_the_replay(client, started_match, alice):
    match = play_random(started_match(), moves=2)
    client.force_login(alice)
    page = client.get(reverse("match-detail", args=[match.pk])).content.decode()
    assert reverse("match-replay", args=[match.pk]) in page
