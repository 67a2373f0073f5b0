"""Guessing passwords is throttled (django-axes, accounts/lockout.py): five wrong ones for a name, or
thirty refused log-ins from one address, and log-ins wait fifteen minutes, right password or not.

These drive the site's log-in page; tests/web/test_login_lockout_paths.py drives the other ways in."""

from __future__ import annotations

import runpy
from datetime import timedelta

import pytest
import time_machine
from axes.models import AccessAttempt
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from accounts.lockout import login_name
from tests.conftest import PASSWORD
from wallsite.settings.base import ipware_sources

pytestmark = pytest.mark.django_db

PER_NAME = settings.LOGIN_FAILURE_LIMITS["username"]
PER_ADDRESS = settings.LOGIN_FAILURE_LIMITS["ip_address"]
COOL_OFF = settings.AXES_COOLOFF_TIME
BALANCER = "10.0.0.2"
FULL_WIDTH_ALICE = "\uff41\uff4c\uff49\uff43\uff45"


def log_in(client, username: str, password: str, address: str = "198.51.100.7", **headers):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address, **headers
    )


def logged_in_as(client, user) -> bool:
    return client.session.get("_auth_user_id") == str(user.pk)


@pytest.fixture
def behind_balancer(settings):
    """The client address settings of production behind the README's one load balancer."""
    settings.AXES_IPWARE_META_PRECEDENCE_ORDER, settings.AXES_IPWARE_PROXY_COUNT = ipware_sources(1)


def test_the_settings_promise_five_per_name_thirty_per_address_fifteen_minutes():
    assert PER_NAME == 5 and PER_ADDRESS == 30 and timedelta(minutes=15) == COOL_OFF


def test_after_five_wrong_passwords_even_the_right_one_waits_then_the_lock_lifts(client, alice):
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        for _ in range(PER_NAME - 1):
            assert log_in(client, "alice", "not-it").status_code == 200  # the form, with its error
        fifth = log_in(client, "alice", "not-it")
        assert fifth.status_code == 429
        refused = log_in(client, "alice", PASSWORD)
    assert refused.status_code == 429 and refused["Retry-After"] == str(int(COOL_OFF.total_seconds()))
    page = refused.content.decode()
    assert "Too many wrong passwords for alice. Try again in 15 minutes" in page
    assert reverse("password_reset") in page
    assert not logged_in_as(client, alice)
    # Refused tries are not counted, so they do not push the end of the wait.
    with time_machine.travel(start + COOL_OFF - timedelta(seconds=1), tick=False):
        almost = log_in(client, "alice", PASSWORD)
        assert almost.status_code == 429 and almost["Retry-After"] == "1"
        assert "Try again in 1 minute, or reset" in almost.content.decode()
    with time_machine.travel(start + COOL_OFF + timedelta(seconds=1), tick=False):
        assert log_in(client, "alice", PASSWORD).status_code == 302
    assert logged_in_as(client, alice)


def test_spellings_of_one_name_share_one_count(client, alice):
    # Each of these logs in as alice with her password (the form strips and NFKC-normalises the name);
    # case differs from no other account's name, as sign-up refuses those.
    for spelling in [" alice", "alice ", "\talice", FULL_WIDTH_ALICE, "ALICE"]:
        log_in(client, spelling, "not-it")
    refused = log_in(client, "alice", PASSWORD)
    assert refused.status_code == 429 and "Too many wrong passwords" in refused.content.decode()
    assert not logged_in_as(client, alice)
    assert set(AccessAttempt.objects.values_list("username", flat=True)) == {"alice"}


@pytest.mark.parametrize(
    ("typed", "counted"),
    [
        (" alice", "alice"),
        ("alice\n", "alice"),
        (FULL_WIDTH_ALICE, "alice"),
        ("Straße", "strasse"),
        ("\u3000bob", "bob"),
    ],
)
def test_the_name_counted_is_stripped_nfkc_normalised_and_case_folded(typed, counted):
    assert login_name(None, {"username": typed}) == counted


def test_one_name_being_guessed_does_not_lock_out_another(client, alice, bob):
    for _ in range(PER_NAME):
        log_in(client, "alice", "not-it")
    assert log_in(client, "bob", PASSWORD, address="203.0.113.9").status_code == 302


def test_the_lock_on_a_name_holds_from_every_address(client, alice):
    for index in range(PER_NAME):
        log_in(client, "alice", "not-it", address=f"198.51.100.{index + 1}")
    assert log_in(client, "alice", PASSWORD, address="192.0.2.44").status_code == 429


def test_a_success_clears_the_names_count(client, alice):
    for _ in range(PER_NAME - 1):
        log_in(client, "alice", "not-it")
    assert log_in(client, "alice", PASSWORD).status_code == 302
    client.logout()
    for _ in range(PER_NAME - 1):
        assert log_in(client, "alice", "not-it").status_code == 200
    assert log_in(client, "alice", PASSWORD).status_code == 302


def test_a_success_does_not_clear_the_addresss_count(client, alice, bob):
    # Else a guesser with an account of their own could log into it between guesses and never wait.
    for index in range(PER_ADDRESS - 1):
        log_in(client, f"someone{index}", "guess")
    assert log_in(client, "bob", PASSWORD).status_code == 302
    client.logout()
    assert log_in(client, "someone-else", "guess").status_code == 429
    assert log_in(client, "alice", PASSWORD).status_code == 429


def test_one_address_trying_many_names_waits(client, alice):
    # Not at the fifth: many people may share an address (an office, a school).
    for index in range(PER_ADDRESS - 1):
        assert log_in(client, f"someone{index}", "guess").status_code == 200
    assert log_in(client, "someone-last", "guess").status_code == 429
    refused = log_in(client, "alice", PASSWORD)
    assert refused.status_code == 429 and "from your address" in refused.content.decode()
    assert refused["Retry-After"]
    assert log_in(client, "alice", PASSWORD, address="192.0.2.44").status_code == 302


def test_without_a_proxy_x_forwarded_for_is_the_clients_own_writing_and_ignored(client, alice):
    for index in range(PER_ADDRESS):
        log_in(client, f"someone{index}", "guess", HTTP_X_FORWARDED_FOR=f"192.0.2.{index + 1}")
    refused = log_in(client, "alice", PASSWORD, HTTP_X_FORWARDED_FOR="192.0.2.200")
    assert refused.status_code == 429


def test_behind_the_balancer_clients_are_told_apart(client, alice, behind_balancer):
    for index in range(PER_ADDRESS):
        log_in(client, f"someone{index}", "guess", address=BALANCER, HTTP_X_FORWARDED_FOR="203.0.113.5")
    assert (
        log_in(client, "alice", PASSWORD, address=BALANCER, HTTP_X_FORWARDED_FOR="203.0.113.5").status_code
        == 429
    )
    # Another client, through the same balancer.
    answer = log_in(client, "alice", PASSWORD, address=BALANCER, HTTP_X_FORWARDED_FOR="198.51.100.80")
    assert answer.status_code == 302 and logged_in_as(client, alice)


def test_behind_the_balancer_a_client_cannot_pose_as_many(client, alice, behind_balancer):
    # The balancer appends the address it was reached from; what the client wrote stays to its left.
    for index in range(PER_ADDRESS):
        log_in(
            client,
            f"someone{index}",
            "guess",
            address=BALANCER,
            HTTP_X_FORWARDED_FOR=f"192.0.2.{index + 1}, 203.0.113.5",
        )
    refused = log_in(
        client, "alice", PASSWORD, address=BALANCER, HTTP_X_FORWARDED_FOR="192.0.2.99, 203.0.113.5"
    )
    assert refused.status_code == 429


def test_trusted_proxy_count_sets_where_the_address_is_read(monkeypatch):
    assert ipware_sources(0) == (("REMOTE_ADDR",), None)
    assert ipware_sources(2) == (("HTTP_X_FORWARDED_FOR",), 1)
    monkeypatch.setenv("SECRET_KEY", "x" * 50)
    monkeypatch.delenv("TRUSTED_PROXY_COUNT", raising=False)
    production = runpy.run_module("wallsite.settings.production")
    assert production["AXES_IPWARE_META_PRECEDENCE_ORDER"] == ("HTTP_X_FORWARDED_FOR",)
    assert production["AXES_IPWARE_PROXY_COUNT"] == 0
    monkeypatch.setenv("TRUSTED_PROXY_COUNT", "0")
    production = runpy.run_module("wallsite.settings.production")
    assert production["AXES_IPWARE_META_PRECEDENCE_ORDER"] == ("REMOTE_ADDR",)
