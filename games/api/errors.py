"""Every error the API returns is a 4xx with ``{"detail": "<a sentence>"}``.

Service errors keep their own status and message, so the API and the web pages refuse the same things
in the same words. Validation errors also carry the per-field messages under ``errors``.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from games.errors import LimitReached, ServiceError


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ServiceError):
        headers = {}
        if isinstance(exc, LimitReached) and exc.retry_after is not None:
            headers["Retry-After"] = str(exc.retry_after)
        return Response({"detail": exc.message}, status=exc.status, headers=headers)
    if isinstance(exc, exceptions.UnsupportedMediaType):
        request = context.get("request")
        sent = request.content_type if request is not None else ""
        exc.detail = (
            f"The API reads JSON bodies only: send the body with Content-Type: application/json"
            f"{f' (not {sent})' if sent else ''}."
        )
    response = drf_exception_handler(exc, context)
    if response is not None and isinstance(exc, exceptions.ValidationError):
        response.data = {"detail": _summary(exc.detail), "errors": _as_dict(exc.detail)}
    return response


def _summary(detail: Any, prefix: str = "") -> str:
    """The first message, named after its field, as the one sentence a client shows."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = "" if key == "non_field_errors" else str(key)
            return _summary(value, f"{prefix}.{name}" if prefix and name else prefix or name)
    elif isinstance(detail, list):
        for value in detail:
            return _summary(value, prefix)
    else:
        return f"{prefix}: {detail}" if prefix else str(detail)
    return "Invalid input."


def _as_dict(detail: Any) -> Any:
    return detail if isinstance(detail, dict) else {"non_field_errors": detail}


# Exempt: it changes nothing, and a POST to a mistyped address should learn it is a 404, not a CSRF 403.
@csrf_exempt
def not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Any other address under /api/: a JSON 404 rather than the site's HTML page."""
    return JsonResponse({"detail": "There is no such API endpoint."}, status=404)
