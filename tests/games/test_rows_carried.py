"""Reads carried by the next round trip (rows.carry): they go first, nothing goes ahead of them."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games import rows
from games.models import Match, Seat

pytestmark = pytest.mark.django_db

SEATS = "SELECT position FROM games_seat WHERE match_id = %s ORDER BY position"
VERSION = "SELECT version FROM games_match WHERE id = %s"


class Refused(Exception):
    pass


def refuse(found: list) -> None:
    raise Refused


def test_a_read_is_carried_only_where_something_makes_sure_it_goes_first(started_match):
    with pytest.raises(RuntimeError, match="carrying"):
        rows.carry(Match, VERSION, [started_match().pk], done=print)


def test_the_next_reads_carry_it_in_their_round_trip_and_it_is_done_first(started_match):
    match = started_match()
    seen: list = []
    with rows.carrying(Match):
        rows.carry(Seat, SEATS, [match.pk], done=lambda found: seen.append(("carried", found)))
        with CaptureQueriesContext(connection) as executed:
            answer = rows.fetch_many(Match, [(VERSION, [match.pk])])
            seen.append(("own", answer))
            again = rows.fetch(Match, VERSION, [match.pk])  # nothing is held any more
    assert seen == [("carried", [(0,), (1,)]), ("own", [[(0,)]])] and again == [(0,)]
    # PostgreSQL: one query string each; SQLite takes one statement at a time.
    assert len(executed) == (2 if connection.vendor == "postgresql" else 3)
    assert "games_seat" in rows.statement_text(connection, executed[0]["sql"])


def test_a_single_fetch_carries_it_too(started_match):
    match = started_match()
    seen: list = []
    with rows.carrying(Match):
        rows.carry(Seat, SEATS, [match.pk], done=seen.append)
        with CaptureQueriesContext(connection) as executed:
            assert rows.fetch(Match, VERSION, [match.pk]) == [(0,)]
    assert seen == [[(0,), (1,)]]
    assert len(executed) == (1 if connection.vendor == "postgresql" else 2)


def test_a_refusal_of_the_carried_read_stops_the_reads_it_came_with_from_being_used(started_match):
    match = started_match()
    with rows.carrying(Match):
        rows.carry(Seat, SEATS, [match.pk], done=refuse)
        with pytest.raises(Refused):
            rows.fetch_many(Match, [(VERSION, [match.pk])])


def test_any_other_statement_runs_the_carried_read_alone_first(started_match):
    match = started_match()
    seen: list = []
    with rows.carrying(Match):
        rows.carry(Seat, SEATS, [match.pk], done=lambda found: seen.append(found))
        with CaptureQueriesContext(connection) as executed:
            assert Match.objects.get(pk=match.pk).version == 0
    assert seen == [[(0,), (1,)]]
    assert len(executed) == 2 and "games_seat" in rows.statement_text(connection, executed[0]["sql"])


def test_a_refused_carried_read_keeps_the_statement_after_it_from_running(started_match):
    match = started_match()
    sent: list[str] = []

    def record(execute, sql, params, many, context):  # inside carrying's: sees what reaches the driver
        sent.append(rows.statement_text(connection, sql))
        return execute(sql, params, many, context)

    # The savepoint goes before the read is held, so that the UPDATE is the statement that runs it.
    recorded = connection.execute_wrapper(record)
    with rows.carrying(Match), recorded, pytest.raises(Refused), transaction.atomic():
        rows.carry(Seat, SEATS, [match.pk], done=refuse)
        Match.objects.filter(pk=match.pk).update(name="Should not happen")
    assert any("games_seat" in each for each in sent)
    assert not any("UPDATE" in each for each in sent)
    assert Match.objects.get(pk=match.pk).name != "Should not happen"


def test_writes_held_for_the_commit_go_after_the_carried_read(started_match):
    match = started_match()
    seen: list = []
    with rows.carrying(Match), transaction.atomic():
        rows.carry(Seat, SEATS, [match.pk], done=seen.append)
        writes = rows.Writes(Match)
        writes.update(Match, values={"name": "Renamed"}, where={"id": match.pk})
        with CaptureQueriesContext(connection) as executed:
            writes.flush_at_commit()  # with a read still held, it flushes now, after the read
        assert seen == [[(0,), (1,)]] and len(executed) == 2
    assert Match.objects.get(pk=match.pk).name == "Renamed"


def test_what_is_still_held_on_leaving_is_dropped_unrun(started_match):
    match = started_match()
    seen: list = []
    with rows.carrying(Match):
        rows.carry(Seat, SEATS, [match.pk], done=seen.append)
    with CaptureQueriesContext(connection) as executed:
        rows.run_carried(Match)
        Match.objects.get(pk=match.pk)
    assert seen == [] and len(executed) == 1
    with pytest.raises(RuntimeError):
        rows.carry(Seat, SEATS, [match.pk], done=seen.append)
