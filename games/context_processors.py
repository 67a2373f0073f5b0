from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from games import selectors


def site_header(request: HttpRequest) -> dict:
    """The count of matches awaiting the viewer's move, for the badge in the header: counted only when a
    template shows it, so a fragment rendered without the header costs no query."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"awaiting_count": SimpleLazyObject(lambda: selectors.matches_awaiting_count(user=user))}
