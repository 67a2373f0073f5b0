"""The site's PostgreSQL backend (wallsite/postgresql): the kept connection's health check makes no round
trip while the session is well and finds out a session the server has ended before a request uses it;
timestamps read as Django's own loader reads them. Always on the machine's PostgreSQL, whatever the
suite's own database is."""

from __future__ import annotations

import datetime

import dj_database_url
import psycopg
import pytest
from django.db.backends.postgresql.base import DatabaseWrapper as PostgreSQLDatabaseWrapper
from django.db.utils import ConnectionHandler
from psycopg import pq

from tests.faults.conftest import _server_url, libpq, wait_until, with_database
from wallsite.postgresql.base import TIMESTAMPTZ, UtcTimestamptzLoader, _has_input
from wallsite.settings.base import _database

SERVER = with_database(_server_url(), "postgres")


@pytest.fixture
def wrapper(django_db_blocker):
    """A connection of the site's own PostgreSQL backend, as settings make it, to the server's
    maintenance database (only read here), outside the suite's test database."""
    config = _database(SERVER)
    assert config["ENGINE"] == "wallsite.postgresql" and config["CONN_HEALTH_CHECKS"]
    connection = ConnectionHandler({"default": config})["default"]
    with django_db_blocker.unblock():
        yield connection
        connection.close()


def _select_one_asked(monkeypatch) -> list[str]:
    asked: list[str] = []
    real = PostgreSQLDatabaseWrapper.is_usable

    def counting(self):
        asked.append("SELECT 1")
        return real(self)

    monkeypatch.setattr(PostgreSQLDatabaseWrapper, "is_usable", counting)
    return asked


def test_a_well_idle_session_passes_without_a_round_trip(wrapper, monkeypatch):
    wrapper.ensure_connection()
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT 41 + 1")
        assert cursor.fetchone() == (42,)
    asked = _select_one_asked(monkeypatch)
    assert wrapper.is_usable() is True
    assert asked == []


def test_a_session_the_server_ended_is_found_out_and_replaced(wrapper, monkeypatch):
    wrapper.ensure_connection()
    backend = wrapper.connection.info.backend_pid
    with psycopg.connect(libpq(SERVER), autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [backend])
    # The server tells the session it is ending and closes it: the socket has something to read.
    wait_until(lambda: _has_input(wrapper.connection.pgconn), "the end of the session to arrive", timeout=10)
    asked = _select_one_asked(monkeypatch)
    assert wrapper.is_usable() is False
    assert asked == ["SELECT 1"]
    # What Django does at the start of a request: the dead session is closed, a new one opened.
    wrapper.health_check_done = False
    wrapper.close_if_health_check_failed()
    assert wrapper.connection is None
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != backend


def test_a_session_inside_a_transaction_is_asked(wrapper, monkeypatch):
    wrapper.ensure_connection()
    wrapper.set_autocommit(False)
    try:
        with wrapper.cursor() as cursor:
            cursor.execute("SELECT 1")
        asked = _select_one_asked(monkeypatch)
        assert wrapper.is_usable() is True
        assert asked == ["SELECT 1"]
    finally:
        wrapper.rollback()
        wrapper.set_autocommit(True)


def test_settings_choose_the_backend_only_for_postgresql():
    assert _database("sqlite:///x.sqlite3")["ENGINE"] == "django.db.backends.sqlite3"
    assert dj_database_url.parse(SERVER)["ENGINE"] == "django.db.backends.postgresql"
    assert _database(SERVER)["ENGINE"] == "wallsite.postgresql"


# --- reading timestamps ----------------------------------------------------------------------------------

STAMPS = [
    "2026-11-25 19:22:07.123456+00",
    "2026-03-29 01:30:00+00",
    "1999-12-31 23:59:59.999999+00",
    "0001-01-01 00:00:00+00",
    "9999-12-31 23:59:59.999999+00",
    "2026-06-01 12:00:00+05:30",
    "2026-06-01 12:00:00-09:30",
]


def test_timestamps_read_as_django_s_own_loader_reads_them(wrapper):
    from django.db.backends.postgresql.psycopg_any import register_tzloader

    with wrapper.cursor() as cursor:
        assert cursor.cursor.adapters.get_loader(TIMESTAMPTZ, pq.Format.TEXT) is UtcTimestamptzLoader
        cursor.execute("SELECT " + ", ".join(f"'{stamp}'::timestamptz" for stamp in STAMPS))
        ours = cursor.fetchone()
    with wrapper.cursor() as cursor:
        register_tzloader(wrapper.timezone, cursor.cursor)  # what Django's backend reads with
        cursor.execute("SELECT " + ", ".join(f"'{stamp}'::timestamptz" for stamp in STAMPS))
        django_s = cursor.fetchone()
    assert ours == django_s
    assert (
        [value.tzinfo for value in ours]
        == [value.tzinfo for value in django_s]
        == [datetime.UTC] * len(STAMPS)
    )
    assert [value.isoformat() for value in ours] == [value.isoformat() for value in django_s]
    assert ours[0] == datetime.datetime(2026, 11, 25, 19, 22, 7, 123456, tzinfo=datetime.UTC)


def test_a_session_in_another_time_zone_keeps_django_s_loader(django_db_blocker):
    config = _database(SERVER) | {"TIME_ZONE": "Asia/Tokyo"}
    connection = ConnectionHandler({"default": config})["default"]
    with django_db_blocker.unblock():
        try:
            with connection.cursor() as cursor:
                assert (
                    cursor.cursor.adapters.get_loader(TIMESTAMPTZ, pq.Format.TEXT) is not UtcTimestamptzLoader
                )
                cursor.execute("SELECT '2026-01-01 00:00:00+00'::timestamptz")
                assert cursor.fetchone()[0].utcoffset() == datetime.timedelta(hours=9)
        finally:
            connection.close()
