"""Takebacks by consent: a player asks to take back their last move, the other players accept or refuse.

A move can be taken back only while nothing has come of it that cannot be undone: no dice were rolled
and no cards drawn with it or since, nobody saw anything hidden because of it, and it did not complete
a step all players took together. The move stays in the log; a takeback line after it restores the
position before it. Off in rated matches unless their creator allowed it.

A request is open until every other player with a person in the seat has answered (a computer opponent
accepts at once); one refusal refuses it. It lapses when the position changes before that: the request
belongs to the match's version at the time, and an open request of an older version is marked lapsed
where it is next met (asking, answering, the match page).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from games import livekeys, notifications, replies
from games.engines.base import Engine, Event
from games.errors import Conflict, Forbidden
from games.models import Match, Move, Seat, Takeback, match_key
from games.services.moderating import last_change
from games.services.recording import (
    MOVED_ON,
    has_secrets,
    match_lock,
    match_save,
    next_seq,
    playing_seat,
    position_restore,
    seats_with_users,
)

Status = Takeback.Status

PAUSED = "A moderator has paused this match: nothing can be taken back until it resumes."
NOT_ON = "This match is rated, and its creator did not allow takebacks."
NOTHING_OPEN = (
    "There is no takeback request waiting for an answer: it was answered or withdrawn, or the game moved on."
)
LAPSED = "The game has moved on since the request, so it has lapsed."
DECIDED = {
    Status.ACCEPTED: "That move has been taken back already.",
    Status.REFUSED: "That request was refused already.",
    Status.WITHDRAWN: "That request was withdrawn.",
    Status.LAPSED: LAPSED,
}


# --- asking ----------------------------------------------------------------------------------------------


def takeback_ask(
    *, match_id: Any, user: AbstractBaseUser, expected_version: int | None = None, now: datetime | None = None
) -> Takeback:
    """Ask the other players to take back the user's last move. Against computer opponents alone the
    request is accepted at once (see the module's docstring for when a move may be taken back)."""
    now = now or timezone.now()
    takebacks_lapse(match_id=match_id, now=now)
    with transaction.atomic():
        match = match_lock(match_id, rng=False)
        seats = seats_with_users(match)
        seat = playing_seat(match, user, seats=seats)
        if expected_version is not None and expected_version != match.version:
            raise Conflict(f"{MOVED_ON} Look at the board again.")
        if match.takebacks.filter(status=Status.OPEN).exists():
            raise Conflict("A takeback request is already waiting for answers in this match.")
        target, before = takeback_check(match, seat, seats=seats)
        # Computer opponents accept: they have nothing to lose by it (and play only unrated matches).
        answers = {str(other.position): True for other in _answerers(seats, seat) if not other.user_id}
        takeback = Takeback.objects.create(
            match=match, seat=seat, move=target, version=match.version, answers=answers
        )
        if _all_accepted(takeback, seats):
            _accept(match, takeback, seats=seats, before=before, now=now)
            return takeback
        _touch(match, now=now)
        notes = _notify_asked(match, takeback, seats=seats, now=now)
        notifications.queue_send(note.pk for note in notes)
    return takeback


def takeback_check(match: Match, seat: Seat, *, seats: list[Seat]) -> tuple[Move, dict[str, Any]]:
    """The move ``seat`` may ask to take back now and the position before it; Conflict saying why not.
    ``seats`` are the match's seats with their users."""
    if match.status != Match.Status.ACTIVE:
        raise Conflict("Only a move in a match in play can be taken back.")
    if match.paused_at is not None:
        raise Conflict(PAUSED)
    if not match.takebacks_on:
        raise Conflict(NOT_ON)
    target = last_change(match)
    if target is None:
        raise Conflict("There is no move to take back yet.")
    first = target.events[0].get("kind") if target.events else None
    if target.chance_step is not None or (target.move is None and target.seat_id is None):
        raise Conflict("Dice were rolled or cards drawn since that move, so it can no longer be taken back.")
    if target.move is None:
        if first == "takeback":
            raise Conflict("That move has been taken back already.")
        raise Conflict(
            "The last change to the position was not a move (a skipped turn or a player leaving), "
            "so there is no move to take back."
        )
    if target.seat_id != seat.pk:
        mover = next((other.player_name for other in seats if other.pk == target.seat_id), "another player")
        raise Conflict(f"Only your own last move can be taken back, and the last move was {mover}'s.")
    previous = match.moves.filter(seq__lt=target.seq).order_by("-seq").only("seq", "state_after").first()
    # A line from before the start (a moderator's, while the match was open) holds no position.
    if previous is None or not previous.state_after:
        raise Conflict("The first move of a match cannot be taken back.")
    before = previous.state_after
    engine = match.engine
    if engine.actors(before) != frozenset({seat.position}):
        raise Conflict("That move was made together with the other players', so it cannot be taken back.")
    if has_secrets(engine) and _revealed(engine, before, target.state_after, match, seat):
        raise Conflict("That move showed another player something hidden, so it cannot be taken back.")
    if target.takebacks.filter(status=Status.REFUSED).exists():
        raise Conflict("Taking back this move was refused already.")
    return target, before


def _revealed(engine: Engine, before: dict, after: dict, match: Match, seat: Seat) -> bool:
    """Whether the move changed what any other seat may know (a hand, a sealed choice made public)."""
    others = [p for p in range(match.seat_count) if p != seat.position]
    return any(engine.private_view(before, p) != engine.private_view(after, p) for p in others)


# --- answering -------------------------------------------------------------------------------------------


def takeback_answer(
    *,
    match_id: Any,
    user: AbstractBaseUser,
    accept: bool,
    takeback_id: int | None = None,
    version: int | None = None,
    now: datetime | None = None,
) -> Takeback:
    """The user's answer to the open request: ``takeback_id`` (the page's) or ``version`` (an e-mail's)
    names the request it answers, so an old page or e-mail cannot answer a newer one. The last
    acceptance takes the move back; one refusal refuses the request."""
    now = now or timezone.now()
    takebacks_lapse(match_id=match_id, now=now)
    with transaction.atomic():
        match = match_lock(match_id, rng=False)
        seats = seats_with_users(match)
        seat = playing_seat(match, user, seats=seats)
        takeback = _open_for(match, takeback_id=takeback_id, version=version)
        if takeback.seat_id == seat.pk:
            raise Conflict("This is your own request: you can withdraw it, not answer it.")
        key = str(seat.position)
        if key in takeback.answers:
            raise Conflict("You have answered this request already.")
        takeback.answers = {**takeback.answers, key: bool(accept)}
        if not accept:
            _decide(takeback, Status.REFUSED, now=now)
            _touch(match, now=now)
            return takeback
        if not _all_accepted(takeback, seats):
            _store_answers(takeback)
            _touch(match, now=now)
            return takeback
        asker = next(other for other in seats if other.pk == takeback.seat_id)
        target, before = takeback_check(match, asker, seats=seats)
        if target.pk != takeback.move_id:  # cannot happen at the same version; refuse rather than guess
            raise Conflict(LAPSED)
        _accept(match, takeback, seats=seats, before=before, now=now)
    return takeback


def takeback_withdraw(
    *, match_id: Any, user: AbstractBaseUser, takeback_id: int | None = None, now: datetime | None = None
) -> Takeback:
    """The asker takes their request back."""
    now = now or timezone.now()
    takebacks_lapse(match_id=match_id, now=now)
    with transaction.atomic():
        match = match_lock(match_id, rng=False)
        seat = playing_seat(match, user, seats=seats_with_users(match))
        takeback = _open_for(match, takeback_id=takeback_id, version=None)
        if takeback.seat_id != seat.pk:
            raise Forbidden("Only the player who asked can withdraw the request.")
        _decide(takeback, Status.WITHDRAWN, now=now)
        _touch(match, now=now)
    return takeback


def takebacks_lapse(*, match_id: Any, now: datetime | None = None) -> int:
    """Mark lapsed the match's open request if the position has changed since it was asked."""
    stale = Takeback.objects.filter(match_id=match_key(match_id), status=Status.OPEN).exclude(
        version=F("match__version")
    )
    return stale.update(status=Status.LAPSED, decided_at=now or timezone.now())


def _open_for(match: Match, *, takeback_id: int | None, version: int | None) -> Takeback:
    takeback = match.takebacks.filter(status=Status.OPEN).select_related("move").first()
    if takeback is None or (takeback_id is not None and takeback.pk != takeback_id):
        # Say what became of the request the page or e-mail was about, if that is the latest one.
        latest = match.takebacks.order_by("-pk").first()
        named = latest is not None and (takeback_id is None or takeback_id == latest.pk)
        if named and (version is None or version == latest.version):
            raise Conflict(DECIDED.get(latest.status, NOTHING_OPEN))
        raise Conflict(NOTHING_OPEN)
    if takeback.version != match.version or (version is not None and version != takeback.version):
        raise Conflict(LAPSED)
    if match.paused_at is not None:
        raise Conflict(PAUSED)
    return takeback


def _answerers(seats: list[Seat], asker: Seat) -> list[Seat]:
    """The seats whose consent the request needs: every other seat still playing."""
    return [seat for seat in seats if seat.pk != asker.pk and seat.status == Seat.Status.PLAYING]


def _all_accepted(takeback: Takeback, seats: list[Seat]) -> bool:
    asker = next(seat for seat in seats if seat.pk == takeback.seat_id)
    return all(takeback.answers.get(str(seat.position)) is True for seat in _answerers(seats, asker))


def _store_answers(takeback: Takeback) -> None:
    # Conditional on the request being open still: a second writer finds it decided and changes nothing.
    if Takeback.objects.filter(pk=takeback.pk, status=Status.OPEN).update(answers=takeback.answers) != 1:
        raise Conflict(NOTHING_OPEN)


def _decide(takeback: Takeback, status: str, *, now: datetime) -> None:
    updated = Takeback.objects.filter(pk=takeback.pk, status=Status.OPEN).update(
        status=status, answers=takeback.answers, decided_at=now
    )
    if updated != 1:
        raise Conflict(NOTHING_OPEN)
    takeback.status, takeback.decided_at = status, now


def _accept(
    match: Match, takeback: Takeback, *, seats: list[Seat], before: dict[str, Any], now: datetime
) -> Move:
    """Go back to the position before the move; the move's line stays, and a takeback line follows."""
    _decide(takeback, Status.ACCEPTED, now=now)
    engine = match.engine
    asker = next(seat for seat in seats if seat.pk == takeback.seat_id)
    seen = match.version
    match.version += 1
    position_restore(match, engine, before, now=now)
    agreed = _names(_answerers(seats, asker))
    text = f"{asker.player_name} took back {_quoted(takeback.move)} ({agreed} agreed)."
    event = Event(kind="takeback", text=text, data={"seat": asker.position, "move_seq": takeback.move.seq})
    line = Move.objects.create(
        match=match,
        seq=next_seq(match),
        seat=asker,
        move=None,
        notation="",
        events=[event.to_dict()],
        state_after=before,
    )
    match_save(match, seen=seen, now=now)
    return line


def _touch(match: Match, *, now: datetime) -> None:
    """The request shows on the match page: its open pages must fetch it (their key is the match's row)."""
    Match.objects.filter(pk=match.pk).update(updated_at=now)
    livekeys.match_changed(match.pk)


def _quoted(move: Move) -> str:
    notation = move.public_notation
    return "their sealed move" if move.notation_visible_to is not None else f"'{notation}'"


def _names(seats: list[Seat]) -> str:
    names = [seat.player_name for seat in seats if seat.user_id]
    if any(not seat.user_id for seat in seats):
        names.append("the computer")
    if len(names) < 2:
        return names[0] if names else "nobody"
    return ", ".join(names[:-1]) + " and " + names[-1]


def _notify_asked(match: Match, takeback: Takeback, *, seats: list[Seat], now: datetime) -> list[Any]:
    asker = next(seat for seat in seats if seat.pk == takeback.seat_id)
    how = "answer on the match page"
    if replies.enabled():
        how = "reply ACCEPT or REFUSE, or " + how
    text = f"{asker.player_name} asks to take back {takeback.move.public_notation} \N{EM DASH} {how}."
    people = [seat for seat in _answerers(seats, asker) if seat.user_id]
    return notifications.notify_takeback_asked(
        match=match, takeback=takeback, seats=people, text=text, now=now
    )


# --- what the match page shows ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TakebackPanel:
    """The takeback box of the match page for one viewer."""

    can_ask: bool = False
    request: Takeback | None = None
    asker: str = ""
    notation: str = ""
    mine: bool = False  # the viewer asked
    to_answer: bool = False  # the viewer's answer is awaited
    waiting_for: list[str] = field(default_factory=list)


def takeback_panel(*, match: Match, seats: list[Seat], seat: Seat | None) -> TakebackPanel:
    """What the viewer at ``seat`` (None: a spectator) sees of takebacks: the open request, or the
    button to ask when the viewer may."""
    if match.status != Match.Status.ACTIVE:
        return TakebackPanel()
    takeback = match.takebacks.filter(status=Status.OPEN).select_related("move").first()
    if takeback is not None and takeback.version != match.version:
        takebacks_lapse(match_id=match.pk)
        takeback = None
    if takeback is not None:
        asker = next((s for s in seats if s.pk == takeback.seat_id), None)
        if asker is None:
            return TakebackPanel()
        answerers = _answerers(seats, asker)
        waiting = [s for s in answerers if str(s.position) not in takeback.answers]
        return TakebackPanel(
            request=takeback,
            asker=asker.player_name,
            notation=takeback.move.public_notation,
            mine=seat is not None and seat.pk == asker.pk,
            to_answer=seat is not None and any(s.pk == seat.pk for s in waiting),
            waiting_for=[s.player_name for s in waiting],
        )
    if seat is None or seat.status != Seat.Status.PLAYING or not match.takebacks_on or match.paused_at:
        return TakebackPanel()
    try:
        takeback_check(match, seat, seats=seats)
    except Conflict:
        return TakebackPanel()
    return TakebackPanel(can_ask=True)
