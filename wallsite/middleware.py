from __future__ import annotations

import codecs
from collections.abc import Callable
from typing import Any

from csp.middleware import CSPMiddleware, PolicyParts
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils import timezone

from games.text import text_problem
from games.timefmt import zone_for
from wallsite.errors import refusal


class TimezoneMiddleware:
    """Render times in the logged-in user's own zone; visitors see UTC.

    The zone is chosen just before the view runs. A view marked ``zone_on_demand`` (a poll answered
    ``304`` far more often than rendered) chooses it itself when it renders: finding the user's zone
    costs the session's and the user's rows, which an unchanged poll must not read."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            return self.get_response(request)
        finally:
            # The zone is per thread: do not let it leak into whatever this thread serves next.
            timezone.deactivate()

    def process_view(
        self, request: HttpRequest, view_func: Callable, view_args: Any, view_kwargs: Any
    ) -> None:
        if not getattr(view_func, "zone_on_demand", False):
            zone_activate(request)


def zone_activate(request: HttpRequest) -> None:
    """Show times in the request's user's zone (UTC for a visitor)."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        timezone.activate(zone_for(user.time_zone))
    else:
        timezone.deactivate()


def zone_on_demand(view: Callable) -> Callable:
    """Mark a view that calls ``zone_activate`` itself before it renders a time (see TimezoneMiddleware)."""
    view.zone_on_demand = True  # type: ignore[attr-defined]
    return view


class PageCSPMiddleware(CSPMiddleware):
    """django-csp's middleware (the policy in settings.CONTENT_SECURITY_POLICY), plus the sources a few
    pages add to it (settings.CONTENT_SECURITY_POLICY_PAGE_UPDATES, by path): the whole policy, its
    exceptions included, then reads in one place instead of partly in settings, partly in URLconfs."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        # A 304 has no body for a policy to govern, and the browser keeps the headers of the answer it
        # holds: the open pages' polls (games/views.py match_live) are mostly 304s, and skip the work.
        if response.status_code == 304:
            return response
        return super().process_response(request, response)

    def get_policy_parts(
        self, request: HttpRequest, response: HttpResponseBase, report_only: bool = False
    ) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        if not report_only and parts.update is None:
            parts.update = settings.CONTENT_SECURITY_POLICY_PAGE_UPDATES.get(request.path_info)
        return parts


class TextCheckMiddleware:
    """Refuse, before any view or the database sees it, a request whose address or query string holds a
    character the site does not accept as text (games.text: a NUL, a lone surrogate, a non-character),
    or whose body is declared in a charset other than UTF-8: Django would decode the form fields and the
    query string with it, and UTF-7 or unicode_escape can spell any of those characters. A 400 with the
    reason, ``{"detail": ...}`` under /api/. Form fields and API bodies are checked where they are read
    (games.text), so that a form can show the reason next to its field."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        problem = request_text_problem(request)
        if problem is not None:
            return refusal(request, problem)
        return self.get_response(request)


def request_text_problem(request: HttpRequest) -> str | None:
    """Why the request's charset, address or query string is refused; None when they are fine."""
    charset = request.content_params.get("charset") if request.content_params else None
    if charset:
        try:
            name = codecs.lookup(charset).name
        except LookupError:
            name = "utf-8"  # Django ignores a charset it does not know, and reads UTF-8
        if name not in ("utf-8", "ascii"):
            return "The site reads requests in UTF-8 only: send the body as UTF-8 (charset=utf-8)."
    problem = text_problem(request.path)
    if problem:
        return f"The address {problem}."
    for key, values in request.GET.lists():
        problem = text_problem(key)
        if problem:
            return f"A query parameter's name {problem}."
        for value in values:
            problem = text_problem(value)
            if problem:
                shown = key if key.isprintable() and len(key) <= 40 else "a query parameter"
                return f"The query parameter {shown} {problem}."
    return None
