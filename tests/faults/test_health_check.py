"""Kept PostgreSQL sessions, as the settings make them: a session the server has ended is found out and
replaced at the start of the next request (Django's CONN_HEALTH_CHECKS), so a restarted server costs no
error page. Always on the machine's PostgreSQL, whatever the suite's own database is."""

from __future__ import annotations

import psycopg
import pytest
from django.db.utils import ConnectionHandler

from tests.faults.conftest import _server_url, libpq, wait_until, with_database
from wallsite.settings.base import database_settings

SERVER = with_database(_server_url(), "postgres")


@pytest.fixture
def wrapper(django_db_blocker):
    """A connection configured as settings configure the site's, to the server's maintenance database
    (only read here), outside the suite's test database."""
    config = database_settings(SERVER, conn_max_age=60)
    connection = ConnectionHandler({"default": config})["default"]
    with django_db_blocker.unblock():
        yield connection
        connection.close()


def test_production_keeps_sessions_checked_development_keeps_none_and_the_pool_keeps_them_itself():
    config = database_settings(SERVER, conn_max_age=60)
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert config["CONN_MAX_AGE"] > 0 and config["CONN_HEALTH_CHECKS"] is True
    assert database_settings("sqlite:///x.sqlite3")["ENGINE"] == "django.db.backends.sqlite3"
    assert database_settings(SERVER)["CONN_MAX_AGE"] == 0
    pooled = database_settings(SERVER, conn_max_age=60, pool_size=8)
    assert pooled["CONN_MAX_AGE"] == 0 and pooled["OPTIONS"]["pool"]["max_size"] == 8


def test_a_pooled_session_serves_queries(django_db_blocker):
    connection = ConnectionHandler({"default": database_settings(SERVER, pool_size=2)})["default"]
    with django_db_blocker.unblock():
        try:
            for _ in range(3):  # each request takes a session from the pool and gives it back
                with connection.cursor() as cursor:
                    cursor.execute("SELECT 41 + 1")
                    assert cursor.fetchone() == (42,)
                connection.close()
        finally:
            connection.close_pool()


def test_a_statement_a_session_runs_again_and_again_is_prepared_by_the_server(wrapper):
    """Server-side binding (on by default): psycopg binds the parameters on the server and, from the
    sixth run on one session, has it prepare the statement, so it is parsed and planned once."""
    assert wrapper.settings_dict["OPTIONS"]["server_side_binding"] is True
    with wrapper.cursor() as cursor:
        for number in range(6):
            cursor.execute("SELECT %s::int + 1", [number])
            assert cursor.fetchone() == (number + 1,)
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any("$1::int + 1" in statement for statement in prepared), prepared


def test_a_session_the_server_ended_is_replaced_before_the_next_request_uses_it(wrapper):
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    with psycopg.connect(libpq(SERVER), autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [backend])
        gone = "SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = %s)"
        wait_until(lambda: other.execute(gone, [backend]).fetchone()[0], "the session to end", timeout=10)
    # What Django does at the start of a request: the dead session is closed, a new one opened.
    wrapper.health_check_done = False
    wrapper.close_if_health_check_failed()
    assert wrapper.connection is None
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != backend
