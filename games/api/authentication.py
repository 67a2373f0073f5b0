"""Token authentication: DRF's token, sent as `Bearer <key>` or `Token <key>`, refusing a malformed key
before it reaches the database."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token
from rest_framework.request import Request

# DRF's keys are 40 hex digits (Token.generate_key).
_KEY = re.compile(r"[0-9a-f]{40}")
# "Token" is DRF's word; "Bearer" is what generated clients and most HTTP libraries send by default.
KEYWORDS = (b"bearer", b"token")


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's, except that it also takes the `Bearer` prefix, garbage costs no query, and a NUL
    character, which PostgreSQL cannot compare, never reaches it as a 500."""

    def authenticate_header(self, request: Request) -> str:
        # The challenge of a 401 names the scheme clients should send (RFC 6750); "Token" works too.
        return 'Bearer realm="api"'

    def authenticate(self, request: Request) -> tuple[AbstractBaseUser, Token] | None:
        words = authentication.get_authorization_header(request).split()
        if not words or words[0].lower() not in KEYWORDS:
            return None  # another scheme, or none: the request is anonymous
        if len(words) == 1:
            raise exceptions.AuthenticationFailed("Invalid token header. No credentials provided.")
        if len(words) > 2:
            raise exceptions.AuthenticationFailed("Invalid token header. The key holds no spaces.")
        try:
            key = words[1].decode()
        except UnicodeError:
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        return self.authenticate_credentials(key)

    def authenticate_credentials(self, key: str) -> tuple[AbstractBaseUser, Token]:
        if not _KEY.fullmatch(key):
            raise exceptions.AuthenticationFailed("Invalid token.")
        return super().authenticate_credentials(key)


class TokenScheme(OpenApiAuthenticationExtension):
    """The schema's security schemes for the key: either prefix, as two alternatives (OpenAPI has no
    way to say "one header, two prefixes" in one scheme)."""

    target_class = TokenAuthentication
    name = ["bearerAuth", "tokenAuth"]
    priority = 1  # before drf-spectacular's own extension for DRF's TokenAuthentication

    def get_security_requirement(self, auto_schema: Any) -> list[dict[str, list[Any]]]:
        return [{"bearerAuth": []}, {"tokenAuth": []}]

    def get_security_definition(self, auto_schema: Any) -> list[dict[str, str]]:
        return [
            {
                "type": "http",
                "scheme": "bearer",
                "description": "`Authorization: Bearer <key>`, the key from your settings page.",
            },
            {
                "type": "apiKey",
                "in": "header",
                "name": "Authorization",
                "description": "`Authorization: Token <key>`: the same key with DRF's prefix.",
            },
        ]
