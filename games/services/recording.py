"""Recording a step of a match: the log line, the stored position and hands, the turns it closes and
opens, the automatic work it owes and, when it ends the match, the result. Every writer of a match
(playing, clocks, moderators) comes through here, holding the match's row lock."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from games import dispatch, livekeys, notifications, signals
from games.clock import ClockRules, bank_after_move, deadline_for, reminder_schedule
from games.engines.base import Engine, Event, has_secrets
from games.errors import Conflict, Forbidden, NotFound
from games.models import HiddenHand, Match, Move, Seat, Turn, match_key
from games.rng import rng_dump, rng_load, step_stream

MOVED_ON = "The game has moved on since you loaded the page; nothing was played."


def match_lock(match_id: Any, *, rng: bool = True) -> Match:
    """The match, its row locked until the transaction ends.

    ``rng=False`` leaves the random generator unread (an old match's state is kilobytes, and only
    chance steps use it; the seed stays out of memory where nothing draws): both stay deferred, and
    ``match_save`` does not write them back.
    """
    matches = Match.objects.select_for_update()
    if not rng:
        matches = matches.defer("rng_state", "seed")
    try:
        return matches.get(pk=match_key(match_id))
    except Match.DoesNotExist:
        raise NotFound("There is no such match.") from None


def match_save(match: Match, *, seen: int, now: datetime) -> None:
    """Store what a step changes in ``match`` (``STEP_FIELDS``), provided its row is still at version
    ``seen``.

    This conditional update is the real guard: it refuses a second writer even where the database
    ignores SELECT ... FOR UPDATE (SQLite); the transaction then rolls back all the step wrote.
    """
    match.updated_at = now
    deferred = match.get_deferred_fields()
    values = {name: getattr(match, name) for name in STEP_FIELDS if name not in deferred}
    if Match.objects.filter(pk=match.pk, version=seen).update(**values) != 1:
        raise Conflict(MOVED_ON)
    livekeys.match_changed(match.pk)


# What a step of play or a moderator's action changes in the match's row; the rest is set when the match
# is created or started, or by its own service (the chat's spectators switch), and is not written back.
STEP_FIELDS = (
    "version",
    "log_length",
    "engine_state",
    "public_view",
    "rng_state",
    "chance_steps",
    "status",
    "finished_at",
    "result_text",
    "paused_at",
    "work_due_at",
    "updated_at",
)


def seats_with_users(match: Match) -> list[Seat]:
    """The match's seats in order, each with its user (None for a computer's seat)."""
    return list(match.seats.select_related("user"))


def playing_seat(match: Match, user: AbstractBaseUser, *, seats: list[Seat]) -> Seat:
    """The user's seat in the match, if it is still in play; Forbidden otherwise."""
    if not user.is_authenticated:
        raise Forbidden("Log in to play.")
    seat = next((seat for seat in seats if seat.user_id == user.pk), None)
    if seat is None:
        raise Forbidden("You are not playing in this match.")
    if seat.status != Seat.Status.PLAYING:
        raise Forbidden("You are no longer playing in this match.")
    return seat


def step_rng(match: Match) -> tuple[random.Random, int | None]:
    """The generator of the match's next random step, and that step's number (the caller stores
    ``match``, whose count it advances, and passes the number to ``step_record``).

    A match that keeps a Mersenne Twister (one from before seeds) draws from it and has no step
    numbers; ``step_rng_keep`` stores what it drew.
    """
    if match.rng_state is not None or not match.seed:
        return rng_load(match.rng_state), None
    step = match.chance_steps
    match.chance_steps += 1
    return step_stream(match.seed, step), step


def step_rng_keep(match: Match, rng: random.Random) -> None:
    """After the draws: an old match's Mersenne Twister state moves on; a seeded stream needs nothing."""
    if match.rng_state is not None:
        match.rng_state = rng_dump(rng)


def state_store(match: Match, engine: Engine, state: dict[str, Any]) -> None:
    match.engine_state = state
    match.public_view = engine.public_view(state)


def hands_store(match: Match, engine: Engine, state: dict[str, Any], *, now: datetime) -> None:
    """Bring every seat's hidden hand up to ``state``; games without secrets have no hands to write."""
    if not has_secrets(engine):
        return
    changed = []
    for hand in HiddenHand.objects.filter(seat__match=match).select_related("seat"):
        data = engine.private_view(state, hand.seat.position)
        if data != hand.data:
            hand.data, hand.updated_at = data, now
            changed.append(hand)
    HiddenHand.objects.bulk_update(changed, ["data", "updated_at"])


def next_seq(match: Match) -> int:
    """The seq of the match's next log line; the caller stores ``match`` (or its ``log_length``)."""
    match.log_length += 1
    return match.log_length


def log_line(match: Match, *, seat: Seat | None, kind: str, text: str) -> Move:
    """A log line that changes nothing on the board (a vacation day, a computer taking over, a
    moderator's note): the version stays, so nobody's open page goes stale. A match still open has no
    position yet: its line holds none."""
    event = Event(kind=kind, text=text, data={"seat": seat.position if seat else None})
    line = Move.objects.create(
        match=match,
        seq=next_seq(match),
        seat=seat,
        move=None,
        notation="",
        events=[event.to_dict()],
        state_after=match.engine_state if match.engine_state is not None else {},
    )
    Match.objects.filter(pk=match.pk).update(log_length=match.log_length)
    livekeys.match_changed(match.pk)
    return line


def step_record(
    match: Match,
    engine: Engine,
    state: dict[str, Any] | None,
    events: list[Event],
    *,
    seat: Seat | None,
    move: dict[str, Any] | None,
    notation: str,
    force_end: bool = False,
    closed_by: str = "move",
    seats: list[Seat] | None = None,
    chance_step: int | None = None,
) -> Move:
    """Append the step to the log, store the new position and hands, bump the version, move the
    turns on (or finish the match) and queue the automatic work it owes.

    ``seats`` are the match's seats with their users when the caller has read them already;
    ``chance_step`` the number of the random step it drew from (``step_rng``), if any.
    """
    now = timezone.now()
    if state is None:
        state = match.engine_state
    seen = match.version
    match.version += 1
    # Asked of the position the move was made in, which match still holds until state_store.
    sealed = (
        engine.move_visible_to(match.engine_state, seat.position, move)
        if move is not None and seat is not None
        else None
    )
    logged = Move.objects.create(
        match=match,
        seq=next_seq(match),
        seat=seat,
        move=move,
        notation=notation,
        notation_visible_to=None if sealed is None else sorted(sealed),
        events=[event.to_dict() for event in events],
        chance_step=chance_step,
        state_after=state,
    )
    state_store(match, engine, state)
    hands_store(match, engine, state, now=now)
    if seats is None:
        seats = seats_with_users(match)
    if force_end or engine.is_over(state):
        # Cut short (a resignation, a timeout), the step's first line says how; play's end speaks for itself.
        how = (
            events[0].text
            if (force_end or closed_by != "move") and events and events[0].visible_to is None
            else ""
        )
        match_finish(match, engine, state, now=now, seats=seats, how=how)
        match.work_due_at = None
    else:
        turns_sync(match, engine, state, now=now, mover=seat, closed_by=closed_by, seats=seats)
        work_schedule(match, engine, state, now=now, seats=seats)
    match_save(match, seen=seen, now=now)
    return logged


def position_restore(match: Match, engine: Engine, state: dict[str, Any], *, now: datetime) -> None:
    """Put the match back at ``state``, an earlier stored position (a move taken back): the position,
    the hands and the public view, the turns (a seat awaited again gets a fresh turn and clock; a
    reserve spent is not refunded) and the automatic work the position owes.

    The caller has bumped the version, writes its own log line and stores the match (``match_save``).
    """
    state_store(match, engine, state)
    hands_store(match, engine, state, now=now)
    seats = seats_with_users(match)
    turns_sync(match, engine, state, now=now, seats=seats)
    work_schedule(match, engine, state, now=now, seats=seats)


def clock_rules(match: Match) -> ClockRules:
    return ClockRules(
        move_time=match.move_time_limit,
        bank_increment=match.bank_increment,
        bank_max=match.bank_max,
        pause_weekends=match.pause_weekends,
    )


def _zone(seat: Seat) -> ZoneInfo:
    return ZoneInfo(seat.user.time_zone if seat.user_id else "UTC")


def turns_sync(
    match: Match,
    engine: Engine,
    state: dict[str, Any],
    *,
    now: datetime,
    seats: list[Seat],
    mover: Seat | None = None,
    closed_by: str = "move",
    present_user_id: int | None = None,
) -> None:
    """Close the turns of seats no longer awaited; open one, with its deadline, per newly awaited seat,
    and queue the "your turn" e-mails they owe, but none to ``present_user_id``, who is on the page
    (creating or joining the match). The mover's reserve is settled against the time its turn took."""
    actors = engine.actors(state)
    rules = clock_rules(match)
    by_id = {seat.pk: seat for seat in seats}
    open_turns = {}
    for turn in match.turns.filter(closed_at__isnull=True).order_by():
        turn.seat = by_id[turn.seat_id]
        open_turns[turn.seat.position] = turn
    for position, turn in list(open_turns.items()):
        moved = mover is not None and turn.seat_id == mover.pk
        # A seat that acts again right after its own move (snake placement, a skipped turn) gets a
        # fresh turn and a fresh clock.
        if position in actors and not moved:
            continue
        del open_turns[position]
        turn.closed_at = now
        turn.closed_by = closed_by if moved else "other"
        turn.save(update_fields=["closed_at", "closed_by"])
        if moved and closed_by == "move" and turn.seat.bank is not None:
            bank = bank_after_move(turn.started_at, now, rules, bank=turn.seat.bank, tz=_zone(turn.seat))
            Seat.objects.filter(pk=mover.pk).update(bank=bank)
    new_turns = []
    for seat in seats:
        if seat.position not in actors or seat.position in open_turns:
            continue
        automatic = bool(seat.bot or seat.autopilot)
        deadline = None if automatic else deadline_for(now, rules, bank=seat.bank, tz=_zone(seat))
        reminder = (
            reminder_schedule(deadline, seat.user.reminder_hours, now=now)
            if seat.user_id and deadline
            else None
        )
        new_turns.append(
            Turn(
                match=match,
                seat=seat,
                number=match.version,
                started_at=now,
                deadline=deadline,
                remind_at=reminder[0] if reminder else None,
                remind_lead=reminder[1] if reminder else None,
            )
        )
    if new_turns:
        Turn.objects.bulk_create(new_turns)  # sets their ids, which their e-mails' keys carry
        told = [turn for turn in new_turns if present_user_id is None or turn.seat.user_id != present_user_id]
        notes = notifications.notify_turns_opened(turns=told, now=now)
        notifications.queue_send(note.pk for note in notes)


def work_schedule(
    match: Match, engine: Engine, state: dict[str, Any], *, now: datetime, seats: list[Seat] | None = None
) -> None:
    """Queue, once the transaction commits, the automatic step the position now owes, if any.

    ``work_due_at`` records that it is owed, so the sweep queues it again if the queue was down.
    """
    work = automatic_work(match, engine, state, seats=seats)
    match.work_due_at = now if work else None
    if work:
        transaction.on_commit(lambda: dispatch.work_enqueue(work))


def automatic_work(
    match: Match, engine: Engine, state: dict[str, Any], *, seats: list[Seat] | None = None
) -> list[dispatch.Work]:
    """The chance step or the computer moves the position owes (none while paused)."""
    if match.status != Match.Status.ACTIVE or match.paused_at is not None:
        return []
    if engine.chance_pending(state):
        return [dispatch.Work("chance", match.pk, match.version)]
    if seats is None:
        seats = list(match.seats.all())
    automatic = {
        seat.position for seat in seats if seat.status == Seat.Status.PLAYING and (seat.autopilot or seat.bot)
    }
    return [
        dispatch.Work("bot", match.pk, match.version, pos) for pos in sorted(engine.actors(state) & automatic)
    ]


def match_finish(
    match: Match, engine: Engine, state: dict[str, Any], *, now: datetime, seats: list[Seat], how: str = ""
) -> None:
    """Score and rank the seats, close the open turns, mark the match finished (the caller stores it),
    tell the receivers (ratings, leagues) and the players who are away (``how`` it ended, if not by
    play)."""
    scores = engine.outcome(state) if engine.is_over(state) else None
    playing = [seat for seat in seats if seat.status == Seat.Status.PLAYING]
    out = [seat for seat in seats if seat.status != Seat.Status.PLAYING]
    for seat in seats:
        seat.score = scores[seat.position] if scores is not None else None
    # Players still in the game rank by score (all equal when the game was cut short); a seat that
    # resigned or forfeited ranks below every one of them.
    ordered = sorted(playing, key=lambda s: -(s.score or 0.0))
    rank = 0
    previous: float | None = None
    for index, seat in enumerate(ordered, start=1):
        value = seat.score or 0.0
        if previous is None or value != previous:
            rank = index
            previous = value
        seat.rank = rank
    for seat in out:
        seat.rank = len(playing) + 1
    Seat.objects.bulk_update(seats, ["score", "rank"])
    match.turns.filter(closed_at__isnull=True).update(closed_at=now, closed_by="end")
    match.status = Match.Status.FINISHED
    match.finished_at = now
    match.result_text = _result_text(playing, scores)
    signals.match_finished.send(sender=Match, match=match)
    notifications.queue_send(notifications.notify_match_ended(match=match, seats=seats, how=how, now=now))


def _result_text(playing: list[Seat], scores: list[float] | None) -> str:
    if not playing:
        return "Nobody is left in the match."
    winners = [seat for seat in playing if seat.rank == 1]
    names = " and ".join(seat.player_name for seat in winners)
    if scores is None:
        return f"{names} wins: every other player is out." if len(winners) == 1 else f"Draw between {names}."
    points = _points(winners[0].score)
    if len(winners) == 1:
        return f"{names} wins with {points}."
    return f"Draw between {names} with {points} each."


def _points(value: float | None) -> str:
    value = value or 0.0
    number = int(value) if float(value).is_integer() else value
    return f"{number} point" + ("" if number == 1 else "s")


def seat_take_out(match: Match, seat: Seat, *, status: str, verb: str, closed_by: str = "resign") -> None:
    """Put a seat out of the match (resigned, forfeited): the others play on if the game allows it."""
    seat.status = status
    seat.autopilot = False
    seat.save(update_fields=["status", "autopilot"])
    engine = match.engine
    state = match.engine_state
    events = [Event(kind="seat_out", text=f"{seat.player_name} {verb}.", data={"seat": seat.position})]
    still_playing = match.seats.filter(status=Seat.Status.PLAYING).count()
    if still_playing >= 2:
        try:
            state, more = engine.eliminate(state, seat.position)
            events += more
        except NotImplementedError:
            state = None  # the game cannot go on without this seat
    step_record(
        match,
        engine,
        state,
        events,
        seat=seat,
        move=None,
        notation=verb.split()[0],
        force_end=state is None or still_playing < 2,
        closed_by=closed_by,
    )
