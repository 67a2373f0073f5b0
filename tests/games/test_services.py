from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection

from games import services
from games.errors import Conflict, Forbidden, InvalidMove, NotFound, ServiceError
from games.models import HiddenHand, Match, Move, Seat, Turn
from tests.conftest import play_random

pytestmark = pytest.mark.django_db


def test_a_new_match_is_open_with_its_creator_in_the_first_seat(alice):
    match = services.match_create(
        creator=alice, game="wallgo", seat_count=3, options={"rules": "devils_plan"}
    )
    assert match.status == Match.Status.OPEN
    assert match.options == {"rules": "devils_plan", "placement": "snake"}
    assert [(s.position, s.user) for s in match.seats.all()] == [(0, alice)]
    assert match.engine_state is None


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"game": "chess", "seat_count": 2}, "no game called"),
        ({"game": "wallgo", "seat_count": 5}, "2 to 4 players"),
        ({"game": "wallgo", "seat_count": 2, "options": {"rules": "anything"}}, "is not one of"),
        ({"game": "wallgo", "seat_count": 2, "options": {"speed": "fast"}}, "has no option speed"),
        ({"game": "wallgo", "seat_count": 2, "move_time_limit": timedelta(minutes=5)}, "between one hour"),
        ({"game": "wallgo", "seat_count": 2, "name": "x" * 81}, "at most 80"),
        (
            {"game": "wallgo", "seat_count": 2, "name": "Friday\r\nnight"},
            "one line of text; this one holds U\\+000D",
        ),
    ],
)
def test_creating_a_match_refuses_bad_settings_with_a_reason(alice, kwargs, reason):
    with pytest.raises(ServiceError, match=reason):
        services.match_create(creator=alice, **kwargs)
    assert not Match.objects.exists()


def test_the_match_starts_when_the_last_seat_is_taken(alice, bob, carol):
    match = services.match_create(
        creator=alice, game="wallgo", seat_count=3, move_time_limit=timedelta(days=2)
    )
    services.seat_join(match_id=match.pk, user=bob)
    assert Match.objects.get(pk=match.pk).status == Match.Status.OPEN
    services.seat_join(match_id=match.pk, user=carol)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    assert match.started_at is not None
    assert match.public_view["phase"] == "placement"
    assert HiddenHand.objects.filter(seat__match=match).count() == 3
    turn = Turn.objects.get(match=match, closed_at__isnull=True)
    assert turn.seat.position == 0
    assert turn.deadline == turn.started_at + timedelta(days=2)


def test_joining_twice_a_full_or_missing_match_is_refused(alice, bob, carol, started_match):
    match = services.match_create(creator=alice, game="wallgo", seat_count=2)
    with pytest.raises(Conflict, match="already have a seat"):
        services.seat_join(match_id=match.pk, user=alice)
    services.seat_join(match_id=match.pk, user=bob)
    with pytest.raises(Conflict, match="no longer open"):
        services.seat_join(match_id=match.pk, user=carol)
    with pytest.raises(NotFound):
        services.seat_join(match_id=999_999, user=carol)
    assert Seat.objects.filter(match=match).count() == 2


def test_leaving_before_the_start_frees_the_seat_and_an_empty_match_is_abandoned(alice, bob):
    match = services.match_create(creator=alice, game="wallgo", seat_count=3)
    services.seat_join(match_id=match.pk, user=bob)
    services.seat_leave(match_id=match.pk, user=alice)
    assert [(s.position, s.user) for s in match.seats.all()] == [(0, bob)]
    services.seat_leave(match_id=match.pk, user=bob)
    match.refresh_from_db()
    assert match.status == Match.Status.ABANDONED


def test_a_move_is_applied_logged_and_snapshotted(started_match, alice):
    match = started_match()
    move = services.move_play(match_id=match.pk, user=alice, expected_version=0, text=" D4 ")
    match.refresh_from_db()
    assert move.seq == 1 and move.notation == "d4" and move.seat.position == 0
    assert match.version == 1
    assert match.public_view["tokens"] == {"d4": 0}
    assert move.state_after == match.engine_state
    assert Move.objects.filter(match=match).count() == 1
    # Snake order for two players: A B B A ...
    open_turn = Turn.objects.get(match=match, closed_at__isnull=True)
    assert open_turn.seat.position == 1 and open_turn.number == 1
    assert Turn.objects.filter(match=match, closed_at__isnull=False).count() == 1


def test_a_stale_version_is_refused_and_changes_nothing(started_match, alice, bob):
    match = started_match()
    services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")
    with pytest.raises(Conflict, match="moved on"):
        services.move_play(match_id=match.pk, user=bob, expected_version=0, text="e5")
    match.refresh_from_db()
    assert match.version == 1 and match.public_view["tokens"] == {"d4": 0}


def test_a_repeated_submission_is_applied_once(started_match, alice):
    match = started_match()
    services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")
    with pytest.raises(Conflict):
        services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")
    assert Move.objects.filter(match=match).count() == 1


@pytest.mark.parametrize(
    ("who", "text", "error", "reason"),
    [
        ("bob", "d4", InvalidMove, "not your turn"),
        ("carol", "d4", Forbidden, "not playing"),
        ("alice", "z9", InvalidMove, "not on the board"),
        ("alice", "", InvalidMove, "Enter a move"),
        ("alice", "b2-c3/c3n", InvalidMove, "First place your tokens"),
    ],
)
def test_a_bad_move_gets_a_reason_and_changes_nothing(
    started_match, carol, request, who, text, error, reason
):
    match = started_match()
    user = request.getfixturevalue(who)
    with pytest.raises(error, match=reason) as info:
        services.move_play(match_id=match.pk, user=user, expected_version=0, text=text)
    assert info.value.message
    match.refresh_from_db()
    assert match.version == 0 and not Move.objects.filter(match=match).exists()


def test_moves_on_a_missing_or_unstarted_match_are_refused(alice, bob):
    with pytest.raises(NotFound):
        services.move_play(match_id=424242, user=alice, expected_version=0, text="d4")
    match = services.match_create(creator=alice, game="wallgo", seat_count=2)
    with pytest.raises(Conflict, match="not in play"):
        services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")


def test_resigning_a_two_player_match_ends_it_with_the_other_player_winning(started_match, alice):
    match = started_match()
    play_random(match, moves=12)
    services.match_resign(match_id=match.pk, user=alice)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    seats = list(match.seats.all())
    assert [(s.status, s.rank) for s in seats] == [(Seat.Status.RESIGNED, 2), (Seat.Status.PLAYING, 1)]
    assert match.result_text == "bob wins: every other player is out."
    assert not Turn.objects.filter(match=match, closed_at__isnull=True).exists()
    assert Move.objects.filter(match=match).last().notation == "resigns"
    with pytest.raises(Conflict):
        services.match_resign(match_id=match.pk, user=alice)


def test_in_a_three_player_match_the_others_play_on_after_a_resignation(alice, bob, carol):
    match = services.match_create(creator=alice, game="wallgo", seat_count=3)
    services.seat_join(match_id=match.pk, user=bob)
    services.seat_join(match_id=match.pk, user=carol)
    play_random(match, moves=8)
    services.match_resign(match_id=match.pk, user=bob)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE
    assert 1 not in match.engine.actors(match.engine_state)
    assert not any(seat == 1 for seat in match.public_view["tokens"].values())
    match = play_random(match, moves=500)
    assert match.status == Match.Status.FINISHED
    assert match.seats.get(user=bob).rank == 3


def test_a_game_played_to_the_end_records_scores_ranks_and_the_result(started_match):
    match = play_random(started_match(), moves=1000, seed=3)
    assert match.status == Match.Status.FINISHED and match.finished_at
    scores = match.engine.outcome(match.engine_state)
    seats = list(match.seats.all())
    assert [s.score for s in seats] == scores
    best = max(scores)
    assert [s.rank == 1 for s in seats] == [score == best for score in scores]
    assert ("Draw" in match.result_text) == (scores.count(best) == 2)
    assert match.result_text
    assert not Turn.objects.filter(match=match, closed_at__isnull=True).exists()


@pytest.mark.django_db(transaction=True)
def test_two_moves_at_once_apply_one_and_refuse_the_other(started_match, alice):
    match = started_match()
    barrier = threading.Barrier(2)
    results: list[str] = []

    def submit(text: str) -> None:
        barrier.wait()
        try:
            services.move_play(match_id=match.pk, user=alice, expected_version=0, text=text)
            results.append("applied")
        except Conflict:
            results.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=submit, args=(square,)) for square in ("d4", "e5")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["applied", "refused"]
    match.refresh_from_db()
    assert match.version == 1 and len(match.public_view["tokens"]) == 1
    assert Move.objects.filter(match=match).count() == 1
