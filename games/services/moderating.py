"""Moderators' actions on a match. moderation/services.py checks who may and keeps the record of each
action; here the change happens under the match's row lock, with its public line in the match log (the
``reason`` is shown to the players, so it is the public one)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from games import livekeys, notifications, signals
from games.bots import LEVELS as bot_levels
from games.clock import reminder_schedule
from games.errors import Conflict, ServiceError
from games.models import Match, Move, Seat, Turn
from games.services.recording import (
    has_secrets,
    log_line,
    match_lock,
    match_save,
    position_restore,
    seat_take_out,
    seats_with_users,
    turns_sync,
    work_schedule,
)

# Log lines that record something without changing the position (see recording.log_line): a
# conditional move's note follows the reply it names, which stays the last change.
LOG_ONLY_KINDS = frozenset({"vacation", "timeout", "moderation", "forecast"})
MAX_EXTENSION = timedelta(days=30)


def match_pause(*, match_id: int, reason: str, now: datetime | None = None) -> Move:
    """Stop the clocks and all play: no move, no chance step, no computer move, no expiry or reminder."""
    now = now or timezone.now()
    with transaction.atomic():
        match = match_lock(match_id)
        if match.status != Match.Status.ACTIVE:
            raise Conflict("Only a match in play can be paused.")
        if match.paused_at is not None:
            raise Conflict("This match is paused already.")
        # Reminders are planned again from the shifted deadlines on resume; the sweep leaves the
        # expiries of a paused match alone.
        match.turns.filter(closed_at__isnull=True).update(remind_at=None, remind_lead=None)
        line = log_line(match, seat=None, kind="moderation", text=f"A moderator paused the match: {reason}")
        Match.objects.filter(pk=match.pk).update(paused_at=now, work_due_at=None, updated_at=now)
        match.paused_at, match.work_due_at = now, None
    return line


def match_resume(*, match_id: int, reason: str, now: datetime | None = None) -> Move:
    """Start the clocks again: every open turn gets back the time the pause held it."""
    now = now or timezone.now()
    with transaction.atomic():
        match = match_lock(match_id)
        if match.paused_at is None or match.status != Match.Status.ACTIVE:
            raise Conflict("This match is not paused.")
        for turn in match.turns.filter(closed_at__isnull=True).select_related("seat__user"):
            # A turn opened during the pause (a seat handed over) starts its clock now.
            held = max(timedelta(0), now - max(match.paused_at, turn.started_at))
            turn.started_at += held
            if turn.deadline is not None:
                turn.deadline += held
            _turn_replan(turn, now=now)
            turn.save(
                update_fields=["started_at", "deadline", "remind_at", "remind_lead", "expiry_claimed_at"]
            )
        match.paused_at = None
        line = log_line(match, seat=None, kind="moderation", text=f"A moderator resumed the match: {reason}")
        work_schedule(match, match.engine, match.engine_state, now=now)
        Match.objects.filter(pk=match.pk).update(
            paused_at=None, work_due_at=match.work_due_at, updated_at=now
        )
    return line


def turn_extend(
    *, match_id: int, position: int, by: timedelta, reason: str, now: datetime | None = None
) -> Move:
    """Give a seat's open turn more time (counted from now if its deadline has already passed)."""
    now = now or timezone.now()
    if not timedelta(hours=1) <= by <= MAX_EXTENSION:
        raise ServiceError("An extension is between one hour and 30 days.")
    with transaction.atomic():
        match = match_lock(match_id)
        if match.status != Match.Status.ACTIVE:
            raise Conflict("Only a match in play has deadlines to extend.")
        seat = _seat_at(match, position)
        turn = match.turns.filter(seat=seat, closed_at__isnull=True).select_related("seat__user").first()
        if turn is None:
            raise Conflict(f"{seat.player_name} has no move to make now.")
        if turn.deadline is None:
            raise Conflict(f"{seat.player_name}'s move has no deadline to extend.")
        turn.deadline = max(turn.deadline, now) + by
        _turn_replan(turn, now=now)
        turn.save(update_fields=["deadline", "remind_at", "remind_lead", "expiry_claimed_at"])
        text = f"A moderator gave {seat.player_name} {_hours(by)} more for this move: {reason}"
        return log_line(match, seat=seat, kind="moderation", text=text)


def seat_hand_over(
    *,
    match_id: int,
    position: int,
    reason: str,
    user: AbstractBaseUser | None = None,
    bot: str = "",
    now: datetime | None = None,
) -> Move:
    """Give a seat, its position and its hand to another person or to a computer of kind ``bot``.

    The seat keeps its place; a turn it owes starts afresh for the new occupant (a computer moves at
    once, through the usual automatic work).
    """
    now = now or timezone.now()
    if (user is None) == (not bot):
        raise ServiceError("Hand the seat to one player or to one computer opponent.")
    if bot and bot not in bot_levels:
        raise ServiceError(
            f"There is no computer opponent called {bot!r}; choose one of {', '.join(bot_levels)}."
        )
    if user is not None and not user.is_active:
        raise ServiceError(f"{user.username} cannot play at the moment.")
    with transaction.atomic():
        match = match_lock(match_id)
        if match.status != Match.Status.ACTIVE:
            raise Conflict("Only a seat in a match in play can be handed over.")
        seat = _seat_at(match, position)
        if user is not None and match.seats.filter(user=user).exists():
            raise Conflict(f"{user.username} already has a seat in this match.")
        before = seat.player_name
        if seat.user_id is not None:
            livekeys.user_changed(seat.user_id)  # the match leaves their My matches
        seat.user, seat.bot = user, bot
        seat.autopilot = False
        seat.last_seen_at = None
        seat.save(update_fields=["user", "bot", "autopilot", "last_seen_at"])
        match.turns.filter(seat=seat, closed_at__isnull=True).update(closed_at=now, closed_by="moderator")
        text = f"A moderator handed {before}'s seat to {seat.player_name}: {reason}"
        line = log_line(match, seat=seat, kind="moderation", text=text)
        seats = seats_with_users(match)
        turns_sync(match, match.engine, match.engine_state, now=now, seats=seats)
        work_schedule(match, match.engine, match.engine_state, now=now, seats=seats)
        Match.objects.filter(pk=match.pk).update(work_due_at=match.work_due_at, updated_at=now)
    return line


def seat_remove(*, match_id: int, position: int, reason: str) -> Move:
    """Put a player out of the match as a forfeit (they rank last); the others play on if they can."""
    with transaction.atomic():
        match = match_lock(match_id)
        if match.status != Match.Status.ACTIVE:
            raise Conflict("Only a player in a match in play can be removed.")
        seat = _seat_at(match, position)
        text = f"A moderator removed {seat.player_name} from the match: {reason}"
        line = log_line(match, seat=seat, kind="moderation", text=text)
        seat_take_out(match, seat, status=Seat.Status.FORFEITED, verb="forfeits", closed_by="moderator")
        if match.status != Match.Status.ACTIVE and match.paused_at is not None:
            Match.objects.filter(pk=match.pk).update(paused_at=None)
    return line


def move_rollback(*, match_id: int, reason: str, now: datetime | None = None) -> Move:
    """Take back the last move a seat made: the position, the hands and the public view return to what
    they were before it, the move leaves the log, and the seat is to move again with a fresh clock.

    Refused when the last change to the position was not a seat's move: a chance step (undoing it
    would mean drawing the dice or cards again, a second roll of luck the players have seen the
    first of), a skipped turn or a player leaving. Refused for the first move too: the opening
    position is not stored. A match the move ended is in play again, its result voided. Log lines
    that changed nothing (vacation days, moderators' notes) stay. The RNG is not rewound and reserves
    are not refunded.
    """
    now = now or timezone.now()
    with transaction.atomic():
        match = match_lock(match_id)
        engine = match.engine
        if match.status not in (Match.Status.ACTIVE, Match.Status.FINISHED):
            raise Conflict("Only a match in play or finished can have its last move taken back.")
        target = last_change(match)
        if target is None:
            raise Conflict("There is no move to take back.")
        if target.move is None or target.seat_id is None:
            raise Conflict(
                "The last change to the position is not a player's move (a chance step, a skipped turn "
                "or a player leaving), so there is no move to take back."
            )
        if match.status == Match.Status.FINISHED and not engine.is_over(match.engine_state):
            raise Conflict("This match was ended by a moderator or by players leaving, not by its last move.")
        # Its seed was told when it ended: in a game that deals or rolls, all would know the draws to come.
        if (
            match.status == Match.Status.FINISHED
            and match.provable
            and (has_secrets(engine) or match.chance_steps > 1)
        ):
            raise Conflict(
                "This match's seed was revealed when it ended, so everyone could foresee its dice and cards "
                "from here on: cancel or adjudicate it instead."
            )
        previous = match.moves.filter(seq__lt=target.seq).order_by("-seq").only("seq", "state_after").first()
        # A line from before the start (a moderator's, while the match was open) holds no position.
        if previous is None or not previous.state_after:
            raise Conflict("The first move cannot be taken back: the opening position is not stored.")
        state = previous.state_after
        seat = match.seats.select_related("user").get(pk=target.seat_id)
        voided = match.status == Match.Status.FINISHED
        if voided:
            match.status = Match.Status.ACTIVE
            match.finished_at = None
            match.result_text = ""
            match.seats.update(score=None, rank=None)
        seen = match.version
        match.version += 1
        notation = target.public_notation
        target.delete()
        position_restore(match, engine, state, now=now)
        # The log lines after it recorded no change: the position as of them is the restored one.
        match.moves.filter(seq__gt=target.seq).update(state_after=state)
        text = f"A moderator took back {seat.player_name}'s move {notation}: {reason}"
        line = log_line(match, seat=seat, kind="moderation", text=text)
        match_save(match, seen=seen, now=now)
        if voided:
            signals.match_voided.send(sender=Match, match=match)
    return line


def match_adjudicate(*, match_id: int, ranks: list[int], reason: str, now: datetime | None = None) -> Move:
    """End the match with the given result: ``ranks[position]`` is each seat's place (1 is first,
    equal ranks tie). A finished match's earlier result is voided first."""
    now = now or timezone.now()
    with transaction.atomic():
        match = match_lock(match_id)
        if match.status not in (Match.Status.ACTIVE, Match.Status.FINISHED):
            raise Conflict("Only a match in play or finished can be adjudicated.")
        seats = seats_with_users(match)
        if len(ranks) != len(seats) or any(type(rank) is not int for rank in ranks):
            raise ServiceError("Give every seat a place.")
        if any(not 1 <= rank <= len(seats) for rank in ranks) or 1 not in ranks:
            raise ServiceError(f"Places run from 1 (first) to {len(seats)}, and someone must be first.")
        voided = match.status == Match.Status.FINISHED
        for seat in seats:
            seat.rank = ranks[seat.position]
            seat.score = None
        Seat.objects.bulk_update(seats, ["rank", "score"])
        winners = " and ".join(seat.player_name for seat in seats if seat.rank == 1)
        if ranks.count(1) == 1:
            match.result_text = f"Adjudicated: {winners} wins."
        else:
            match.result_text = f"Adjudicated: a draw between {winners}."
        line = _end_by_moderator(
            match, status=Match.Status.FINISHED, text=f"A moderator adjudicated the match: {reason}", now=now
        )
        if voided:
            signals.match_voided.send(sender=Match, match=match)
        signals.match_finished.send(sender=Match, match=match)
    return line


def match_end(*, match_id: int, status: str, reason: str, now: datetime | None = None) -> Move:
    """Stop a match without a result. ``abandoned``: an open match or one in play ends where it stands
    and nobody's rating moves. ``cancelled``: the match is void; a finished one's result no longer
    counts (``match_voided``)."""
    now = now or timezone.now()
    if status not in (Match.Status.ABANDONED, Match.Status.CANCELLED):
        raise ServiceError("A moderator ends a match as abandoned or cancelled.")
    with transaction.atomic():
        match = match_lock(match_id)
        allowed = [Match.Status.OPEN, Match.Status.ACTIVE]
        if status == Match.Status.CANCELLED:
            allowed.append(Match.Status.FINISHED)
        if match.status not in allowed:
            raise Conflict(f"A match that is {match.get_status_display().lower()} cannot be {status}.")
        voided = match.status == Match.Status.FINISHED
        verb = "abandoned" if status == Match.Status.ABANDONED else "cancelled"
        match.result_text = f"{verb.capitalize()} by a moderator."
        line = _end_by_moderator(
            match, status=status, text=f"A moderator {verb} the match: {reason}", now=now
        )
        if voided:
            signals.match_voided.send(sender=Match, match=match)
    return line


def match_log_note(*, match_id: int, text: str) -> Move:
    """A moderator's line in the match log about something that changes no position (a chat message
    hidden, the hidden information looked at)."""
    with transaction.atomic():
        match = match_lock(match_id)
        return log_line(match, seat=None, kind="moderation", text=text)


def _end_by_moderator(match: Match, *, status: str, text: str, now: datetime) -> Move:
    seen = match.version
    match.version += 1
    match.status = status
    match.finished_at = match.finished_at or now
    match.paused_at = None
    match.work_due_at = None
    match.turns.filter(closed_at__isnull=True).update(closed_at=now, closed_by="end")
    line = log_line(match, seat=None, kind="moderation", text=text)
    match_save(match, seen=seen, now=now)
    # Once per match: a finished match adjudicated anew or cancelled was announced when it ended.
    ended = notifications.notify_match_ended(match=match, seats=seats_with_users(match), how=text, now=now)
    notifications.queue_send(ended)
    return line


def _seat_at(match: Match, position: int) -> Seat:
    seat = match.seats.select_related("user").filter(position=position).first()
    if seat is None:
        raise ServiceError("There is no such seat in this match.")
    if seat.status != Seat.Status.PLAYING:
        raise Conflict(f"{seat.player_name} is no longer playing in this match.")
    return seat


def last_change(match: Match) -> Move | None:
    """The match's last log line that changed the position (without its stored position), if any."""
    lines = match.moves.order_by("-seq").defer("state_after")
    # It is nearly always among the last few: a long match's log is read whole only when it is not.
    for part in (lines[:10], lines[10:]):
        for line in part:
            if not _log_only(line):
                return line
    return None


def _log_only(line: Move) -> bool:
    """Whether a log line records something that did not change the position (see recording.log_line)."""
    return (
        line.move is None
        and line.notation == ""
        and len(line.events) == 1
        and line.events[0].get("kind") in LOG_ONLY_KINDS
    )


def _turn_replan(turn: Turn, *, now: datetime) -> None:
    """After a deadline moved: the next reminder from the new deadline, and any expiry claim released."""
    seat = turn.seat
    plan = (
        reminder_schedule(turn.deadline, seat.user.reminder_hours, now=now)
        if seat.user_id and turn.deadline and not seat.autopilot
        else None
    )
    turn.remind_at, turn.remind_lead = plan if plan else (None, None)
    turn.expiry_claimed_at = None


def _hours(amount: timedelta) -> str:
    hours = round(amount.total_seconds() / 3600)
    if hours % 24 == 0:
        days = hours // 24
        return f"{days} day" + ("" if days == 1 else "s")
    return f"{hours} hour" + ("" if hours == 1 else "s")
