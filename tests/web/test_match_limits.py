"""The create form holds a person to the account's caps (games/services/creating.py) and says why."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse

from games import services
from games.models import Match

pytestmark = pytest.mark.django_db

FORM = {"game": "wallgo", "seat_count": 2, "move_time_unit": "days"}


def test_the_form_refuses_a_match_past_the_cap_of_unfinished_ones_and_says_what_to_do(
    settings, client, alice
):
    settings.MAX_OPEN_MATCHES_PER_USER = 2
    client.force_login(alice)
    for _ in range(2):
        assert client.post(reverse("match-create"), FORM).status_code == 302

    response = client.post(reverse("match-create"), FORM)
    assert response.status_code == 400
    page = response.content.decode()
    assert "You have 2 unfinished matches that you created" in page
    assert "at most 2 at once. Create this one once one of them is over" in page
    assert Match.objects.count() == 2


def test_the_form_refuses_computer_opponents_past_the_cap_and_creates_nothing(settings, client, alice):
    settings.MAX_BOT_SEATS_PER_USER = 2
    services.match_create(creator=alice, game="wallgo", seat_count=3, bots=["easy", "hard"])
    client.force_login(alice)

    response = client.post(reverse("match-create"), {**FORM, "bot_count": 1, "bot_level": "hard"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Computer opponents already hold 2 seats in your unfinished matches" in page
    assert "Play people, or finish a match against the computer first." in page
    assert Match.objects.count() == 1
    # Against people, the same account may still create one.
    assert client.post(reverse("match-create"), FORM).status_code == 302


def test_the_form_refuses_a_match_past_the_hourly_cap_and_says_when_to_try_again(settings, client, alice):
    settings.MAX_MATCHES_CREATED_PER_HOUR = 1
    client.force_login(alice)
    with time_machine.travel("2026-03-02 10:00Z", tick=False) as clock:
        assert client.post(reverse("match-create"), FORM).status_code == 302
        clock.shift(timedelta(minutes=59))
        response = client.post(reverse("match-create"), FORM)
        assert response.status_code == 400
        assert "one account may create at most 1 an hour. Try again in 1 minute." in response.content.decode()
        assert Match.objects.count() == 1
        clock.shift(timedelta(minutes=1, seconds=1))
        assert client.post(reverse("match-create"), FORM).status_code == 302
