"""Creating, joining, leaving and starting matches."""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from games import livekeys
from games.bots import LEVELS as bot_levels
from games.engines import registry
from games.errors import Conflict, Forbidden, LimitReached, RematchExists, ServiceError
from games.models import HiddenHand, Match, Seat
from games.rng import StepRandom, rng_dump, rng_new, seed_commitment
from games.services.recording import (
    match_lock,
    seats_with_users,
    state_store,
    turns_sync,
    work_schedule,
)
from games.text import line_problem

MAX_MOVE_TIME_LIMIT = timedelta(days=30)


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
    allow_takebacks: bool = False,
    account_limits: bool = False,
    present: bool = True,
) -> Match:
    """Open a match with the creator in the first seat; it starts when every seat is taken.

    ``bots`` seats computer opponents of those kinds (``games.bots.LEVELS``) right after the creator;
    when they fill the table the match starts at once. A match with computer opponents is never rated
    (they have no rating to win or lose against). ``allow_takebacks`` lets the players of a rated match
    take back a move by consent (an unrated match always does).

    ``account_limits`` holds the creator to the caps of one account (settings ``MAX_*_PER_USER``,
    ``MAX_MATCHES_CREATED_PER_HOUR``; see ``limits_check``), so that one person cannot fill the
    workers' queues. Pass it for a match a person asks for (the web form, the API). Matches the site
    makes for players (league fixtures, in a player's name, all of a season at once) leave it off: the
    season must not stop half-way because one of its players is busy.

    ``present``: the creator is on the page (a person pressed Create), so a match that starts at once
    sends them no "your move" e-mail. The site creating a match in a player's name passes False.
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
    problem = line_problem(name)
    if problem:
        raise ServiceError(f"A match name is one line of text; this one {problem}.")
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
        if account_limits:
            limits_check(creator=creator, bots=len(bot_kinds))
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
            allow_takebacks=bool(allow_takebacks),
        )
        # Against computers the match starts now and they answer within seconds, maybe before the
        # creator's browser has loaded the page: count the creator as there already.
        seen = match.created_at if present and 1 + len(bot_kinds) == seat_count else None
        Seat.objects.bulk_create(
            [Seat(match=match, position=0, user=creator, last_seen_at=seen)]
            + [
                Seat(match=match, position=p, user=None, bot=kind)
                for p, kind in enumerate(bot_kinds, start=1)
            ]
        )
        if 1 + len(bot_kinds) == seat_count:
            _start(match, present_user_id=creator.pk if present else None)
        livekeys.user_changed(creator.pk)  # the new match joins their My matches
    return match


UNFINISHED = (Match.Status.OPEN, Match.Status.ACTIVE)


def limits_check(*, creator: AbstractBaseUser, bots: int) -> None:
    """Refuse one more match (with ``bots`` computer opponents) from ``creator`` past an account's caps.

    Call it inside the creating transaction: it locks the creator's user row first, so two creates at
    once count one after the other and cannot both slip under a cap. FOR NO KEY UPDATE: it serialises
    the creates without holding up rows that merely point at the user (a seat taken, an e-mail queued).
    SQLite ignores the lock, but its IMMEDIATE transactions already run one writer at a time.
    """
    get_user_model().objects.select_for_update(no_key=True).filter(pk=creator.pk).first()
    mine = Match.objects.filter(created_by=creator)

    cap = settings.MAX_OPEN_MATCHES_PER_USER
    unfinished = mine.filter(status__in=UNFINISHED).count()
    if unfinished >= cap:
        raise LimitReached(
            f"You have {_count(unfinished, 'unfinished match', 'unfinished matches')} that you created, "
            f"and one account may have at most {cap} at once. Create this one once one of them is over "
            "(a match nobody has joined yet is over when you leave it)."
        )

    cap = settings.MAX_BOT_SEATS_PER_USER
    if bots:
        seated = (
            Seat.objects.filter(
                match__created_by=creator,
                match__status__in=UNFINISHED,
                user__isnull=True,
                status=Seat.Status.PLAYING,
            )
            .exclude(bot="")
            .count()
        )
        if seated + bots > cap:
            room = max(cap - seated, 0)
            advice = (
                f"Choose at most {_count(room, 'computer opponent', 'computer opponents')}, or finish"
                if room
                else "Play people, or finish"
            )
            raise LimitReached(
                f"Computer opponents already hold {_count(seated, 'seat', 'seats')} in your unfinished "
                f"matches, and one account may have at most {cap} at once. {advice} a match against the "
                "computer first."
            )

    cap = settings.MAX_MATCHES_CREATED_PER_HOUR
    hour_ago = timezone.now() - timedelta(hours=1)
    recent = mine.filter(created_at__gt=hour_ago)
    created = recent.count()
    if created >= cap:
        # The cap lifts when enough of the last hour's matches are an hour old for one more to fit.
        frees = hour_ago
        if cap > 0:
            frees = recent.order_by("created_at").values_list("created_at", flat=True)[created - cap]
        wait = max(1, math.ceil((frees - hour_ago).total_seconds()))
        minutes = math.ceil(wait / 60)
        raise LimitReached(
            f"You have created {_count(created, 'match', 'matches')} in the last hour, and one account may "
            f"create at most {cap} an hour. Try again in {_count(minutes, 'minute', 'minutes')}.",
            retry_after=wait,
        )


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


def seat_join(*, match_id: Any, user: AbstractBaseUser, present: bool = True) -> Seat:
    """Take the next free seat; the match starts in the same transaction when the table is full.

    ``present=False`` when the site seats the user in their name (a league fixture): their first turn
    is then e-mailed like anyone's."""
    with transaction.atomic():
        match = match_lock(match_id)
        if match.status != Match.Status.OPEN:
            raise Conflict("This match is no longer open for players.")
        seats = list(match.seats.all())
        if any(seat.user_id == user.pk for seat in seats):
            raise Conflict("You already have a seat in this match.")
        if len(seats) >= match.seat_count:
            raise Conflict("This match is full.")
        seat = Seat.objects.create(match=match, position=len(seats), user=user)
        if len(seats) + 1 == match.seat_count:
            # The join request proves the player is there: their first turn needs no e-mail.
            _start(match, present_user_id=user.pk if present else None)
        _seats_changed(match)
    return seat


def seat_leave(*, match_id: Any, user: AbstractBaseUser) -> None:
    """Give up a seat before the match starts; a match no person sits at is abandoned."""
    with transaction.atomic():
        match = match_lock(match_id)
        if match.status != Match.Status.OPEN:
            raise Conflict("The match has started: resign instead of leaving.")
        seat = match.seats.filter(user=user).first()
        if seat is None:
            raise Forbidden("You have no seat in this match.")
        seat.delete()
        livekeys.user_changed(user.pk)  # the match leaves their My matches
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
        _seats_changed(match)


def _seats_changed(match: Match) -> None:
    """Mark the match changed for the pages that follow it (their poll keys on ``updated_at``, and a seat
    is a row of its own), and the match it is a rematch of, whose page shows how the offer stands."""
    ids = [match.pk] if match.rematch_of_id is None else [match.pk, match.rematch_of_id]
    Match.objects.filter(pk__in=ids).update(updated_at=timezone.now())
    for match_id in ids:
        livekeys.match_changed(match_id)


def match_start(*, match_id: Any) -> Match:
    """Deal the opening position. Called by seat_join when the table fills; also usable by moderators."""
    with transaction.atomic():
        match = match_lock(match_id)
        if match.status != Match.Status.OPEN:
            raise Conflict("This match has already started.")
        if match.seats.count() != match.seat_count:
            raise Conflict("Every seat must be taken before the match starts.")
        _start(match)
    return match


def _start(match: Match, *, present_user_id: int | None = None) -> None:
    engine = match.engine
    rng = rng_new()
    state = engine.new_state(seats=match.seat_count, options=match.options, rng=rng)
    now = timezone.now()
    match.status = Match.Status.ACTIVE
    match.started_at = now
    match.rules_version = engine.rules_version
    if isinstance(rng, StepRandom) and rng.step == 0:
        # The setup is step 0 of the seed's streams; the commitment is public from now on.
        match.seed = rng.seed_hex
        match.seed_commitment = seed_commitment(match.seed)
        match.chance_steps = 1
        match.rng_state = None
    else:  # a generator handed in from outside (a test's seeded one) goes on as before seeds
        match.rng_state = rng_dump(rng)
    match.version = 0
    state_store(match, engine, state)
    seats = seats_with_users(match)
    for seat in seats:
        seat.bank = match.bank_initial
    Seat.objects.bulk_update(seats, ["bank"])
    HiddenHand.objects.bulk_create(
        [HiddenHand(seat=seat, data=engine.private_view(state, seat.position)) for seat in seats]
    )
    turns_sync(match, engine, state, now=now, seats=seats, present_user_id=present_user_id)
    work_schedule(match, engine, state, now=now, seats=seats)
    match.save()


# A rematch is offered once a match that was played has ended, however it ended.
REMATCH_AFTER = (Match.Status.FINISHED, Match.Status.ABANDONED, Match.Status.CANCELLED)


def match_rematch(*, match_id: Any, user: AbstractBaseUser) -> Match:
    """A player of an ended match offers the others another: a new open match of the same game, seat
    count, options and clock, with ``user`` in the first seat and the same computer opponents after.
    The old match's page offers the others its Join button. A match has one rematch: a second offer is
    refused with ``RematchExists``, which names the first."""
    with transaction.atomic():
        # The old match's row lock makes two players offering at once find each other's offer.
        old = match_lock(match_id, rng=False)
        if old.status not in REMATCH_AFTER or old.started_at is None:
            raise Conflict("A rematch can be offered once the match is over.")
        seats = list(old.seats.all())
        if not any(seat.user_id == user.pk for seat in seats):
            raise Forbidden("Only the players of this match can offer a rematch.")
        existing = Match.objects.filter(rematch_of=old).values_list("pk", flat=True).first()
        if existing is not None:
            raise RematchExists(
                f"There is already a rematch of this match: match #{existing}.", rematch_id=existing
            )
        match = match_create(
            creator=user,
            game=old.game,
            seat_count=old.seat_count,
            options=old.options,
            name=_rematch_name(old),
            move_time_limit=old.move_time_limit,
            bank_initial=old.bank_initial,
            bank_increment=old.bank_increment,
            bank_max=old.bank_max,
            pause_weekends=old.pause_weekends,
            timeout_policy=old.timeout_policy,
            bots=[seat.bot for seat in seats if seat.user_id is None and seat.bot],
            rated=old.rated,
            allow_takebacks=old.allow_takebacks,
            account_limits=True,
        )
        match.rematch_of = old
        Match.objects.filter(pk=match.pk).update(rematch_of=old)
        _seats_changed(match)
    return match


def _rematch_name(old: Match) -> str:
    """The old match's name marked as a rematch, so that My matches tells the two apart; marked once
    however many rematches follow ("Friday duel (rematch)")."""
    name, mark = old.display_name, " (rematch)"
    return name if name.endswith(mark) else name[: 80 - len(mark)] + mark
