"""Hand-written SQL for the move path, the site's busiest writer.

A move reads a token, a match and its seats and writes a handful of rows. Building each of those
statements through the ORM costs about half a millisecond of Python, several times what the database
takes to run it, so the move path reads and writes the same rows through these helpers instead. They
take table and column names from the models' ``_meta``, bind every value as a parameter (hence the
nosec marks), convert values exactly as the ORM does (``get_db_prep_save`` on the way in, the fields'
and the backend's converters on the way out), and work on SQLite and PostgreSQL alike. On PostgreSQL
each statement is prepared once per database session and then run by name (``prepared``): the server
then parses and plans it once, work that had been nearly half of what a move cost it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from django.conf import settings
from django.db import connections, models, router
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import signals
from django.db.models.base import ModelState

M = TypeVar("M", bound=models.Model)
Converter = Callable[[Any, Any, BaseDatabaseWrapper], Any]


@dataclass(frozen=True)
class _Shape:
    """How one model's concrete columns are selected under a table alias, and decoded."""

    names: tuple[str, ...]  # attnames, in select order
    select: str  # 'alias."column", ...'
    converters: tuple[tuple[int, tuple[tuple[Converter, Any], ...]], ...]  # (index, ((fn, col), ...))


_shapes: dict[tuple[type[models.Model], str, str, tuple[str, ...]], _Shape] = {}


def _shape(
    model: type[models.Model], alias: str, connection: BaseDatabaseWrapper, omit: tuple[str, ...]
) -> _Shape:
    key = (model, alias, connection.alias, omit)
    shape = _shapes.get(key)
    if shape is None:
        quote = connection.ops.quote_name
        fields = [field for field in model._meta.concrete_fields if field.attname not in omit]
        converters = []
        for index, field in enumerate(fields):
            column = field.get_col(alias)
            found = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
            if found:
                converters.append((index, tuple((fn, column) for fn in found)))
        shape = _Shape(
            names=tuple(field.attname for field in fields),
            select=", ".join(f"{alias}.{quote(field.column)}" for field in fields),
            converters=tuple(converters),
        )
        _shapes[key] = shape
    return shape


def connection_for(model: type[models.Model], *, write: bool = False) -> BaseDatabaseWrapper:
    return connections[router.db_for_write(model) if write else router.db_for_read(model)]


def columns(model: type[models.Model], alias: str, *, write: bool = False, omit: tuple[str, ...] = ()) -> str:
    """The select list of ``model``'s concrete columns under ``alias``, in the order ``build`` expects;
    the ``omit`` ones (attnames) are left out and stay deferred on the instances."""
    return _shape(model, alias, connection_for(model, write=write), omit).select


def build(
    model: type[M],
    row: Sequence[Any],
    *,
    start: int = 0,
    write: bool = False,
    omit: tuple[str, ...] = (),
    remember: bool = False,
) -> M:
    """The instance for the ``columns(model, ..., omit=omit)`` part of ``row`` that begins at ``start``;
    ``remember`` keeps the values read, for ``changed``."""
    connection = connection_for(model, write=write)
    shape = _shape(model, "t", connection, omit)  # the converters do not depend on the alias
    values = list(row[start : start + len(shape.names)])
    for index, steps in shape.converters:
        value = values[index]
        for fn, column in steps:
            value = fn(value, column, connection)
        values[index] = value
    instance = _instance(model, connection.alias, shape.names, values)
    if remember:
        instance._rows_read = dict(zip(shape.names, values, strict=True))
    return instance


def _instance(model: type[M], alias: str, names: tuple[str, ...], values: list[Any]) -> M:
    """What ``model.from_db`` gives, without running ``Model.__init__`` field by field: the values go
    straight into the instance's ``__dict__``, where Django's field descriptors look for them (the
    names left out stay deferred). That was most of the cost of the half-dozen rows a move reads.
    A model with its own ``__init__`` or ``from_db``, or with pre_init or post_init receivers (an
    ImageField's, say), still goes through ``from_db``."""
    if (
        model.__init__ is not models.Model.__init__
        or model.from_db.__func__ is not models.Model.from_db.__func__
        or signals.pre_init.has_listeners(model)
        or signals.post_init.has_listeners(model)
    ):
        return model.from_db(alias, names, values)
    instance = model.__new__(model)
    state = instance._state = ModelState()
    state.adding, state.db = False, alias
    instance.__dict__.update(zip(names, values, strict=True))
    return instance


def changed(instance: models.Model, fields: Sequence[models.Field]) -> dict[str, Any]:
    """attname -> value of those ``fields`` that may differ from what ``build(..., remember=True)``
    read: a JSON value always may (it can be changed in place), others when they compare unequal.
    Deferred fields were neither read nor changed: never. Every other field of an instance not so
    built."""
    read = getattr(instance, "_rows_read", {})
    unread = instance.get_deferred_fields()
    values = {}
    for field in fields:
        name = field.attname
        if name in unread:
            continue
        value = getattr(instance, name)
        if name in read and not isinstance(field, models.JSONField) and read[name] == value:
            continue
        values[name] = value
    return values


def fetch(model: type[models.Model], sql: str, params: Sequence[Any], *, write: bool = False) -> list[tuple]:
    """The rows of one SELECT on ``model``'s database (the write one when the caller will write)."""
    connection = connection_for(model, write=write)
    if _carried(connection):
        return fetch_many(model, [(sql, params)], write=write)[0]
    with connection.cursor() as cursor:
        cursor.execute(prepared(connection, sql), params)
        return cursor.fetchall()


def fetch_many(
    model: type[models.Model], queries: Sequence[tuple[str, Sequence[Any]]], *, write: bool = False
) -> list[list[tuple]]:
    """The rows of several SELECTs (nothing else) on ``model``'s database, in order. PostgreSQL (with
    the default client-side binding) gets them as one query string: one round trip, each statement
    still with its own snapshot, so one that follows a ``FOR UPDATE`` sees what was committed before
    the lock was granted. Other databases run them one after the other.

    The reads held by ``carry`` go first, and their ``done`` runs (and may raise) before these rows
    are returned."""
    connection = connection_for(model, write=write)
    carried = _take_carried(connection)
    queries = [*((sql, params) for sql, params, _ in carried), *queries]
    with connection.cursor() as cursor:
        if not _several_per_execute(connection):
            results = []
            for sql, params in queries:
                cursor.execute(sql, params)
                results.append(cursor.fetchall())
        else:
            cursor.execute(
                "; ".join(prepared(connection, sql) for sql, _ in queries),
                [param for _, params in queries for param in params],
            )
            results = [cursor.fetchall()]
            while cursor.nextset():
                results.append(cursor.fetchall())
    for (_, _, done), found in zip(carried, results, strict=False):
        done(found)
    return results[len(carried) :]


# --- reads carried by the next round trip ---------------------------------------------------------------
# A request's first read can be sent with the reads it comes before: an API token's lookup goes in the
# round trip that locks the match (games/api/authentication.py). Nothing else may reach the database
# before a carried read has run: ``carrying`` makes sure of it.

Carried = tuple[str, Sequence[Any], Callable[[list[tuple]], None]]


def carry(
    model: type[models.Model], sql: str, params: Sequence[Any], *, done: Callable[[list[tuple]], None]
) -> None:
    """Hold the SELECT ``sql`` for the next ``fetch`` or ``fetch_many`` on ``model``'s database, which
    sends it first, in the same round trip, then passes its rows to ``done``; any other statement
    runs it alone first (within ``carrying``), and so does ``run_carried``. Only within ``carrying``."""
    connection = connection_for(model)
    if not getattr(connection, "rows_guarded", False):
        raise RuntimeError("rows.carry is only for use within rows.carrying().")
    connection.rows_carried = [*_carried(connection), (sql, params, done)]


def run_carried(model: type[models.Model]) -> None:
    """Run the reads held for ``model``'s database now, on their own."""
    connection = connection_for(model)
    carried = _take_carried(connection)
    if not carried:
        return
    with connection.cursor() as cursor:
        for sql, params, done in carried:
            cursor.execute(prepared(connection, sql), params)
            done(cursor.fetchall())


@contextmanager
def carrying(model: type[models.Model]) -> Iterator[None]:
    """Where reads may be carried on ``model``'s database: a statement that does not carry them (the
    ORM's, a flush, a write held for the COMMIT), on any database, first runs them alone, so that none
    goes ahead of them. On leaving, what is still held is dropped unrun."""
    connection = connection_for(model)

    def first_the_carried(
        execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        if _carried(connection):
            run_carried(model)
        return execute(sql, params, many, context)

    connection.rows_guarded = True
    try:
        with ExitStack() as stack:
            for each in connections.all():
                stack.enter_context(each.execute_wrapper(first_the_carried))
            yield
    finally:
        connection.rows_guarded = False
        connection.rows_carried = []


def _carried(connection: BaseDatabaseWrapper) -> list[Carried]:
    return getattr(connection, "rows_carried", None) or []


def _take_carried(connection: BaseDatabaseWrapper) -> list[Carried]:
    carried = _carried(connection)
    if carried:
        connection.rows_carried = []
    return carried


def _several_per_execute(connection: BaseDatabaseWrapper) -> bool:
    """PostgreSQL with client-side binding: several statements go in one execute, and ``prepared``
    can name statements it prepared. Server-side binding sends each execute as one prepared statement,
    which can hold only one."""
    return (
        connection.vendor == "postgresql"
        and connection.settings_dict["OPTIONS"].get("server_side_binding") is not True
    )


# A match's UPDATE varies with the columns a move changed, so the count of statements prepared on a
# session is capped; past it, statements run unprepared.
PREPARED_PER_SESSION = 200


def session_statements(raw: Any) -> dict[str, str]:
    """The statements prepared on the PostgreSQL session of the psycopg connection ``raw``: SQL text ->
    the EXECUTE that runs it. Kept on the connection, so that a new one after a reconnect starts
    empty, as its session does (and a look-up costs an attribute, not a weak reference)."""
    try:
        return raw.wallsite_prepared
    except AttributeError:
        raw.wallsite_prepared = {}
        return raw.wallsite_prepared


def prepared(connection: BaseDatabaseWrapper, sql: str) -> str:
    """``sql`` as ``EXECUTE name(%s, ...)`` of the same statement prepared on this session, with its
    ``%s`` parameters still to bind (``%s`` may stand for nothing else in ``sql``, and every parameter
    needs a type PostgreSQL can tell from where it stands). PostgreSQL parses and plans a prepared
    statement once, not on every run: the join of seats and users cost it 0.25 ms unprepared, 0.08 ms
    prepared. The values stay bound on the client, so several such statements still go in one query
    string.

    The PREPARE goes straight to psycopg, outside Django's query log, once per session: a prepared
    statement outlives a rolled-back transaction, so it is known to exist once that call returns.
    Elsewhere (SQLite, server-side binding, ``DATABASE_PREPARE`` off), ``sql`` is returned as it is."""
    if not settings.DATABASE_PREPARE or not _several_per_execute(connection) or connection.connection is None:
        return sql
    executes = session_statements(connection.connection)
    execute = executes.get(sql)
    if execute is None:
        if len(executes) >= PREPARED_PER_SESSION:
            return sql
        name = f"wallsite_{len(executes)}"
        parts = sql.split("%s")
        body = "".join(
            part + (f"${index}" if index < len(parts) else "") for index, part in enumerate(parts, 1)
        )
        # Without parameters psycopg sends the text untouched, so a doubled %% must be undone here.
        with connection.wrap_database_errors:
            connection.connection.execute(f"PREPARE {name} AS {body.replace('%%', '%')}")
        execute = (
            f"EXECUTE {name}({', '.join(['%s'] * (len(parts) - 1))})" if len(parts) > 1 else f"EXECUTE {name}"
        )
        executes[sql] = execute
    return execute


def statement_text(connection: BaseDatabaseWrapper, logged: str) -> str:
    """A line of Django's query log with each ``EXECUTE name`` of this session's prepared statements
    replaced by the statement it runs (its values follow it in brackets): to read what really ran."""
    if not _several_per_execute(connection) or connection.connection is None:
        return logged
    names = {
        execute.split("(")[0].split()[1]: sql
        for sql, execute in session_statements(connection.connection).items()
    }
    return re.sub(r"\bEXECUTE (wallsite_\d+)\b", lambda found: names.get(found[1], found[0]), logged)


def table(model: type[models.Model]) -> str:
    return connection_for(model, write=True).ops.quote_name(model._meta.db_table)


def insert(row: models.Model, *, on_conflict: str = "") -> bool:
    """INSERT ``row`` as ``save()`` would (``pre_save`` fills auto_now_add and the like) and set its
    primary key. ``on_conflict`` (e.g. ``ON CONFLICT (a, b) DO NOTHING``, which SQLite and PostgreSQL
    both speak) may skip it: then it returns False and ``row`` stays unsaved."""
    writes = Writes(type(row))
    writes.insert(row, on_conflict=on_conflict)
    writes.flush()
    return not row._state.adding


def update(model: type[models.Model], *, values: dict[str, Any], where: dict[str, Any]) -> int:
    """``UPDATE model SET values WHERE where`` (attnames, each compared for equality, None meaning IS
    NULL); the row count."""
    counted: list[int] = []
    writes = Writes(model)
    writes.update(model, values=values, where=where, then=counted.append)
    writes.flush()
    return counted[0]


_inserts: dict[tuple[type[models.Model], str, bool, str], tuple[list[models.Field], str]] = {}


def _insert_sql(
    model: type[models.Model], connection: BaseDatabaseWrapper, given: bool, on_conflict: str
) -> tuple[list[models.Field], str]:
    """The fields an INSERT of ``model`` writes (its primary key too if ``given``) and its text: the
    same few statements are built on every move."""
    key = (model, connection.alias, given, on_conflict)
    found = _inserts.get(key)
    if found is None:
        quote = connection.ops.quote_name
        fields = [field for field in model._meta.concrete_fields if given or not field.primary_key]
        names = ", ".join(quote(field.column) for field in fields)
        marks = ", ".join(["%s"] * len(fields))
        sql = (
            f"INSERT INTO {quote(model._meta.db_table)} ({names}) "  # nosec B608
            f"VALUES ({marks}) {on_conflict} RETURNING {quote(model._meta.pk.column)}"
        )
        found = _inserts[key] = (fields, sql)
    return found


_Named = list[tuple[str, models.Field]]
_updates: dict[tuple, tuple[_Named, _Named, str]] = {}


def _update_sql(
    model: type[models.Model],
    connection: BaseDatabaseWrapper,
    names: tuple[str, ...],
    where: tuple[tuple[str, bool], ...],
) -> tuple[_Named, _Named, str]:
    """The fields an UPDATE of ``model`` sets (``names``) and compares (``where``: attname and whether
    the value is None, which asks for IS NULL and takes no parameter), and its text."""
    key = (model, connection.alias, names, where)
    found = _updates.get(key)
    if found is None:
        quote = connection.ops.quote_name
        meta = model._meta
        setting = [(name, meta.get_field(name)) for name in names]
        matching = [(name, meta.get_field(name)) for name, null in where if not null]
        conditions = [
            f"{quote(meta.get_field(name).column)} {'IS NULL' if null else '= %s'}" for name, null in where
        ]
        assignments = ", ".join(f"{quote(field.column)} = %s" for _, field in setting)
        sql = f"UPDATE {quote(meta.db_table)} SET {assignments} WHERE {' AND '.join(conditions)}"  # nosec B608
        found = _updates[key] = (setting, matching, sql)
    return found


@dataclass(frozen=True)
class _Held:
    sql: str
    params: list[Any]
    done: Callable[[tuple | None, int], None]  # given the result's first row and its row count
    refusal: Exception | None = None  # raised if the UPDATE changed no row

    def checked(self, row: tuple | None, count: int) -> None:
        if self.refusal is not None and count == 0:
            raise self.refusal
        self.done(row, count)


class Writes:
    """INSERTs and UPDATEs held back and sent together by ``flush``, in the order they were given: one
    round trip on PostgreSQL (one query string, as in ``fetch_many``), one statement at a time
    elsewhere. What a statement gives back (a new row's id, how many rows an update changed) is known
    once it is flushed; nothing held is in the database before that, so flush before reading what
    you held back. All statements go to the write database of the model given here."""

    def __init__(self, model: type[models.Model]) -> None:
        self.connection = connection_for(model, write=True)
        self._held: list[_Held] = []

    def insert(self, row: models.Model, *, on_conflict: str = "") -> None:
        """Hold the INSERT of ``row`` (see ``insert``); the flush sets its primary key, unless
        ``on_conflict`` skipped it (then ``row._state.adding`` stays True). A primary key already set
        on ``row`` is inserted as it is."""
        connection = self.connection
        fields, sql = _insert_sql(type(row), connection, row.pk is not None, on_conflict)
        values = [field.get_db_prep_save(field.pre_save(row, True), connection) for field in fields]

        def inserted(found: tuple | None, count: int) -> None:
            if found is not None:
                row.pk = found[0]
                row._state.adding = False
                row._state.db = connection.alias

        self._held.append(_Held(sql, values, inserted))

    def update(
        self,
        model: type[models.Model],
        *,
        values: dict[str, Any],
        where: dict[str, Any],
        then: Callable[[int], None] | None = None,
        refusal: Exception | None = None,
    ) -> None:
        """Hold ``UPDATE model SET values WHERE where`` (see ``update``); ``then`` gets the row count.
        A None in ``where`` asks for IS NULL. If no row matches, ``refusal`` is raised by the flush (or
        by the commit, see ``flush_at_commit``), and the transaction rolls back."""
        connection = self.connection
        setting, matching, sql = _update_sql(
            model, connection, tuple(values), tuple((name, value is None) for name, value in where.items())
        )
        params = [field.get_db_prep_save(values[name], connection) for name, field in setting]
        params += [
            field.get_db_prep_value(where[name], connection, prepared=False) for name, field in matching
        ]
        done = (lambda row, count: then(count)) if then else _ignore
        self._held.append(_Held(sql, params, done, refusal))

    def flush(self) -> None:
        held, self._held = self._held, []
        if held:
            with self.connection.cursor() as cursor:
                if len(held) > 1 and _several_per_execute(self.connection):
                    cursor.execute(
                        "; ".join(prepared(self.connection, h.sql) for h in held),
                        [p for h in held for p in h.params],
                    )
                    for index, statement in enumerate(held):
                        if index:
                            cursor.nextset()
                        statement.checked(_first_row(cursor), cursor.rowcount)
                else:
                    for statement in held:
                        cursor.execute(prepared(self.connection, statement.sql), statement.params)
                        statement.checked(_first_row(cursor), cursor.rowcount)

    def flush_at_commit(self) -> None:
        """Flush, or on PostgreSQL send what is held in the round trip of the COMMIT that ends the
        transaction under way, when that is the next thing it does: the last writes of a move then
        cost no round trip of their own. Call it last in the outermost ``transaction.atomic()`` block;
        elsewhere (a nested block, a test's transaction, SQLite, a read still carried) it flushes
        now. Until the commit, the rows are not in the database and a new row has no id; a refusal
        comes from the commit, which then rolls back (see wallsite/postgresql)."""
        connection = self.connection
        if (
            not self._held
            or _carried(connection)  # a held read must go first: flush() runs it
            or not getattr(connection, "commits_with_statements", False)
            or not _several_per_execute(connection)
            or not connection.in_atomic_block
            or connection.savepoint_ids  # a nested block: its exit commits nothing
            or not connection.commit_on_exit
        ):
            self.flush()
            return
        held, self._held = self._held, []
        connection.on_commit(_BeforeCommit(connection, held))


class _BeforeCommit:
    """An on-commit hook that the PostgreSQL backend runs before the COMMIT, in its round trip
    (``before_commit``): the statements, then what each gave back (``before_commit_done``), or the
    refusal of the first one that failed (``before_commit_refusal``). Run after the commit, it has
    nothing left to do. Django drops it with a savepoint rolled back, as it drops every hook."""

    def __init__(self, connection: BaseDatabaseWrapper, held: list[_Held]) -> None:
        self.held = held
        # An UPDATE that must change a row divides by the number it changed: none aborts the
        # transaction with division_by_zero before the COMMIT that follows it runs.
        self.before_commit = [
            (
                prepared(
                    connection,
                    f"WITH changed AS ({h.sql} RETURNING 1) SELECT 1 / count(*) FROM changed"  # nosec B608
                    if h.refusal is not None
                    else h.sql,
                ),
                h.params,
            )
            for h in held
        ]

    def before_commit_done(self, results: list[tuple[tuple | None, int]]) -> None:
        for statement, (row, count) in zip(self.held, results, strict=True):
            statement.done(row, count)

    def before_commit_refusal(self, index: int, sqlstate: str | None) -> Exception | None:
        refusal = self.held[index].refusal
        return refusal if sqlstate == DIVISION_BY_ZERO else None

    def __call__(self) -> None:
        pass


DIVISION_BY_ZERO = "22012"


def _first_row(cursor: Any) -> tuple | None:
    return cursor.fetchone() if cursor.description else None


def _ignore(row: tuple | None, count: int) -> None:
    pass
