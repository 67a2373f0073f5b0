from __future__ import annotations

from django.db import transaction

from accounts.models import User


def user_create(*, username: str, email: str, password: str) -> User:
    with transaction.atomic():
        return User.objects.create_user(username=username, email=email, password=password)
