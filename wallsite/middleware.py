from __future__ import annotations

from collections.abc import Callable

from csp.middleware import CSPMiddleware, PolicyParts
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils import timezone

from games.timefmt import zone_for


class TimezoneMiddleware:
    """Render times in the logged-in user's own zone; visitors see UTC."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            timezone.activate(zone_for(user.time_zone))
        else:
            timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            # The zone is per thread: do not let it leak into whatever this thread serves next.
            timezone.deactivate()


class PageCSPMiddleware(CSPMiddleware):
    """django-csp's middleware (the policy in settings.CONTENT_SECURITY_POLICY), plus the sources a few
    pages add to it (settings.CONTENT_SECURITY_POLICY_PAGE_UPDATES, by path): the whole policy, its
    exceptions included, then reads in one place instead of partly in settings, partly in URLconfs."""

    def get_policy_parts(
        self, request: HttpRequest, response: HttpResponseBase, report_only: bool = False
    ) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        if not report_only and parts.update is None:
            parts.update = settings.CONTENT_SECURITY_POLICY_PAGE_UPDATES.get(request.path_info)
        return parts
