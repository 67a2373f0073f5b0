"""On the API's views a token is looked up with the view's first read, in its round trip; a wrong one is
still a 401 that changes nothing, whatever else the request did wrong."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.test import APIClient

from games import rows
from games.api.authentication import TokenUser
from games.models import Match, Move

pytestmark = pytest.mark.django_db


def moves_url(match_id: int) -> str:
    return reverse("api-match-moves", args=[match_id])


def with_key(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


@contextmanager
def sent_to_the_database() -> Iterator[list[str]]:
    """The text of each execute, as Django hands it to the driver, with prepared statements spelt out
    (SQLite's BEGIN of a transaction left out: it reads nothing)."""
    sent: list[str] = []

    def record(execute, sql, params, many, context):
        if not sql.startswith("BEGIN"):
            sent.append(rows.statement_text(connection, sql))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        yield sent


@pytest.mark.django_db(transaction=True)  # the move's own transaction, not a savepoint in the test's
def test_a_move_looks_its_token_up_in_the_round_trip_that_locks_the_match(started_match, alice):
    match = started_match()
    client = with_key(Token.objects.create(user=alice).key)
    with sent_to_the_database() as sent:
        answer = client.post(moves_url(match.pk), {"move": "d4", "version": 0}, format="json")
    assert answer.status_code == 201
    # Nothing reaches the database before the token's lookup, and it is looked up once.
    assert "authtoken_token" in sent[0] and sum("authtoken_token" in each for each in sent) == 1
    if connection.vendor == "postgresql":
        assert "FOR UPDATE" in sent[0]  # in the round trip of the match's lock


def test_reading_a_match_looks_its_token_up_with_the_match(started_match, alice):
    match = started_match()
    client = with_key(Token.objects.create(user=alice).key)
    with sent_to_the_database() as sent:
        answer = client.get(reverse("api-match", args=[match.pk]))
    assert answer.status_code == 200 and answer.json()["your_position"] == 0
    assert "authtoken_token" in sent[0] and sum("authtoken_token" in each for each in sent) == 1
    if connection.vendor == "postgresql":
        assert "games_match" in sent[0]


@pytest.mark.parametrize(
    "body",
    [
        {"move": "d4", "version": 0},  # a good move
        {"move": "z9", "version": 0},  # an illegal one
        {"move": "d4", "version": 5},  # a stale version
        {"move": "d4"},  # a malformed body
    ],
)
def test_an_unknown_token_is_a_401_that_plays_nothing(started_match, body):
    match = started_match()
    answer = with_key("f" * 40).post(moves_url(match.pk), body, format="json")
    assert answer.status_code == 401 and answer.json()["detail"] == "Invalid token."
    assert answer["WWW-Authenticate"] == "Token"
    match.refresh_from_db()
    assert match.version == 0 and not Move.objects.filter(match=match).exists()


def test_an_unknown_token_on_a_missing_match_is_a_401_not_a_404():
    answer = with_key("f" * 40).post(moves_url(987654), {"move": "d4", "version": 0}, format="json")
    assert answer.status_code == 401
    answer = with_key("f" * 40).get(reverse("api-match", args=[987654]))
    assert answer.status_code == 401


def test_a_revoked_or_inactive_user_s_token_plays_nothing(started_match, alice):
    match = started_match()
    token = Token.objects.create(user=alice)
    client = with_key(token.key)
    alice.is_active = False
    alice.save()
    answer = client.post(moves_url(match.pk), {"move": "d4", "version": 0}, format="json")
    assert answer.status_code == 401 and "inactive" in answer.json()["detail"]
    alice.is_active = True
    alice.save()
    token.delete()
    answer = client.post(moves_url(match.pk), {"move": "d4", "version": 0}, format="json")
    assert answer.status_code == 401
    match.refresh_from_db()
    assert match.version == 0


def test_a_view_that_needs_the_user_at_once_reads_it_then(alice, bob):
    client = with_key(Token.objects.create(user=alice).key)
    answer = client.post("/api/matches/", {"game": "wallgo", "seat_count": 2}, format="json")
    assert answer.status_code == 201
    assert Match.objects.get(pk=answer.json()["id"]).seats.get(position=0).user == alice
    assert with_key("f" * 40).post("/api/matches/", {"game": "wallgo"}, format="json").status_code == 401


def test_the_user_of_a_key_counts_as_logged_in_until_it_is_read(alice, django_assert_num_queries):
    key = Token.objects.create(user=alice).key
    with rows.carrying(Token):
        with django_assert_num_queries(0):
            user = TokenUser(key)
            assert user and user.is_authenticated and not user.is_anonymous
        with django_assert_num_queries(1):
            assert user.pk == alice.pk and user.username == alice.username
            user.checked()
    with rows.carrying(Token):
        wrong = TokenUser("0" * 40)
        with pytest.raises(AuthenticationFailed, match="Invalid token"):
            wrong.checked()
        with pytest.raises(AuthenticationFailed, match="Invalid token"):
            _ = wrong.pk


def test_a_copy_of_the_user_of_a_key_is_the_user(alice):
    key = Token.objects.create(user=alice).key
    with rows.carrying(Token):
        user = TokenUser(key)
        assert copy.copy(user) == alice and copy.deepcopy(user) == alice
        assert type(copy.copy(user)) is type(alice)
