"""The PostgreSQL backend's own client-side binding (wallsite/postgresql/literals.py) writes literals
the server reads back as the very values given, as psycopg's would be; whatever it does not handle it
leaves to psycopg. Always on the machine's PostgreSQL, whatever the suite's own database is."""

from __future__ import annotations

import datetime
import json
from decimal import Decimal

import psycopg
import pytest
from django.db.utils import ConnectionHandler
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from psycopg.types.json import Jsonb
from psycopg.types.numeric import Int2, Int4, Int8

from games.models import Notification
from tests.faults.conftest import _server_url, libpq, with_database
from wallsite.postgresql.literals import json_dumps, render
from wallsite.settings.base import _database

SERVER = with_database(_server_url(), "postgres")


@pytest.fixture(scope="module")
def conn():
    with psycopg.connect(libpq(SERVER), autocommit=True) as connection:
        connection.execute("SET TimeZone = 'UTC'")  # the times read back stay within Python's years
        yield connection


def read_back(conn, sql: str, params: list) -> tuple:
    """The row the server gives for ``sql`` as ``render`` writes it, checked against psycopg's own."""
    written = render(conn, sql, params)
    assert written is not None, params
    ours = conn.execute(written.encode()).fetchone()
    assert ours == conn.cursor().execute(psycopg.ClientCursor(conn).mogrify(sql, params).encode()).fetchone()
    return ours


# Text that has broken quoting before: quotes, backslashes (read literally: standard_conforming_strings),
# comment and placeholder look-alikes, line breaks, any Unicode but NUL.
PIECES = ["'", "''", "\\", "\\'", "%", "%s", "%%", "--", "/*", "*/", ";", "$$", "\n", "\r", "E'"]
TEXT = st.lists(
    st.one_of(
        st.sampled_from(PIECES),
        st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)),
    ),
    max_size=20,
).map("".join)
AWARE = st.datetimes(
    min_value=datetime.datetime(1, 1, 2),
    max_value=datetime.datetime(9999, 12, 30),
    timezones=st.sampled_from(
        [
            datetime.UTC,
            datetime.timezone(datetime.timedelta(hours=5, minutes=30)),
            datetime.timezone(-datetime.timedelta(hours=11)),
        ]
    ),
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT, number=st.integers(-(2**63), 2**63 - 1), when=AWARE, document=JSON)
def test_values_read_back_as_given(conn, text, number, when, document):
    row = read_back(
        conn,
        "SELECT %s::text, %s::numeric, %s, %s",
        [text, number, when, Jsonb(document, dumps=json_dumps)],
    )
    assert row[0] == text
    assert row[1] == number
    assert row[2] == when
    assert row[3] == json.loads(json.dumps(document))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.floats(allow_nan=False, allow_infinity=False))
def test_floats_read_back_as_given(conn, value):
    (back,) = read_back(conn, "SELECT %s::float8", [value])
    assert back == value


def test_a_negative_number_after_a_minus_is_not_a_comment(conn):
    assert read_back(conn, "SELECT 1-%s, 1-%s, 1-%s", [-1, -2.5, Int4(-3)]) == (2, Decimal("3.5"), 4)


def test_other_kinds_of_int_and_str_are_written_as_their_values(conn):
    assert read_back(
        conn,
        "SELECT %s, %s, %s, %s::text, %s, %s, %s",
        [Int2(2), Int4(4), Int8(8), Notification.Status.PENDING, True, False, None],
    ) == (2, 4, 8, "pending", True, False, None)


def test_a_percent_sign_is_written_as_psycopg_reads_it(conn):
    assert read_back(conn, "SELECT '100%%' || %s::text", ["%s"]) == ("100%%s",)


@pytest.mark.parametrize(
    ("sql", "params"),
    [
        ("SELECT %s", ["nul \x00 inside"]),  # the server refuses it: psycopg says so
        ("SELECT %s", [datetime.datetime(2026, 1, 1)]),  # naive: a timestamp, not a timestamptz
        ("SELECT %s", [float("nan")]),
        ("SELECT %s", [datetime.timedelta(hours=1)]),
        ("SELECT %s", [Decimal("1.5")]),
        ("SELECT %s", [datetime.date(2026, 1, 1)]),
        ("SELECT %s", [Jsonb({"a": 1})]),  # psycopg's own JSON writer
        ("SELECT %s", [[1, 2]]),
        ("SELECT %(a)s", {"a": 1}),
        ("SELECT %b", [1]),
        ("SELECT %s, %s", [1]),
        ("SELECT %s", [1, 2]),
        ("SELECT %s, 5 %", [1]),
    ],
    ids=repr,
)
def test_what_it_does_not_handle_is_left_to_psycopg(conn, sql, params):
    assert render(conn, sql, params) is None


def test_a_session_that_reads_backslashes_or_another_encoding_is_left_to_psycopg():
    with psycopg.connect(libpq(SERVER), autocommit=True) as other:
        assert render(other, "SELECT %s", ["a\\b"]) == "SELECT 'a\\b'"
        other.execute("SET standard_conforming_strings = off")
        assert render(other, "SELECT %s", ["a\\b"]) is None
        other.execute("SET standard_conforming_strings = on")
        other.execute("SET client_encoding = 'LATIN1'")
        assert render(other, "SELECT %s", ["a"]) is None


@pytest.fixture
def django_connection(django_db_blocker):
    connection = ConnectionHandler({"default": _database(SERVER)})["default"]
    with django_db_blocker.unblock():
        yield connection
        connection.close()


def test_django_statements_are_sent_with_the_literals_written(django_connection):
    with CaptureQueriesContext(django_connection) as captured, django_connection.cursor() as cursor:
        cursor.execute("SELECT %s::text, %s, 100 %% 7", ["it's", -4])
        assert cursor.fetchone() == ("it's", -4, 2)
        cursor.execute("SELECT %s", [datetime.timedelta(hours=1)])  # psycopg's binding, as before
        assert cursor.fetchone() == (datetime.timedelta(hours=1),)
    assert captured.captured_queries[0]["sql"] == "SELECT 'it''s'::text,  -4, 100 % 7"
