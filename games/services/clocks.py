"""Clocks: a turn whose time ran out, with vacation days and the match's timeout policy."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from games import notifications
from games.engines.base import Event
from games.models import Match, Seat, Turn
from games.services.recording import (
    log_line,
    match_lock,
    seat_take_out,
    step_record,
    step_rng,
    step_rng_keep,
    work_schedule,
)


def turn_expire(*, turn_id: int, now: datetime | None = None) -> str:
    """A turn's clock ran out: spend a vacation day if the player has one, else apply the match's
    timeout policy. Safe to run twice: a turn that is closed or not yet due is left alone."""
    now = now or timezone.now()
    with transaction.atomic():
        turn = Turn.objects.filter(pk=turn_id).select_related("seat").first()
        if turn is None:
            return "gone"
        match = match_lock(turn.match_id)
        turn = Turn.objects.select_related("seat__user").get(pk=turn_id)
        if turn.closed_at is not None or turn.deadline is None or turn.deadline > now:
            return "not due"
        if match.status != Match.Status.ACTIVE:
            return "not in play"
        if match.paused_at is not None:
            return "paused"  # the clock is stopped; resuming shifts the deadline and releases the claim
        seat = turn.seat
        if seat.user is not None and _vacation_day_use(seat.user, now=now):
            user = seat.user
            turn.deadline = now + timedelta(days=1)
            turn.expiry_claimed_at = None
            turn.remind_at, turn.remind_lead = None, None
            turn.save(update_fields=["deadline", "expiry_claimed_at", "remind_at", "remind_lead"])
            text = (
                f"{seat.player_name}'s time ran out; a vacation day gives one more day "
                f"({user.vacation_days_left} left this year)."
            )
            log_line(match, seat=seat, kind="vacation", text=text)
            return "vacation"
        Seat.objects.filter(pk=seat.pk).update(timeouts=F("timeouts") + 1)
        policy = match.timeout_policy
        key = f"timeout:{turn.pk}"
        if policy == Match.Timeout.SKIP:
            # A default move may be a random one: the skip is a numbered random step of its own.
            steps_before = match.chance_steps
            rng, step = step_rng(match)
            try:
                new_state, events = match.engine.skip(match.engine_state, seat.position, rng)
            except NotImplementedError:
                match.chance_steps = steps_before  # nothing was drawn: the number stays free
                policy = Match.Timeout.FORFEIT
            else:
                step_rng_keep(match, rng)
                text = f"{seat.player_name} ran out of time; the turn is skipped."
                events.insert(0, Event(kind="timeout", text=text, data={"seat": seat.position}))
                step_record(
                    match,
                    match.engine,
                    new_state,
                    events,
                    seat=seat,
                    move=None,
                    notation="timeout",
                    closed_by="timeout",
                    chance_step=step,
                )
        if policy == Match.Timeout.BOT:
            seat.autopilot = True
            seat.save(update_fields=["autopilot"])
            # The computer moves at once, so the turn needs no deadline while it plays.
            Turn.objects.filter(pk=turn.pk).update(deadline=None, remind_at=None, expiry_claimed_at=None)
            text = f"{seat.player_name} ran out of time; the computer plays for them until they return."
            log_line(match, seat=seat, kind="timeout", text=text)
            work_schedule(match, match.engine, match.engine_state, now=now)
            match.save(update_fields=["work_due_at"])
        if policy == Match.Timeout.FORFEIT:
            text = f"{seat.player_name} ran out of time and is out of the match."
            seat_take_out(
                match,
                seat,
                status=Seat.Status.FORFEITED,
                verb="runs out of time and is out",
                closed_by="timeout",
            )
        # A timeout that ended the match is told once, in the e-mail with the result.
        if match.status == Match.Status.ACTIVE:
            notes = notifications.notify_match_event(match=match, key=key, text=text, now=now)
            notifications.queue_send(note.pk for note in notes)
        return policy


def _vacation_day_use(user: Any, *, now: datetime) -> bool:
    """Spend one of the user's vacation days, unless one was already spent today (a day covers all
    of that player's matches). False when none is left; the switch then turns itself off."""
    user = type(user).objects.select_for_update().get(pk=user.pk)
    today = now.astimezone(ZoneInfo(user.time_zone)).date()
    if user.vacation_year != today.year:
        user.vacation_year = today.year
        user.vacation_days_left = settings.VACATION_DAYS_PER_YEAR
    if user.vacation_day_used_on == today:
        return True
    if user.vacation_days_left <= 0:
        if user.on_vacation:
            user.on_vacation = False
            user.save(update_fields=["on_vacation", "vacation_year", "vacation_days_left"])
        return False
    user.vacation_days_left -= 1
    user.vacation_day_used_on = today
    user.save(update_fields=["vacation_days_left", "vacation_year", "vacation_day_used_on"])
    return True
