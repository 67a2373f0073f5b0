"""The answer when a request fails on our side (``handler500``): a 503 that says so when the database is
unreachable, a plain 500 otherwise; JSON under /api/, a page elsewhere.

It neither renders a site template nor touches the database: the header's context processor queries it,
and when the database is what failed, that would fail again.
"""

from __future__ import annotations

import sys

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
