"""Signed one-click unsubscribe tokens: the signature is the proof, so no login is needed.

A token names one user and is signed with the site's secret under its own salt, so it cannot be
forged, moved to another user, or reused as any other kind of signed value.
"""

from __future__ import annotations

from django.conf import settings
from django.core import signing
from django.urls import reverse

from accounts.models import User

SALT = "wallsite.unsubscribe"


def unsubscribe_token(*, user: User) -> str:
    return signing.dumps(user.pk, salt=SALT)


def unsubscribe_url(*, user: User) -> str:
    """The absolute address for e-mails and their List-Unsubscribe header."""
    return settings.SITE_URL.rstrip("/") + reverse("unsubscribe", args=[unsubscribe_token(user=user)])


def unsubscribe_user(*, token: str) -> User | None:
    """The active user a token was made for; None when it is forged, damaged or names nobody."""
    try:
        user_id = signing.loads(token, salt=SALT)
    except signing.BadSignature:
        return None
    if not isinstance(user_id, int):
        return None
    return User.objects.filter(pk=user_id, is_active=True).first()
