from __future__ import annotations

from django.http import HttpRequest

from games import selectors


def site_header(request: HttpRequest) -> dict:
    """The count of matches awaiting the viewer's move, for the badge in the header."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"awaiting_count": selectors.matches_awaiting_count(user=user)}
