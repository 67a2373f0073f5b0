"""Clocks, timeouts, vacation days, chance steps and the sweep, with tasks run in this process."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.utils import timezone

from games import services
from games.models import Match, Move, Notification, Seat, Turn
from games.sweep import sweep_run
from tests.conftest import no_vacation

pytestmark = pytest.mark.django_db

DAY = timedelta(days=1)
HOUR = timedelta(hours=1)


def open_turn(match: Match) -> Turn:
    return Turn.objects.get(match=match, closed_at__isnull=True)


def test_a_turn_gets_its_deadline_from_the_time_per_move_plus_the_reserve(started_match):
    match = started_match(move_time_limit=2 * DAY, bank_initial=12 * HOUR)
    turn = open_turn(match)
    assert turn.deadline == turn.started_at + 2 * DAY + 12 * HOUR
    assert turn.remind_lead == 24 and turn.remind_at == turn.deadline - DAY
    assert list(match.seats.values_list("bank", flat=True)) == [12 * HOUR, 12 * HOUR]


def test_a_late_move_spends_reserve_and_the_increment_refills_it_to_the_cap(started_match, alice):
    with time_machine.travel("2026-11-16 09:00Z", tick=False) as clock:
        match = started_match(
            move_time_limit=DAY, bank_initial=10 * HOUR, bank_increment=2 * HOUR, bank_max=10 * HOUR
        )
        clock.shift(DAY + 4 * HOUR)
        services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")
    assert match.seats.get(user=alice).bank == 8 * HOUR


def test_a_quick_move_never_grows_the_reserve_past_its_cap(started_match, alice):
    with time_machine.travel("2026-11-16 09:00Z", tick=False) as clock:
        match = started_match(move_time_limit=DAY, bank_initial=10 * HOUR, bank_increment=2 * HOUR)
        clock.shift(HOUR)
        services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")
    assert match.seats.get(user=alice).bank == 10 * HOUR


def test_paused_weekends_move_the_deadline_past_the_weekend(started_match):
    with time_machine.travel("2026-11-20 12:00Z", tick=False):  # a Friday
        match = started_match(move_time_limit=DAY, pause_weekends=True)
    assert open_turn(match).deadline.isoformat() == "2026-11-23T12:00:00+00:00"


def test_an_expired_turn_first_spends_a_vacation_day(started_match, alice):
    match = started_match(move_time_limit=DAY)
    turn = open_turn(match)
    later = turn.deadline + HOUR
    assert services.turn_expire(turn_id=turn.pk, now=later) == "vacation"
    turn.refresh_from_db()
    alice.refresh_from_db()
    assert turn.closed_at is None and turn.deadline == later + DAY
    assert alice.vacation_days_left == 20 and alice.vacation_day_used_on == later.date()
    match.refresh_from_db()
    assert match.version == 0  # nobody's page goes stale
    assert "vacation day" in Move.objects.get(match=match).events[0]["text"]


def test_one_vacation_day_covers_every_match_of_that_day(started_match, alice, bob):
    first = started_match(move_time_limit=DAY)
    second = started_match(move_time_limit=DAY)
    now = open_turn(first).deadline + HOUR
    services.turn_expire(turn_id=open_turn(first).pk, now=now)
    services.turn_expire(turn_id=open_turn(second).pk, now=now)
    alice.refresh_from_db()
    assert alice.vacation_days_left == 20


def test_the_skip_policy_passes_the_turn_and_tells_everyone(started_match, alice, bob):
    no_vacation(alice, bob)
    match = started_match(move_time_limit=DAY, timeout_policy="skip")
    turn = open_turn(match)
    assert services.turn_expire(turn_id=turn.pk, now=turn.deadline - HOUR) == "not due"
    assert services.turn_expire(turn_id=turn.pk, now=turn.deadline + HOUR) == "skip"
    match.refresh_from_db()
    assert match.version == 1 and len(match.public_view["tokens"]) == 1  # the placement was made for alice
    turn.refresh_from_db()
    assert turn.closed_by == "timeout"
    assert match.seats.get(user=alice).timeouts == 1
    log = Move.objects.filter(match=match).last()
    assert "ran out of time" in log.events[0]["text"]
    notes = Notification.objects.filter(match=match, kind="match_event")
    assert {note.user for note in notes} == {alice, bob}


def test_expiring_the_same_turn_twice_applies_once(started_match, alice, bob):
    no_vacation(alice, bob)
    match = started_match(move_time_limit=DAY, timeout_policy="skip")
    turn = open_turn(match)
    now = turn.deadline + HOUR
    assert services.turn_expire(turn_id=turn.pk, now=now) == "skip"
    assert services.turn_expire(turn_id=turn.pk, now=now) == "not due"
    match.refresh_from_db()
    assert match.version == 1


def test_the_forfeit_policy_ends_a_two_player_match(started_match, alice, bob):
    no_vacation(alice, bob)
    match = started_match(move_time_limit=DAY, timeout_policy="forfeit")
    turn = open_turn(match)
    assert services.turn_expire(turn_id=turn.pk, now=turn.deadline + HOUR) == "forfeit"
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.seats.get(user=alice).status == Seat.Status.FORFEITED
    assert match.result_text == "bob wins: every other player is out."


def test_the_bot_policy_lets_the_computer_play_for_the_seat(
    started_match, alice, bob, django_capture_on_commit_callbacks
):
    no_vacation(alice, bob)
    match = started_match(move_time_limit=DAY, timeout_policy="bot")
    turn = open_turn(match)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.turn_expire(turn_id=turn.pk, now=turn.deadline + HOUR) == "bot"
    match.refresh_from_db()
    seat = match.seats.get(user=alice)
    assert seat.autopilot
    # The computer placed alice's token at once; now it is bob's turn (snake order: A B B A).
    assert match.version == 1 and list(match.public_view["tokens"].values()) == [0]
    assert match.work_due_at is None
    texts = [event["text"] for move in Move.objects.filter(match=match) for event in move.events]
    assert any("computer plays for them" in text for text in texts)


def test_a_chance_step_is_run_after_the_move_that_makes_it_due(
    alice, bob, django_capture_on_commit_callbacks
):
    match = services.match_create(creator=alice, game="testdice", seat_count=2)
    with django_capture_on_commit_callbacks(execute=True):
        services.seat_join(match_id=match.pk, user=bob)
    match.refresh_from_db()
    # Setup leaves a deal pending: the task dealt the hands and rolled the die, with no seat.
    chance = Move.objects.get(match=match)
    assert chance.seat is None and match.version == 1
    assert not match.engine.chance_pending(match.engine_state)
    assert match.work_due_at is None
    # Hands are in each seat's hidden hand, not in the public view.
    for seat in match.seats.all():
        assert len(seat.hidden_hand.data["hand"]) == 2


def test_a_repeated_or_stale_chance_task_does_nothing(alice, bob):
    match = services.match_create(creator=alice, game="testdice", seat_count=2)
    services.seat_join(match_id=match.pk, user=bob)  # on_commit work not run: the chance step is owed
    match.refresh_from_db()
    assert match.work_due_at is not None
    assert services.chance_resolve(match_id=match.pk, version=match.version + 1) is None
    assert services.chance_resolve(match_id=match.pk, version=match.version) is not None
    assert services.chance_resolve(match_id=match.pk, version=match.version) is None
    assert Move.objects.filter(match=match).count() == 1


def test_the_sweep_claims_each_expired_turn_once(started_match, alice, bob):
    no_vacation(alice, bob)
    match = started_match(move_time_limit=DAY, timeout_policy="skip")
    turn = open_turn(match)
    with time_machine.travel(turn.deadline + HOUR, tick=False):
        first = sweep_run()
        second = sweep_run()
    assert first.expired == [turn.pk] and second.expired == []
    match.refresh_from_db()
    assert match.version == 1


def test_the_sweep_requeues_work_the_queue_lost(alice, bob):
    match = services.match_create(creator=alice, game="testdice", seat_count=2)
    services.seat_join(match_id=match.pk, user=bob)  # the on_commit queueing never happened
    report = sweep_run(now=timezone.now() + timedelta(minutes=5))
    assert report.matches == [match.pk]
    match.refresh_from_db()
    assert match.version == 1 and match.work_due_at is None


def test_reminders_go_out_once_per_lead_time(started_match, alice, django_capture_on_commit_callbacks):
    match = started_match(move_time_limit=3 * DAY)
    turn = open_turn(match)
    with django_capture_on_commit_callbacks(execute=True):
        assert sweep_run(now=turn.deadline - DAY - HOUR).reminders == []
        assert sweep_run(now=turn.deadline - DAY + HOUR).reminders == [turn.pk]
        assert sweep_run(now=turn.deadline - DAY + 2 * HOUR).reminders == []
        assert sweep_run(now=turn.deadline - HOUR).reminders == [turn.pk]
        assert sweep_run(now=turn.deadline - HOUR / 2).reminders == []
    keys = sorted(Notification.objects.filter(turn=turn, kind="reminder").values_list("key", flat=True))
    assert keys == [f"turn:{turn.pk}:remind:2", f"turn:{turn.pk}:remind:24"]
    reminders = [message for message in mail.outbox if alice.email in message.to]
    assert len(reminders) >= 2
