"""Token authentication that looks only well-formed keys up in the database, in one statement."""

from __future__ import annotations

import re
from functools import cache

from django.contrib.auth import get_user_model
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token

from games import rows

# DRF's keys are 40 hex digits (Token.generate_key).
_KEY = re.compile(r"[0-9a-f]{40}")


class TokenAuthentication(authentication.TokenAuthentication):
    """Refuses a malformed key before the query: garbage costs nothing, and a NUL character, which
    PostgreSQL cannot compare, never reaches it as a 500. A good key's user is read with hand-written
    SQL (see games.rows): every API call pays for this lookup."""

    def authenticate_credentials(self, key: str):
        if not _KEY.fullmatch(key):
            raise exceptions.AuthenticationFailed("Invalid token.")
        user_model = get_user_model()
        found = rows.fetch(Token, _user_by_key(), [key])
        if not found:
            raise exceptions.AuthenticationFailed("Invalid token.")
        user = rows.build(user_model, found[0])
        if not user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        token = Token(key=key, user=user, created=found[0][-1])
        token._state.adding = False
        return user, token


@cache
def _user_by_key() -> str:
    quote = rows.connection_for(Token).ops.quote_name
    return (
        f"SELECT {rows.columns(get_user_model(), 'u')}, t.{quote('created')} "  # nosec B608
        f"FROM {rows.table(Token)} t JOIN {rows.table(get_user_model())} u "
        f"ON u.{quote('id')} = t.{quote('user_id')} WHERE t.{quote('key')} = %s"
    )
