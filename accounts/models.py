from __future__ import annotations

import zoneinfo

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.urls import reverse


def time_zone_choices() -> list[tuple[str, str]]:
    return [(name, name) for name in sorted(zoneinfo.available_timezones())]


class User(AbstractUser):
    email = models.EmailField("e-mail address", unique=True)
    time_zone = models.CharField(max_length=64, default="UTC", choices=time_zone_choices)

    def get_absolute_url(self) -> str:
        return reverse("profile", args=[self.username])
