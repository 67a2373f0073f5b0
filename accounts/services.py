from __future__ import annotations

import zoneinfo

from django.db import transaction

from accounts.models import User, new_calendar_token
from games.errors import ServiceError

MAX_REMINDERS = 5
MAX_REMINDER_HOURS = 168


def user_create(*, username: str, email: str, password: str) -> User:
    with transaction.atomic():
        return User.objects.create_user(username=username, email=email, password=password)


def user_update_preferences(
    *,
    user: User,
    time_zone: str,
    notify: str,
    reminder_hours: list[int],
    digest_hour: int,
    on_vacation: bool,
) -> User:
    """Store what and when the user wants to hear from us. The form checks the same things; this is
    the guard for every other caller (the API, the shell)."""
    if time_zone not in zoneinfo.available_timezones():
        raise ServiceError(f"{time_zone!r} is not a time zone we know.")
    if notify not in User.Notify.values:
        raise ServiceError(f"{notify!r} is not a notification choice.")
    if not 0 <= digest_hour <= 23:
        raise ServiceError("The digest hour must be between 0 and 23.")
    hours = sorted({int(hour) for hour in reminder_hours}, reverse=True)
    if len(hours) > MAX_REMINDERS:
        raise ServiceError(f"At most {MAX_REMINDERS} reminders.")
    if any(not 1 <= hour <= MAX_REMINDER_HOURS for hour in hours):
        raise ServiceError(f"Reminders must be 1 to {MAX_REMINDER_HOURS} hours before a deadline.")
    user.time_zone = time_zone
    user.notify = notify
    user.reminder_hours = hours
    user.digest_hour = digest_hour
    user.on_vacation = on_vacation
    user.save(update_fields=["time_zone", "notify", "reminder_hours", "digest_hour", "on_vacation"])
    return user


def user_calendar_token_reset(*, user: User) -> str:
    """A new secret calendar address; the old one stops working at once."""
    user.calendar_token = new_calendar_token()
    user.save(update_fields=["calendar_token"])
    return user.calendar_token


def user_unsubscribe(*, user: User) -> None:
    """Stop every e-mail about turns and matches (the one-click link in each message)."""
    User.objects.filter(pk=user.pk).update(notify=User.Notify.OFF)
    user.notify = User.Notify.OFF
