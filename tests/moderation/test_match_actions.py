"""Moderators' actions on matches, through the services: each one changes the match under its lock, is
recorded (who, when, what, why) and writes its public reason in the match log."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.utils import timezone

from chat import services as chat
from games import services, signals
from games.errors import Conflict, Forbidden, ServiceError
from games.models import HiddenHand, Match, Move, Seat, Turn
from games.selectors import match_log_for
from games.services import recording
from games.sweep import sweep_run
from moderation import services as moderation
from moderation.models import ModerationAction
from tests.conftest import no_vacation, play_random

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)
HOUR = timedelta(hours=1)


@pytest.fixture
def sent_signals():
    """The match_finished / match_voided signals as the ratings receive them: (name, match id)."""
    heard: list[tuple[str, int]] = []

    def finished(sender, match, **kwargs):
        heard.append(("finished", match.pk))

    def voided(sender, match, **kwargs):
        heard.append(("voided", match.pk))

    signals.match_finished.connect(finished)
    signals.match_voided.connect(voided)
    yield heard
    signals.match_finished.disconnect(finished)
    signals.match_voided.disconnect(voided)


def public_log(match: Match) -> str:
    return "\n".join(text for line in match_log_for(match=match, position=None) for text in line.events)


def open_turn(match: Match, position: int) -> Turn:
    return Turn.objects.get(match=match, seat__position=position, closed_at__isnull=True)


def to_move(match: Match) -> int:
    match.refresh_from_db()
    (actor,) = match.engine.actors(match.engine_state)
    return actor


def dice_match(alice, bob, capture) -> Match:
    """A Dice and cards match with its first deal done (a chance step), both seats to commit."""
    match = services.match_create(creator=alice, game="testdice", seat_count=2)
    with capture(execute=True):
        services.seat_join(match_id=match.pk, user=bob)
    match.refresh_from_db()
    return match


# --- who may ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda user, match: moderation.match_pause(moderator=user, match_id=match.pk, reason="x"),
        lambda user, match: moderation.seat_hand_over(
            moderator=user, match_id=match.pk, position=1, bot="random", reason="x"
        ),
        lambda user, match: moderation.move_rollback(moderator=user, match_id=match.pk, reason="x"),
        lambda user, match: moderation.match_end(
            moderator=user, match_id=match.pk, status="cancelled", reason="x"
        ),
        lambda user, match: moderation.match_secrets_view(moderator=user, match_id=match.pk, reason="x"),
    ],
)
def test_a_player_who_is_no_moderator_is_refused_and_nothing_changes(started_match, alice, call):
    match = play_random(started_match(), moves=2)
    match.refresh_from_db()
    before = (match.version, Move.objects.filter(match=match).count())
    with pytest.raises(Forbidden, match="Only moderators"):
        call(alice, match)
    match.refresh_from_db()
    assert (match.version, Move.objects.filter(match=match).count()) == before
    assert not ModerationAction.objects.exists()


def test_every_action_needs_a_public_reason(started_match, moderator):
    match = started_match()
    with pytest.raises(ServiceError, match="Give a reason"):
        moderation.match_pause(moderator=moderator, match_id=match.pk, reason="   ")
    match.refresh_from_db()
    assert match.paused_at is None


# --- pause and resume ---------------------------------------------------------------------------------


def test_a_paused_match_refuses_moves_and_resignations(client, started_match, moderator, alice):
    match = started_match()
    action = moderation.match_pause(moderator=moderator, match_id=match.pk, reason="Looking into a report")
    assert (
        action.moderator == moderator and action.kind == "pause" and action.reason == "Looking into a report"
    )
    assert action.log_line.events[0]["text"] == "A moderator paused the match: Looking into a report"
    match.refresh_from_db()
    assert match.paused_at is not None
    with pytest.raises(Conflict, match="paused"):
        services.move_play(match_id=match.pk, user=alice, expected_version=match.version, text="b2")
    with pytest.raises(Conflict, match="paused"):
        services.match_resign(match_id=match.pk, user=alice)
    assert "A moderator paused the match: Looking into a report" in public_log(match)
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).content.decode()
    assert 'data-testid="paused-notice"' in page and "nothing can be played until it resumes" in page
    with pytest.raises(Conflict, match="paused already"):
        moderation.match_pause(moderator=moderator, match_id=match.pk, reason="again")


def test_a_paused_clock_neither_expires_nor_reminds_and_resuming_gives_the_time_back(
    started_match, moderator, alice, bob
):
    no_vacation(alice, bob)
    with time_machine.travel("2026-11-16 09:00Z", tick=False) as clock:
        match = started_match(move_time_limit=2 * DAY, timeout_policy="forfeit")
        turn = open_turn(match, 0)
        deadline = turn.deadline
        clock.shift(DAY)
        moderation.match_pause(moderator=moderator, match_id=match.pk, reason="Server trouble")
        clock.shift(3 * DAY)  # far past the deadline
        report = sweep_run()
        assert report.expired == [] and report.reminders == []
        assert services.turn_expire(turn_id=turn.pk) == "paused"
        moderation.match_resume(moderator=moderator, match_id=match.pk, reason="Fixed")
        turn.refresh_from_db()
        # The three paused days are given back: one day of the two was used before the pause.
        assert turn.deadline == deadline + 3 * DAY
        assert turn.started_at == timezone.now() - DAY
        assert turn.expiry_claimed_at is None
        # One day is left: the 24-hour reminder would be now, so the 2-hour one is next.
        assert turn.remind_at == turn.deadline - 2 * HOUR and turn.remind_lead == 2
        assert sweep_run().expired == []
        clock.shift(DAY + HOUR)
        assert sweep_run().expired == [turn.pk]
    assert "A moderator resumed the match: Fixed" in public_log(match)


def test_a_paused_match_owes_no_computer_move_until_it_resumes(
    alice, moderator, django_capture_on_commit_callbacks
):
    match = services.match_create(creator=alice, game="wallgo", seat_count=2, bots=["random"])
    match.refresh_from_db()
    # alice moves; the computer's reply is owed (its task not run yet) when the moderator pauses.
    services.move_play(
        match_id=match.pk, user=alice, expected_version=match.version, text=_any_move(match, 0)
    )
    match.refresh_from_db()
    assert match.work_due_at is not None
    moderation.match_pause(moderator=moderator, match_id=match.pk, reason="Pause")
    match.refresh_from_db()
    assert match.work_due_at is None
    assert services.bot_move(match_id=match.pk, version=match.version, position=1) is None
    assert recording.automatic_work(match, match.engine, match.engine_state) == []
    assert sweep_run(now=timezone.now() + DAY).matches == []
    assert to_move(match) == 1
    with django_capture_on_commit_callbacks(execute=True):
        moderation.match_resume(moderator=moderator, match_id=match.pk, reason="Go on")
    assert to_move(match) == 0  # the computer has moved


# --- deadlines ----------------------------------------------------------------------------------------


def test_a_deadline_is_extended_and_its_reminders_follow(started_match, moderator):
    match = started_match(move_time_limit=DAY)
    turn = open_turn(match, 0)
    before = turn.deadline
    action = moderation.turn_extend(
        moderator=moderator, match_id=match.pk, position=0, hours=48, reason="Ill"
    )
    turn.refresh_from_db()
    assert turn.deadline == before + 2 * DAY
    assert turn.remind_at == turn.deadline - DAY
    assert action.target_user.username == "alice"
    assert "A moderator gave alice 2 days more for this move: Ill" in public_log(match)


def test_only_a_seat_with_a_move_to_make_can_have_more_time(started_match, moderator):
    match = started_match(move_time_limit=DAY)
    with pytest.raises(Conflict, match="bob has no move to make now"):
        moderation.turn_extend(moderator=moderator, match_id=match.pk, position=1, hours=5, reason="x")
    with pytest.raises(ServiceError, match="between one hour and 30 days"):
        moderation.turn_extend(moderator=moderator, match_id=match.pk, position=0, hours=24 * 31, reason="x")


# --- handing a seat over ------------------------------------------------------------------------------


def test_a_seat_handed_to_a_computer_moves_at_once(
    started_match, moderator, bob, django_capture_on_commit_callbacks
):
    match = started_match(move_time_limit=DAY)
    play_random(match, moves=1)
    assert to_move(match) == 1
    with django_capture_on_commit_callbacks(execute=True):
        action = moderation.seat_hand_over(
            moderator=moderator, match_id=match.pk, position=1, bot="random", reason="bob stopped playing"
        )
    seat = Seat.objects.get(match=match, position=1)
    assert seat.user is None and seat.bot == "random"
    assert action.target_user == bob and action.kind == "hand_over"
    last = Move.objects.filter(match=match).order_by("seq").last()
    assert last.seat == seat and last.move is not None  # the computer's move
    assert to_move(match) == 0
    assert "A moderator handed bob's seat to Computer (random): bob stopped playing" in public_log(match)
    # bob is out of the match: his old page cannot move for the computer.
    with pytest.raises(Forbidden):
        services.match_resign(match_id=match.pk, user=bob)


def test_a_seat_handed_to_another_player_is_theirs_with_a_fresh_clock(started_match, moderator, carol, bob):
    match = started_match(move_time_limit=DAY)
    play_random(match, moves=1)
    old = open_turn(match, 1)
    moderation.seat_hand_over(
        moderator=moderator, match_id=match.pk, position=1, username="carol", reason="Sub"
    )
    old.refresh_from_db()
    assert old.closed_by == "moderator"
    fresh = open_turn(match, 1)
    assert fresh.deadline is not None and fresh.deadline > old.deadline
    match.refresh_from_db()
    services.move_play(
        match_id=match.pk, user=carol, expected_version=match.version, text=_any_move(match, 1)
    )
    assert Move.objects.filter(match=match).order_by("seq").last().seat.user == carol
    with pytest.raises(Forbidden):
        services.match_resign(match_id=match.pk, user=bob)


def _any_move(match: Match, position: int) -> str:
    engine = match.engine
    return engine.format_move(engine.legal_moves(match.engine_state, position)[0])


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"username": "alice"}, "alice already has a seat in this match"),
        ({"username": "nobody"}, "There is no player called 'nobody'"),
        ({"bot": "grandmaster"}, "There is no computer opponent called 'grandmaster'"),
        ({}, "one player or to one computer"),
        ({"username": "carol", "bot": "random"}, "one player or to one computer"),
    ],
)
def test_handing_a_seat_over_refuses_what_cannot_be(started_match, moderator, carol, kwargs, reason):
    match = started_match()
    with pytest.raises(ServiceError, match=reason):
        moderation.seat_hand_over(moderator=moderator, match_id=match.pk, position=1, reason="x", **kwargs)
    assert Seat.objects.get(match=match, position=1).user.username == "bob"


# --- removing a player --------------------------------------------------------------------------------


def test_removing_a_stalling_player_is_a_forfeit_that_ends_a_two_player_match(
    started_match, moderator, sent_signals
):
    match = started_match()
    play_random(match, moves=1)
    moderation.seat_remove(moderator=moderator, match_id=match.pk, position=1, reason="No move in weeks")
    match.refresh_from_db()
    bob_seat = Seat.objects.get(match=match, position=1)
    assert bob_seat.status == Seat.Status.FORFEITED and bob_seat.rank == 2
    assert match.status == Match.Status.FINISHED and "alice wins" in match.result_text
    assert sent_signals == [("finished", match.pk)]
    log = public_log(match)
    assert "A moderator removed bob from the match: No move in weeks" in log
    assert "bob forfeits." in log


# --- taking a move back -------------------------------------------------------------------------------


def test_the_last_move_is_taken_back_with_its_position(started_match, moderator, alice, bob):
    match = started_match()
    play_random(match, moves=3)
    match.refresh_from_db()
    second = Move.objects.get(match=match, seq=2)
    third = Move.objects.get(match=match, seq=3)
    version = match.version
    moderation.move_rollback(moderator=moderator, match_id=match.pk, reason="Misclick reported at once")
    match.refresh_from_db()
    assert match.engine_state == second.state_after
    assert match.public_view == match.engine.public_view(second.state_after)
    assert match.version == version + 1
    assert not Move.objects.filter(pk=third.pk).exists()
    mover = third.seat.position
    assert to_move(match) == mover
    assert open_turn(match, mover).closed_at is None
    name = third.seat.player_name
    assert f"A moderator took back {name}'s move {third.notation}: Misclick reported at once" in public_log(
        match
    )
    # The game goes on from there.
    services.move_play(
        match_id=match.pk,
        user=third.seat.user,
        expected_version=match.version,
        text=_any_move(match, mover),
    )


def test_taking_back_restores_the_hidden_hands(alice, bob, moderator, django_capture_on_commit_callbacks):
    match = dice_match(alice, bob, django_capture_on_commit_callbacks)
    hand_before = HiddenHand.objects.get(seat__match=match, seat__position=0).data
    card = hand_before["hand"][0]
    services.move_play(match_id=match.pk, user=alice, expected_version=match.version, text=f"play {card}")
    assert HiddenHand.objects.get(seat__match=match, seat__position=0).data != hand_before
    moderation.move_rollback(moderator=moderator, match_id=match.pk, reason="Wrong card")
    assert HiddenHand.objects.get(seat__match=match, seat__position=0).data == hand_before
    match.refresh_from_db()
    assert 0 in match.engine.actors(match.engine_state)
    # The sealed move stays sealed in the log line too.
    assert f"play {card}" not in public_log(match)
    assert "took back alice's move (sealed): Wrong card" in public_log(match)


def test_a_move_followed_by_a_chance_step_is_not_taken_back(
    alice, bob, moderator, django_capture_on_commit_callbacks
):
    match = dice_match(alice, bob, django_capture_on_commit_callbacks)
    for user, position in ((alice, 0), (bob, 1)):
        match.refresh_from_db()
        card = HiddenHand.objects.get(seat__match=match, seat__position=position).data["hand"][0]
        with django_capture_on_commit_callbacks(execute=True):
            services.move_play(
                match_id=match.pk, user=user, expected_version=match.version, text=f"play {card}"
            )
    match.refresh_from_db()
    last = Move.objects.filter(match=match).order_by("seq").last()
    assert last.seat is None  # the next deal, a chance step
    version = match.version
    with pytest.raises(Conflict, match="chance step"):
        moderation.move_rollback(moderator=moderator, match_id=match.pk, reason="x")
    match.refresh_from_db()
    assert match.version == version and not ModerationAction.objects.exists()


def test_the_first_move_is_not_taken_back(started_match, moderator):
    match = started_match()
    play_random(match, moves=1)
    with pytest.raises(Conflict, match="opening position is not stored"):
        moderation.move_rollback(moderator=moderator, match_id=match.pk, reason="x")


def test_a_line_logged_before_the_start_is_no_position_to_go_back_to(alice, bob, moderator):
    match = services.match_create(creator=alice, game="wallgo", seat_count=2)
    message = chat.message_post(match_id=match.pk, user=alice, text="spam")
    moderation.message_hide(moderator=moderator, message_id=message.pk, reason="Spam")
    services.seat_join(match_id=match.pk, user=bob)
    play_random(match, moves=1)
    with pytest.raises(Conflict, match="opening position is not stored"):
        moderation.move_rollback(moderator=moderator, match_id=match.pk, reason="x")


def test_log_lines_after_the_move_do_not_stop_it_being_taken_back(started_match, moderator):
    match = started_match()
    play_random(match, moves=3)
    moderation.match_pause(moderator=moderator, match_id=match.pk, reason="Looking")
    moderation.move_rollback(moderator=moderator, match_id=match.pk, reason="Undo")
    moderation.move_rollback(moderator=moderator, match_id=match.pk, reason="Undo again")
    match.refresh_from_db()
    assert match.engine_state == Move.objects.get(match=match, seq=1).state_after
    with pytest.raises(Conflict, match="first move"):
        moderation.move_rollback(moderator=moderator, match_id=match.pk, reason="x")


def test_taking_back_the_move_that_ended_the_match_voids_its_result(started_match, moderator, sent_signals):
    # Wall Go has no chance steps, so the last line of a finished game is always a player's move.
    match = play_random(started_match(), moves=500, seed=7)
    assert match.status == Match.Status.FINISHED
    last = Move.objects.filter(match=match).order_by("seq").last()
    assert last.move is not None
    sent_signals.clear()
    moderation.move_rollback(moderator=moderator, match_id=match.pk, reason="The last wall was a misclick")
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE and match.finished_at is None and match.result_text == ""
    assert list(match.seats.values_list("rank", flat=True)) == [None, None]
    assert sent_signals == [("voided", match.pk)]
    assert not Move.objects.filter(pk=last.pk).exists()


def test_a_finished_match_that_drew_dice_keeps_its_result_once_its_seed_is_revealed(started_match, moderator):
    match = play_random(started_match(), moves=500, seed=7)
    assert match.status == Match.Status.FINISHED and match.seed_revealed
    # As if a chance step had been drawn after the setup: reopening would replay known dice.
    Match.objects.filter(pk=match.pk).update(chance_steps=2)
    with pytest.raises(Conflict, match="seed was revealed"):
        moderation.move_rollback(moderator=moderator, match_id=match.pk, reason="Misclick")
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.result_text


# --- adjudicating, abandoning, cancelling -------------------------------------------------------------


def test_adjudicating_sets_the_result_and_the_ratings_hear_of_it(started_match, moderator, sent_signals):
    match = started_match()
    play_random(match, moves=4)
    moderation.match_adjudicate(moderator=moderator, match_id=match.pk, ranks=[2, 1], reason="Agreed by both")
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED and match.result_text == "Adjudicated: bob wins."
    assert list(match.seats.values_list("rank", flat=True)) == [2, 1]
    assert not Turn.objects.filter(match=match, closed_at__isnull=True).exists()
    assert sent_signals == [("finished", match.pk)]
    # Adjudicated again: the first result is voided, then the new one counts.
    moderation.match_adjudicate(moderator=moderator, match_id=match.pk, ranks=[1, 1], reason="Recount")
    match.refresh_from_db()
    assert match.result_text == "Adjudicated: a draw between alice and bob."
    assert sent_signals[1:] == [("voided", match.pk), ("finished", match.pk)]


@pytest.mark.parametrize(
    ("ranks", "reason"),
    [([1], "Give every seat a place"), ([2, 2], "someone must be first"), ([1, 3], "Places run from 1")],
)
def test_adjudicating_needs_a_place_for_every_seat(started_match, moderator, ranks, reason):
    match = started_match()
    with pytest.raises(ServiceError, match=reason):
        moderation.match_adjudicate(moderator=moderator, match_id=match.pk, ranks=ranks, reason="x")
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE


def test_an_abandoned_match_stops_without_a_result(started_match, moderator, sent_signals):
    match = started_match()
    moderation.match_pause(moderator=moderator, match_id=match.pk, reason="x")
    moderation.match_end(moderator=moderator, match_id=match.pk, status="abandoned", reason="Both gone")
    match.refresh_from_db()
    assert match.status == Match.Status.ABANDONED and match.paused_at is None
    assert match.result_text == "Abandoned by a moderator."
    assert not Turn.objects.filter(match=match, closed_at__isnull=True).exists()
    assert sent_signals == []
    with pytest.raises(Conflict, match="cannot be cancelled"):
        moderation.match_end(moderator=moderator, match_id=match.pk, status="cancelled", reason="x")


def test_cancelling_a_finished_match_voids_its_result(started_match, moderator, alice, sent_signals):
    match = started_match()
    services.match_resign(match_id=match.pk, user=alice)
    with pytest.raises(Conflict, match="cannot be abandoned"):
        moderation.match_end(moderator=moderator, match_id=match.pk, status="abandoned", reason="x")
    moderation.match_end(
        moderator=moderator, match_id=match.pk, status="cancelled", reason="Multiple accounts"
    )
    match.refresh_from_db()
    assert match.status == Match.Status.CANCELLED
    assert sent_signals == [("finished", match.pk), ("voided", match.pk)]
    assert "A moderator cancelled the match: Multiple accounts" in public_log(match)


def test_an_open_match_can_be_cancelled_and_says_so_in_its_log(alice, moderator):
    match = services.match_create(creator=alice, game="wallgo", seat_count=2)
    moderation.match_end(moderator=moderator, match_id=match.pk, status="cancelled", reason="Spam name")
    match.refresh_from_db()
    assert match.status == Match.Status.CANCELLED
    assert "A moderator cancelled the match: Spam name" in public_log(match)


# --- the record ---------------------------------------------------------------------------------------


def test_every_action_is_recorded_and_the_players_are_told(
    started_match, moderator, alice, bob, django_capture_on_commit_callbacks
):
    match = started_match(move_time_limit=DAY)
    play_random(match, moves=3)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        moderation.match_pause(moderator=moderator, match_id=match.pk, reason="Checking a report")
    moderation.turn_extend(moderator=moderator, match_id=match.pk, position=0, hours=2, reason="Sorry")
    moderation.match_resume(moderator=moderator, match_id=match.pk, reason="Nothing wrong")
    actions = list(ModerationAction.objects.order_by("pk"))
    assert [a.kind for a in actions] == ["pause", "extend", "resume"]
    assert {a.moderator for a in actions} == {moderator} and all(a.created_at for a in actions)
    assert all(a.match_id == match.pk and a.log_line_id for a in actions)
    texts = [line.events for line in match_log_for(match=match, position=0)][-3:]
    assert texts == [[a.summary] for a in actions]
    told = {(message.to[0], "Checking a report" in message.body) for message in mail.outbox}
    assert ("alice@example.com", True) in told and ("bob@example.com", True) in told


def test_looking_at_the_hidden_information_is_recorded_and_announced(
    alice, bob, moderator, django_capture_on_commit_callbacks
):
    match = dice_match(alice, bob, django_capture_on_commit_callbacks)
    action, secrets = moderation.match_secrets_view(
        moderator=moderator, match_id=match.pk, reason="Cheating report"
    )
    assert action.kind == "view_hidden" and action.reason == "Cheating report"
    hands = {seat.position: seat.private["hand"] for seat in secrets}
    for position, hand in hands.items():
        assert HiddenHand.objects.get(seat__match=match, seat__position=position).data["hand"] == hand
    # What no seat knows (the deck order) is not shown to the moderator either.
    deck = match.engine_state["deck"]
    assert all("deck" not in seat.private for seat in secrets)
    assert all(str(deck) not in seat.board for seat in secrets)
    assert "A moderator looked at every player's hidden information: Cheating report" in public_log(match)
