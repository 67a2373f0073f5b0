"""POST /api/matches/ holds a program to the account's caps, with the same sentences as the web form."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine

from games.models import Match

pytestmark = pytest.mark.django_db

MATCHES = "/api/matches/"
BODY = {"game": "wallgo", "seat_count": 2}


def test_past_the_cap_of_unfinished_matches_the_api_answers_403_and_creates_nothing(
    settings, client_for, alice
):
    settings.MAX_OPEN_MATCHES_PER_USER = 1
    api = client_for(alice)
    assert api.post(MATCHES, BODY).status_code == 201

    answer = api.post(MATCHES, BODY)
    assert answer.status_code == 403 and "Retry-After" not in answer
    assert answer.json() == {
        "detail": "You have 1 unfinished match that you created, and one account may have at most 1 at "
        "once. Create this one once one of them is over (a match nobody has joined yet is over when you "
        "leave it)."
    }
    assert Match.objects.count() == 1


def test_past_the_hourly_cap_the_api_answers_429_with_retry_after(settings, client_for, alice):
    settings.MAX_MATCHES_CREATED_PER_HOUR = 2
    api = client_for(alice)
    with time_machine.travel("2026-03-02 10:00Z", tick=False) as clock:
        assert api.post(MATCHES, BODY).status_code == 201
        clock.shift(timedelta(minutes=20))
        assert api.post(MATCHES, BODY).status_code == 201
        clock.shift(timedelta(minutes=10))

        answer = api.post(MATCHES, BODY)
        assert answer.status_code == 429 and answer["Retry-After"] == str(30 * 60)
        assert answer.json()["detail"] == (
            "You have created 2 matches in the last hour, and one account may create at most 2 an hour. "
            "Try again in 30 minutes."
        )
        assert Match.objects.count() == 2

        clock.shift(timedelta(seconds=30 * 60 + 1))
        assert api.post(MATCHES, BODY).status_code == 201
