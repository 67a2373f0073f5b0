"""The PostgreSQL backend's JSON writer gives the JSON json.dumps gives, and refuses what it refuses."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest

from wallsite.postgresql.base import DatabaseOperations, json_dumps

VALUES = [
    {},
    [],
    {"a": 1, "b": [1, 2.5, None, True, False], "c": {"d": "é ünïcode ♜", "e": 'quote " and \\ and \n'}},
    {0: "int key", 1.5: "float key", True: "bool key", None: "null key"},
    [2**63, -(2**63) - 1, 2**64, 10**30],  # past 64 bits: json.dumps writes them
    {"big": 2**70},
    [1e308, -0.0, 1.0, 0.1],
    "a string",
    5,
    None,
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_the_json_written_reads_back_as_json_dumps_would_have_it(value):
    written = json_dumps(value)
    assert json.loads(written) == json.loads(json.dumps(value))


@dataclass
class Point:
    x: int


@pytest.mark.parametrize(
    "value", [{"when": datetime.now(UTC)}, [{1, 2}], {"p": Point(1)}, [object()]], ids=repr
)
def test_what_json_dumps_refuses_is_refused(value):
    with pytest.raises(TypeError):
        json.dumps(value)
    with pytest.raises(TypeError):
        json_dumps(value)


def test_a_field_with_its_own_encoder_keeps_it():
    class Encoder(json.JSONEncoder):
        def default(self, o):
            return str(o)

    when = datetime(2026, 1, 2, tzinfo=UTC)
    operations = DatabaseOperations(None)
    adapted = operations.adapt_json_value({"w": when}, Encoder)
    assert json.loads(adapted.dumps(adapted.obj)) == {"w": str(when)}
    assert operations.adapt_json_value({"a": 1}, None).dumps is json_dumps
