"""Playing: a player's move or resignation, a chance step and a computer's move."""

from __future__ import annotations

import random
import secrets
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from games.bots import DEFAULT as DEFAULT_BOT
from games.bots import LEVELS as bot_levels
from games.bots import bot_for
from games.engines.base import IllegalMove
from games.errors import Conflict, InvalidMove, NotFound
from games.models import Match, Move, Seat, Turn
from games.services.forecasting import forecast_fire
from games.services.recording import (
    MOVED_ON,
    match_lock,
    playing_seat,
    seat_take_out,
    seats_with_users,
    step_record,
    step_rng,
    step_rng_keep,
)

PAUSED = "A moderator has paused this match: nothing can be played until it resumes."


def move_play(
    *,
    match_id: Any,
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
        match = match_lock(match_id, rng=False)
        engine = match.engine
        if match.status != Match.Status.ACTIVE:
            raise Conflict(
                "This match is not in play." if match.status == Match.Status.OPEN else "This match is over."
            )
        if match.paused_at is not None:
            raise Conflict(PAUSED)
        seats = seats_with_users(match)
        seat = playing_seat(match, user, seats=seats)
        if expected_version != match.version and not _awaited_since(match, seat, expected_version):
            raise Conflict(f"{MOVED_ON} Look at the board again.")
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
        seen = match.version
        played = step_record(
            match,
            engine,
            new_state,
            events,
            seat=seat,
            move=move,
            notation=engine.format_move(move),
            seats=seats,
        )
        # The opponent's planned reply, if this move is one it planned for: played at once, in this
        # transaction, so a repeated send of the same move finds the match moved on and plays nothing.
        forecast_fire(match, engine, mover=seat, seen=seen, notation=played.notation, seats=seats)
        return played


def _awaited_since(match: Match, seat: Seat, version: int) -> bool:
    """Whether ``seat`` has been asked for this move since ``version``, an earlier version than now: its
    open turn began at or before it. What happened since was then other seats acting beside it (sealed
    orders, bids: each acts for itself), which changes nothing the seat's move depends on; the engine
    still checks the move against the position as it is now. A turn closed and opened again since (the
    seat moved, or the position was taken back) makes the page stale."""
    return (
        version < match.version
        and Turn.objects.filter(match=match, seat=seat, closed_at__isnull=True, number__lte=version).exists()
    )


def match_resign(*, match_id: Any, user: AbstractBaseUser) -> Match:
    """The user's seat gives up: it ranks last; the others play on when the game allows it."""
    with transaction.atomic():
        match = match_lock(match_id)
        if match.status != Match.Status.ACTIVE:
            raise Conflict("Only a match in play can be resigned.")
        if match.paused_at is not None:
            raise Conflict(PAUSED)
        seat = playing_seat(match, user, seats=seats_with_users(match))
        seat_take_out(match, seat, status=Seat.Status.RESIGNED, verb="resigns")
    return match


def chance_resolve(*, match_id: int, version: int) -> Move | None:
    """Perform the pending chance step, drawing from the match's next numbered random step; a stale or
    repeated call does nothing."""
    with transaction.atomic():
        match = match_lock(match_id)
        engine = match.engine
        state = match.engine_state
        if (
            match.status != Match.Status.ACTIVE
            or match.paused_at is not None
            or match.version != version
            or not engine.chance_pending(state)
        ):
            return None
        rng, step = step_rng(match)
        new_state, events = engine.resolve_chance(state, rng)
        step_rng_keep(match, rng)
        return step_record(
            match, engine, new_state, events, seat=None, move=None, notation="", chance_step=step
        )


def bot_move(*, match_id: int, version: int, position: int) -> Move | None:
    """A computer's move for a bot seat (its own kind), or for a seat on autopilot after a timeout
    (the default kind).

    A computer's choice is not chance: it draws from a generator of its own, never from the match's
    streams, so that those stay a function of the seed and the step number alone.

    The bot thinks before the transaction, on the position at ``version``: up to a few seconds of search
    must not hold the match's row lock (on SQLite, the whole database's write lock). The move is stored
    only if, under the lock, the match is still at that version and the seat still the computer's;
    otherwise nothing happens and the work queued for the new position thinks again.
    """
    snapshot = Match.objects.defer("rng_state", "seed").filter(pk=match_id).first()
    if snapshot is None:
        raise NotFound("There is no such match.")
    planned = _bot_seat(snapshot, version, position)
    if planned is None:
        return None
    engine = snapshot.engine
    state = snapshot.engine_state
    rng = random.Random(secrets.randbits(128))
    # A kind no longer offered (an old seat) plays at the default strength rather than never moving.
    kind = planned.bot if planned.bot in bot_levels else DEFAULT_BOT
    move = bot_for(kind).choose(engine, state, position, rng)
    with transaction.atomic():
        match = match_lock(match_id, rng=False)
        seat = _bot_seat(match, version, position)
        if seat is None:
            return None
        new_state, events = engine.apply(state, position, move)
        notation = engine.format_move(move)
        seats = seats_with_users(match)
        played = step_record(
            match, engine, new_state, events, seat=seat, move=move, notation=notation, seats=seats
        )
        forecast_fire(match, engine, mover=seat, seen=version, notation=played.notation, seats=seats)
        return played


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
