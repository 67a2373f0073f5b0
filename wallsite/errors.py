"""The answer when a request fails on our side (``handler500``): a 503 that says so when the database is
unreachable, a plain 500 otherwise; JSON under /api/, a page elsewhere. A request refused before any
view read it (``handler400``: too large, too many fields; wallsite.middleware's text check) is answered
the same way, with the reason.

It neither renders a site template nor touches the database: the header's context processor queries it,
and when the database is what failed, that would fail again.
"""

from __future__ import annotations

import sys
from html import escape

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

RETRY_AFTER_SECONDS = 30

DATABASE_DOWN = (
    "The site cannot reach its database at the moment; please try again in a minute. "
    "A move you sent just now was either stored whole or not at all: reload the match to see which."
)
SERVER_ERROR = "Something went wrong on our side and it has been logged; please try again."

PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · Wallsite</title></head>
<body>
<main>
<h1>{title}</h1>
<p>{text}</p>
<p><a href="/">Back to the lobby</a></p>
</main>
</body>
</html>
"""


def server_error(request: HttpRequest) -> HttpResponse:
    # Called while the failed request's exception is being handled, so it is still in sys.exc_info().
    database_down = isinstance(sys.exc_info()[1], OperationalError | InterfaceError)
    status = 503 if database_down else 500
    text = DATABASE_DOWN if database_down else SERVER_ERROR
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse({"detail": text}, status=status)
    else:
        title = "The site is briefly unavailable" if database_down else "Server error"
        response = HttpResponse(PAGE.format(title=title, text=text), status=status)
    if database_down:
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def refusal(
    request: HttpRequest, text: str, *, status: int = 400, title: str = "Bad request"
) -> HttpResponse:
    """A request refused before a view read it: ``{"detail": text}`` under /api/, a page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": text}, status=status)
    return HttpResponse(PAGE.format(title=escape(title), text=escape(text)), status=status)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """``handler400``: what Django refused to read, with the reason (its own page says only "Bad
    Request", and is HTML under /api/ too). An oversized body is a 413."""
    if isinstance(exception, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0
        text = f"The request is too large: the site reads at most {limit // 1024} KB of data at once."
        return refusal(request, text, status=413, title="Request too large")
    if isinstance(exception, TooManyFieldsSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        return refusal(request, f"The request has too many fields: the site reads at most {limit}.")
    if isinstance(exception, TooManyFilesSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FILES
        return refusal(request, f"The request has too many files: the site reads at most {limit}.")
    return refusal(request, "The request is malformed, and was not read.")
