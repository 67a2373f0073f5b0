from __future__ import annotations

import functools
import secrets
import zoneinfo

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.urls import reverse


def default_reminder_hours() -> list[int]:
    return [24, 2]


def new_calendar_token() -> str:
    return secrets.token_urlsafe(24)


@functools.cache  # listing the zones reads every file of the system's zone database
def time_zone_choices() -> tuple[tuple[str, str], ...]:
    return tuple((name, name) for name in sorted(zoneinfo.available_timezones()))


class User(AbstractUser):
    class Notify(models.TextChoices):
        IMMEDIATE = "immediate", "An e-mail as soon as it is my turn"
        DIGEST = "digest", "One daily digest of the matches awaiting me"
        OFF = "off", "No e-mail about my turns"

    email = models.EmailField("e-mail address", unique=True)
    time_zone = models.CharField(max_length=64, default="UTC", choices=time_zone_choices)

    notify = models.CharField(max_length=16, choices=Notify.choices, default=Notify.IMMEDIATE)
    reminder_hours = models.JSONField(
        default=default_reminder_hours, blank=True, help_text="Hours before a deadline to remind me."
    )
    digest_hour = models.PositiveSmallIntegerField(default=8, help_text="Local hour of the daily digest.")
    # Allowance left this year; the year it belongs to lets the sweep refill it lazily on 1 January.
    vacation_days_left = models.PositiveSmallIntegerField(default=21)
    vacation_year = models.PositiveSmallIntegerField(default=0)
    on_vacation = models.BooleanField(default=False)
    vacation_day_used_on = models.DateField(null=True, blank=True)
    calendar_token = models.CharField(max_length=64, unique=True, default=new_calendar_token)

    def get_absolute_url(self) -> str:
        return reverse("profile", args=[self.username])
