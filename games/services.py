"""Every write to matches goes through here: the web views, the API and the tasks call the same code."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from games import dispatch, notifications, rows, signals
from games.bots import DEFAULT as DEFAULT_BOT
from games.bots import LEVELS as bot_levels
from games.bots import bot_for
from games.clock import ClockRules, bank_after_move, deadline_for, reminder_schedule
from games.engines import registry
from games.engines.base import Engine, Event, IllegalMove
from games.errors import Conflict, Forbidden, InvalidMove, NotFound, ServiceError
from games.models import HiddenHand, Match, Move, Notification, Seat, Turn
from games.rng import rng_dump, rng_load, rng_new
from games.selectors import NO_RNG, match_key, match_sql, open_turns_sql, seat_built, seats_sql

log = logging.getLogger(__name__)

MAX_MOVE_TIME_LIMIT = timedelta(days=30)
PAUSED = "A moderator has paused this match: nothing can be played until it resumes."


# --- creating and joining ---------------------------------------------------------------------------


def match_create(
    *,
    creator: AbstractBaseUser,
    game: str,
    seat_count: int,
    options: dict[str, str] | None = None,
    name: str = "",
    move_time_limit: timedelta | None = None,
    bank_initial: timedelta | None = None,
    bank_increment: timedelta | None = None,
    bank_max: timedelta | None = None,
    pause_weekends: bool = False,
    timeout_policy: str = Match.Timeout.SKIP,
    bots: list[str] | None = None,
    rated: bool = True,
) -> Match:
    """Open a match with the creator in the first seat; it starts when every seat is taken.

    ``bots`` seats computer opponents of those kinds (``games.bots.LEVELS``) right after the creator;
    when they fill the table the match starts at once. A match with computer opponents is never rated
    (they have no rating to win or lose against).
    """
    try:
        engine = registry.get_engine(game)
    except registry.UnknownGame as exc:
        raise ServiceError(str(exc)) from None
    try:
        resolved = engine.resolve_options(options, seats=seat_count)
    except ValueError as exc:
        raise ServiceError(str(exc)) from None
    if move_time_limit is not None and not timedelta(hours=1) <= move_time_limit <= MAX_MOVE_TIME_LIMIT:
        raise ServiceError("The time per move must be between one hour and 30 days.")
    if timeout_policy not in Match.Timeout.values:
        raise ServiceError(f"{timeout_policy!r} is not a timeout policy.")
    if (bank_initial or bank_increment or bank_max) and move_time_limit is None:
        raise ServiceError("A reserve needs a time per move.")
    for label, value in (("reserve", bank_initial), ("reserve increment", bank_increment), ("cap", bank_max)):
        if value is not None and not timedelta(0) <= value <= MAX_MOVE_TIME_LIMIT * 2:
            raise ServiceError(f"The {label} must be between zero and 60 days.")
    if bank_max is not None and bank_initial is not None and bank_max < bank_initial:
        raise ServiceError("The reserve cap cannot be below the starting reserve.")
    name = name.strip()
    if len(name) > 80:
        raise ServiceError("A match name has at most 80 characters.")
    bot_kinds = list(bots or [])
    for kind in bot_kinds:
        if kind not in bot_levels:
            known = ", ".join(bot_levels)
            raise ServiceError(f"There is no computer opponent called {kind!r}; choose one of {known}.")
    if len(bot_kinds) >= seat_count:
        raise ServiceError(
            f"Computer opponents can take at most {seat_count - 1} of the {seat_count} seats: one is yours."
        )
    with transaction.atomic():
        match = Match.objects.create(
            game=game,
            name=name,
            options=resolved,
            seat_count=seat_count,
            created_by=creator,
            move_time_limit=move_time_limit,
            bank_initial=bank_initial,
            bank_increment=bank_increment,
            bank_max=bank_max if bank_max is not None else bank_initial,
            pause_weekends=pause_weekends,
            timeout_policy=timeout_policy,
            rated=bool(rated) and not bot_kinds,
        )
        Seat.objects.create(match=match, position=0, user=creator)
        for position, kind in enumerate(bot_kinds, start=1):
            Seat.objects.create(match=match, position=position, user=None, bot=kind)
        if 1 + len(bot_kinds) == seat_count:
            _start(match)
    return match


def seat_join(*, match_id: int, user: AbstractBaseUser) -> Seat:
    """Take the next free seat; the match starts in the same transaction when the table is full."""
    with transaction.atomic():
        match = _lock_match(match_id)
        if match.status != Match.Status.OPEN:
            raise Conflict("This match is no longer open for players.")
        seats = list(match.seats.all())
        if any(seat.user_id == user.pk for seat in seats):
            raise Conflict("You already have a seat in this match.")
        if len(seats) >= match.seat_count:
            raise Conflict("This match is full.")
        seat = Seat.objects.create(match=match, position=len(seats), user=user)
        if len(seats) + 1 == match.seat_count:
            _start(match)
    return seat


def seat_leave(*, match_id: int, user: AbstractBaseUser) -> None:
    """Give up a seat before the match starts; a match no person sits at is abandoned."""
    with transaction.atomic():
        match = _lock_match(match_id)
        if match.status != Match.Status.OPEN:
            raise Conflict("The match has started: resign instead of leaving.")
        seat = match.seats.filter(user=user).first()
        if seat is None:
            raise Forbidden("You have no seat in this match.")
        seat.delete()
        # Close the gap so positions stay 0..n-1 in joining order.
        for position, other in enumerate(match.seats.order_by("position")):
            if other.position != position:
                Seat.objects.filter(pk=other.pk).update(position=position)
        # Computer seats alone do not keep a table open: with no person left, it is abandoned.
        if not match.seats.filter(user__isnull=False).exists():
            match.seats.all().delete()
            match.status = Match.Status.ABANDONED
            match.finished_at = timezone.now()
            match.result_text = "Abandoned before it started."
            match.save(update_fields=["status", "finished_at", "result_text", "updated_at"])


def match_start(*, match_id: int) -> Match:
    """Deal the opening position. Called by seat_join when the table fills; also usable by moderators."""
    with transaction.atomic():
        match = _lock_match(match_id)
        if match.status != Match.Status.OPEN:
            raise Conflict("This match has already started.")
        if match.seats.count() != match.seat_count:
            raise Conflict("Every seat must be taken before the match starts.")
        _start(match)
    return match


def _start(match: Match) -> None:
    engine = match.engine
    rng = rng_new()
    state = engine.new_state(seats=match.seat_count, options=match.options, rng=rng)
    now = timezone.now()
    match.status = Match.Status.ACTIVE
    match.started_at = now
    match.rng_state = rng_dump(rng)
    match.version = 0
    _store_state(match, engine, state)
    match.save()
    seats = _seats_with_users(match)
    for seat in seats:
        seat.bank = match.bank_initial
    Seat.objects.bulk_update(seats, ["bank"])
    HiddenHand.objects.bulk_create(
        [HiddenHand(seat=seat, data=engine.private_view(state, seat.position)) for seat in seats]
    )
    _sync_turns(match, engine, state, now=now)
    _schedule_work(match, engine, state, now=now)
    match.save(update_fields=["work_due_at"])


# --- playing ----------------------------------------------------------------------------------------


def move_play(
    *,
    match_id: int,
    user: AbstractBaseUser,
    expected_version: int,
    text: str | None = None,
    move: dict[str, Any] | None = None,
) -> Move:
    """Apply one move of the user's seat, given as notation (``text``) or as a move dict.

    The version the player saw must still be current: otherwise someone moved in between (or the
    same form was sent twice) and nothing is applied.
    """
    with transaction.atomic():
        # A player's move draws nothing: the random generator stays unread.
        match, seats, turn_rows, turn_ids = _lock_for_move(match_id)
        engine = match.engine
        if match.status != Match.Status.ACTIVE:
            raise Conflict(
                "This match is not in play." if match.status == Match.Status.OPEN else "This match is over."
            )
        if match.paused_at is not None:
            raise Conflict(PAUSED)
        seat = _playing_seat(match, user, seats=seats)
        if expected_version != match.version:
            raise Conflict(
                "The game has moved on since you loaded the page; nothing was played. "
                "Look at the board again."
            )
        state = match.engine_state
        if seat.position not in engine.actors(state):
            raise InvalidMove("It is not your turn.")
        if move is None:
            if not text or not text.strip():
                raise InvalidMove("Enter a move.")
            try:
                move = engine.parse_move(text)
            except IllegalMove as exc:
                raise InvalidMove(str(exc)) from None
        try:
            new_state, events = engine.apply(state, seat.position, move)
        except IllegalMove as exc:
            raise InvalidMove(str(exc)) from None
        return _record(
            match,
            engine,
            new_state,
            events,
            seat=seat,
            move=move,
            notation=engine.format_move(move),
            seats=seats,
            turn_rows=turn_rows,
            turn_ids=turn_ids,
            last=True,
        )


def match_resign(*, match_id: int, user: AbstractBaseUser) -> Match:
    """The user's seat gives up: it ranks last; the others play on when the game allows it."""
    with transaction.atomic():
        match = _lock_match(match_id)
        if match.status != Match.Status.ACTIVE:
            raise Conflict("Only a match in play can be resigned.")
        if match.paused_at is not None:
            raise Conflict(PAUSED)
        seat = _playing_seat(match, user)
        _take_out(match, seat, status=Seat.Status.RESIGNED, verb="resigns")
    return match


# --- automatic work: chance steps, computer moves, timeouts -------------------------------------------


def chance_resolve(*, match_id: int, version: int) -> Move | None:
    """Perform the pending chance step with the match's own RNG; a stale or repeated call does nothing."""
    with transaction.atomic():
        match = _lock_match(match_id)
        engine = match.engine
        state = match.engine_state
        if (
            match.status != Match.Status.ACTIVE
            or match.paused_at is not None
            or match.version != version
            or not engine.chance_pending(state)
        ):
            return None
        rng = rng_load(match.rng_state)
        new_state, events = engine.resolve_chance(state, rng)
        match.rng_state = rng_dump(rng)
        return _record(match, engine, new_state, events, seat=None, move=None, notation="", last=True)


def bot_move(*, match_id: int, version: int, position: int) -> Move | None:
    """A computer's move for a bot seat (its own kind), or for a seat on autopilot after a timeout
    (the default kind), drawn with the match's server-side RNG.

    The bot thinks before the transaction, on the position at ``version``: up to a few seconds of search
    must not hold the match's row lock (on SQLite, the whole database's write lock). The move and the RNG
    state it leaves are stored only if, under the lock, the match is still at that version and the seat
    still the computer's; otherwise nothing happens and the work queued for the new position thinks again.
    """
    snapshot = Match.objects.filter(pk=match_id).first()
    if snapshot is None:
        raise NotFound("There is no such match.")
    planned = _bot_seat(snapshot, version, position)
    if planned is None:
        return None
    engine = snapshot.engine
    state = snapshot.engine_state
    rng = rng_load(snapshot.rng_state)
    # A kind no longer offered (an old seat) plays at the default strength rather than never moving.
    kind = planned.bot if planned.bot in bot_levels else DEFAULT_BOT
    move = bot_for(kind).choose(engine, state, position, rng)
    with transaction.atomic():
        match = _lock_match(match_id)
        seat = _bot_seat(match, version, position)
        if seat is None or match.rng_state != snapshot.rng_state:
            return None
        match.rng_state = rng_dump(rng)
        new_state, events = engine.apply(state, position, move)
        notation = engine.format_move(move)
        return _record(match, engine, new_state, events, seat=seat, move=move, notation=notation, last=True)


def _bot_seat(match: Match, version: int, position: int) -> Seat | None:
    """The seat at ``position`` if the computer is to move for it in ``match`` at ``version``."""
    if match.status != Match.Status.ACTIVE or match.paused_at is not None or match.version != version:
        return None
    seat = match.seats.filter(position=position, status=Seat.Status.PLAYING).first()
    if (
        seat is None
        or not (seat.bot or seat.autopilot)
        or position not in match.engine.actors(match.engine_state)
    ):
        return None
    return seat


def turn_expire(*, turn_id: int, now: datetime | None = None) -> str:
    """A turn's clock ran out: spend a vacation day if the player has one, else apply the match's
    timeout policy. Safe to run twice: a turn that is closed or not yet due is left alone."""
    now = now or timezone.now()
    with transaction.atomic():
        turn = Turn.objects.filter(pk=turn_id).select_related("seat").first()
        if turn is None:
            return "gone"
        match = _lock_match(turn.match_id)
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
            _log(match, seat=seat, kind="vacation", text=text)
            return "vacation"
        Seat.objects.filter(pk=seat.pk).update(timeouts=F("timeouts") + 1)
        policy = match.timeout_policy
        key = f"timeout:{turn.pk}"
        if policy == Match.Timeout.SKIP:
            try:
                rng = rng_load(match.rng_state)
                new_state, events = match.engine.skip(match.engine_state, seat.position, rng)
            except NotImplementedError:
                policy = Match.Timeout.FORFEIT
            else:
                match.rng_state = rng_dump(rng)
                text = f"{seat.player_name} ran out of time; the turn is skipped."
                events.insert(0, Event(kind="timeout", text=text, data={"seat": seat.position}))
                _record(
                    match,
                    match.engine,
                    new_state,
                    events,
                    seat=seat,
                    move=None,
                    notation="timeout",
                    closed_by="timeout",
                )
        if policy == Match.Timeout.BOT:
            seat.autopilot = True
            seat.save(update_fields=["autopilot"])
            # The computer moves at once, so the turn needs no deadline while it plays.
            Turn.objects.filter(pk=turn.pk).update(deadline=None, remind_at=None, expiry_claimed_at=None)
            text = f"{seat.player_name} ran out of time; the computer plays for them until they return."
            _log(match, seat=seat, kind="timeout", text=text)
            _schedule_work(match, match.engine, match.engine_state, now=now)
            match.save(update_fields=["work_due_at"])
        if policy == Match.Timeout.FORFEIT:
            text = f"{seat.player_name} ran out of time and is out of the match."
            _take_out(
                match,
                seat,
                status=Seat.Status.FORFEITED,
                verb="runs out of time and is out",
                closed_by="timeout",
            )
        notes = notifications.notify_match_event(match=match, key=key, text=text, now=now)
        notifications.queue_send([note.pk for note in notes])
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


def _take_out(match: Match, seat: Seat, *, status: str, verb: str, closed_by: str = "resign") -> None:
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
    _record(
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


# --- internals --------------------------------------------------------------------------------------


def _lock_match(match_id: int, *, rng: bool = True) -> Match:
    """The match, its row locked until the transaction ends (every writer of a match comes here).

    ``rng=False`` leaves the random generator's state unread (several kilobytes, used only by chance
    steps and computer players): it is then deferred, and _save_if_unchanged does not write it back.
    """
    omit = () if rng else NO_RNG
    found = rows.fetch(Match, match_sql(omit=omit, lock=True), [match_key(match_id)], write=True)
    if not found:
        raise NotFound("There is no such match.")
    return rows.build(Match, found[0], write=True, omit=omit, remember=True)


def _lock_for_move(match_id: int) -> tuple[Match, list[Seat], list[tuple], list[int]]:
    """``_lock_match(match_id, rng=False)`` without the public view, the match's seats with their
    users, its open turns' rows and ids for the turns the move may open, read in one round trip
    (rows.fetch_many): the reads after the lock see what was committed before it was granted, as they
    would one by one.

    The ids come from the turns' sequence on PostgreSQL, one per seat (no move opens more turns than
    that), so that a move's writes need not wait for a new turn's id: they go in one round trip. On
    SQLite there are none, and a new turn is inserted on its own to learn its id."""
    key = match_key(match_id)
    queries = [
        (match_sql(omit=MOVE_OMITS, lock=True), [key]),
        (seats_sql(hands=False, write=True), [key]),
        (open_turns_sql(write=True), [key]),
    ]
    ids_sql = _new_turn_ids_sql()
    if ids_sql:
        queries.append((ids_sql, [key]))
    found, seat_rows, turn_rows, *ids = rows.fetch_many(Match, queries, write=True)
    if not found:
        raise NotFound("There is no such match.")
    match = rows.build(Match, found[0], write=True, omit=MOVE_OMITS, remember=True)
    return match, _seats_built(seat_rows), turn_rows, [row[0] for row in ids[0]] if ids else []


# A move reads neither the random generator nor the public view, which it replaces (_store_state).
MOVE_OMITS = (*NO_RNG, "public_view")


@cache
def _new_turn_ids_sql() -> str | None:
    """One new id from the turns' sequence per seat of the match given as the parameter (PostgreSQL
    only: None elsewhere). Ids taken and not used are gaps, as a rolled-back insert leaves."""
    connection = rows.connection_for(Turn, write=True)
    if connection.vendor != "postgresql":
        return None
    quote = connection.ops.quote_name
    sequence = f"pg_get_serial_sequence('{rows.table(Turn)}', '{Turn._meta.pk.column}')"
    return (
        f"SELECT nextval({sequence}) FROM generate_series(1, "  # nosec B608
        f"(SELECT m.{quote('seat_count')} FROM {rows.table(Match)} m WHERE m.{quote('id')} = %s))"
    )


def _seats_with_users(match: Match) -> list[Seat]:
    """The match's seats in order, each with its user (None for a computer's seat), in one query: what
    ``match.seats.select_related("user")`` reads."""
    return _seats_built(rows.fetch(Seat, seats_sql(hands=False, write=True), [match.pk], write=True))


def _seats_built(found: list[tuple]) -> list[Seat]:
    return [seat_built(row, hands=False, write=True) for row in found]


def _playing_seat(match: Match, user: AbstractBaseUser, *, seats: list[Seat] | None = None) -> Seat:
    if not user.is_authenticated:
        raise Forbidden("Log in to play.")
    if seats is None:
        seat = match.seats.filter(user=user).first()
    else:
        seat = next((seat for seat in seats if seat.user_id == user.pk), None)
    if seat is None:
        raise Forbidden("You are not playing in this match.")
    if seat.status != Seat.Status.PLAYING:
        raise Forbidden("You are no longer playing in this match.")
    return seat


def _next_seq(match: Match) -> int:
    """The seq of the match's next log line; the caller stores ``match`` (or its ``log_length``)."""
    match.log_length += 1
    return match.log_length


def _log(match: Match, *, seat: Seat | None, kind: str, text: str) -> Move:
    """A log line that changes nothing on the board (a vacation day, a computer taking over): the
    version stays, so nobody's open page goes stale."""
    event = Event(kind=kind, text=text, data={"seat": seat.position if seat else None})
    line = Move.objects.create(
        match=match,
        seq=_next_seq(match),
        seat=seat,
        move=None,
        notation="",
        events=[event.to_dict()],
        state_after=match.engine_state,
    )
    Match.objects.filter(pk=match.pk).update(log_length=match.log_length)
    return line


def _record(
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
    turn_rows: list[tuple] | None = None,
    turn_ids: list[int] | None = None,
    last: bool = False,
) -> Move:
    """Append the move, store the new position, bump the version, move the turns on.

    ``seats`` are the match's seats with their users, ``turn_rows`` the rows of its open turns and
    ``turn_ids`` ids for new turns, when the caller has read them already under the match's lock. The
    writes go out in as few round trips as their ids allow (rows.Writes): on an ordinary move with
    ``turn_ids``, one; without, one up to the new turn and one after. ``last`` says that the caller's
    transaction commits right after: the writes may then go with its COMMIT (rows.Writes.flush_at_commit),
    and the move's id is known only once it has committed.
    """
    now = timezone.now()
    if state is None:
        state = match.engine_state
    seen = match.version
    match.version += 1
    # Asked of the position the move was made in, which match still holds until _store_state.
    sealed = (
        engine.move_visible_to(match.engine_state, seat.position, move)
        if move is not None and seat is not None
        else None
    )
    logged = Move(
        match=match,
        seq=_next_seq(match),
        seat=seat,
        move=move,
        notation=notation,
        notation_visible_to=None if sealed is None else sorted(sealed),
        events=[event.to_dict() for event in events],
        state_after=state,
    )
    writes = rows.Writes(Match)
    writes.insert(logged)
    _store_state(match, engine, state)
    if _has_secrets(engine):
        writes.flush()  # the hands are read and written through the ORM
        for hand in HiddenHand.objects.filter(seat__match=match).select_related("seat"):
            data = engine.private_view(state, hand.seat.position)
            if data != hand.data:
                hand.data = data
                hand.save(update_fields=["data", "updated_at"])
    if force_end or engine.is_over(state):
        _finish(match, engine, state, now=now, seats=seats, writes=writes)
        match.work_due_at = None
    else:
        # One read of the seats serves the turns and the automatic work.
        if seats is None:
            seats = _seats_with_users(match)
        _sync_turns(
            match,
            engine,
            state,
            now=now,
            mover=seat,
            closed_by=closed_by,
            seats=seats,
            turn_rows=turn_rows,
            turn_ids=turn_ids,
            writes=writes,
        )
        _schedule_work(match, engine, state, now=now, seats=seats)
    _save_if_unchanged(match, seen=seen, now=now, writes=writes)
    if last:
        writes.flush_at_commit()
    else:
        writes.flush()
    return logged


def _save_if_unchanged(match: Match, *, seen: int, now: datetime, writes: rows.Writes | None = None) -> None:
    """Store the fields of ``match`` that changed, provided its row is still at version ``seen``.

    This conditional update is the real guard: it refuses a second writer even where the database
    ignores SELECT ... FOR UPDATE (SQLite); the transaction then rolls back all the move wrote.
    Given ``writes``, the update is held there and the refusal comes with its flush.
    """
    match.updated_at = now
    values = rows.changed(match, _MATCH_FIELDS)  # a move changes a few of its many columns

    refusal = Conflict("The game has moved on since you loaded the page; nothing was played.")
    held = writes or rows.Writes(Match)
    held.update(Match, values=values, where={"id": match.pk, "version": seen}, refusal=refusal)
    if writes is None:
        held.flush()


_MATCH_FIELDS = [field for field in Match._meta.concrete_fields if not field.primary_key]


def _has_secrets(engine: Engine) -> bool:
    """Whether any seat of this game may know something the others may not (a hand, a sealed bid)."""
    return type(engine).private_view is not Engine.private_view


def _store_state(match: Match, engine: Engine, state: dict[str, Any]) -> None:
    match.engine_state = state
    match.public_view = engine.public_view(state)


def _clock_rules(match: Match) -> ClockRules:
    return ClockRules(
        move_time=match.move_time_limit,
        bank_increment=match.bank_increment,
        bank_max=match.bank_max,
        pause_weekends=match.pause_weekends,
    )


def _zone(seat: Seat) -> ZoneInfo:
    return ZoneInfo(seat.user.time_zone if seat.user_id else "UTC")


def _sync_turns(
    match: Match,
    engine: Engine,
    state: dict[str, Any],
    *,
    now: datetime,
    mover: Seat | None = None,
    closed_by: str = "move",
    seats: list[Seat] | None = None,
    turn_rows: list[tuple] | None = None,
    turn_ids: list[int] | None = None,
    writes: rows.Writes | None = None,
) -> None:
    """Close the turns of seats no longer awaited; open one, with its deadline, per newly awaited seat.

    The mover's reserve is settled against the time its turn took. New turns take their ids from
    ``turn_ids`` while it lasts (it is used up); otherwise each is inserted at once to learn its id.
    Given ``writes``, what comes after the last new turn is left there for the caller to flush.
    """
    own = writes is None
    held = writes or rows.Writes(Turn)
    actors = engine.actors(state)
    rules = _clock_rules(match)
    if seats is None:
        seats = _seats_with_users(match)
    by_id = {seat.pk: seat for seat in seats}
    if turn_rows is None:
        turn_rows = rows.fetch(Turn, open_turns_sql(write=True), [match.pk], write=True)
    open_turns = {}
    for row in turn_rows:
        turn = rows.build(Turn, row, write=True)
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
        held.update(Turn, values={"closed_at": now, "closed_by": turn.closed_by}, where={"id": turn.pk})
        if moved and closed_by == "move" and turn.seat.bank is not None:
            bank = bank_after_move(turn.started_at, now, rules, bank=turn.seat.bank, tz=_zone(turn.seat))
            held.update(Seat, values={"bank": bank}, where={"id": mover.pk})
    notes: list[Notification] = []
    awaited = actors - set(open_turns)
    for seat in sorted((seat for seat in seats if seat.position in awaited), key=lambda seat: seat.position):
        automatic = bool(seat.bot or seat.autopilot)
        deadline = None if automatic else deadline_for(now, rules, bank=seat.bank, tz=_zone(seat))
        reminder = (
            reminder_schedule(deadline, seat.user.reminder_hours, now=now)
            if seat.user_id and deadline
            else None
        )
        turn = Turn(
            match=match,
            seat=seat,
            number=match.version,
            started_at=now,
            deadline=deadline,
            remind_at=reminder[0] if reminder else None,
            remind_lead=reminder[1] if reminder else None,
        )
        if turn_ids:
            turn.pk = turn_ids.pop(0)
            held.insert(turn)
        else:
            held.insert(turn)
            held.flush()  # the turn's id is in its e-mail's key
        note = notifications.notify_turn_started(turn=turn, now=now, writes=held)
        if note is not None:
            notes.append(note)
    if notes:
        notifications.queue_send_held(notes)
    if own:
        held.flush()


def _schedule_work(
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
    if match.status != Match.Status.ACTIVE or match.paused_at is not None:
        return []  # a paused match owes nothing until it resumes
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


def _finish(
    match: Match,
    engine: Engine,
    state: dict[str, Any],
    *,
    now: datetime,
    seats: list[Seat] | None = None,
    writes: rows.Writes | None = None,
) -> None:
    """Score and rank the seats, close the open turns, mark the match finished (the caller stores it)
    and tell the receivers (ratings, leagues), after flushing ``writes`` with the seats' results."""
    if seats is None:
        seats = list(match.seats.all())
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
    held = writes or rows.Writes(Match)
    for seat in seats:
        held.update(Seat, values={"score": seat.score, "rank": seat.rank}, where={"id": seat.pk})
    held.update(
        Turn, values={"closed_at": now, "closed_by": "end"}, where={"match_id": match.pk, "closed_at": None}
    )
    held.flush()  # the receivers read the seats' results
    match.status = Match.Status.FINISHED
    match.finished_at = now
    match.result_text = _result_text(playing, scores)
    signals.match_finished.send(sender=Match, match=match)


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


# --- moderation ---------------------------------------------------------------------------------------
# What a moderator changes in a match. moderation/services.py checks who may and keeps the record of
# each action; here the change happens under the match's row lock, with its public line in the match log
# (the ``reason`` is shown to the players, so it is the public one).

# Log lines that record something without changing the position (see _log).
LOG_ONLY_KINDS = frozenset({"vacation", "timeout", "moderation"})
MAX_EXTENSION = timedelta(days=30)


def match_pause(*, match_id: int, reason: str, now: datetime | None = None) -> Move:
    """Stop the clocks and all play: no move, no chance step, no computer move, no expiry or reminder."""
    now = now or timezone.now()
    with transaction.atomic():
        match = _lock_match(match_id)
        if match.status != Match.Status.ACTIVE:
            raise Conflict("Only a match in play can be paused.")
        if match.paused_at is not None:
            raise Conflict("This match is paused already.")
        # Reminders are planned again from the shifted deadlines on resume; the sweep leaves the
        # expiries of a paused match alone.
        match.turns.filter(closed_at__isnull=True).update(remind_at=None, remind_lead=None)
        line = _log(match, seat=None, kind="moderation", text=f"A moderator paused the match: {reason}")
        Match.objects.filter(pk=match.pk).update(paused_at=now, work_due_at=None, updated_at=now)
        match.paused_at, match.work_due_at = now, None
    return line


def match_resume(*, match_id: int, reason: str, now: datetime | None = None) -> Move:
    """Start the clocks again: every open turn gets back the time the pause held it."""
    now = now or timezone.now()
    with transaction.atomic():
        match = _lock_match(match_id)
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
        line = _log(match, seat=None, kind="moderation", text=f"A moderator resumed the match: {reason}")
        _schedule_work(match, match.engine, match.engine_state, now=now)
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
        match = _lock_match(match_id)
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
        return _log(match, seat=seat, kind="moderation", text=text)


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
        match = _lock_match(match_id)
        if match.status != Match.Status.ACTIVE:
            raise Conflict("Only a seat in a match in play can be handed over.")
        seat = _seat_at(match, position)
        if user is not None and match.seats.filter(user=user).exists():
            raise Conflict(f"{user.username} already has a seat in this match.")
        before = seat.player_name
        seat.user, seat.bot = user, bot
        seat.autopilot = False
        seat.last_seen_at = None
        seat.save(update_fields=["user", "bot", "autopilot", "last_seen_at"])
        match.turns.filter(seat=seat, closed_at__isnull=True).update(closed_at=now, closed_by="moderator")
        text = f"A moderator handed {before}'s seat to {seat.player_name}: {reason}"
        line = _log(match, seat=seat, kind="moderation", text=text)
        seats = _seats_with_users(match)
        _sync_turns(match, match.engine, match.engine_state, now=now, seats=seats)
        _schedule_work(match, match.engine, match.engine_state, now=now, seats=seats)
        Match.objects.filter(pk=match.pk).update(work_due_at=match.work_due_at, updated_at=now)
    return line


def seat_remove(*, match_id: int, position: int, reason: str) -> Move:
    """Put a player out of the match as a forfeit (they rank last); the others play on if they can."""
    with transaction.atomic():
        match = _lock_match(match_id)
        if match.status != Match.Status.ACTIVE:
            raise Conflict("Only a player in a match in play can be removed.")
        seat = _seat_at(match, position)
        text = f"A moderator removed {seat.player_name} from the match: {reason}"
        line = _log(match, seat=seat, kind="moderation", text=text)
        _take_out(match, seat, status=Seat.Status.FORFEITED, verb="forfeits", closed_by="moderator")
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
        match = _lock_match(match_id)
        engine = match.engine
        if match.status not in (Match.Status.ACTIVE, Match.Status.FINISHED):
            raise Conflict("Only a match in play or finished can have its last move taken back.")
        target = None
        for line in match.moves.order_by("-seq").defer("state_after"):
            if not _log_only(line):
                target = line
                break
        if target is None:
            raise Conflict("There is no move to take back.")
        if target.move is None or target.seat_id is None:
            raise Conflict(
                "The last change to the position is not a player's move (a chance step, a skipped turn "
                "or a player leaving), so there is no move to take back."
            )
        if match.status == Match.Status.FINISHED and not engine.is_over(match.engine_state):
            raise Conflict("This match was ended by a moderator or by players leaving, not by its last move.")
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
        _store_state(match, engine, state)
        for hand in HiddenHand.objects.filter(seat__match=match).select_related("seat"):
            data = engine.private_view(state, hand.seat.position)
            if data != hand.data:
                hand.data = data
                hand.save(update_fields=["data", "updated_at"])
        # The log lines after it recorded no change: the position as of them is the restored one.
        match.moves.filter(seq__gt=target.seq).update(state_after=state)
        text = f"A moderator took back {seat.player_name}'s move {notation}: {reason}"
        line = _log(match, seat=seat, kind="moderation", text=text)
        seats = _seats_with_users(match)
        _sync_turns(match, engine, state, now=now, seats=seats)
        _schedule_work(match, engine, state, now=now, seats=seats)
        _save_if_unchanged(match, seen=seen, now=now)
        if voided:
            signals.match_voided.send(sender=Match, match=match)
    return line


def match_adjudicate(*, match_id: int, ranks: list[int], reason: str, now: datetime | None = None) -> Move:
    """End the match with the given result: ``ranks[position]`` is each seat's place (1 is first,
    equal ranks tie). A finished match's earlier result is voided first."""
    now = now or timezone.now()
    with transaction.atomic():
        match = _lock_match(match_id)
        if match.status not in (Match.Status.ACTIVE, Match.Status.FINISHED):
            raise Conflict("Only a match in play or finished can be adjudicated.")
        seats = _seats_with_users(match)
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
        match = _lock_match(match_id)
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
        match = _lock_match(match_id)
        return _log_any(match, seat=None, text=text)


def _end_by_moderator(match: Match, *, status: str, text: str, now: datetime) -> Move:
    seen = match.version
    match.version += 1
    match.status = status
    match.finished_at = match.finished_at or now
    match.paused_at = None
    match.work_due_at = None
    match.turns.filter(closed_at__isnull=True).update(closed_at=now, closed_by="end")
    line = _log_any(match, seat=None, text=text)
    _save_if_unchanged(match, seen=seen, now=now)
    return line


def _log_any(match: Match, *, seat: Seat | None, text: str) -> Move:
    """A moderator's log line, also for a match that has no position yet (still open)."""
    if match.engine_state is not None:
        return _log(match, seat=seat, kind="moderation", text=text)
    event = Event(kind="moderation", text=text, data={"seat": None})
    line = Move.objects.create(
        match=match, seq=_next_seq(match), seat=seat, events=[event.to_dict()], state_after={}
    )
    Match.objects.filter(pk=match.pk).update(log_length=match.log_length)
    return line


def _seat_at(match: Match, position: int) -> Seat:
    seat = match.seats.select_related("user").filter(position=position).first()
    if seat is None:
        raise ServiceError("There is no such seat in this match.")
    if seat.status != Seat.Status.PLAYING:
        raise Conflict(f"{seat.player_name} is no longer playing in this match.")
    return seat


def _log_only(line: Move) -> bool:
    """Whether a log line records something that did not change the position (see _log)."""
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
