"""Django's PostgreSQL backend, with savings on every request that reads or writes the database.

- The health check of a kept connection (CONN_HEALTH_CHECKS) asks ``SELECT 1`` only when the socket
  says something happened. Django asks it at the start of every request: a round trip each time. An
  idle session has nothing to say, so anything to read on its socket means something happened: a
  server shutting down sends a message and closes it, a dropped proxy closes it.
- Timestamps are read by psycopg's compiled loader. Django registers a loader of its own, written in
  Python, which gives the value its time zone; in a UTC session (the site's) psycopg's own loader gives
  the very same values, several times faster. That was a twentieth of a move's Python time.
- A transaction's BEGIN goes in the round trip of its first statement. psycopg sends it as a command
  of its own, and waits for the answer, before the first statement of every transaction: one round
  trip in five of a move. Here psycopg stays in autocommit; when Django has turned autocommit off and
  the session is idle, the next statement is sent as ``BEGIN; statement``. COMMIT and ROLLBACK need
  nothing: psycopg sends them whenever the session is inside a transaction, autocommit or not.
- Statements that must run just after a transaction commits go in the COMMIT's round trip. An
  ``on_commit`` hook with a ``with_commit`` attribute (a list of (sql, params)) gets them run as
  ``COMMIT; sql; ...``, and finds their row counts in its ``committed_counts`` (None if they did not run
  or failed: the hook then runs them itself). As the hook is Django's own, a rolled-back savepoint
  drops its statements with it.
- JSON values are written by orjson (``json_dumps``), not by json.dumps.
- Parameters of the common types are written into the query text by ``literals.render``, not by
  psycopg's dumpers: a tenth of a move's Python time. Anything else is bound by psycopg as before.
- Statements can also go just before the COMMIT, in its round trip: a hook's ``before_commit`` (see
  games.rows.Writes.flush_at_commit). The server runs nothing after a statement that fails, so the
  COMMIT then never runs and the transaction rolls back; the hook may name the exception to raise
  instead of the database's error (``before_commit_refusal``), and gets each statement's first row and
  row count once the COMMIT succeeded (``before_commit_done``). Django's query log shows them as one
  entry, as a flush would.
"""

from __future__ import annotations

import datetime
import json
import logging
import select
import time
from functools import cache
from typing import Any

import psycopg
from django.db.backends.postgresql.base import Cursor as PostgreSQLCursor
from django.db.backends.postgresql.base import DatabaseWrapper as PostgreSQLDatabaseWrapper
from django.db.backends.postgresql.operations import DatabaseOperations as PostgreSQLOperations
from psycopg import adapt, generators, pq
from psycopg import errors as psycopg_errors
from psycopg.postgres import types
from psycopg.types.json import Jsonb

from wallsite.postgresql.literals import json_dumps, render

TIMESTAMPTZ = types["timestamptz"].oid
IDLE, INTRANS = pq.TransactionStatus.IDLE, pq.TransactionStatus.INTRANS
COMMAND_OK, TUPLES_OK, FATAL_ERROR = (
    pq.ExecStatus.COMMAND_OK,
    pq.ExecStatus.TUPLES_OK,
    pq.ExecStatus.FATAL_ERROR,
)

log = logging.getLogger(__name__)


class DatabaseOperations(PostgreSQLOperations):
    def adapt_json_value(self, value: Any, encoder: type[json.JSONEncoder] | None) -> Jsonb:
        if encoder is None:
            return Jsonb(value, dumps=json_dumps)
        return super().adapt_json_value(value, encoder)

    def last_executed_query(self, cursor: Any, sql: str, params: Any) -> str | None:
        query = super().last_executed_query(cursor, sql, params)
        # Django logs the BEGIN on its own when it turns autocommit off: the statement is logged alone.
        begun = getattr(cursor, "begun", "")
        return query[len(begun) :] if query and begun and query.startswith(begun) else query


class DatabaseWrapper(PostgreSQLDatabaseWrapper):
    ops_class = DatabaseOperations

    def _set_autocommit(self, autocommit: bool) -> None:
        with self.wrap_database_errors:
            connection = self.connection
            connection.begin_owed = not autocommit  # read by Cursor
            if not connection.autocommit:
                connection.autocommit = True

    commits_with_statements = True  # see _commit; read by games.rows.Writes.flush_at_commit

    def _commit(self) -> None:
        connection = self.connection
        hooks = [hook for _, hook, _ in self.run_on_commit]
        before = [hook for hook in hooks if getattr(hook, "before_commit", None)]
        after = [hook for hook in hooks if getattr(hook, "with_commit", None)]
        if connection is None or not (before or after):
            return super()._commit()
        # A transaction whose only statements are held for its COMMIT has not begun yet. Held
        # statements are sent whatever the state: in a failed transaction, the server refuses them.
        begin = _begin_owed(connection) if before else None
        if not before and connection.pgconn.transaction_status != INTRANS:
            return super()._commit()
        mogrify = psycopg.ClientCursor(connection).mogrify

        def bind(sql: str, params: Any) -> str:
            return render(connection, sql, params) or mogrify(sql, params)

        first = [[bind(sql, params) for sql, params in hook.before_commit] for hook in before]
        last = [[bind(sql, params) for sql, params in hook.with_commit] for hook in after]
        opening = [begin] if begin else []
        held = [sql for each in first for sql in each]
        query = "; ".join([*opening, *held, "COMMIT", *(sql for each in last for sql in each)])
        encoding = connection.info.encoding
        started = time.monotonic()
        with self.wrap_database_errors, connection.lock:
            connection.pgconn.send_query(query.encode(encoding))
            results = connection.wait(generators.execute(connection.pgconn))
        if held and self.queries_logged:  # as the statements would have been, flushed on their own
            sql = "; ".join([*held, "COMMIT"])
            self.queries_log.append({"sql": sql, "time": f"{time.monotonic() - started:.3f}"})
        got = iter(results)
        for _ in opening:
            self._commit_check(next(got, None), encoding)
        loader = adapt.Transformer(connection)  # loads the held statements' rows, one result at a time
        loaded = []
        for hook, each in zip(before, first, strict=True):
            rows = []
            for index in range(len(each)):
                result = next(got, None)
                if result is not None and result.status == FATAL_ERROR:
                    state = result.error_field(pq.DiagnosticField.SQLSTATE)
                    refusal = hook.before_commit_refusal(index, state.decode() if state else None)
                    if refusal is not None:
                        self.rollback()
                        raise refusal
                self._commit_check(result, encoding)
                rows.append((_first_row(loader, result), result.command_tuples or 0))
            loaded.append(rows)
        self._commit_check(next(got, None), encoding)  # the COMMIT's own
        for hook, rows in zip(before, loaded, strict=True):
            hook.before_commit_done(rows)
        for hook, each in zip(after, last, strict=True):
            statements = [next(got, None) for _ in each]
            failed = next(
                (result for result in statements if result is None or result.status != COMMAND_OK), False
            )
            if failed is False:
                hook.committed_counts = [result.command_tuples for result in statements]
            elif failed is not None:
                log.warning("A statement after the commit failed: %s", (failed.error_message or b"").decode())

    def _commit_check(self, result: pq.abc.PGresult | None, encoding: str) -> None:
        """Raise the error of a result of the COMMIT's round trip up to the COMMIT itself: the server
        ran nothing after it, and Django rolls the transaction back."""
        with self.wrap_database_errors:
            if result is None:
                raise self.Database.OperationalError("The server did not answer every statement.")
            if result.status not in (COMMAND_OK, TUPLES_OK):
                raise psycopg_errors.error_from_result(result, encoding=encoding)

    def create_cursor(self, name: str | None = None) -> Any:
        if name:
            # A named cursor declares itself by psycopg's own path, which in autocommit begins nothing.
            _begin_alone(self.connection)
        return super().create_cursor(name)

    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None:
            return False
        pgconn = connection.pgconn
        if (
            pgconn.status == pq.ConnStatus.OK
            and pgconn.transaction_status == pq.TransactionStatus.IDLE
            and not _has_input(pgconn)
        ):
            return True
        return super().is_usable()

    def get_connection_params(self) -> dict[str, Any]:
        params = super().get_connection_params()
        if params.get("cursor_factory") is PostgreSQLCursor:  # not with server-side binding
            params["cursor_factory"] = Cursor
        # Django sets the session's time zone to timezone_name when it connects.
        if self.timezone is datetime.UTC and self.timezone_name == "UTC":
            params["context"] = _utc_adapters(params["context"])
        return params


class Cursor(PostgreSQLCursor):
    """Django's client-side binding cursor, which begins the transaction Django owes the session in
    the round trip of the next statement."""

    begun = ""  # what the last statement was sent after: "BEGIN; " or nothing

    def execute(self, query: Any, params: Any = None, *, prepare: bool | None = None, **kwargs: Any) -> Any:
        if (
            params
            and not prepare
            and isinstance(query, str)
            and (rendered := render(self._conn, query, params))
        ):
            query, params = rendered, None
        begin = _begin_owed(self._conn)
        if begin is not None and isinstance(query, str) and not prepare:
            self.begun = f"{begin}; "
            super().execute(self.begun + query, params, **kwargs)
            self.nextset()  # past BEGIN's own result, to the statement's
            return self
        if self.begun:
            self.begun = ""
        if begin is not None:
            _begin_alone(self._conn)
        return super().execute(query, params, prepare=prepare, **kwargs)

    def executemany(self, query: Any, params_seq: Any, *, returning: bool = False) -> None:
        _begin_alone(self._conn)
        return super().executemany(query, params_seq, returning=returning)

    def copy(self, statement: Any, params: Any = None, *, writer: Any = None) -> Any:
        _begin_alone(self._conn)
        return super().copy(statement, params, writer=writer)

    def stream(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
        _begin_alone(self._conn)
        return super().stream(query, params, **kwargs)


def _begin_owed(connection: psycopg.Connection) -> str | None:
    """The BEGIN command (with the session's isolation level) if Django has a transaction open that
    the server has not been told of yet, else None."""
    if getattr(connection, "begin_owed", False) and connection.pgconn.transaction_status == IDLE:
        return connection._get_tx_start_command().decode()
    return None


def _first_row(loader: adapt.Transformer, result: pq.abc.PGresult) -> tuple | None:
    """The first row of a result, its values loaded as a cursor would, or None."""
    if not result.ntuples:
        return None
    loader.set_pgresult(result)
    return loader.load_row(0, tuple)


def _begin_alone(connection: psycopg.Connection) -> None:
    if (begin := _begin_owed(connection)) is not None:
        psycopg.ClientCursor(connection).execute(begin)


def _has_input(pgconn: pq.abc.PGconn) -> bool:
    """Whether the session's socket has anything to read (or is closed or broken)."""
    try:
        poller = select.poll()
        poller.register(pgconn.socket, select.POLLIN | select.POLLPRI)
        return bool(poller.poll(0))
    except Exception:  # no socket any more: let the real check decide
        return True


class UtcTimestamptzLoader(adapt.Loader):
    """psycopg's own timestamptz loader (compiled, where psycopg's binary package is installed), under
    the ``timezone`` that Django's cursors check before they register their own loader."""

    timezone = datetime.UTC

    def __init__(self, oid: int, context: adapt.AdaptContext | None = None):
        super().__init__(oid, context)
        self._loader = psycopg.adapters.get_loader(TIMESTAMPTZ, pq.Format.TEXT)(oid, context)
        self.load = self._loader.load  # type: ignore[method-assign]  # no Python frame per value

    def load(self, data: Any) -> datetime.datetime:
        return self._loader.load(data)


@cache
def _utc_adapters(template: adapt.AdaptersMap) -> adapt.AdaptersMap:
    adapters = adapt.AdaptersMap(template)
    adapters.register_loader(TIMESTAMPTZ, UtcTimestamptzLoader)
    return adapters
