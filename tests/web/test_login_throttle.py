"""Guessing passwords is throttled: five wrong ones for a name, or thirty from one address, then a wait."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from accounts.models import LoginFailure
from accounts.throttle import PER_ADDRESS, PER_NAME, WINDOW
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def log_in(client, username: str, password: str, address: str = "198.51.100.7"):
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address)


def test_after_five_wrong_passwords_even_the_right_one_waits(client, alice):
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        for _ in range(PER_NAME):
            assert log_in(client, "alice", "not-it").status_code == 200  # the form, with its error
        refused = log_in(client, "alice", PASSWORD)
    assert refused.status_code == 429
    assert "Too many wrong passwords for alice" in refused.content.decode()
    assert "_auth_user_id" not in client.session
    # Nothing more is counted while refused, and the wait ends with the window.
    assert LoginFailure.objects.filter(username="alice").count() == PER_NAME
    with time_machine.travel(start + WINDOW + timedelta(seconds=1), tick=False):
        assert log_in(client, "alice", PASSWORD).status_code == 302
    assert client.session["_auth_user_id"] == str(alice.pk)
    assert not LoginFailure.objects.filter(username="alice").exists()


def test_one_name_being_guessed_does_not_lock_out_another(client, alice, bob):
    for _ in range(PER_NAME):
        log_in(client, "alice", "not-it")
    assert log_in(client, "bob", PASSWORD, address="203.0.113.9").status_code == 302


def test_a_success_clears_the_count(client, alice):
    for _ in range(PER_NAME - 1):
        log_in(client, "alice", "not-it")
    assert log_in(client, "alice", PASSWORD).status_code == 302
    client.logout()
    for _ in range(PER_NAME - 1):
        assert log_in(client, "alice", "not-it").status_code == 200
    assert log_in(client, "alice", PASSWORD).status_code == 302


def test_one_address_trying_many_names_waits(client, alice):
    for index in range(PER_ADDRESS):
        log_in(client, f"someone{index}", "guess")
    refused = log_in(client, "alice", PASSWORD)
    assert refused.status_code == 429 and "from your address" in refused.content.decode()
    assert log_in(client, "alice", PASSWORD, address="192.0.2.44").status_code == 302
