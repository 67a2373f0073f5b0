"""Conditional moves ("forecasts"): lines of "if they play X, I reply Y", several deep, that a player
queues while the opponent is to move. When the opponent's move is the first move of a line, the reply is
played at once, in the same transaction as that move, and the plan keeps the rest of the lines that
began so.

Offered only where a reply follows a plain move: two-seat matches of games that say so
(``Engine.forecasts``) and keep no secrets. A plan belongs to the match version it was made at: any
other change of the position (a timeout, a moderator's rollback) voids it, and a void plan is never
played nor shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from games.engines.base import Engine, IllegalMove
from games.errors import Conflict, Forbidden, InvalidMove, NotFound
from games.models import Forecast, Match, Move, Seat, match_key
from games.services.recording import (
    has_secrets,
    log_line,
    match_lock,
    playing_seat,
    seats_with_users,
    step_record,
)

MAX_LINES = 10
MAX_DEPTH = 8  # moves in a line, the opponent's and the owner's


@dataclass(frozen=True)
class ForecastPosition:
    """The position after a line being planned: who is to move there (None when nobody may: the game is
    over, or it is not one seat alone), and the line in canonical notation. ``state`` is server-only."""

    engine: Engine
    state: dict[str, Any]
    line: list[str]
    to_move: int | None
    owner: Seat
    opponent: Seat

    @property
    def owner_to_move(self) -> bool:
        return self.to_move is not None and self.to_move == self.owner.position


def forecasts_offered(match: Match) -> bool:
    """Whether the match's players may plan conditional moves at all (at some point of the match)."""
    engine = match.engine
    return engine.forecasts and not has_secrets(engine) and match.seat_count == 2


def forecast_save(
    *,
    match_id: Any,
    user: AbstractBaseUser,
    lines: Any,
    expected_version: int | None = None,
) -> Forecast | None:
    """Replace the user's plan with ``lines`` (lists of notations: the opponent's move, the user's reply,
    and so on), each checked on the position as it is; no lines: no plan. With ``expected_version``, a
    match that has moved on since is refused, like a stale move."""
    with transaction.atomic():
        match = match_lock(match_id, rng=False)
        engine = match.engine
        owner, opponent = _plan_seats(match, user)
        if expected_version is not None and expected_version != match.version:
            raise Conflict("The game has moved on since you loaded the page; nothing was saved.")
        state = match.engine_state
        _check_opponent_to_move(engine, state, opponent)
        cleaned = _lines_checked(engine, state, lines, owner=owner.position, opponent=opponent.position)
        if not cleaned:
            Forecast.objects.filter(seat=owner).delete()
            return None
        forecast, _ = Forecast.objects.update_or_create(
            seat=owner, defaults={"version": match.version, "lines": cleaned}
        )
        return forecast


def forecast_clear(*, match_id: Any, user: AbstractBaseUser) -> bool:
    """Delete the user's plan in the match, whatever it holds; whether there was one."""
    with transaction.atomic():
        # Under the match's lock: a clear and the opponent's move that would fire the plan never cross.
        match = match_lock(match_id, rng=False)
        if not user.is_authenticated:
            raise Forbidden("Log in to plan conditional moves.")
        seat = match.seats.filter(user_id=user.pk).first()
        if seat is None:
            raise Forbidden("You are not playing in this match.")
        deleted, _ = Forecast.objects.filter(seat=seat).delete()
        return deleted > 0


def forecast_position(*, match_id: Any, user: AbstractBaseUser, line: Sequence[Any]) -> ForecastPosition:
    """The position after ``line`` (checked as a plan's line is, though it may end on the opponent's
    move), for drawing the board on which the next move of the line is chosen. Changes nothing."""
    match = Match.objects.defer("rng_state", "seed").filter(pk=match_key(match_id)).first()
    if match is None:
        raise NotFound("There is no such match.")
    engine = match.engine
    owner, opponent = _plan_seats(match, user)
    state = match.engine_state
    _check_opponent_to_move(engine, state, opponent)
    texts = _line_texts(line, where="The line")
    if len(texts) > MAX_DEPTH:
        raise InvalidMove(f"A line has at most {MAX_DEPTH} moves.")
    state, canonical = _walk(engine, state, texts, owner=owner.position, opponent=opponent.position, where="")
    actors = engine.actors(state)
    alone = len(actors) == 1 and not engine.chance_pending(state) and not engine.is_over(state)
    return ForecastPosition(
        engine=engine,
        state=state,
        line=canonical,
        to_move=next(iter(actors)) if alone else None,
        owner=owner,
        opponent=opponent,
    )


def forecast_fire(
    match: Match, engine: Engine, *, mover: Seat, seen: int, notation: str, seats: list[Seat]
) -> Move | None:
    """After ``mover``'s move (made at version ``seen`` and recorded, the match still locked): play the
    other seat's planned reply if a line of its plan begins with that move, and keep the rest of those
    lines; drop a plan that nothing matched or that was made for another position. The reply's Move, if
    one was played."""
    if not forecasts_offered(match):
        return None
    plan = None
    for forecast in Forecast.objects.filter(seat__match=match):
        # The mover's own plan, or one made at another version, is for a position that is gone.
        if forecast.seat_id == mover.pk or forecast.version != seen:
            forecast.delete()
        else:
            plan = forecast
    if plan is None:
        return None
    matched = [line for line in plan.lines if len(line) >= 2 and line[0] == notation]
    owner = next((seat for seat in seats if seat.pk == plan.seat_id), None)
    state = match.engine_state
    if (
        not matched
        or owner is None
        or owner.status != Seat.Status.PLAYING
        or match.status != Match.Status.ACTIVE
        or match.paused_at is not None
        or engine.chance_pending(state)
        or engine.actors(state) != frozenset({owner.position})
    ):
        plan.delete()
        return None
    try:
        move = engine.parse_move(matched[0][1])
        new_state, events = engine.apply(state, owner.position, move)
    except IllegalMove:
        # Checked on this very position when it was saved; kept safe should a game's rules change.
        plan.delete()
        return None
    reply = step_record(
        match,
        engine,
        new_state,
        events,
        seat=owner,
        move=move,
        notation=engine.format_move(move),
        seats=seats,
    )
    # A line of its own rather than an event of the move's: a record's move lines hold the game's own
    # events only. The last line of the log is what the opponent's "your move" e-mail quotes.
    log_line(
        match,
        seat=owner,
        kind="forecast",
        text=f"{owner.player_name}'s move {reply.notation} was a conditional move, planned in advance.",
    )
    rest = _unique([line[2:] for line in matched if len(line) > 2])
    if rest and match.status == Match.Status.ACTIVE:
        plan.version = match.version
        plan.lines = rest
        plan.save(update_fields=["version", "lines", "updated_at"])
    else:
        plan.delete()
    return reply


# --- checking -----------------------------------------------------------------------------------------


def _plan_seats(match: Match, user: AbstractBaseUser) -> tuple[Seat, Seat]:
    """The user's seat and the opponent's, if this match offers conditional moves to the user now."""
    engine = match.engine
    if not engine.forecasts or has_secrets(engine):
        raise InvalidMove(f"{engine.title} does not offer conditional moves.")
    if match.seat_count != 2:
        raise InvalidMove("Conditional moves are for matches of two players.")
    seats = seats_with_users(match)
    owner = playing_seat(match, user, seats=seats)
    if match.status != Match.Status.ACTIVE:
        raise Conflict(
            "This match is not in play." if match.status == Match.Status.OPEN else "This match is over."
        )
    opponent = next(seat for seat in seats if seat.pk != owner.pk)
    if opponent.status != Seat.Status.PLAYING:
        raise Conflict("Your opponent is no longer playing: there is nothing to plan.")
    return owner, opponent


def _check_opponent_to_move(engine: Engine, state: dict[str, Any], opponent: Seat) -> None:
    if engine.chance_pending(state) or engine.actors(state) != frozenset({opponent.position}):
        raise Conflict(
            "Conditional moves are planned while your opponent is to move: play your own move first."
        )


def _line_texts(line: Any, *, where: str) -> list[str]:
    if not isinstance(line, list | tuple) or not all(isinstance(text, str) for text in line):
        raise InvalidMove(f"{where}: give its moves as a list of moves in notation.")
    return list(line)


def _lines_checked(
    engine: Engine, state: dict[str, Any], lines: Any, *, owner: int, opponent: int
) -> list[list[str]]:
    """The lines in canonical notation, each played out on ``state``; duplicates dropped. Refused, with
    the line and move named, when a move is not legal then, the seats would not alternate, or two lines
    answer the same move differently."""
    if not isinstance(lines, list | tuple):
        raise InvalidMove("Give the lines as a list, each a list of moves in notation.")
    if len(lines) > MAX_LINES:
        raise InvalidMove(f"At most {MAX_LINES} lines can be planned; that is {len(lines)}.")
    cleaned: list[list[str]] = []
    for number, raw in enumerate(lines, start=1):
        where = f"Line {number}"
        texts = _line_texts(raw, where=where)
        if not texts:
            raise InvalidMove(f"{where} is empty: give your opponent's move and your reply.")
        if len(texts) > MAX_DEPTH:
            raise InvalidMove(
                f"{where} has {len(texts)} moves; a line has at most {MAX_DEPTH} (your opponent's and yours)."
            )
        _, line = _walk(engine, state, texts, owner=owner, opponent=opponent, where=f"{where}, ")
        if len(line) % 2:
            raise InvalidMove(f"{where} ends with your opponent's move {line[-1]}: add your reply to it.")
        cleaned.append(line)
    cleaned = _unique(cleaned)
    replies: dict[tuple[str, ...], str] = {}
    for line in cleaned:
        for index in range(0, len(line), 2):
            asked = tuple(line[: index + 1])
            if replies.setdefault(asked, line[index + 1]) != line[index + 1]:
                raise InvalidMove(
                    f"Two lines answer your opponent's {line[index]} with different replies "
                    f"({replies[asked]} and {line[index + 1]}): keep one."
                )
    return cleaned


def _walk(
    engine: Engine, state: dict[str, Any], texts: list[str], *, owner: int, opponent: int, where: str
) -> tuple[dict[str, Any], list[str]]:
    """Play ``texts`` from ``state``, the opponent first, then the owner, in turn; the position reached
    and the moves in canonical notation. Each move must be legal for the seat alone to move then."""
    line: list[str] = []
    for index, text in enumerate(texts):
        seat = opponent if index % 2 == 0 else owner
        step = f"{where}move {index + 1}"
        step = step[0].upper() + step[1:]
        if engine.is_over(state):
            raise InvalidMove(f"{step}: the game is over by then.")
        actors = engine.actors(state)
        if engine.chance_pending(state) or actors != frozenset({seat}):
            who = "your opponent" if seat == opponent else "you"
            raise InvalidMove(
                f"{step}: it would not be {who} alone to move then; a line alternates your opponent's "
                "moves and your replies."
            )
        try:
            move = engine.parse_move(text)
        except IllegalMove as exc:
            raise InvalidMove(f"{step}: {exc}") from None
        notation = engine.format_move(move)
        try:
            state, _ = engine.apply(state, seat, move)
        except IllegalMove as exc:
            raise InvalidMove(f"{step} ({notation}): {exc}") from None
        line.append(notation)
    return state, line


def _unique(lines: list[list[str]]) -> list[list[str]]:
    seen: set[tuple[str, ...]] = set()
    kept = []
    for line in lines:
        if tuple(line) not in seen:
            seen.add(tuple(line))
            kept.append(line)
    return kept
