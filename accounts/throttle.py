"""Log-in throttling: too many refused passwords for one name, or from one address, wait a while.

Failures are rows in the database, so every web process sees the same count. A success clears the
name's failures; rows older than the window no longer count and are deleted as new ones come in.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.db.models import Q
from django.dispatch import receiver
from django.http import HttpRequest
from django.utils import timezone

from accounts.models import LoginFailure

WINDOW = timedelta(minutes=15)
PER_NAME = 5  # a person who forgot a password tries a handful of times
PER_ADDRESS = 30  # one address trying many names is guessing


def client_address(request: HttpRequest | None) -> str | None:
    return request.META.get("REMOTE_ADDR") or None if request is not None else None


def login_refusal(*, username: str, address: str | None, now: datetime | None = None) -> str | None:
    """Why a log-in must wait, or None when it may be tried."""
    now = now or timezone.now()
    recent = LoginFailure.objects.filter(at__gt=now - WINDOW)
    if username and recent.filter(username=username.lower()).count() >= PER_NAME:
        return (
            f"Too many wrong passwords for {username}. Wait {WINDOW.seconds // 60} minutes, "
            "or reset your password by e-mail."
        )
    if address and recent.filter(address=address).count() >= PER_ADDRESS:
        return f"Too many refused log-ins from your address. Wait {WINDOW.seconds // 60} minutes."
    return None


def failure_record(*, username: str, address: str | None, now: datetime | None = None) -> None:
    now = now or timezone.now()
    LoginFailure.objects.filter(at__lte=now - WINDOW).delete()
    LoginFailure.objects.create(username=(username or "")[:150].lower(), address=address, at=now)


@receiver(user_login_failed)
def _failed(sender, credentials: dict, request: HttpRequest | None = None, **kwargs) -> None:
    failure_record(username=str(credentials.get("username", "")), address=client_address(request))


@receiver(user_logged_in)
def _succeeded(sender, request: HttpRequest | None, user, **kwargs) -> None:
    LoginFailure.objects.filter(Q(username=user.get_username().lower())).delete()
