"""Hand-written SQL for the move path, the site's busiest writer.

A move reads a token, a match and its seats and writes a handful of rows. Building each of those
statements through the ORM costs about half a millisecond of Python, several times what the database
takes to run it, so the move path reads and writes the same rows through these helpers instead. They
take table and column names from the models' ``_meta``, bind every value as a parameter (hence the
nosec marks), convert values exactly as the ORM does (``get_db_prep_save`` on the way in, the fields'
and the backend's converters on the way out), and work on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.db import connections, models, router
from django.db.backends.base.base import BaseDatabaseWrapper

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
    model: type[M], row: Sequence[Any], *, start: int = 0, write: bool = False, omit: tuple[str, ...] = ()
) -> M:
    """The instance for the ``columns(model, ..., omit=omit)`` part of ``row`` that begins at ``start``."""
    connection = connection_for(model, write=write)
    shape = _shape(model, "t", connection, omit)  # the converters do not depend on the alias
    values = list(row[start : start + len(shape.names)])
    for index, steps in shape.converters:
        value = values[index]
        for fn, column in steps:
            value = fn(value, column, connection)
        values[index] = value
    return model.from_db(connection.alias, shape.names, values)


def fetch(model: type[models.Model], sql: str, params: Sequence[Any], *, write: bool = False) -> list[tuple]:
    """The rows of one SELECT on ``model``'s database (the write one when the caller will write)."""
    with connection_for(model, write=write).cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def fetch_many(
    model: type[models.Model], queries: Sequence[tuple[str, Sequence[Any]]], *, write: bool = False
) -> list[list[tuple]]:
    """The rows of several SELECTs (nothing else) on ``model``'s database, in order. PostgreSQL (with
    the default client-side binding) gets them as one query string: one round trip, each statement
    still with its own snapshot, so one that follows a ``FOR UPDATE`` sees what was committed before
    the lock was granted. Other databases run them one after the other."""
    connection = connection_for(model, write=write)
    with connection.cursor() as cursor:
        if not _several_per_execute(connection):
            results = []
            for sql, params in queries:
                cursor.execute(sql, params)
                results.append(cursor.fetchall())
            return results
        cursor.execute(
            "; ".join(sql for sql, _ in queries), [param for _, params in queries for param in params]
        )
        results = [cursor.fetchall()]
        while cursor.nextset():
            results.append(cursor.fetchall())
    return results


def _several_per_execute(connection: BaseDatabaseWrapper) -> bool:
    # Server-side binding sends each execute as one prepared statement, which can hold only one.
    return (
        connection.vendor == "postgresql"
        and connection.settings_dict["OPTIONS"].get("server_side_binding") is not True
    )


def table(model: type[models.Model]) -> str:
    return connection_for(model, write=True).ops.quote_name(model._meta.db_table)


def insert(row: models.Model, *, on_conflict: str = "") -> bool:
    """INSERT ``row`` as ``save()`` would (``pre_save`` fills auto_now_add and the like) and set its
    primary key. ``on_conflict`` (e.g. ``ON CONFLICT (a, b) DO NOTHING``, which SQLite and PostgreSQL
    both speak) may skip it: then it returns False and ``row`` stays unsaved."""
    model = type(row)
    connection = connection_for(model, write=True)
    quote = connection.ops.quote_name
    fields = [field for field in model._meta.concrete_fields if not field.primary_key]
    names = ", ".join(quote(field.column) for field in fields)
    values = [field.get_db_prep_save(field.pre_save(row, True), connection) for field in fields]
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} ({names}) "  # nosec B608
        f"VALUES ({', '.join(['%s'] * len(values))}) {on_conflict} RETURNING {quote(model._meta.pk.column)}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        inserted = cursor.fetchone()
    if inserted is None:
        return False
    row.pk = inserted[0]
    row._state.adding = False
    row._state.db = connection.alias
    return True


def update(model: type[models.Model], *, values: dict[str, Any], where: dict[str, Any]) -> int:
    """``UPDATE model SET values WHERE where`` (attnames, each compared for equality); the row count."""
    connection = connection_for(model, write=True)
    quote = connection.ops.quote_name
    meta = model._meta
    assignments, params = [], []
    for name, value in values.items():
        field = meta.get_field(name)
        assignments.append(f"{quote(field.column)} = %s")
        params.append(field.get_db_prep_save(value, connection))
    conditions = []
    for name, value in where.items():
        field = meta.get_field(name)
        conditions.append(f"{quote(field.column)} = %s")
        params.append(field.get_db_prep_value(value, connection, prepared=False))
    sql = (
        f"UPDATE {quote(meta.db_table)} SET {', '.join(assignments)} "  # nosec B608
        f"WHERE {' AND '.join(conditions)}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount
