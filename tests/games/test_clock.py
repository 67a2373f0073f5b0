from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from games.clock import (
    ClockRules,
    bank_after_move,
    clock_add,
    clock_time_between,
    deadline_for,
    next_reminder_after,
    reminder_schedule,
)

UTC_ZONE = ZoneInfo("UTC")
FRIDAY_NOON = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)  # a Friday
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


def test_without_paused_weekends_a_deadline_is_the_start_plus_the_time():
    rules = ClockRules(move_time=3 * DAY)
    assert deadline_for(FRIDAY_NOON, rules, bank=None, tz=UTC_ZONE) == FRIDAY_NOON + 3 * DAY


def test_no_time_limit_means_no_deadline():
    assert deadline_for(FRIDAY_NOON, ClockRules(move_time=None), bank=None, tz=UTC_ZONE) is None


def test_a_paused_weekend_does_not_count():
    rules = ClockRules(move_time=DAY, pause_weekends=True)
    # Twelve hours run on Friday, the weekend is skipped, the other twelve run on Monday.
    assert deadline_for(FRIDAY_NOON, rules, bank=None, tz=UTC_ZONE) == datetime(
        2026, 11, 23, 12, 0, tzinfo=UTC
    )


def test_a_turn_started_on_saturday_starts_counting_on_monday():
    saturday = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)
    assert clock_add(saturday, 2 * HOUR, pause_weekends=True, tz=UTC_ZONE) == datetime(
        2026, 11, 23, 2, 0, tzinfo=UTC
    )


def test_the_weekend_is_the_players_own():
    tokyo = ZoneInfo("Asia/Tokyo")
    # Friday 20:00 UTC is already Saturday 05:00 in Tokyo: a Tokyo player's clock is stopped.
    start = datetime(2026, 11, 20, 20, 0, tzinfo=UTC)
    end = clock_add(start, HOUR, pause_weekends=True, tz=tokyo)
    assert end.astimezone(tokyo) == datetime(2026, 11, 23, 1, 0, tzinfo=tokyo)
    assert clock_add(start, HOUR, pause_weekends=True, tz=UTC_ZONE) == start + HOUR


def test_clock_time_between_skips_weekends():
    monday = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
    assert clock_time_between(FRIDAY_NOON, monday, pause_weekends=True, tz=UTC_ZONE) == DAY
    assert clock_time_between(FRIDAY_NOON, monday, pause_weekends=False, tz=UTC_ZONE) == 3 * DAY
    assert clock_time_between(monday, FRIDAY_NOON, pause_weekends=True, tz=UTC_ZONE) == timedelta(0)


def test_the_reserve_extends_the_deadline():
    rules = ClockRules(move_time=DAY)
    assert deadline_for(FRIDAY_NOON, rules, bank=12 * HOUR, tz=UTC_ZONE) == FRIDAY_NOON + 36 * HOUR


def test_time_beyond_the_move_comes_out_of_the_reserve_and_the_increment_goes_in_up_to_the_cap():
    rules = ClockRules(move_time=DAY, bank_increment=6 * HOUR, bank_max=2 * DAY)
    late = FRIDAY_NOON + DAY + 10 * HOUR
    assert bank_after_move(FRIDAY_NOON, late, rules, bank=DAY, tz=UTC_ZONE) == DAY - 10 * HOUR + 6 * HOUR
    quick = FRIDAY_NOON + HOUR
    assert bank_after_move(FRIDAY_NOON, quick, rules, bank=2 * DAY - HOUR, tz=UTC_ZONE) == 2 * DAY
    very_late = FRIDAY_NOON + 5 * DAY
    assert bank_after_move(FRIDAY_NOON, very_late, rules, bank=DAY, tz=UTC_ZONE) == 6 * HOUR


def test_reminders_come_longest_lead_first_and_only_while_ahead():
    deadline = FRIDAY_NOON + 3 * DAY
    assert reminder_schedule(deadline, [2, 24], now=FRIDAY_NOON) == (deadline - DAY, 24)
    assert reminder_schedule(deadline, [2, 24], now=deadline - 5 * HOUR) == (deadline - 2 * HOUR, 2)
    assert reminder_schedule(deadline, [2, 24], now=deadline - HOUR) is None
    assert reminder_schedule(None, [24], now=FRIDAY_NOON) is None
    assert next_reminder_after(deadline, [24, 2], lead_done=24, now=deadline - DAY) == (
        deadline - 2 * HOUR,
        2,
    )
    assert next_reminder_after(deadline, [24, 2], lead_done=2, now=deadline - 2 * HOUR) is None
