"""Every index of the rows a move inserts (its log line, the next turn, the your-turn notification) earns
its keep: none is the leading column of a unique constraint on the same table, which serves the same
look-ups and which the INSERT keeps up to date as well."""

from __future__ import annotations

import pytest
from django.db import connection

from games.models import Move, Notification, Turn

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("model", [Move, Turn, Notification], ids=lambda model: model.__name__)
def test_no_index_repeats_the_start_of_a_unique_constraint(model):
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, model._meta.db_table)
    # Of several columns: a partial unique constraint of one column (a turn's) serves only its rows.
    unique = [c["columns"] for c in constraints.values() if c["unique"] and len(c["columns"]) > 1]
    repeated = [
        name
        for name, c in constraints.items()
        if c["index"] and not c["unique"] and any(u[: len(c["columns"])] == c["columns"] for u in unique)
    ]
    assert repeated == []


def test_the_moves_and_notifications_are_found_by_their_unique_constraints():
    with connection.cursor() as cursor:
        moves = connection.introspection.get_constraints(cursor, Move._meta.db_table)
        notifications = connection.introspection.get_constraints(cursor, Notification._meta.db_table)
    assert ["match_id", "seq"] in [c["columns"] for c in moves.values() if c["unique"]]
    assert ["user_id", "key"] in [c["columns"] for c in notifications.values() if c["unique"]]
