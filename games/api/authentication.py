"""Token authentication that looks only well-formed keys up in the database, in one statement, which
on the API's own views goes in the request's first round trip (``TokenCheckedFirst``)."""

from __future__ import annotations

import copy
import re
from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpResponseBase
from django.utils.functional import SimpleLazyObject, empty
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token
from rest_framework.request import Request

from games import rows

# DRF's keys are 40 hex digits (Token.generate_key).
_KEY = re.compile(r"[0-9a-f]{40}")


class TokenAuthentication(authentication.TokenAuthentication):
    """Refuses a malformed key before the query: garbage costs nothing, and a NUL character, which
    PostgreSQL cannot compare, never reaches it as a 500. A good key's user is read with hand-written
    SQL (see games.rows): every API call pays for this lookup. On a ``TokenCheckedFirst`` view the
    lookup is carried by the view's first read (``TokenUser``): it costs no round trip of its own."""

    def authenticate(self, request: Request) -> tuple[AbstractBaseUser, Token | None] | None:
        self._carried = isinstance((request.parser_context or {}).get("view"), TokenCheckedFirst)
        return super().authenticate(request)

    def authenticate_credentials(self, key: str) -> tuple[AbstractBaseUser, Token | None]:
        if not _KEY.fullmatch(key):
            raise exceptions.AuthenticationFailed("Invalid token.")
        if getattr(self, "_carried", False):
            return TokenUser(key), None
        found = rows.fetch(Token, _user_by_key(), [key])
        user = _user(found)
        token = Token(key=key, user=user, created=found[0][-1])
        token._state.adding = False
        return user, token


def _user(found: list[tuple]) -> AbstractBaseUser:
    """The user of the lookup's rows (``_user_by_key``); AuthenticationFailed for none or an inactive one."""
    if not found:
        raise exceptions.AuthenticationFailed("Invalid token.")
    user = rows.build(get_user_model(), found[0])
    if not user.is_active:
        raise exceptions.AuthenticationFailed("User inactive or deleted.")
    return user


class TokenUser(SimpleLazyObject):
    """The user of a well-formed key, read with the request's first read (rows.carry) or, if anything
    else needs the user first, on its own. It counts as logged in until then, so that the permission
    check need not read it; the view (TokenCheckedFirst) answers 401 should the key turn out to be
    wrong, and nothing reaches the database before it has been checked. ``request.auth`` is None."""

    def __init__(self, key: str) -> None:
        found: list[AbstractBaseUser | exceptions.AuthenticationFailed] = []

        def done(result: list[tuple]) -> None:
            try:
                found.append(_user(result))
            except exceptions.AuthenticationFailed as refusal:
                found.append(refusal)
                raise

        def user() -> AbstractBaseUser:
            if not found:
                rows.run_carried(Token)  # it runs ``done``
            if not found:  # no longer held (the request is over): read it again
                done(rows.fetch(Token, _user_by_key(), [key]))
            if isinstance(found[0], exceptions.AuthenticationFailed):
                raise found[0]
            return found[0]

        super().__init__(user)
        rows.carry(Token, _user_by_key(), [key], done=done)

    # What DRF's IsAuthenticated asks: answered without the lookup.
    is_authenticated = True
    is_anonymous = False

    def __bool__(self) -> bool:
        return True

    # A copy is of the user itself, read first (SimpleLazyObject's would call __init__ with a function).
    def __copy__(self) -> AbstractBaseUser:
        self.checked()
        return copy.copy(self._wrapped)

    def __deepcopy__(self, memo: dict[int, Any]) -> AbstractBaseUser:
        self.checked()
        return copy.deepcopy(self._wrapped, memo)

    def checked(self) -> None:
        """Raise AuthenticationFailed if the key is wrong (reading it now if it has not been read)."""
        if self._wrapped is empty:
            self._setup()


class TokenCheckedFirst:
    """A mixin for the API's views: a token's lookup goes with the view's first read (TokenUser), and
    any statement that does not carry it runs it first (rows.carrying). A view that ends without
    having read the user checks it then: a wrong key is a 401 whatever else went wrong."""

    def dispatch(self, request: Any, *args: Any, **kwargs: Any) -> HttpResponseBase:
        with rows.carrying(Token):
            return super().dispatch(request, *args, **kwargs)  # type: ignore[misc]

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        user = getattr(request, "_user", None)
        if isinstance(user, TokenUser):
            try:
                user.checked()
            except exceptions.AuthenticationFailed as refusal:
                response = self.handle_exception(refusal)  # type: ignore[attr-defined]
        return super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]


@cache
def _user_by_key() -> str:
    quote = rows.connection_for(Token).ops.quote_name
    return (
        f"SELECT {rows.columns(get_user_model(), 'u')}, t.{quote('created')} "  # nosec B608
        f"FROM {rows.table(Token)} t JOIN {rows.table(get_user_model())} u "
        f"ON u.{quote('id')} = t.{quote('user_id')} WHERE t.{quote('key')} = %s"
    )
