"""Conditional moves: a planned reply is played at once when the opponent's move matches, once only."""

from __future__ import annotations

import pytest

from games import selectors, services
from games.errors import Conflict, Forbidden, InvalidMove
from games.models import Forecast, Match, Move
from games.services.forecasting import MAX_DEPTH, MAX_LINES
from tests.support.forecasting import (
    ALICE_REPLY,
    ALICE_SECOND,
    BOB_FIRST,
    BOB_OTHER,
    BOB_SECOND,
    wallgo_after_placement,
)

pytestmark = pytest.mark.django_db


def bob_plays(match: Match, bob, text: str, version: int | None = None) -> Move:
    if version is None:
        match.refresh_from_db()
        version = match.version
    return services.move_play(match_id=match.pk, user=bob, expected_version=version, text=text)


def last_moves(match: Match, count: int) -> list[str]:
    return [move.notation for move in match.moves.order_by("-seq")[:count]][::-1]


def test_a_reply_fires_when_the_opponent_plays_the_planned_move(bob_to_move, alice, bob):
    match = bob_to_move
    services.forecast_save(match_id=match.pk, user=alice, lines=[[BOB_FIRST, ALICE_REPLY]])
    bob_plays(match, bob, BOB_FIRST)
    match.refresh_from_db()
    assert last_moves(match, 3) == [BOB_FIRST, ALICE_REPLY, ""]
    assert match.engine.actors(match.engine_state) == {1}, "bob is to move again"
    note = match.moves.order_by("-seq").first()
    assert note.seat.user == alice and "conditional move" in note.events[0]["text"]
    assert not Forecast.objects.exists(), "the only line was used up"


def test_the_conditional_reply_stays_the_last_change_and_can_be_taken_back(bob_to_move, alice, bob):
    # The note after the reply changes nothing: the reply is still the move a rollback takes back.
    match = bob_to_move
    services.forecast_save(match_id=match.pk, user=alice, lines=[[BOB_FIRST, ALICE_REPLY]])
    bob_plays(match, bob, BOB_FIRST)
    services.move_rollback(match_id=match.pk, reason="a test of the log")
    match.refresh_from_db()
    assert match.engine.actors(match.engine_state) == {0}, "alice is to reply again"
    assert ALICE_REPLY not in [m.notation for m in match.moves.all()]


def test_the_reply_fires_exactly_once_when_the_same_move_is_sent_twice(bob_to_move, alice, bob):
    match = bob_to_move
    services.forecast_save(match_id=match.pk, user=alice, lines=[[BOB_FIRST, ALICE_REPLY]])
    seen = match.version
    bob_plays(match, bob, BOB_FIRST, version=seen)
    with pytest.raises(Conflict, match="moved on"):
        bob_plays(match, bob, BOB_FIRST, version=seen)
    match.refresh_from_db()
    assert match.version == seen + 2
    assert [m.notation for m in match.moves.filter(seat__user=alice, move__isnull=False)].count(
        ALICE_REPLY
    ) == 1


def test_a_move_that_matches_no_line_clears_the_plan(bob_to_move, alice, bob):
    match = bob_to_move
    services.forecast_save(match_id=match.pk, user=alice, lines=[[BOB_FIRST, ALICE_REPLY]])
    bob_plays(match, bob, BOB_OTHER)
    match.refresh_from_db()
    assert last_moves(match, 1) == [BOB_OTHER]
    assert match.engine.actors(match.engine_state) == {0}, "alice must answer herself"
    assert not Forecast.objects.exists()


def test_a_deeper_line_keeps_working_over_two_exchanges(bob_to_move, alice, bob):
    match = bob_to_move
    services.forecast_save(
        match_id=match.pk,
        user=alice,
        lines=[[BOB_FIRST, ALICE_REPLY, BOB_SECOND, ALICE_SECOND], [BOB_OTHER, ALICE_REPLY]],
    )
    bob_plays(match, bob, BOB_FIRST)
    match.refresh_from_db()
    plan = Forecast.objects.get()
    assert plan.version == match.version and plan.lines == [[BOB_SECOND, ALICE_SECOND]]
    bob_plays(match, bob, BOB_SECOND)
    match.refresh_from_db()
    assert [m.notation for m in match.moves.filter(move__isnull=False).order_by("-seq")[:4]][::-1] == [
        BOB_FIRST,
        ALICE_REPLY,
        BOB_SECOND,
        ALICE_SECOND,
    ]
    assert not Forecast.objects.exists()


def test_lines_are_stored_in_the_game_s_own_notation(bob_to_move, alice):
    plan = services.forecast_save(
        match_id=bob_to_move.pk, user=alice, lines=[[" G5-E5/E5N ", "c3-d3/d4s"], [BOB_FIRST, ALICE_REPLY]]
    )
    assert plan.lines == [[BOB_FIRST, ALICE_REPLY]], "both spellings are one line, written the one way"


@pytest.mark.parametrize(
    ("lines", "reason"),
    [
        ([[BOB_FIRST, "c3-g7/a1n"]], r"Line 1, move 2 \(c3-g7/a1n\): g7 is out of reach"),
        ([[BOB_FIRST, ALICE_REPLY], ["zz9", ALICE_REPLY]], "Line 2, move 1: "),
        ([[BOB_FIRST]], f"ends with your opponent's move {BOB_FIRST}: add your reply"),
        ([[BOB_FIRST, ALICE_REPLY], [BOB_FIRST, ALICE_SECOND.replace("d3", "c3")]], "different replies"),
        ([[BOB_FIRST, ALICE_REPLY]] * (MAX_LINES + 1), f"At most {MAX_LINES} lines"),
        ([[BOB_FIRST, ALICE_REPLY] * (MAX_DEPTH // 2 + 1)], f"at most {MAX_DEPTH}"),
        ([[]], "Line 1 is empty"),
        ([["a1\x00"]], "Line 1, move 1: A move is written in letters"),
    ],
)
def test_an_illegal_line_is_refused_with_a_clear_reason(bob_to_move, alice, lines, reason):
    with pytest.raises(InvalidMove, match=reason):
        services.forecast_save(match_id=bob_to_move.pk, user=alice, lines=lines)
    assert not Forecast.objects.exists()


def test_a_plan_is_refused_while_it_is_your_own_turn(started_match, alice, bob):
    match = wallgo_after_placement(started_match(), alice, bob)
    with pytest.raises(Conflict, match="play your own move first"):
        services.forecast_save(match_id=match.pk, user=alice, lines=[[BOB_FIRST, ALICE_REPLY]])


def test_a_line_through_a_repeated_turn_is_refused(started_match, alice, bob):
    """Snake placement: after alice's first token bob places two in a row, so no reply fits between."""
    match = started_match()
    services.move_play(match_id=match.pk, user=alice, expected_version=match.version, text="a1")
    with pytest.raises(InvalidMove, match="it would not be you alone to move then"):
        services.forecast_save(match_id=match.pk, user=alice, lines=[["g7", "a2"]])


def test_games_without_forecasts_and_three_seat_matches_refuse_a_plan(alice, bob, carol):
    thewall = services.match_create(creator=alice, game="thewall", seat_count=2)
    services.seat_join(match_id=thewall.pk, user=bob)
    with pytest.raises(InvalidMove, match="The Wall does not offer conditional moves"):
        services.forecast_save(match_id=thewall.pk, user=alice, lines=[["x", "y"]])
    three = services.match_create(creator=alice, game="wallgo", seat_count=3)
    services.seat_join(match_id=three.pk, user=bob)
    services.seat_join(match_id=three.pk, user=carol)
    with pytest.raises(InvalidMove, match="matches of two players"):
        services.forecast_save(match_id=three.pk, user=alice, lines=[["a1", "a2"]])


def test_only_the_owner_sees_the_plan(bob_to_move, alice, bob, carol):
    match = bob_to_move
    services.forecast_save(match_id=match.pk, user=alice, lines=[[BOB_FIRST, ALICE_REPLY]])
    seats = {seat.user_id: seat for seat in match.seats.all()}
    assert selectors.forecast_for(match=match, seat=seats[alice.pk]).lines == [[BOB_FIRST, ALICE_REPLY]]
    assert selectors.forecast_for(match=match, seat=seats[bob.pk]) is None
    assert selectors.forecast_for(match=match, seat=None) is None
    with pytest.raises(Forbidden):
        services.forecast_save(match_id=match.pk, user=carol, lines=[])
    with pytest.raises(Forbidden):
        services.forecast_clear(match_id=match.pk, user=carol)
    assert Forecast.objects.count() == 1


def test_a_plan_made_for_another_position_is_void(bob_to_move, alice, bob):
    match = bob_to_move
    services.forecast_save(match_id=match.pk, user=alice, lines=[[BOB_FIRST, ALICE_REPLY]])
    # A version change that is no move of bob's (here: as a moderator's rollback or a timeout would).
    Match.objects.filter(pk=match.pk).update(version=match.version + 1)
    match.refresh_from_db()
    alice_seat = match.seats.get(user=alice)
    assert selectors.forecast_for(match=match, seat=alice_seat) is None
    bob_plays(match, bob, BOB_FIRST)
    match.refresh_from_db()
    assert last_moves(match, 1) == [BOB_FIRST], "the void plan played nothing"
    assert not Forecast.objects.exists()


def test_a_plan_can_be_replaced_and_cleared(bob_to_move, alice):
    match = bob_to_move
    services.forecast_save(match_id=match.pk, user=alice, lines=[[BOB_FIRST, ALICE_REPLY]])
    services.forecast_save(match_id=match.pk, user=alice, lines=[[BOB_OTHER, ALICE_REPLY]])
    assert Forecast.objects.get().lines == [[BOB_OTHER, ALICE_REPLY]]
    assert services.forecast_save(match_id=match.pk, user=alice, lines=[]) is None
    assert not Forecast.objects.exists()
    services.forecast_save(match_id=match.pk, user=alice, lines=[[BOB_FIRST, ALICE_REPLY]])
    assert services.forecast_clear(match_id=match.pk, user=alice) is True
    assert services.forecast_clear(match_id=match.pk, user=alice) is False


def test_the_opponent_s_your_move_e_mail_says_the_reply_was_a_conditional_move(
    bob_to_move, alice, bob, mailoutbox, django_capture_on_commit_callbacks
):
    match = bob_to_move
    services.forecast_save(
        match_id=match.pk, user=alice, lines=[[BOB_FIRST, ALICE_REPLY, BOB_SECOND, ALICE_SECOND]]
    )
    with django_capture_on_commit_callbacks(execute=True):
        bob_plays(match, bob, BOB_FIRST)
    to_bob = [mail for mail in mailoutbox if mail.to == [bob.email]]
    assert to_bob, "bob is told it is his move again"
    body = to_bob[-1].body
    assert f"alice's move {ALICE_REPLY} was a conditional move" in body
    assert BOB_SECOND not in body and ALICE_SECOND not in body, "the rest of the plan stays alice's"
    to_alice = [mail for mail in mailoutbox if mail.to == [alice.email]]
    assert not to_alice, "alice is not asked for a move she made in advance"
