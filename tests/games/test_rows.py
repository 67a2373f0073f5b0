"""The move path's hand-written SQL (games/rows.py) reads and writes exactly what the ORM does."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection, transaction
from django.db.models.signals import post_init
from django.test.utils import CaptureQueriesContext
from rest_framework import exceptions
from rest_framework.authtoken.models import Token

from games import rows, selectors, services
from games.api.authentication import TokenAuthentication
from games.errors import Conflict, NotFound
from games.models import Match, Move, Notification, Seat, Turn
from tests.conftest import play_random


def field_values(instance) -> dict:
    return {field.attname: getattr(instance, field.attname) for field in type(instance)._meta.concrete_fields}


@pytest.fixture
def clocked_match(started_match):
    """A match whose every column holds a value: intervals, JSON, dates, flags, a few moves."""
    match = started_match(
        move_time_limit=timedelta(days=2, hours=3),
        bank_initial=timedelta(hours=5),
        bank_increment=timedelta(minutes=90),
        bank_max=timedelta(days=1),
        pause_weekends=True,
        name="Clocks and all",
    )
    play_random(match, moves=3)
    Match.objects.filter(pk=match.pk).update(
        options={"size": 7, "note": "é ünïcode"}, paused_at=datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    )
    return match


def test_a_locked_match_holds_what_the_orm_reads(clocked_match):
    with transaction.atomic():
        locked = services._lock_match(clocked_match.pk)
    expected = Match.objects.get(pk=clocked_match.pk)
    assert field_values(locked) == field_values(expected)
    assert locked.move_time_limit == timedelta(days=2, hours=3) and locked.options["note"] == "é ünïcode"
    assert not locked._state.adding and locked._state.db == "default"


def test_a_built_row_is_what_from_db_gives_with_the_omitted_fields_deferred(clocked_match):
    found = rows.fetch(Match, selectors.match_sql(omit=selectors.NO_RNG), [clocked_match.pk])
    built = rows.build(Match, found[0], omit=selectors.NO_RNG)
    names = [field.attname for field in Match._meta.concrete_fields if field.attname not in selectors.NO_RNG]
    expected = Match.objects.defer(*selectors.NO_RNG).get(pk=clocked_match.pk)
    assert built.get_deferred_fields() == expected.get_deferred_fields() == set(selectors.NO_RNG)
    assert {name: getattr(built, name) for name in names} == {name: getattr(expected, name) for name in names}
    assert (
        not built._state.adding and built._state.db == "default" and built.created_by == expected.created_by
    )
    assert built.rng_state == expected.rng_state  # a deferred field still loads when asked for
    built.name = "Renamed"
    built.save(update_fields=["name"])
    assert Match.objects.get(pk=clocked_match.pk).name == "Renamed"


def test_a_model_with_init_receivers_is_built_through_them(clocked_match):
    seen = []

    def receiver(sender, instance, **kwargs):
        seen.append(instance.pk)

    post_init.connect(receiver, sender=Match)
    try:
        found = rows.fetch(Match, selectors.match_sql(omit=()), [clocked_match.pk])
        built = rows.build(Match, found[0])
    finally:
        post_init.disconnect(receiver, sender=Match)
    assert seen == [clocked_match.pk] and field_values(built) == field_values(Match.objects.get(pk=built.pk))


def test_a_model_with_its_own_init_is_built_through_it(clocked_match, monkeypatch):
    seen = []
    plain = Match.__init__

    def init(self, *args, **kwargs):
        seen.append(len(args))
        plain(self, *args, **kwargs)

    monkeypatch.setattr(Match, "__init__", init)
    found = rows.fetch(Match, selectors.match_sql(omit=()), [clocked_match.pk])
    built = rows.build(Match, found[0])
    assert seen == [len(Match._meta.concrete_fields)] and built.pk == clocked_match.pk


@pytest.mark.parametrize("match_id", [0, -1, 2**63, "x", None, "1; DROP TABLE games_match"])
def test_a_match_id_that_cannot_exist_is_not_found(match_id):
    with pytest.raises(NotFound):
        services._lock_match(match_id)
    with pytest.raises(NotFound):
        services._lock_for_move(match_id)


def test_a_move_locks_and_reads_its_match_seats_and_turns_in_one_round_trip(clocked_match):
    with transaction.atomic(), CaptureQueriesContext(connection) as executed:
        match, seats, turn_rows, turn_ids = services._lock_for_move(clocked_match.pk)
    # One query string on PostgreSQL; SQLite takes one statement at a time, and has no sequences.
    assert len(executed) == (1 if connection.vendor == "postgresql" else 3)
    if connection.vendor == "postgresql":
        assert len(turn_ids) == clocked_match.seat_count and turn_ids == sorted(set(turn_ids))
        assert min(turn_ids) > Turn.objects.latest("pk").pk
    else:
        assert turn_ids == []
    assert match.get_deferred_fields() == {"rng_state", "public_view"}  # the move replaces the view
    unread = {"rng_state": None, "public_view": None}
    expected = Match.objects.defer("rng_state").get(pk=clocked_match.pk)
    assert field_values(match) | unread == field_values(expected) | unread
    assert [field_values(seat) for seat in seats] == [
        field_values(seat) for seat in clocked_match.seats.select_related("user")
    ]
    assert [seat.user for seat in seats] == [seat.user for seat in clocked_match.seats.order_by("position")]
    open_turns = [rows.build(Turn, row) for row in turn_rows]
    assert [field_values(turn) for turn in open_turns] == [
        field_values(turn) for turn in Turn.objects.filter(match=clocked_match, closed_at__isnull=True)
    ]
    assert len(open_turns) == 1


def test_several_selects_in_one_go_give_each_its_own_rows(clocked_match):
    clocked_match.refresh_from_db()
    queries = [
        ("SELECT id FROM games_seat WHERE match_id = %s ORDER BY position", [clocked_match.pk]),
        ("SELECT id FROM games_seat WHERE match_id = %s AND position > %s", [clocked_match.pk, 5]),
        ("SELECT version, %s FROM games_match WHERE id = %s", ["it's; a literal", clocked_match.pk]),
    ]
    seat_ids = list(clocked_match.seats.order_by("position").values_list("id", flat=True))
    assert rows.fetch_many(Match, queries) == [
        [(seat_id,) for seat_id in seat_ids],
        [],
        [(clocked_match.version, "it's; a literal")],
    ]


def test_seats_come_with_their_users_as_select_related_gives_them(clocked_match, alice, bob):
    Seat.objects.create(match=clocked_match, position=2, user=None, bot="random")  # a computer's seat
    seats = services._seats_with_users(clocked_match)
    expected = list(clocked_match.seats.select_related("user"))
    assert [field_values(seat) for seat in seats] == [field_values(seat) for seat in expected]
    assert [field_values(seat.user) if seat.user else None for seat in seats] == [
        field_values(seat.user) if seat.user else None for seat in expected
    ]
    assert [seat.user for seat in seats] == [alice, bob, None]


def test_an_inserted_row_reads_back_as_the_orm_would_store_it(clocked_match):
    seat = clocked_match.seats.get(position=0)
    line = Move(
        match=clocked_match,
        seq=99,
        seat=seat,
        move={"to": [1, 2]},
        notation="x",
        notation_visible_to=[0],
        events=[{"kind": "note", "text": "ü"}],
        state_after={"a": [1, None, True]},
    )
    assert rows.insert(line) is True
    assert line.pk and line.created_at is not None  # auto_now_add filled, as save() does
    assert field_values(Move.objects.get(pk=line.pk)) == field_values(line)


def test_an_update_touches_only_the_matching_rows_and_counts_them(clocked_match):
    turn = Turn.objects.filter(match=clocked_match).latest("pk")
    when = datetime(2026, 5, 6, 7, 8, 9, tzinfo=UTC)
    assert rows.update(Turn, values={"closed_at": when, "closed_by": "move"}, where={"id": turn.pk}) == 1
    assert rows.update(Turn, values={"closed_by": "x"}, where={"id": turn.pk, "match_id": 0}) == 0
    turn.refresh_from_db()
    assert (turn.closed_at, turn.closed_by) == (when, "move")


def test_a_token_authenticates_its_user_and_nobody_else(alice):
    key = Token.objects.create(user=alice).key
    user, token = TokenAuthentication().authenticate_credentials(key)
    assert field_values(user) == field_values(type(alice).objects.get(pk=alice.pk))
    assert token.key == key and token.user_id == alice.pk
    with pytest.raises(exceptions.AuthenticationFailed, match="Invalid token"):
        TokenAuthentication().authenticate_credentials("0" * 40)


def test_a_match_locked_without_its_generator_never_writes_it_back(clocked_match):
    stored = [3, list(range(625)), None]
    with transaction.atomic():
        match = services._lock_match(clocked_match.pk, rng=False)
        assert "rng_state" in match.get_deferred_fields()
        Match.objects.filter(pk=match.pk).update(rng_state=stored)  # a stand-in for what is on disk
        match.name = "Renamed"
        services._save_if_unchanged(match, seen=match.version, now=datetime.now(UTC))
    saved = Match.objects.get(pk=match.pk)
    assert saved.name == "Renamed" and saved.rng_state == stored


def test_held_writes_reach_the_database_only_when_flushed_and_in_one_go(clocked_match):
    clocked_match.refresh_from_db()
    seat = clocked_match.seats.get(position=0)
    turn = Turn.objects.filter(match=clocked_match).latest("pk")
    line = Move(match=clocked_match, seq=77, seat=seat, move=None, notation="", events=[], state_after={})
    counts = []
    with transaction.atomic():
        writes = rows.Writes(Match)
        writes.insert(line)
        writes.update(Turn, values={"closed_by": "held"}, where={"id": turn.pk}, then=counts.append)
        writes.update(Turn, values={"closed_by": "x"}, where={"id": 0}, then=counts.append)
        assert line.pk is None and not Move.objects.filter(match=clocked_match, seq=77).exists()
        with CaptureQueriesContext(connection) as executed:
            writes.flush()
        assert len(executed) == (1 if connection.vendor == "postgresql" else 3)
        writes.flush()  # nothing held: nothing sent, nothing run again
    assert counts == [1, 0] and line.pk is not None
    assert field_values(Move.objects.get(pk=line.pk)) == field_values(line)
    assert Turn.objects.get(pk=turn.pk).closed_by == "held"


def test_a_held_insert_skipped_by_its_conflict_clause_stays_unsaved(clocked_match, alice):
    def note() -> Notification:
        return Notification(
            user=alice, match=clocked_match, kind="your_turn", key="k:1", due_at=datetime.now(UTC)
        )

    first, second, third = (
        note(),
        note(),
        Notification(user=alice, kind="digest", key="k:2", due_at=datetime.now(UTC)),
    )
    writes = rows.Writes(Notification)
    for row in (first, second, third):
        writes.insert(row, on_conflict='ON CONFLICT ("user_id", "key") DO NOTHING')
    writes.flush()
    assert first.pk is not None and not first._state.adding
    assert second.pk is None and second._state.adding
    assert third.pk is not None and Notification.objects.filter(user=alice, key__startswith="k:").count() == 2


def test_a_held_match_update_refuses_at_the_flush_when_the_version_moved_on(clocked_match):
    clocked_match.refresh_from_db()
    with transaction.atomic():
        match = services._lock_match(clocked_match.pk, rng=False)
        Match.objects.filter(pk=match.pk).update(version=match.version + 1)  # another writer, on SQLite
        writes = rows.Writes(Match)
        match.name = "Never stored"
        services._save_if_unchanged(match, seen=match.version, now=datetime.now(UTC), writes=writes)
        with pytest.raises(Conflict):
            writes.flush()
    assert Match.objects.get(pk=match.pk).name != "Never stored"


def test_a_locked_match_writes_back_only_what_changed_and_its_json(clocked_match):
    with transaction.atomic():
        match = services._lock_match(clocked_match.pk, rng=False)
        assert set(rows.changed(match, services._MATCH_FIELDS)) == {"options", "public_view", "engine_state"}
        match.name, match.paused_at = "Renamed", None
        match.options["size"] = 9  # changed in place: JSON is always written
        values = rows.changed(match, services._MATCH_FIELDS)
        assert set(values) == {"name", "paused_at", "options", "public_view", "engine_state"}
        services._save_if_unchanged(match, seen=match.version, now=datetime.now(UTC))
    stored = Match.objects.get(pk=match.pk)
    assert (stored.name, stored.paused_at, stored.options["size"]) == ("Renamed", None, 9)
    assert stored.updated_at == match.updated_at  # and the time of the write
    assert field_values(stored) == field_values(match) | {"rng_state": stored.rng_state}
    # A match the ORM read has nothing to compare with: every field is written.
    assert len(rows.changed(stored, services._MATCH_FIELDS)) == len(services._MATCH_FIELDS)


def test_open_turns_are_found_by_a_null_in_where(clocked_match):
    open_turns = Turn.objects.filter(match=clocked_match, closed_at__isnull=True).count()
    assert open_turns == 1
    when = datetime(2026, 5, 6, tzinfo=UTC)
    found = {"match_id": clocked_match.pk, "closed_at": None}
    assert rows.update(Turn, values={"closed_at": when, "closed_by": "end"}, where=found) == open_turns
    assert rows.update(Turn, values={"closed_by": "again"}, where=found) == 0
    assert not Turn.objects.filter(match=clocked_match, closed_at__isnull=True).exists()


def test_a_finishing_move_stores_the_results_and_closes_the_last_turn(started_match):
    match = play_random(started_match(), moves=200, seed=5)
    assert match.status == Match.Status.FINISHED
    scores = match.engine.outcome(match.engine_state)
    seats = list(match.seats.order_by("position"))
    assert [seat.score for seat in seats] == scores
    best = max(scores)
    assert [seat.rank for seat in seats] == [1 if score == best else 2 for score in scores]
    assert not Turn.objects.filter(match=match, closed_at__isnull=True).exists()
    last = Turn.objects.filter(match=match).latest("pk")
    assert (last.closed_by, last.closed_at) == ("end", match.finished_at)
    assert match.result_text and match.log_length == Move.objects.filter(match=match).count()


def test_a_reader_s_match_view_holds_what_the_orm_reads(alice, bob, carol):
    from games import selectors
    from games.models import HiddenHand

    match = services.match_create(creator=alice, game="stairways", seat_count=3, bots=["random"])
    services.seat_join(match_id=match.pk, user=bob)
    HiddenHand.objects.filter(seat__match=match, seat__position=1).delete()  # a seat without a hand
    for user in (alice, bob, carol, None):
        mv = selectors.match_view_for(match_id=match.pk, user=user)
        expected = Match.objects.defer("rng_state").get(pk=match.pk)
        assert "rng_state" in mv.match.get_deferred_fields()  # kilobytes no reader needs
        assert field_values(mv.match) | {"rng_state": None} == field_values(expected) | {"rng_state": None}
        seats = list(expected.seats.select_related("user", "hidden_hand"))
        assert [field_values(s) for s in mv.seats] == [field_values(s) for s in seats]
        assert [s.user for s in mv.seats] == [alice, None, bob]
        for got, want in zip(mv.seats, seats, strict=True):
            if hasattr(want, "hidden_hand"):
                assert field_values(got.hidden_hand) == field_values(want.hidden_hand)
            else:
                with pytest.raises(HiddenHand.DoesNotExist):
                    got.hidden_hand  # noqa: B018
        turns = expected.turns.filter(closed_at__isnull=True, number__lte=expected.version)
        assert {p: field_values(t) for p, t in mv.open_turns.items()} == {
            t.seat.position: field_values(t) for t in turns
        }
        assert all(t.seat is mv.seats[p] for p, t in mv.open_turns.items())
        mine = {alice: 0, bob: 2}.get(user)
        assert mv.viewer_position == mine
        hand = HiddenHand.objects.filter(seat__match=match, seat__position=mine).first()
        assert mv.view["private"] == (hand.data if hand else {})
    with pytest.raises(NotFound):
        selectors.match_view_for(match_id="nope", user=alice)
    with pytest.raises(NotFound):
        selectors.match_view_for(match_id=match.pk + 1000, user=alice)


SEATS_SQL = 'SELECT "id" FROM "games_seat" WHERE "match_id" = %s ORDER BY "position"'


def _seat_ids(match: Match) -> list[tuple[int]]:
    return [(pk,) for pk in match.seats.order_by("position").values_list("id", flat=True)]


def _prepared_on_session(name: str) -> str | None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE name = %s", [name])
        found = cursor.fetchone()
    return found[0] if found else None


def test_on_postgresql_a_statement_is_prepared_once_per_session_then_run_by_name(clocked_match):
    with CaptureQueriesContext(connection) as executed:
        first = rows.fetch(Seat, SEATS_SQL, [clocked_match.pk])
        again = rows.fetch(Seat, SEATS_SQL, [clocked_match.pk])
    assert first == again == _seat_ids(clocked_match)
    sent = [query["sql"] for query in executed]
    if connection.vendor != "postgresql":
        assert sent == [SEATS_SQL.replace("%s", str(clocked_match.pk))] * 2
        return
    # The PREPARE stays out of Django's query log: each call is one statement there.
    name = sent[0].split()[1].split("(")[0]
    assert sent == [f"EXECUTE {name}({clocked_match.pk})"] * 2
    assert _prepared_on_session(name).endswith('WHERE "match_id" = $1 ORDER BY "position"')


def test_a_prepared_statement_outlives_a_rolled_back_transaction(clocked_match):
    sql = SEATS_SQL.replace("ORDER BY", "AND %s = %s ORDER BY")  # a statement of this test's own
    with pytest.raises(RuntimeError), transaction.atomic():
        assert rows.fetch(Seat, sql, [clocked_match.pk, 1, 1]) == _seat_ids(clocked_match)
        raise RuntimeError("roll back")
    # Run again by name: had the rollback taken the statement, PostgreSQL would not know the name.
    assert rows.fetch(Seat, sql, [clocked_match.pk, 1, 1]) == _seat_ids(clocked_match)
    assert rows.fetch(Seat, sql, [clocked_match.pk, 1, 2]) == []


@pytest.mark.django_db(transaction=True)
def test_a_new_database_session_prepares_its_statements_again(started_match):
    match = started_match()
    assert rows.fetch(Seat, SEATS_SQL, [match.pk]) == _seat_ids(match)
    connection.close()  # the next query opens a new session, which has no prepared statements
    assert rows.fetch(Seat, SEATS_SQL, [match.pk]) == _seat_ids(match)
    with transaction.atomic():
        found, seat_rows, _turns, _ids = services._lock_for_move(match.pk)
    assert found.pk == match.pk and [seat.pk for seat in seat_rows] == [pk for (pk,) in _seat_ids(match)]


def test_with_preparing_off_statements_run_as_they_are(clocked_match, settings):
    settings.DATABASE_PREPARE = False  # behind a pooler in transaction mode
    sql = SEATS_SQL.replace("ORDER BY", "AND 3 > 2 ORDER BY")
    with CaptureQueriesContext(connection) as executed:
        assert rows.fetch(Seat, sql, [clocked_match.pk]) == _seat_ids(clocked_match)
        services._lock_for_move(clocked_match.pk)
    assert executed[0]["sql"] == sql.replace("%s", str(clocked_match.pk))
    assert not any("EXECUTE" in query["sql"] for query in executed)


def test_past_the_cap_statements_run_unprepared(clocked_match, monkeypatch):
    connection.ensure_connection()
    postgresql = connection.vendor == "postgresql"
    prepared = len(rows.session_statements(connection.connection)) if postgresql else 0
    monkeypatch.setattr(rows, "PREPARED_PER_SESSION", prepared)
    sql = SEATS_SQL.replace("ORDER BY", "AND 2 > 1 ORDER BY")
    with CaptureQueriesContext(connection) as executed:
        assert rows.fetch(Seat, sql, [clocked_match.pk]) == _seat_ids(clocked_match)
    assert executed[0]["sql"] == sql.replace("%s", str(clocked_match.pk))


def test_a_move_s_writes_go_in_one_round_trip_with_the_turn_id_taken_under_the_lock(started_match, alice):
    match = play_random(started_match(), moves=2)
    engine = match.engine
    seat = min(engine.actors(match.engine_state))
    move = engine.legal_moves(match.engine_state, seat)[0]
    player = match.seats.get(position=seat).user
    with CaptureQueriesContext(connection) as executed:
        played = services.move_play(match_id=match.pk, user=player, expected_version=match.version, move=move)
    # Leaving out the savepoint that the test's own transaction turns the move's transaction into.
    sent = [query["sql"] for query in executed if "SAVEPOINT" not in query["sql"]]
    turn = Turn.objects.get(match=match, closed_at__isnull=True)
    note = Notification.objects.get(turn=turn)
    assert note.key == f"turn:{turn.pk}:start" and played.seq == match.log_length + 1
    if connection.vendor == "postgresql":
        assert len(sent) == 2  # the lock's reads (with the ids), then every write at once
        statements = rows.statement_text(connection, sent[1])
        # The move, the new turn and its e-mail; the closed turn and the match.
        assert statements.count("INSERT") == 3 and statements.count("UPDATE") == 2
    else:
        assert len([sql for sql in sent if sql.startswith(("INSERT", "UPDATE"))]) == 5
