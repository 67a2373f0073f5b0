"""Every way of logging in shares the lock-out of tests/web/test_login_throttle.py: the browsable API's
log-in page, the admin's, the test client's (and any code's) request-less ``authenticate()``, and the API
token, which only a logged-in session can create."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import authenticate
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

PER_NAME = settings.LOGIN_FAILURE_LIMITS["username"]
COOL_OFF = settings.AXES_COOLOFF_TIME

LOGIN_PAGES = {"site": "/accounts/login/", "api": "/api/auth/login/", "admin": "/admin/login/"}


@pytest.fixture
def boss(make_user):
    """A superuser, who may use the admin."""
    return make_user("boss", is_staff=True, is_superuser=True)


def log_in(client, path: str, username: str, password: str):
    return client.post(path, {"username": username, "password": password}, REMOTE_ADDR="198.51.100.7")


def logged_in_as(client, user) -> bool:
    return client.session.get("_auth_user_id") == str(user.pk)


@pytest.mark.parametrize("page", LOGIN_PAGES)
def test_each_log_in_page_locks_after_five_wrong_passwords_until_the_cool_off_ends(client, boss, page):
    path = LOGIN_PAGES[page]
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        for _ in range(PER_NAME):
            log_in(client, path, "boss", "not-it")
        refused = log_in(client, path, "boss", PASSWORD)
    assert refused.status_code == 429
    assert refused["Retry-After"] == str(int(COOL_OFF.total_seconds()))
    assert not logged_in_as(client, boss)
    with time_machine.travel(start + COOL_OFF + timedelta(seconds=1), tick=False):
        assert log_in(client, path, "boss", PASSWORD).status_code == 302
    assert logged_in_as(client, boss)


def test_under_api_the_lock_out_is_json(client, alice):
    for _ in range(PER_NAME):
        log_in(client, LOGIN_PAGES["api"], "alice", "not-it")
    refused = log_in(client, LOGIN_PAGES["api"], "alice", PASSWORD)
    assert refused.status_code == 429 and refused["Content-Type"] == "application/json"
    assert refused.json() == {
        "detail": "Too many wrong passwords for alice. Try again in 15 minutes, "
        "or reset your password by e-mail."
    }
    assert int(refused["Retry-After"]) > 0


def test_the_admin_lock_out_is_the_sites_page(client, boss):
    for _ in range(PER_NAME):
        log_in(client, LOGIN_PAGES["admin"], "boss", "not-it")
    refused = log_in(client, LOGIN_PAGES["admin"], "boss", PASSWORD)
    assert refused.status_code == 429 and refused["Content-Type"].startswith("text/html")
    assert "Too many wrong passwords for boss. Try again in 15 minutes" in refused.content.decode()


def test_wrong_passwords_on_one_page_count_on_the_others(client, boss):
    for page in ["site", "api", "admin", "api", "site"]:
        log_in(client, LOGIN_PAGES[page], "boss", "not-it")
    for page in LOGIN_PAGES:
        assert log_in(client, LOGIN_PAGES[page], "boss", PASSWORD).status_code == 429
    assert not logged_in_as(client, boss)


def test_a_request_less_authenticate_honours_the_lock_on_a_name(client, alice):
    assert client.login(username="alice", password=PASSWORD)
    client.logout()
    for _ in range(PER_NAME):
        log_in(client, LOGIN_PAGES["site"], "alice", "not-it")
    assert authenticate(username="alice", password=PASSWORD) is None
    assert not client.login(username="alice", password=PASSWORD)


def test_a_locked_out_guesser_gets_no_api_token(client, alice):
    for _ in range(PER_NAME):
        log_in(client, LOGIN_PAGES["api"], "alice", "not-it")
    assert log_in(client, LOGIN_PAGES["api"], "alice", PASSWORD).status_code == 429
    answer = client.post(reverse("api-token-create"))
    assert answer.status_code == 302 and answer["Location"].startswith(reverse("login"))
    assert not Token.objects.exists()


def test_no_api_endpoint_trades_a_password_for_a_token(client, alice):
    # The only passwords the API takes are its log-in page's; a token is made on the settings page.
    for path in ["/api/auth/token/", "/api/token/", "/api/api-token-auth/", "/api/auth/"]:
        answer = client.post(path, {"username": "alice", "password": PASSWORD})
        assert answer.status_code == 404, path
    assert not Token.objects.exists()


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("alice\x00", "This text holds a NUL character (U+0000); remove it and try again."),
        ("\x00", "This text holds a NUL character (U+0000); remove it and try again."),
        ("ali\ufffece", "This text holds U+FFFE, which Unicode reserves as a non-character"),
    ],
)
def test_a_log_in_name_that_is_not_text_is_refused_with_the_reason_and_counts_nothing(
    client, alice, name, reason
):
    """Before any account is looked up or a failure counted (PostgreSQL cannot compare a NUL)."""
    answer = log_in(client, LOGIN_PAGES["site"], name, PASSWORD)
    assert answer.status_code == 200
    assert reason in answer.content.decode()
    assert not logged_in_as(client, alice)
    assert not AccessAttempt.objects.exists()


def test_a_log_in_sent_in_utf_7_is_refused_before_the_form_reads_it(client, alice):
    """UTF-7 spells a lone surrogate (+2AA-) in plain ASCII, and Django decodes a multipart form with
    the charset it names: the name reached the log-in form, and the page that showed it back was a 500."""
    body = (
        b'--x\r\nContent-Disposition: form-data; name="username"\r\n\r\n+2AA-alice\r\n'
        b'--x\r\nContent-Disposition: form-data; name="password"\r\n\r\nwrong\r\n--x--\r\n'
    )
    content_type = "multipart/form-data; boundary=x; charset=utf-7"
    answer = client.generic("POST", LOGIN_PAGES["site"], body, content_type=content_type)
    assert answer.status_code == 400
    assert "The site reads requests in UTF-8 only" in answer.content.decode()
    assert not AccessAttempt.objects.exists()
