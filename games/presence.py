"""Who has a match open right now, and players coming back to a seat the computer kept warm.

Presence is a timestamp per seat, refreshed when the page loads and by a heartbeat while it stays
visible; the notifier reads it to hold back e-mails about a match the player is looking at.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from games import livekeys
from games.errors import Forbidden, NotFound, ServiceError
from games.models import Match, Seat

# Far below the presence window (PRESENCE_WINDOW, minutes) that holds back a player's e-mails.
STAMP_REFRESH = timedelta(seconds=20)


def seat_seen(*, match_id: int, user: AbstractBaseUser, now: datetime | None = None) -> None:
    """Record that the user has the match open: one UPDATE when they are seated."""
    now = now or timezone.now()
    if user.is_authenticated and Seat.objects.filter(match_id=match_id, user=user).update(last_seen_at=now):
        return
    # Only the refused request pays for finding out why.
    if not Match.objects.filter(pk=match_id).exists():
        raise NotFound("There is no such match.")
    raise Forbidden("You have no seat in this match.")


def seat_return(*, match_id: int, user: AbstractBaseUser) -> bool:
    """Take the seat back from the computer; True when it was playing for the user."""
    if not user.is_authenticated:
        return False
    with transaction.atomic():
        # Under the match lock, so a computer's move being applied right now finishes first and
        # none starts after the player is back.
        if not Match.objects.select_for_update().filter(pk=match_id).exists():
            raise NotFound("There is no such match.")
        returned = bool(
            Seat.objects.filter(match_id=match_id, user=user, autopilot=True).update(autopilot=False)
        )
        if returned:  # the seats table no longer says a computer plays for them: open pages redraw it
            Match.objects.filter(pk=match_id).update(updated_at=timezone.now())
            livekeys.match_changed(match_id)
        return returned


def seat_present(*, seat: Seat | None, user: AbstractBaseUser) -> bool:
    """A seated player is reading the match (the page or the API): its e-mails wait, and a computer
    playing for the seat steps aside. True when the player has just taken the seat back."""
    if seat is None:
        return False
    now = timezone.now()
    # A stamp younger than this already says "present" for minutes to come: skip the write, so that a
    # program polling the API every second does not turn every read into an UPDATE.
    fresh = seat.last_seen_at is not None and now - seat.last_seen_at < STAMP_REFRESH
    if not fresh:
        try:
            seat_seen(match_id=seat.match_id, user=user, now=now)
        except ServiceError:
            return False  # the seat was given up since the match was read: nothing to record
    if seat.autopilot and seat_return(match_id=seat.match_id, user=user):
        seat.autopilot = False
        return True
    return False
