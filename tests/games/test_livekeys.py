"""The cached live keys of a match and of a user's matches (games/livekeys.py) are served until a change
commits, never after, on the test suite's in-memory cache and on a real Redis alike; with the cache away,
the rows are read."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import time_machine
from django.core.cache import cache
from django.test import override_settings

from games import livekeys
from wallsite.embedded_redis import free_port

pytestmark = pytest.mark.django_db


def redis_cache(url: str) -> dict:
    return {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "OPTIONS": {"socket_timeout": 1, "socket_connect_timeout": 1},
        }
    }


@pytest.fixture(params=["memory", "redis"])
def store(request) -> Iterator[str]:
    """The test settings' in-memory cache, or a real Redis (the session's) through its own client."""
    livekeys._away_until = 0.0
    if request.param == "memory":
        cache.clear()
        yield "memory"
        cache.clear()
        return
    with override_settings(CACHES=redis_cache(request.getfixturevalue("redis_url").rsplit("/", 1)[0] + "/9")):
        cache.clear()
        yield "redis"
        cache.clear()


class Row:
    """Stands in for the match's row: its key, and how often it was read."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.reads = 0

    def read(self) -> str:
        self.reads += 1
        return self.key


def changed(match_id: int, django_capture_on_commit_callbacks) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        livekeys.match_changed(match_id)


def test_a_cached_key_is_served_without_reading_the_row(store):
    row = Row("a")
    assert [livekeys.cached_key(7, row.read) for _ in range(3)] == ["a", "a", "a"]
    assert row.reads == 1


def test_a_change_voids_the_cached_key_once_it_commits(store, django_capture_on_commit_callbacks):
    row = Row("a")
    livekeys.cached_key(7, row.read)
    with django_capture_on_commit_callbacks(execute=False) as pending:
        livekeys.match_changed(7)
        row.key = "b"
        # Not committed yet: the old key still stands.
        assert livekeys.cached_key(7, row.read) == "a"
    for callback in pending:
        callback()
    assert livekeys.cached_key(7, row.read) == "b"
    assert livekeys.cached_key(8, Row("other").read) == "other"  # each match its own


def test_a_key_read_before_a_change_committed_never_outlives_it(store, django_capture_on_commit_callbacks):
    """A poll reads the row, a change commits, and only then does the poll cache what it read."""
    row = Row("old")

    def read_then_change() -> str:
        key = row.read()
        row.key = "new"
        changed(7, django_capture_on_commit_callbacks)
        return key

    assert livekeys.cached_key(7, read_then_change) == "old"
    assert livekeys.cached_key(7, row.read) == "new"


def test_a_change_made_without_saying_so_shows_once_the_entry_expires(django_capture_on_commit_callbacks):
    livekeys._away_until = 0.0
    cache.clear()
    row = Row("a")
    with time_machine.travel("2026-06-01 12:00:00+00:00", tick=False) as traveller:
        livekeys.cached_key(7, row.read)
        row.key = "b"
        assert livekeys.cached_key(7, row.read) == "a"
        traveller.shift(livekeys.KEY_SECONDS + 1)
        assert livekeys.cached_key(7, row.read) == "b"


def test_with_the_cache_away_the_row_is_read_every_time(django_capture_on_commit_callbacks):
    livekeys._away_until = 0.0
    closed = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    try:
        with override_settings(CACHES=redis_cache(closed)):
            row = Row("a")
            assert livekeys.cached_key(7, row.read) == "a"
            changed(7, django_capture_on_commit_callbacks)  # a change still commits: nothing raises
            assert livekeys.cached_key(7, row.read) == "a"
            assert row.reads == 2
    finally:
        livekeys._away_until = 0.0


def test_a_change_to_a_match_voids_the_keys_of_everyone_seated_at_it(
    store, started_match, alice, bob, carol, django_capture_on_commit_callbacks
):
    match = started_match()
    rows = {user.username: Row(user.username) for user in (alice, bob, carol)}
    for user in (alice, bob, carol):
        livekeys.cached_key(livekeys.user_scope(user.pk), rows[user.username].read)
    changed(match.pk, django_capture_on_commit_callbacks)
    for user in (alice, bob, carol):
        livekeys.cached_key(livekeys.user_scope(user.pk), rows[user.username].read)
    assert {name: row.reads for name, row in rows.items()} == {"alice": 2, "bob": 2, "carol": 1}


def test_a_seat_given_or_taken_away_voids_that_users_key(
    store, alice, bob, django_capture_on_commit_callbacks
):
    rows = {user.pk: Row(user.username) for user in (alice, bob)}
    for user in (alice, bob):
        livekeys.cached_key(livekeys.user_scope(user.pk), rows[user.pk].read)
    with django_capture_on_commit_callbacks(execute=False) as pending:
        livekeys.user_changed(alice.pk)
        # Not committed yet: the old key still stands.
        livekeys.cached_key(livekeys.user_scope(alice.pk), rows[alice.pk].read)
        assert rows[alice.pk].reads == 1
    for callback in pending:
        callback()
    for user in (alice, bob):
        livekeys.cached_key(livekeys.user_scope(user.pk), rows[user.pk].read)
    assert [rows[alice.pk].reads, rows[bob.pk].reads] == [2, 1]
