"""Sessions are read from the cache and kept in the database (wallsite/sessions.py): a request costs no
query for its session, with Redis away a player still logs in, plays and logs out, and a Redis that
hangs is not asked again by every request."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import livekeys
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def log_in(client, user):
    response = client.post(reverse("login"), {"username": user.username, "password": PASSWORD})
    assert response.status_code == 302, "the log-in was refused"
    return response


def session_queries(client, url: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return [q["sql"] for q in queries if "django_session" in q["sql"]]


def test_a_logged_in_request_reads_its_session_from_the_cache(client, alice):
    log_in(client, alice)
    assert Session.objects.filter(session_key=client.session.session_key).exists(), "kept in the database"
    assert session_queries(client, reverse("my-matches")) == []


def test_a_session_the_cache_lost_is_read_from_the_database(client, alice):
    from django.core.cache import cache

    log_in(client, alice)
    cache.clear()
    assert len(session_queries(client, reverse("my-matches"))) == 1
    assert session_queries(client, reverse("my-matches")) == [], "and back in the cache"


def unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cache_at(port: int) -> dict:
    return {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{port}/1",
            "OPTIONS": {"socket_timeout": 1, "socket_connect_timeout": 1},
        }
    }


@contextmanager
def silent_server() -> Iterator[tuple[list[socket.socket], int]]:
    """A server that takes connections and never answers, as a Redis that hangs: yields the list of the
    connections it has taken so far, and its port."""
    listener = socket.create_server(("127.0.0.1", 0))
    taken: list[socket.socket] = []

    def take() -> None:
        while True:
            try:
                taken.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=take, daemon=True).start()
    try:
        yield taken, listener.getsockname()[1]
    finally:
        listener.close()
        for conn in taken:
            conn.close()


def test_with_redis_away_a_player_logs_in_plays_and_logs_out(client, started_match, alice, monkeypatch):
    match = started_match()
    # The cache's fall-back (games/livekeys.py) starts and ends with this test.
    monkeypatch.setattr(livekeys, "_away_until", 0.0)
    with override_settings(CACHES=cache_at(unused_port())):
        log_in(client, alice)
        assert client.get(reverse("my-matches")).status_code == 200
        assert client.get(match.get_absolute_url()).status_code == 200
        played = client.post(reverse("match-move", args=[match.pk]), {"move": "d4", "version": 0})
        assert played.status_code == 302
        match.refresh_from_db()
        assert match.version == 1
        assert client.post(reverse("logout")).status_code == 302
        assert not Session.objects.exists()
        assert client.get(reverse("my-matches")).status_code == 302, "logged out"


def test_a_redis_that_hangs_costs_one_request_its_timeouts_not_every_request(
    client, started_match, alice, monkeypatch
):
    match = started_match()
    monkeypatch.setattr(livekeys, "_away_until", 0.0)
    with silent_server() as (taken, port), override_settings(CACHES=cache_at(port)):
        log_in(client, alice)  # the first cache call times out
        assert taken, "the cache was asked"
        asked = len(taken)
        for url in (reverse("my-matches"), match.get_absolute_url(), reverse("my-matches")):
            assert client.get(url).status_code == 200
        assert len(taken) == asked, "asked again while it was known to be away"
        assert client.session.get("_auth_user_id") == str(alice.pk)
