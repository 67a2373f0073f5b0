"""The site's PostgreSQL backend (wallsite/postgresql) begins a transaction in the round trip of its
first statement, and the transaction is still the one Django asked for: every statement in it, its
rollback, its savepoints, its isolation level, a named cursor's reads. Statements that commit hooks
ask for go in the COMMIT's round trip, and so do the writes that games.rows holds for it. Always on
the machine's PostgreSQL, whatever the suite's own database is; the rows written go to temporary
tables."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from django.db import DatabaseError, DataError, IntegrityError, transaction
from django.db.utils import ConnectionHandler
from django.test.utils import CaptureQueriesContext
from psycopg import pq

from games import rows
from games.models import Flag
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


# --- writes held for the COMMIT's round trip (games.rows.Writes.flush_at_commit) -------------------------


class MovedOn(Exception):
    pass


@pytest.fixture
def flags(wrapper, monkeypatch):
    """rows.Writes on the fixture's connection, writing Flag rows to a temporary table of that name."""
    with wrapper.cursor() as cursor:
        cursor.execute("CREATE TEMPORARY TABLE games_flag (name varchar(60) PRIMARY KEY, set_at timestamptz)")
    monkeypatch.setattr(rows, "connection_for", lambda model, write=False: wrapper)
    return wrapper


def _flags(wrapper) -> list[str]:
    with wrapper.cursor() as cursor:
        cursor.execute("SELECT name FROM games_flag ORDER BY name")
        return [name for (name,) in cursor.fetchall()]


def _flag(name: str) -> Flag:
    return Flag(name=name, set_at=datetime.now(UTC))


def test_held_writes_go_in_the_commit_s_round_trip_and_learn_their_results_after_it(
    flags, atomic, monkeypatch
):
    counts, first, second = [], _flag("a"), _flag("b")
    with atomic():
        with flags.cursor() as cursor:
            cursor.execute("INSERT INTO games_flag VALUES ('old', now())")
        writes = rows.Writes(Flag)
        writes.insert(first)
        writes.insert(second, on_conflict="ON CONFLICT (name) DO NOTHING")
        later = datetime.now(UTC) + timedelta(hours=1)
        writes.update(
            Flag, values={"set_at": later}, where={"name": "old"}, then=counts.append, refusal=MovedOn()
        )
        writes.flush_at_commit()
        assert first._state.adding and _flags(flags) == ["old"]  # nothing sent yet
        trips = _round_trips(flags, monkeypatch)
    assert trips == ["execute"]  # the writes and the COMMIT: one round trip
    assert not first._state.adding and not second._state.adding and counts == [1]
    assert _flags(flags) == ["a", "b", "old"]


def test_the_query_log_shows_the_held_writes_as_one_entry_with_the_commit(flags, atomic):
    with CaptureQueriesContext(flags) as logged, atomic():
        with flags.cursor() as cursor:
            cursor.execute("SELECT 1")
        writes = rows.Writes(Flag)
        writes.insert(_flag("a"))
        writes.insert(_flag("b"))
        writes.flush_at_commit()
    statements = [rows.statement_text(flags, query["sql"]) for query in logged]
    assert statements[:2] == ["BEGIN", "SELECT 1"] and len(statements) == 3, statements
    assert statements[2].endswith("; COMMIT") and statements[2].count('INSERT INTO "games_flag"') == 2


def test_an_update_that_finds_no_row_raises_its_refusal_and_the_transaction_rolls_back(flags, atomic):
    hook = Hook()
    with pytest.raises(MovedOn), atomic():
        with flags.cursor() as cursor:
            cursor.execute("INSERT INTO scratch VALUES (1)")
        flags.on_commit(hook)
        writes = rows.Writes(Flag)
        writes.insert(_flag("a"))
        writes.update(Flag, values={"set_at": None}, where={"name": "missing"}, refusal=MovedOn())
        writes.insert(_flag("b"))
        writes.flush_at_commit()
    assert not hook.ran and not flags.run_on_commit
    assert (
        flags.connection.pgconn.transaction_status == IDLE and _scratch(flags) == [] and _flags(flags) == []
    )
    with atomic():  # the connection goes on as usual
        writes = rows.Writes(Flag)
        writes.insert(_flag("c"))
        writes.flush_at_commit()
    assert _flags(flags) == ["c"]


def test_a_held_write_that_fails_raises_the_database_s_error_and_nothing_is_committed(flags, atomic):
    hook = Hook(("INSERT INTO scratch VALUES (%s)", [2]))
    with pytest.raises(IntegrityError, match="games_flag_pkey"), atomic():
        with flags.cursor() as cursor:
            cursor.execute("INSERT INTO scratch VALUES (1)")
        flags.on_commit(hook)
        writes = rows.Writes(Flag)
        writes.insert(_flag("a"))
        writes.insert(_flag("a"))
        writes.flush_at_commit()
    assert not hook.ran and hook.committed_counts is None
    assert (
        flags.connection.pgconn.transaction_status == IDLE and _scratch(flags) == [] and _flags(flags) == []
    )


def test_a_transaction_that_only_holds_writes_begins_in_the_commit_s_round_trip(flags, atomic, monkeypatch):
    with atomic():  # the session prepares the INSERT: a round trip of its own, once
        writes = rows.Writes(Flag)
        writes.insert(_flag("w"))
        writes.flush_at_commit()
    with flags.cursor() as cursor:
        cursor.execute("DELETE FROM games_flag")
    trips = _round_trips(flags, monkeypatch)
    with pytest.raises(IntegrityError), atomic():
        writes = rows.Writes(Flag)
        writes.insert(_flag("a"))
        writes.insert(_flag("a"))  # fails: the first must go with it, as in any transaction
        writes.flush_at_commit()
    assert trips == ["execute", "_rollback_gen"] and _flags(flags) == []
    trips.clear()
    hook = Hook(("INSERT INTO scratch VALUES (%s)", [3]))
    with atomic():
        flags.on_commit(hook)
        writes = rows.Writes(Flag)
        writes.insert(_flag("b"))
        writes.flush_at_commit()
    assert trips == ["execute"]  # BEGIN, the write, the COMMIT and the hook's statement
    assert hook.ran and hook.committed_counts == [1] and _flags(flags) == ["b"] and _scratch(flags) == [3]


def test_in_a_nested_block_held_writes_are_flushed_at_once(flags, atomic):
    with atomic(), atomic():
        writes = rows.Writes(Flag)
        row = _flag("a")
        writes.insert(row)
        writes.flush_at_commit()
        assert not row._state.adding and _flags(flags) == ["a"]
        writes.update(Flag, values={"set_at": None}, where={"name": "missing"}, refusal=MovedOn())
        with pytest.raises(MovedOn):
            writes.flush_at_commit()


def test_held_writes_in_a_failed_transaction_are_refused_not_dropped(flags, atomic):
    with pytest.raises(DatabaseError, match="aborted"), atomic():
        with flags.cursor() as cursor:
            cursor.execute("INSERT INTO scratch VALUES (1)")
            with pytest.raises(DataError):
                cursor.execute("SELECT 1 / 0")  # caught without a savepoint: the transaction is lost
        row = _flag("a")
        writes = rows.Writes(Flag)
        writes.insert(row)
        writes.flush_at_commit()
    assert row._state.adding and _scratch(flags) == [] and _flags(flags) == []
