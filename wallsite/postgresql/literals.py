"""Client-side binding of the common parameter types, several times faster than psycopg's own.

With client-side binding (Django's default on psycopg 3) every parameter becomes an SQL literal in the
query text. psycopg looks up a dumper for each value and quotes it through libpq, in a generator per
statement: a tenth of a move's Python time went there. ``render`` writes the literals of the types a
request binds most (None, bool, int, str, aware datetimes, JSON written by ``json_dumps``) as psycopg
does, and returns None for anything else, so that psycopg binds the whole statement as before.

Quoting a string by doubling its quotes is exact only where the server reads backslashes literally
(``standard_conforming_strings``, on since PostgreSQL 9.1) and the client encoding is UTF-8, in which no
byte of a multi-byte character is an ASCII quote or backslash: ``render`` checks both on the connection
and otherwise leaves the statement to psycopg, which escapes through libpq.
"""

from __future__ import annotations

import datetime
import json
import math
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import orjson
import psycopg
from psycopg.types.json import Jsonb
from psycopg.types.numeric import Int2, Int4, Int8

# What orjson would write where json.dumps refuses (a date, a dataclass) is left to json.dumps.
_ORJSON = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def json_dumps(value: Any) -> bytes | str:
    """A JSON column's value as json.dumps writes it (but for a NaN, which orjson writes as null and
    PostgreSQL refuses from json.dumps), by orjson: six times faster, and a move writes half a dozen
    such values. Whatever orjson refuses (an integer past 64 bits, a type json.dumps does not know
    either) goes to json.dumps, which writes it or raises as Django would have."""
    if type(value) in (dict, list):
        try:
            return orjson.dumps(value, option=_ORJSON)
        except TypeError:
            pass
    return json.dumps(value)


class _Unsupported(Exception):
    """A value ``render`` does not write: psycopg binds the statement."""


_PLACEHOLDER = re.compile(r"%(.)", re.DOTALL)


@lru_cache(maxsize=1024)
def _template(sql: str) -> tuple[str, ...] | None:
    """The text around the ``%s`` placeholders of ``sql`` (``%%`` already undone), or None if it holds
    anything else psycopg would read as a placeholder (``%b``, ``%t``, ``%(name)s``) or refuse."""
    pieces: list[str] = []
    chunk: list[str] = []
    at = 0
    for found in _PLACEHOLDER.finditer(sql):
        kind = found.group(1)
        if kind == "%":
            chunk.append(sql[at : found.start()] + "%")
        elif kind == "s":
            chunk.append(sql[at : found.start()])
            pieces.append("".join(chunk))
            chunk = []
        else:
            return None
        at = found.end()
    rest = sql[at:]
    if "%" in rest:  # a lone % at the very end
        return None
    chunk.append(rest)
    pieces.append("".join(chunk))
    return tuple(pieces)


def _text(value: str) -> str:
    value = str.__str__(value)  # the characters themselves, whatever a subclass makes of str()
    if "\x00" in value:  # PostgreSQL refuses it: psycopg raises the error
        raise _Unsupported
    return "'" + value.replace("'", "''") + "'"


def _number(written: str) -> str:
    # A space before a minus sign, as psycopg writes it: "x-%s" must not become the comment "x--1".
    return f" {written}" if written.startswith("-") else written


def _int(value: int) -> str:
    return _number(int.__repr__(value))  # the number itself, for psycopg's Int4 or a choices enum too


def _float(value: float) -> str:
    if not math.isfinite(value):  # psycopg writes 'NaN'::float8 and the like
        raise _Unsupported
    return _number(repr(value))


def _datetime(value: datetime.datetime) -> str:
    if value.tzinfo is None or value.utcoffset() is None:  # a naive one is a timestamp: psycopg's
        raise _Unsupported
    return f"'{value.isoformat(sep=' ')}'::timestamptz"


def _jsonb(value: Jsonb) -> str:
    if value.dumps is not json_dumps:
        raise _Unsupported
    written = json_dumps(value.obj)
    if isinstance(written, bytes):
        written = written.decode()
    return _text(written) + "::jsonb"


_WRITERS: dict[type, Callable[[Any], str]] = {
    type(None): lambda value: "NULL",
    bool: lambda value: "true" if value else "false",
    int: _int,
    Int2: _int,
    Int4: _int,
    Int8: _int,
    float: _float,
    str: _text,
    datetime.datetime: _datetime,
    Jsonb: _jsonb,
}


def _writer(kind: type) -> Callable[[Any], str] | None:
    """The writer for a type that is not in ``_WRITERS``: a str or an int of a subclass of its own (a
    Django choices enum) is written as its value; anything else is psycopg's to bind."""
    if issubclass(kind, str):
        return _text
    if issubclass(kind, int) and not issubclass(kind, bool):
        return _int
    return None


def render(connection: psycopg.Connection, sql: str, params: Sequence[Any]) -> str | None:
    """``sql`` with each ``%s`` replaced by its parameter as an SQL literal, or None where psycopg
    must bind it (a type, a placeholder or a session setting this does not handle, or a parameter
    count that does not match: psycopg then raises its own error)."""
    if type(params) not in (list, tuple):
        return None
    pieces = _template(sql)
    if pieces is None or len(pieces) != len(params) + 1:
        return None
    info = connection.info
    if info.encoding != "utf-8" or info.parameter_status("standard_conforming_strings") != "on":
        return None
    out = [pieces[0]]
    try:
        for value, piece in zip(params, pieces[1:], strict=True):
            writer = _WRITERS.get(type(value)) or _writer(type(value))
            if writer is None:
                return None
            out.append(writer(value))
            out.append(piece)
    except _Unsupported:
        return None
    return "".join(out)
