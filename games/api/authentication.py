"""Token authentication that looks only well-formed keys up in the database."""

from __future__ import annotations

import re

from rest_framework import authentication, exceptions

# DRF's keys are 40 hex digits (Token.generate_key).
_KEY = re.compile(r"[0-9a-f]{40}")


class TokenAuthentication(authentication.TokenAuthentication):
    """Refuses a malformed key before the query: garbage costs nothing, and a NUL character, which
    PostgreSQL cannot compare, never reaches it as a 500."""

    def authenticate_credentials(self, key: str):
        if not _KEY.fullmatch(key):
            raise exceptions.AuthenticationFailed("Invalid token.")
        return super().authenticate_credentials(key)
