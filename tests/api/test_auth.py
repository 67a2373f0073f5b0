"""Token and session authentication, and the API token on the settings page."""

from __future__ import annotations

import re
import threading

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.models import Match

pytestmark = pytest.mark.django_db

MINE = "/api/matches/?scope=mine"


@pytest.mark.parametrize("prefix", ["Token", "Bearer", "bearer", "TOKEN"])
def test_a_token_authenticates_with_either_prefix(api, alice, prefix):
    token = Token.objects.create(user=alice)
    api.credentials(HTTP_AUTHORIZATION=f"{prefix} {token.key}")
    answer = api.get(MINE)
    assert answer.status_code == 200
    assert api.post("/api/matches/", {"game": "wallgo", "seat_count": 2}).json()["seats"][0]["username"] == (
        "alice"
    )


@pytest.mark.parametrize("prefix", ["Token", "Bearer"])
@pytest.mark.parametrize(
    "key",
    [
        "wrong",
        "",
        "a b",
        "\u00e9\u00e9",
        "a" * 39 + "\x00",
        "f" * 40,
    ],
)
def test_a_bad_token_is_a_401_with_a_message(api, prefix, key):
    api.credentials(HTTP_AUTHORIZATION=f"{prefix} {key}")
    answer = api.get(MINE)
    assert answer.status_code == 401 and answer.json()["detail"]
    assert "Log in" not in answer.json()["detail"], "a bad key is no anonymous request"


def test_another_scheme_is_an_anonymous_request(api):
    api.credentials(HTTP_AUTHORIZATION="Basic YWxpY2U6eA==")
    answer = api.get(MINE)
    assert answer.status_code == 401 and "Log in" in answer.json()["detail"]


def test_an_inactive_user_s_token_stops_working(api, alice):
    token = Token.objects.create(user=alice)
    alice.is_active = False
    alice.save()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert api.get(MINE).status_code == 401


def test_session_authentication_reads_without_csrf_but_writes_need_it(alice):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.get(MINE).status_code == 200
    refused = client.post("/api/matches/", {"game": "wallgo", "seat_count": 2}, format="json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    assert not Match.objects.exists()
    # With the cookie and the header the site's pages use, the same request goes through.
    client.get(reverse("account-settings"))
    csrf = client.cookies["csrftoken"].value
    made = client.post(
        "/api/matches/", {"game": "wallgo", "seat_count": 2}, format="json", HTTP_X_CSRFTOKEN=csrf
    )
    assert made.status_code == 201


def test_a_token_request_needs_no_csrf(alice):
    client = APIClient(enforce_csrf_checks=True)
    token = Token.objects.create(user=alice)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert client.post("/api/matches/", {"game": "wallgo", "seat_count": 2}, format="json").status_code == 201


# --- the settings page --------------------------------------------------------------------------------


@pytest.fixture
def as_alice(client, alice):
    client.force_login(alice)
    return client


def shown_key(page: str) -> str:
    (key,) = re.findall(r'value="([0-9a-f]{40})"[^>]*data-testid="api-token-key"', page)
    return key


def test_the_settings_page_offers_to_create_a_token(as_alice):
    page = as_alice.get(reverse("account-settings")).content.decode()
    assert "You have no API token." in page and 'data-testid="api-token-create"' in page


def test_creating_a_token_shows_the_key_once_and_it_works(as_alice, alice):
    answer = as_alice.post(reverse("api-token-create"))
    assert answer.status_code == 200 and answer["Cache-Control"] == "no-store"
    key = shown_key(answer.content.decode())
    assert Token.objects.get(user=alice).key == key
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get(MINE).status_code == 200
    # Later visits say a token exists but never show the key again.
    page = as_alice.get(reverse("account-settings")).content.decode()
    assert key not in page and "You have a token, created" in page


def test_replacing_the_token_revokes_the_old_key(as_alice, alice):
    old = shown_key(as_alice.post(reverse("api-token-create")).content.decode())
    new = shown_key(as_alice.post(reverse("api-token-create")).content.decode())
    assert old != new and list(Token.objects.filter(user=alice).values_list("key", flat=True)) == [new]
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {old}")
    assert api.get(MINE).status_code == 401


def test_a_revoked_token_stops_working(as_alice, alice):
    key = shown_key(as_alice.post(reverse("api-token-create")).content.decode())
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get(MINE).status_code == 200
    answer = as_alice.post(reverse("api-token-revoke"), follow=True)
    assert "Your API token is revoked" in answer.content.decode()
    assert not Token.objects.filter(user=alice).exists()
    assert api.get(MINE).status_code == 401
    again = as_alice.post(reverse("api-token-revoke"), follow=True)
    assert "You had no API token." in again.content.decode()


def test_token_pages_need_a_login_and_a_post(client, as_alice):
    for name in ("api-token-create", "api-token-revoke"):
        assert as_alice.get(reverse(name)).status_code == 405
    client.logout()
    for name in ("api-token-create", "api-token-revoke"):
        answer = client.post(reverse(name))
        assert answer.status_code == 302 and reverse("login") in answer["Location"]
    assert not Token.objects.exists()


def test_token_pages_need_the_csrf_token(alice):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post(reverse("api-token-create")).status_code == 403
    assert not Token.objects.exists()


def test_another_user_s_token_is_untouched(as_alice, bob):
    theirs = Token.objects.create(user=bob)
    as_alice.post(reverse("api-token-create"))
    as_alice.post(reverse("api-token-revoke"))
    assert Token.objects.filter(pk=theirs.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_twenty_new_token_requests_at_once_leave_one_key_that_works(alice):
    """Each request deletes the old key and inserts a new one. Two at once both deleted, then the later
    insert broke the one-key-per-user rule: an IntegrityError, a 500 (PostgreSQL; SQLite's IMMEDIATE
    transactions queue them anyway). The user's row lock makes them take turns."""
    login = Client()
    login.force_login(alice)
    start = threading.Barrier(20)
    statuses: list[int] = []
    keys: list[str] = []

    def ask() -> None:
        client = Client(raise_request_exception=False)
        client.cookies = login.cookies
        try:
            start.wait(timeout=30)
            answer = client.post(reverse("api-token-create"))
            statuses.append(answer.status_code)
            if answer.status_code == 200:
                keys.append(shown_key(answer.content.decode()))
        finally:
            connection.close()

    threads = [threading.Thread(target=ask) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [200] * 20
    [token] = Token.objects.filter(user=alice)
    assert token.key in keys
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert api.get(MINE).status_code == 200
