from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
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


class ContentSecurityPolicyMiddleware:
    """Send the site's Content-Security-Policy (settings.CONTENT_SECURITY_POLICY) with every answer."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        exceptions = settings.CONTENT_SECURITY_POLICY_EXCEPTIONS
        policy = exceptions.get(request.path, settings.CONTENT_SECURITY_POLICY)
        if policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = policy
        return response
