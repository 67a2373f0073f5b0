"""The site's PostgreSQL backend (wallsite/postgresql) begins a transaction in the round trip of its
first statement, and the transaction is still the one Django asked for: every statement in it, its
rollback, its savepoints, its isolation level, a named cursor's reads. Statements that commit hooks
ask for go in the COMMIT's round trip. Always on the machine's PostgreSQL, whatever the suite's own
database is; the rows written go to a temporary table."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.db import IntegrityError, transaction
from django.db.utils import ConnectionHandler
from psycopg import pq

from tests.faults.conftest import _server_url, with_database
from wallsite.settings.base import _database

SERVER = with_database(_server_url(), "postgres")
IDLE, INTRANS = pq.TransactionStatus.IDLE, pq.TransactionStatus.INTRANS


def _wrapper(django_db_blocker, **options):
    config = _database(SERVER)
    config["OPTIONS"] = config.get("OPTIONS", {}) | options
    connection = ConnectionHandler({"default": config})["default"]
    with django_db_blocker.unblock():
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("CREATE TEMPORARY TABLE scratch (n integer)")
        yield connection
        connection.close()


@pytest.fixture
def wrapper(django_db_blocker):
    """A connection of the site's own backend to the server's maintenance database, which keeps no rows
    from here: the session's temporary table ``scratch`` goes with it."""
    yield from _wrapper(django_db_blocker)


def _round_trips(wrapper, monkeypatch) -> list[str]:
    """What the session waits on from now on, one entry per round trip (psycopg waits once for each)."""
    trips: list[str] = []
    connection = wrapper.connection
    real = connection.wait

    def counting(generator, *args, **kwargs):
        trips.append(getattr(generator, "__name__", "?"))
        return real(generator, *args, **kwargs)

    monkeypatch.setattr(connection, "wait", counting)
    return trips


def _scratch(wrapper) -> list[int]:
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT n FROM scratch ORDER BY n")
        return [n for (n,) in cursor.fetchall()]


def test_a_transaction_begins_in_the_round_trip_of_its_first_statement(wrapper, monkeypatch):
    trips = _round_trips(wrapper, monkeypatch)
    wrapper.set_autocommit(False)
    assert wrapper.connection.pgconn.transaction_status == IDLE  # nothing sent yet
    with wrapper.cursor() as cursor:
        cursor.execute("INSERT INTO scratch VALUES (%s), (%s)", [1, 2])
        assert wrapper.connection.pgconn.transaction_status == INTRANS
        assert cursor.rowcount == 2
        cursor.execute("SELECT count(*) FROM scratch")
        assert cursor.fetchone() == (2,)
    wrapper.commit()
    wrapper.set_autocommit(True)
    assert trips == ["_execute_gen", "_execute_gen", "_commit_gen"]  # psycopg alone: a BEGIN first
    assert wrapper.connection.pgconn.transaction_status == IDLE
    assert _scratch(wrapper) == [1, 2]


def test_every_statement_of_the_transaction_is_in_it_and_autocommit_stays_autocommit(wrapper):
    def stamp() -> tuple:
        with wrapper.cursor() as cursor:
            cursor.execute("SELECT pg_current_xact_id()::text, now()")
            return cursor.fetchone()

    outside = stamp()
    assert wrapper.connection.pgconn.transaction_status == IDLE
    wrapper.set_autocommit(False)
    first = stamp()
    time.sleep(0.01)
    assert stamp() == first  # one transaction: the same id, the same start time
    wrapper.commit()
    assert wrapper.connection.pgconn.transaction_status == IDLE
    # Still in Django's non-autocommit mode after a commit: the next statement begins the next one.
    second = stamp()
    assert second != first and wrapper.connection.pgconn.transaction_status == INTRANS
    wrapper.rollback()
    wrapper.set_autocommit(True)
    assert stamp()[0] != outside[0] and wrapper.connection.pgconn.transaction_status == IDLE


def test_a_rolled_back_transaction_leaves_nothing_and_a_failing_first_statement_rolls_back(wrapper):
    wrapper.set_autocommit(False)
    with wrapper.cursor() as cursor:
        cursor.execute("INSERT INTO scratch VALUES (7)")
    wrapper.rollback()
    with wrapper.cursor() as cursor, pytest.raises(Exception, match="no_such_table"):
        cursor.execute("INSERT INTO no_such_table VALUES (1)")
    assert wrapper.connection.pgconn.transaction_status == pq.TransactionStatus.INERROR
    wrapper.rollback()
    wrapper.set_autocommit(True)
    assert wrapper.connection.pgconn.transaction_status == IDLE
    assert _scratch(wrapper) == []


def test_the_cursor_gives_the_first_statement_s_result_and_the_log_shows_it_alone(wrapper):
    with wrapper.cursor() as cursor:
        cursor.execute("INSERT INTO scratch VALUES (1), (2), (3)")
    wrapper.force_debug_cursor = True
    wrapper.set_autocommit(False)
    with wrapper.cursor() as cursor:
        cursor.execute("UPDATE scratch SET n = n * 10 WHERE n > %s", [1])
        assert cursor.rowcount == 2
    wrapper.rollback()
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT n FROM scratch WHERE n < %s ORDER BY n", [3])
        assert cursor.fetchall() == [(1,), (2,)]
        assert cursor.description[0].name == "n"
    wrapper.commit()
    wrapper.set_autocommit(True)
    logged = [query["sql"] for query in wrapper.queries]
    assert "UPDATE scratch SET n = n * 10 WHERE n > 1" in logged
    assert "SELECT n FROM scratch WHERE n < 3 ORDER BY n" in logged
    assert not any(sql.startswith("BEGIN;") for sql in logged)


def test_a_savepoint_as_the_first_statement(wrapper):
    wrapper.set_autocommit(False)
    wrapper.in_atomic_block = True  # as atomic() marks it: savepoints are for nested blocks
    try:
        point = wrapper.savepoint()
        with wrapper.cursor() as cursor:
            cursor.execute("INSERT INTO scratch VALUES (1)")
        wrapper.savepoint_rollback(point)
        with wrapper.cursor() as cursor:
            cursor.execute("INSERT INTO scratch VALUES (2)")
    finally:
        wrapper.in_atomic_block = False
    wrapper.commit()
    wrapper.set_autocommit(True)
    assert _scratch(wrapper) == [2]


def test_a_named_cursor_as_the_first_statement_reads_inside_the_transaction(wrapper):
    wrapper.set_autocommit(False)
    with wrapper.chunked_cursor() as named:
        named.execute("SELECT pg_current_xact_id()::text, now()")
        first = named.fetchone()
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT pg_current_xact_id()::text, now()")
        assert cursor.fetchone() == first
    wrapper.rollback()
    wrapper.set_autocommit(True)


def test_executemany_as_the_first_statement_is_inside_the_transaction(wrapper):
    wrapper.set_autocommit(False)
    with wrapper.cursor() as cursor:
        cursor.executemany("INSERT INTO scratch VALUES (%s)", [[1], [2], [3]])
        assert wrapper.connection.pgconn.transaction_status == INTRANS
    wrapper.rollback()
    wrapper.set_autocommit(True)
    assert _scratch(wrapper) == []


def test_the_isolation_level_the_settings_ask_for_is_the_transaction_s(django_db_blocker):
    for wrapper in _wrapper(django_db_blocker, isolation_level=psycopg.IsolationLevel.SERIALIZABLE):
        wrapper.set_autocommit(False)
        with wrapper.cursor() as cursor:
            cursor.execute("SHOW transaction_isolation")
            assert cursor.fetchone() == ("serializable",)
        wrapper.rollback()
        wrapper.set_autocommit(True)


# --- statements in the COMMIT's round trip --------------------------------------------------------------


class Hook:
    """An on_commit hook with statements for the COMMIT's round trip, as games/dispatch.py makes one."""

    def __init__(self, *statements: tuple[str, list]) -> None:
        self.with_commit = list(statements)
        self.committed_counts = None
        self.ran = False

    def __call__(self) -> None:
        self.ran = True


@pytest.fixture
def atomic(wrapper, monkeypatch):
    """Django's own atomic(), on the fixture's connection."""
    monkeypatch.setattr(transaction, "get_connection", lambda using=None: wrapper)
    return transaction.atomic


def test_a_hook_s_statements_run_in_the_commit_s_round_trip_and_it_gets_their_counts(
    wrapper, atomic, monkeypatch
):
    hook, plain = Hook(("UPDATE scratch SET n = n + 1", []), ("INSERT INTO scratch VALUES (%s)", [9])), Hook()
    with atomic():
        with wrapper.cursor() as cursor:
            cursor.execute("INSERT INTO scratch VALUES (1), (2)")
        wrapper.on_commit(hook)
        wrapper.on_commit(plain)
        trips = _round_trips(wrapper, monkeypatch)
    assert trips == ["execute"]  # COMMIT and both statements: one round trip, nothing after it
    assert hook.ran and plain.ran and hook.committed_counts == [2, 1] and plain.committed_counts is None
    assert _scratch(wrapper) == [2, 3, 9]


def test_a_hook_of_a_rolled_back_savepoint_takes_its_statements_with_it(wrapper, atomic):
    kept, dropped = Hook(("INSERT INTO scratch VALUES (1)", [])), Hook(("INSERT INTO scratch VALUES (2)", []))
    with atomic():
        wrapper.on_commit(kept)
        with pytest.raises(RuntimeError), atomic():
            wrapper.on_commit(dropped)
            raise RuntimeError("roll the savepoint back")
    assert kept.ran and not dropped.ran and _scratch(wrapper) == [1]


def test_a_failing_statement_after_the_commit_leaves_the_commit_standing(wrapper, atomic, caplog):
    hook = Hook(("INSERT INTO no_such_table VALUES (1)", []))
    with caplog.at_level("WARNING", logger="wallsite.postgresql.base"), atomic():
        with wrapper.cursor() as cursor:
            cursor.execute("INSERT INTO scratch VALUES (5)")
        wrapper.on_commit(hook)
    assert hook.ran and hook.committed_counts is None  # the hook runs its statements itself
    assert "no_such_table" in caplog.text
    assert wrapper.connection.pgconn.transaction_status == IDLE and _scratch(wrapper) == [5]


def test_a_commit_that_fails_raises_and_runs_nothing_after_it(wrapper, atomic):
    with wrapper.cursor() as cursor:
        cursor.execute("CREATE TEMPORARY TABLE once (n integer UNIQUE DEFERRABLE INITIALLY DEFERRED)")
    hook = Hook(("INSERT INTO scratch VALUES (1)", []))
    with pytest.raises(IntegrityError, match="once_n_key"), atomic():
        with wrapper.cursor() as cursor:
            cursor.execute("INSERT INTO once VALUES (1), (1)")  # checked only at the COMMIT
        wrapper.on_commit(hook)
    assert not hook.ran and hook.committed_counts is None
    assert wrapper.connection.pgconn.transaction_status == IDLE and _scratch(wrapper) == []


def test_copy_and_stream_as_the_first_statement_are_inside_the_transaction(wrapper):
    wrapper.set_autocommit(False)
    with wrapper.cursor() as cursor:
        with cursor.cursor.copy("COPY scratch (n) FROM STDIN") as copy:
            copy.write_row([4])
        assert wrapper.connection.pgconn.transaction_status == INTRANS
    wrapper.rollback()
    assert wrapper.connection.pgconn.transaction_status == IDLE
    with wrapper.cursor() as cursor:
        streamed = list(cursor.cursor.stream("SELECT pg_current_xact_id()::text, now()"))
        assert wrapper.connection.pgconn.transaction_status == INTRANS
        cursor.execute("SELECT pg_current_xact_id()::text, now()")
        assert [cursor.fetchone()] == streamed
    wrapper.rollback()
    wrapper.set_autocommit(True)
    assert _scratch(wrapper) == []
