"""A user's API token: DRF's authtoken model, so one key per user, created, replaced or revoked on the
settings page. The key is shown once, when it is made; afterwards only its creation date."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from rest_framework.authtoken.models import Token


def api_token_get(*, user: AbstractBaseUser) -> Token | None:
    return Token.objects.filter(user=user).first()


def api_token_create(*, user: AbstractBaseUser) -> Token:
    """A new key for the user; any previous key stops working at once.

    The user's row is locked first, so that two requests at once (a double click, a script) replace the
    key one after the other: otherwise both delete the old key, and the second to insert breaks the
    one-key-per-user rule with an IntegrityError."""
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).exists()
        Token.objects.filter(user=user).delete()
        return Token.objects.create(user=user)


def api_token_revoke(*, user: AbstractBaseUser) -> bool:
    """Delete the user's key; False when there was none."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)
