"""The move body's quick check gives what the full serializer gives, for good bodies and bad."""

from __future__ import annotations

import pytest
from rest_framework.exceptions import ValidationError

from games.api.serializers import MAX_NOTATION, MAX_VERSION, MoveSubmitSerializer

BODIES = [
    {"move": "d4", "version": 0},
    {"move": "  d4 ", "version": 7},
    {"move": {"place": "d4"}, "version": MAX_VERSION},
    {"move": {}, "version": 3},
    {"move": "x" * MAX_NOTATION, "version": 1},
    {"move": "x" * (MAX_NOTATION + 1), "version": 1},
    {"move": "", "version": 1},
    {"move": "   ", "version": 1},
    {"move": None, "version": 1},
    {"move": 5, "version": 1},
    {"move": ["d4"], "version": 1},
    {"move": "d4", "version": -1},
    {"move": "d4", "version": MAX_VERSION + 1},
    {"move": "d4", "version": True},
    {"move": "d4", "version": 2.0},
    {"move": "d4", "version": 2.5},
    {"move": "d4", "version": "12"},
    {"move": "d4", "version": None},
    {"move": "d4"},
    {"version": 3},
    {"move": "d4", "version": 3, "extra": 1},
    {},
    [],
    "d4",
    None,
]


def full(data) -> object:
    form = MoveSubmitSerializer(data=data)
    try:
        form.is_valid(raise_exception=True)
    except ValidationError as exc:
        return ("refused", exc.detail)
    return form.service_arguments()


def quick(data) -> object:
    try:
        return MoveSubmitSerializer.arguments(data)
    except ValidationError as exc:
        return ("refused", exc.detail)


@pytest.mark.parametrize("data", BODIES, ids=repr)
def test_the_quick_check_agrees_with_the_serializer(data):
    assert quick(data) == full(data)


def test_a_plain_body_never_builds_the_serializer(monkeypatch):
    monkeypatch.setattr(MoveSubmitSerializer, "is_valid", lambda *args, **kwargs: pytest.fail("validated"))
    assert MoveSubmitSerializer.arguments({"move": " d4", "version": 2}) == {
        "expected_version": 2,
        "text": "d4",
        "move": None,
    }
