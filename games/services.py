"""Every write to matches goes through here: the web views, the API and the tasks call the same code."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from games.engines import registry
from games.engines.base import Engine, Event, IllegalMove
from games.errors import Conflict, Forbidden, InvalidMove, NotFound, ServiceError
from games.models import HiddenHand, Match, Move, Seat, Turn
from games.rng import rng_dump, rng_new

log = logging.getLogger(__name__)

MAX_MOVE_TIME_LIMIT = timedelta(days=30)


# --- creating and joining ---------------------------------------------------------------------------


def match_create(
    *,
    creator: AbstractBaseUser,
    game: str,
    seat_count: int,
    options: dict[str, str] | None = None,
    name: str = "",
    move_time_limit: timedelta | None = None,
) -> Match:
    """Open a match with the creator in the first seat; it starts when every seat is taken."""
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
    name = name.strip()
    if len(name) > 80:
        raise ServiceError("A match name has at most 80 characters.")
    with transaction.atomic():
        match = Match.objects.create(
            game=game,
            name=name,
            options=resolved,
            seat_count=seat_count,
            created_by=creator,
            move_time_limit=move_time_limit,
        )
        Seat.objects.create(match=match, position=0, user=creator)
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
    """Give up a seat before the match starts; a match nobody sits at is abandoned."""
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
        if not match.seats.exists():
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
    for seat in match.seats.all():
        HiddenHand.objects.update_or_create(
            seat=seat, defaults={"data": engine.private_view(state, seat.position)}
        )
    _sync_turns(match, engine, state, now=now)


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
        match = _lock_match(match_id)
        engine = match.engine
        if match.status != Match.Status.ACTIVE:
            raise Conflict(
                "This match is not in play." if match.status == Match.Status.OPEN else "This match is over."
            )
        seat = _playing_seat(match, user)
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
            match, engine, new_state, events, seat=seat, move=move, notation=engine.format_move(move)
        )


def match_resign(*, match_id: int, user: AbstractBaseUser) -> Match:
    """The user's seat gives up: it ranks last; the others play on when the game allows it."""
    with transaction.atomic():
        match = _lock_match(match_id)
        if match.status != Match.Status.ACTIVE:
            raise Conflict("Only a match in play can be resigned.")
        seat = _playing_seat(match, user)
        seat.status = Seat.Status.RESIGNED
        seat.save(update_fields=["status"])
        _take_out(match, seat, verb="resigns")
    return match


def _take_out(match: Match, seat: Seat, *, verb: str) -> None:
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
        notation=verb,
        force_end=state is None or still_playing < 2,
    )


# --- internals --------------------------------------------------------------------------------------


def _lock_match(match_id: int) -> Match:
    try:
        return Match.objects.select_for_update().get(pk=match_id)
    except (Match.DoesNotExist, ValueError, TypeError):
        raise NotFound("There is no such match.") from None


def _playing_seat(match: Match, user: AbstractBaseUser) -> Seat:
    if not user.is_authenticated:
        raise Forbidden("Log in to play.")
    seat = match.seats.filter(user=user).first()
    if seat is None:
        raise Forbidden("You are not playing in this match.")
    if seat.status != Seat.Status.PLAYING:
        raise Forbidden("You are no longer playing in this match.")
    return seat


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
) -> Move:
    """Append the move, store the new position, bump the version, move the turns on."""
    now = timezone.now()
    if state is None:
        state = match.engine_state
    # The conditional update is the real guard: it refuses a second writer even where the database
    # ignores SELECT ... FOR UPDATE (SQLite).
    updated = Match.objects.filter(pk=match.pk, version=match.version).update(version=F("version") + 1)
    if updated != 1:
        raise Conflict("The game has moved on since you loaded the page; nothing was played.")
    match.version += 1
    logged = Move.objects.create(
        match=match,
        seq=match.version,
        seat=seat,
        move=move,
        notation=notation,
        events=[event.to_dict() for event in events],
        state_after=state,
    )
    _store_state(match, engine, state)
    for hand in HiddenHand.objects.filter(seat__match=match).select_related("seat"):
        data = engine.private_view(state, hand.seat.position)
        if data != hand.data:
            hand.data = data
            hand.save(update_fields=["data", "updated_at"])
    if force_end or engine.is_over(state):
        _finish(match, engine, state, now=now)
    else:
        _sync_turns(match, engine, state, now=now)
    match.save()
    return logged


def _store_state(match: Match, engine: Engine, state: dict[str, Any]) -> None:
    match.engine_state = state
    match.public_view = engine.public_view(state)


def _sync_turns(match: Match, engine: Engine, state: dict[str, Any], *, now) -> None:
    """Close the turns of seats no longer awaited; open one for each newly awaited seat."""
    actors = engine.actors(state)
    open_turns = {
        turn.seat.position: turn for turn in match.turns.filter(closed_at__isnull=True).select_related("seat")
    }
    for position, turn in open_turns.items():
        if position not in actors:
            turn.closed_at = now
            turn.save(update_fields=["closed_at"])
    seats = {seat.position: seat for seat in match.seats.all()}
    for position in sorted(actors - set(open_turns)):
        deadline = now + match.move_time_limit if match.move_time_limit else None
        Turn.objects.create(
            match=match, seat=seats[position], number=match.version, started_at=now, deadline=deadline
        )


def _finish(match: Match, engine: Engine, state: dict[str, Any], *, now) -> None:
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
    Seat.objects.bulk_update(seats, ["score", "rank"])
    match.status = Match.Status.FINISHED
    match.finished_at = now
    match.result_text = _result_text(playing, scores)
    match.turns.filter(closed_at__isnull=True).update(closed_at=now)


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
