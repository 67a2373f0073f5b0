from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games import services
from games.models import Match

# Keys of the server-only state: none may appear anywhere in an API answer.
SERVER_ONLY_KEYS = frozenset({"engine_state", "rng_state", "state_after"})


@pytest.fixture
def api() -> APIClient:
    return APIClient()


@pytest.fixture
def client_for(db) -> Callable[..., APIClient]:
    """An API client that sends the user's token, as a program would."""

    def make(user) -> APIClient:
        client = APIClient()
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        return client

    return make


@pytest.fixture
def dice_match(alice, bob, django_capture_on_commit_callbacks) -> Callable[..., Match]:
    """A started match of the test dice game: the chance step has dealt both hidden hands."""

    def make(*, players: tuple = ()) -> Match:
        match = services.match_create(creator=alice, game="testdice", seat_count=2 + len(players))
        with django_capture_on_commit_callbacks(execute=True):
            for user in (bob, *players):
                services.seat_join(match_id=match.pk, user=user)
        match.refresh_from_db()
        assert match.engine.actors(match.engine_state), "the deal should have run"
        return match

    return make


def keys_anywhere(data: Any) -> Iterator[str]:
    """Every dict key at any depth of a decoded JSON answer."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield str(key)
            yield from keys_anywhere(value)
    elif isinstance(data, list):
        for value in data:
            yield from keys_anywhere(value)


def assert_no_server_state(data: Any) -> None:
    leaked = SERVER_ONLY_KEYS & set(keys_anywhere(data))
    assert not leaked, f"server-only keys in an API answer: {sorted(leaked)}"
