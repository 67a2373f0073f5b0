"""Takebacks by consent, through the services: a player asks, the others accept or refuse; an accepted
takeback restores the position before the move and keeps both lines in the log."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from games import records, services
from games.errors import Conflict, Forbidden
from games.models import HiddenHand, Match, Move, Notification, Takeback, Turn
from games.record_views import match_record
from games.selectors import match_log_for, replay_step
from games.services import takebacks
from moderation import services as moderation
from tests.conftest import play_random

pytestmark = pytest.mark.django_db

Status = Takeback.Status


def public_log(match: Match) -> list[str]:
    return [text for line in match_log_for(match=match, position=None) for text in line.events]


def to_move(match: Match) -> int:
    match.refresh_from_db()
    (actor,) = match.engine.actors(match.engine_state)
    return actor


def last_move_by(match: Match, position: int) -> Move:
    return (
        Move.objects.filter(match=match, seat__position=position, move__isnull=False).order_by("seq").last()
    )


def any_move(match: Match, position: int) -> str:
    match.refresh_from_db()
    engine = match.engine
    return engine.format_move(engine.legal_moves(match.engine_state, position)[0])


def a_match_where_alice_just_moved(started_match, **kwargs) -> Match:
    """alice (seat 0) and bob (seat 1) in Wall Go: alice has just moved (not the match's first move), and
    bob is to move."""
    match = started_match(**kwargs)
    while True:
        match = play_random(match, moves=1)
        last = Move.objects.filter(match=match).order_by("seq").last()
        if last.seq > 1 and last.seat.position == 0 and to_move(match) == 1:
            return match


def test_an_accepted_takeback_restores_the_position_and_keeps_both_lines(started_match, alice, bob):
    match = a_match_where_alice_just_moved(started_match, rated=False)
    move = last_move_by(match, 0)
    before = Move.objects.get(match=match, seq=move.seq - 1).state_after
    version = match.version
    request = services.takeback_ask(match_id=match.pk, user=alice, expected_version=version)
    assert request.status == Status.OPEN and request.move == move
    services.takeback_answer(match_id=match.pk, user=bob, accept=True, takeback_id=request.pk)
    match.refresh_from_db()
    assert match.engine_state == before
    assert match.public_view == match.engine.public_view(before)
    assert match.version == version + 1
    assert Takeback.objects.get(pk=request.pk).status == Status.ACCEPTED
    # The move stays in the log; the takeback line follows it and holds the restored position.
    assert Move.objects.filter(pk=move.pk).exists()
    line = Move.objects.get(match=match, seq=move.seq + 1)
    assert line.move is None and line.seat.position == 0 and line.state_after == before
    assert line.events[0]["kind"] == "takeback"
    assert public_log(match)[-1] == f"alice took back '{move.notation}' (bob agreed)."
    # alice is to move again, with a fresh turn; bob's turn is closed.
    assert to_move(match) == 0
    assert Turn.objects.filter(match=match, seat__position=0, closed_at__isnull=True).exists()
    assert not Turn.objects.filter(match=match, seat__position=1, closed_at__isnull=True).exists()
    text = any_move(match, 0)
    played = services.move_play(match_id=match.pk, user=alice, expected_version=match.version, text=text)
    assert played.seq == line.seq + 1


def test_a_refusal_leaves_the_move_where_it_is(started_match, alice, bob):
    match = a_match_where_alice_just_moved(started_match, rated=False)
    state, version = match.engine_state, match.version
    request = services.takeback_ask(match_id=match.pk, user=alice)
    services.takeback_answer(match_id=match.pk, user=bob, accept=False, takeback_id=request.pk)
    match.refresh_from_db()
    assert match.engine_state == state and match.version == version
    assert Takeback.objects.get(pk=request.pk).status == Status.REFUSED
    # The same move is not asked about twice.
    with pytest.raises(Conflict, match="refused already"):
        services.takeback_ask(match_id=match.pk, user=alice)


def test_the_asker_may_withdraw_and_the_others_cannot(started_match, alice, bob):
    match = a_match_where_alice_just_moved(started_match, rated=False)
    request = services.takeback_ask(match_id=match.pk, user=alice)
    with pytest.raises(Forbidden):
        services.takeback_withdraw(match_id=match.pk, user=bob)
    with pytest.raises(Conflict, match="your own request"):
        services.takeback_answer(match_id=match.pk, user=alice, accept=True)
    services.takeback_withdraw(match_id=match.pk, user=alice, takeback_id=request.pk)
    assert Takeback.objects.get(pk=request.pk).status == Status.WITHDRAWN
    with pytest.raises(Conflict, match="withdrawn"):
        services.takeback_answer(match_id=match.pk, user=bob, accept=True, takeback_id=request.pk)
    # Withdrawn, it may be asked again.
    assert services.takeback_ask(match_id=match.pk, user=alice).status == Status.OPEN


def test_one_request_at_a_time(started_match, alice):
    match = a_match_where_alice_just_moved(started_match, rated=False)
    services.takeback_ask(match_id=match.pk, user=alice)
    with pytest.raises(Conflict, match="already waiting"):
        services.takeback_ask(match_id=match.pk, user=alice)


def test_a_request_lapses_when_the_position_changes_before_the_answer(started_match, alice, bob):
    match = a_match_where_alice_just_moved(started_match, rated=False)
    request = services.takeback_ask(match_id=match.pk, user=alice)
    text = any_move(match, 1)
    services.move_play(match_id=match.pk, user=bob, expected_version=match.version, text=text)
    with pytest.raises(Conflict, match="lapsed"):
        services.takeback_answer(match_id=match.pk, user=bob, accept=True, version=request.version)
    assert Takeback.objects.get(pk=request.pk).status == Status.LAPSED
    assert Move.objects.filter(match=match).order_by("seq").last().notation == text


def test_only_your_own_last_move_can_be_taken_back(started_match, bob):
    match = a_match_where_alice_just_moved(started_match, rated=False)
    with pytest.raises(Conflict, match="the last move was alice's"):
        services.takeback_ask(match_id=match.pk, user=bob)
    assert not Takeback.objects.exists()


def test_the_first_move_cannot_be_taken_back(started_match, alice):
    match = play_random(started_match(rated=False), moves=1)
    with pytest.raises(Conflict, match="first move"):
        services.takeback_ask(match_id=match.pk, user=alice)


def test_a_rated_match_has_no_takebacks_unless_its_creator_allowed_them(started_match, alice, bob):
    rated = a_match_where_alice_just_moved(started_match)
    assert rated.rated
    with pytest.raises(Conflict, match="rated"):
        services.takeback_ask(match_id=rated.pk, user=alice)
    allowed = a_match_where_alice_just_moved(started_match, allow_takebacks=True)
    assert allowed.rated and allowed.allow_takebacks
    request = services.takeback_ask(match_id=allowed.pk, user=alice)
    services.takeback_answer(match_id=allowed.pk, user=bob, accept=True)
    assert Takeback.objects.get(pk=request.pk).status == Status.ACCEPTED


def test_a_computer_opponent_accepts_at_once(alice):
    match = services.match_create(creator=alice, game="wallgo", seat_count=2, bots=["random"], rated=False)
    # The computer moves through the queue; here its moves are asked for as the worker would.
    moves = 0
    while moves < 2:
        if to_move(match) == 1:
            services.bot_move(match_id=match.pk, version=match.version, position=1)
        else:
            text = any_move(match, 0)
            services.move_play(match_id=match.pk, user=alice, expected_version=match.version, text=text)
            moves += 1
    request = services.takeback_ask(match_id=match.pk, user=alice)
    assert Takeback.objects.get(pk=request.pk).status == Status.ACCEPTED
    assert "(the computer agreed)" in public_log(match)[-1]


def dice_match(alice, bob, capture) -> Match:
    """A Dice and cards match (hidden hands, sealed commits at the same time, chance steps), unrated."""
    match = services.match_create(creator=alice, game="testdice", seat_count=2, rated=False)
    with capture(execute=True):
        services.seat_join(match_id=match.pk, user=bob)
    match.refresh_from_db()
    return match


def test_a_sealed_move_made_together_with_the_others_cannot_be_taken_back(
    alice, bob, django_capture_on_commit_callbacks
):
    match = dice_match(alice, bob, django_capture_on_commit_callbacks)
    card = HiddenHand.objects.get(seat__match=match, seat__position=0).data["hand"][0]
    services.move_play(match_id=match.pk, user=alice, expected_version=match.version, text=f"play {card}")
    with pytest.raises(Conflict, match="together with the other players"):
        services.takeback_ask(match_id=match.pk, user=alice)


def test_a_move_followed_by_a_chance_step_cannot_be_taken_back(
    alice, bob, django_capture_on_commit_callbacks
):
    match = dice_match(alice, bob, django_capture_on_commit_callbacks)
    for user, position in ((alice, 0), (bob, 1)):
        match.refresh_from_db()
        card = HiddenHand.objects.get(seat__match=match, seat__position=position).data["hand"][0]
        with django_capture_on_commit_callbacks(execute=True):
            services.move_play(
                match_id=match.pk, user=user, expected_version=match.version, text=f"play {card}"
            )
    assert Move.objects.filter(match=match).order_by("seq").last().chance_step is not None
    with pytest.raises(Conflict, match="Dice were rolled or cards drawn"):
        services.takeback_ask(match_id=match.pk, user=bob)


def test_a_move_that_showed_another_player_something_hidden_cannot_be_taken_back(started_match, alice):
    match = a_match_where_alice_just_moved(started_match, rated=False)
    move = last_move_by(match, 0)
    seat = match.seats.get(position=0)
    before = Move.objects.get(match=match, seq=move.seq - 1).state_after
    engine = match.engine

    class Peeking(type(engine)):
        """Wall Go where each player privately sees the other's last token: a move shows something."""

        def private_view(self, state, seat):
            return {"tokens": len(state["tokens"])}

    peeking = Peeking()
    assert takebacks._revealed(peeking, before, move.state_after, match, seat)
    assert not takebacks._revealed(engine, before, move.state_after, match, seat)


def test_two_answers_at_once_take_the_move_back_once(started_match, alice, bob, transactional_db):
    match = a_match_where_alice_just_moved(started_match, rated=False)
    request = services.takeback_ask(match_id=match.pk, user=alice)
    version = Match.objects.get(pk=match.pk).version
    barrier = threading.Barrier(2)
    results: list[str] = []

    def answer() -> None:
        barrier.wait()
        try:
            services.takeback_answer(match_id=match.pk, user=bob, accept=True, takeback_id=request.pk)
            results.append("applied")
        except Conflict:
            results.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=answer) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["applied", "refused"]
    match.refresh_from_db()
    assert match.version == version + 1
    assert sum(1 for text in public_log(match) if "took back" in text) == 1


def test_the_other_player_is_told_by_email(started_match, alice, bob, django_capture_on_commit_callbacks):
    match = a_match_where_alice_just_moved(started_match, rated=False)
    move = last_move_by(match, 0)
    request = services.takeback_ask(match_id=match.pk, user=alice)
    note = Notification.objects.get(user=bob, key__contains="takeback")
    assert note.kind == Notification.Kind.MATCH_EVENT and note.key.endswith(f"takeback:{request.pk}")
    assert note.text.startswith(f"alice asks to take back {move.notation}")
    assert not Notification.objects.filter(user=alice, key=note.key).exists()


def test_a_moderator_cannot_roll_back_a_takeback_line(started_match, alice, bob, moderator):
    match = a_match_where_alice_just_moved(started_match, rated=False)
    services.takeback_ask(match_id=match.pk, user=alice)
    services.takeback_answer(match_id=match.pk, user=bob, accept=True)
    with pytest.raises(Conflict, match="not a player's move"):
        moderation.move_rollback(moderator=moderator, match_id=match.pk, reason="x")
    # Nor can the player ask again: the move is gone already.
    with pytest.raises(Conflict, match="taken back already"):
        services.takeback_ask(match_id=match.pk, user=alice)


# --- the record and the replay ---------------------------------------------------------------------------


def a_match_with_a_takeback_that_ended(started_match, alice, bob) -> Match:
    match = a_match_where_alice_just_moved(started_match, rated=False)
    services.takeback_ask(match_id=match.pk, user=alice)
    services.takeback_answer(match_id=match.pk, user=bob, accept=True)
    play_random(match, moves=2, seed=9)
    services.match_resign(match_id=match.pk, user=bob)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    return match


def test_the_record_of_a_match_with_a_takeback_verifies(started_match, alice, bob):
    match = a_match_with_a_takeback_that_ended(started_match, alice, bob)
    record = match_record(match)
    kinds = [line["kind"] for line in record["lines"]]
    assert "takeback" in kinds
    assert kinds[kinds.index("takeback") - 1] == "move"
    result = records.record_verify(record)
    assert result.ok, result.problem


def test_a_takeback_line_moved_to_another_move_fails_at_that_line(started_match, alice, bob):
    match = a_match_with_a_takeback_that_ended(started_match, alice, bob)
    record = match_record(match)
    line = next(line for line in record["lines"] if line["kind"] == "takeback")
    line["events"][0]["data"]["move_seq"] -= 1
    result = records.record_verify(record)
    assert not result.ok and result.failed_at == f"line {line['seq']}"
    assert "not that seat's last change" in result.problem


def test_the_replay_shows_the_position_before_the_move_at_the_takeback_line(started_match, alice, bob):
    match = a_match_where_alice_just_moved(started_match, rated=False)
    move = last_move_by(match, 0)
    services.takeback_ask(match_id=match.pk, user=alice)
    services.takeback_answer(match_id=match.pk, user=bob, accept=True)
    match.refresh_from_db()
    step = replay_step(match=match, position=None, seq=move.seq + 1)
    before = replay_step(match=match, position=None, seq=move.seq - 1)
    assert step.svg == before.svg
    assert step.line.events == [f"alice took back '{move.notation}' (bob agreed)."]
