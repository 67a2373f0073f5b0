"""Log-in lock-out: what the site adds to django-axes.

Axes' backend comes first in AUTHENTICATION_BACKENDS, so every ``authenticate()`` is checked, whatever
view asks (the log-in page, the admin's, the browsable API's). Refused log-ins are counted in the
database, so every web process sees the same counts. The site adds:

- the name a count is kept under, normalised as user names are (``login_name``);
- a limit for each thing counted (``LockoutHandler``; axes has one for all): a person who forgot a
  password tries a handful of times, while one address trying many names is guessing;
- the answer to a locked-out log-in, saying when to try again (``lockout_response``);
- the name's lock held for callers that pass no request (``LockoutBackend``).
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from http import HTTPStatus

from axes.backends import AxesStandaloneBackend
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_cool_off, get_lockout_parameters
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import QuerySet, Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone

# The column axes keeps the name in; case folding may lengthen a name (ß becomes ss).
NAME_MAX_LENGTH = AccessAttempt._meta.get_field("username").max_length


def login_name(request: HttpRequest | None, credentials: dict | None) -> str | None:
    """The name a log-in is counted under (AXES_USERNAME_CALLABLE).

    Every spelling that reaches the same account must share one count. The log-in form strips the name
    and applies NFKC (as the user model does to stored names), so " alice", "alice\\t" and alice in
    full-width letters all log in as alice; sign-up refuses a name that differs from a taken one only
    in case, so folding case merges no two accounts. Done here again for callers that skip the form.
    """
    field = str(settings.AXES_USERNAME_FORM_FIELD)
    if credentials is not None:
        raw = credentials.get(field)
    elif request is not None:
        raw = getattr(request, "data", request.POST).get(field)
    else:
        raw = None
    if not isinstance(raw, str):
        return None
    name = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", raw).casefold()).strip()
    return name[:NAME_MAX_LENGTH] or None


@dataclass(frozen=True)
class Lock:
    """What refuses a log-in (a lockout parameter: "username" or "ip_address") and until when."""

    parameter: str
    lifts_at: datetime


class LockoutHandler(AxesDatabaseHandler):
    """Axes' database handler, with a limit of its own for each lockout parameter
    (settings.LOGIN_FAILURE_LIMITS) instead of AXES_FAILURE_LIMIT for all of them."""

    def get_failures(self, request: HttpRequest, credentials: dict | None = None) -> int:
        # Axes locks out once this reaches AXES_FAILURE_LIMIT. Answer with the count nearest its own
        # limit, shifted onto that scale: it reaches AXES_FAILURE_LIMIT when some count reaches its limit.
        headroom = min(
            limit - (attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0)
            for _parameter, limit, attempts in self._counts(request, credentials)
        )
        return settings.AXES_FAILURE_LIMIT - headroom

    def reset_user_attempts(self, request: HttpRequest, credentials: dict | None = None) -> int:
        # A success clears the failures under its name only. Axes would clear the address's too, so that
        # a guesser with an account of their own could log into it now and then and never be locked out.
        name = get_client_username(request, credentials)
        if name is None:
            return 0
        deleted, _ = AccessAttempt.objects.filter(username=name).delete()
        return deleted

    def lock(self, request: HttpRequest, credentials: dict | None = None) -> Lock | None:
        """What refuses this log-in and when it lets go (the latest, when both do); None if nothing."""
        cool_off = get_cool_off(request)
        locks = []
        for parameter, limit, attempts in self._counts(request, credentials):
            counted = 0
            for attempt_time, failures in attempts.order_by("-attempt_time").values_list(
                "attempt_time", "failures_since_start"
            ):
                counted += failures
                if counted >= limit:
                    # The count falls below the limit once this attempt is older than the cool-off.
                    locks.append(Lock(parameter=parameter, lifts_at=attempt_time + cool_off))
                    break
        return max(locks, key=lambda lock: lock.lifts_at, default=None)

    def _counts(self, request: HttpRequest, credentials: dict | None) -> list[tuple[str, int, QuerySet]]:
        """Each lockout parameter, its limit and its failures within the cool-off."""
        parameters = get_lockout_parameters(request, credentials)
        attempts = self.get_user_attempts(request, credentials)
        return [
            (parameter, settings.LOGIN_FAILURE_LIMITS[parameter], counted)
            for parameter, counted in zip(parameters, attempts, strict=True)
        ]


class LockoutBackend(AxesStandaloneBackend):
    """Axes' backend, which refuses a request-less ``authenticate()`` (a ValueError), made to check such
    calls against a blank request instead. They come from the site's own code, not from a client (the
    test client's ``login()``, a management command): there is no address to count, but a locked name
    stays locked."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs,
    ) -> None:
        return super().authenticate(
            request if request is not None else HttpRequest(), username, password, **kwargs
        )


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: dict | None
) -> HttpResponse:
    """The answer to a refused log-in (AXES_LOCKOUT_CALLABLE): 429 with Retry-After, saying why and when
    to try again; ``{"detail": ...}`` under /api/, a page elsewhere."""
    # Axes' asynchronous middleware passes no credentials; its handler left them on the request.
    credentials = credentials or getattr(request, "axes_credentials", None)
    now = timezone.now()
    lock = LockoutHandler().lock(request, credentials)
    if lock is None:  # locked by something other than a count (none is configured); wait a cool-off
        lock = Lock(parameter="ip_address", lifts_at=now + get_cool_off(request))
    seconds = max(1, math.ceil((lock.lifts_at - now).total_seconds()))
    minutes = math.ceil(seconds / 60)
    wait = "1 minute" if minutes == 1 else f"{minutes} minutes"
    name = (credentials or {}).get(str(settings.AXES_USERNAME_FORM_FIELD))
    if lock.parameter == "username":
        detail = (
            f"Too many wrong passwords for {name or 'this name'}. Try again in {wait}, "
            "or reset your password by e-mail."
        )
    else:
        detail = f"Too many refused log-ins from your address. Try again in {wait}."
    # Shown to the minute: rounded up, so that a log-in at the time shown is let through.
    try_from = lock.lifts_at.replace(second=0, microsecond=0)
    if try_from < lock.lifts_at:
        try_from += timedelta(minutes=1)
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse({"detail": detail}, status=HTTPStatus.TOO_MANY_REQUESTS)
    else:
        response = render(
            request,
            "registration/locked_out.html",
            {"detail": detail, "by_name": lock.parameter == "username", "try_from": try_from},
            status=HTTPStatus.TOO_MANY_REQUESTS,
        )
    response["Retry-After"] = str(seconds)
    return response
