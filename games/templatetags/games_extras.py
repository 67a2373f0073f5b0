from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def at(sequence: Any, index: Any) -> Any:
    """``values|at:seat.position``: one seat's entry of a per-seat list from a game view."""
    try:
        return sequence[int(index)]
    except (IndexError, KeyError, TypeError, ValueError):
        return ""


@register.filter
def duration(value: Any) -> str:
    """A time limit in words: '3 days', '1 day 12 hours', '6 hours'."""
    if value is None:
        return ""
    seconds = int(value.total_seconds())
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    parts = [
        f"{count} {unit}{'' if count == 1 else 's'}"
        for count, unit in ((days, "day"), (hours, "hour"), (minutes, "minute"))
        if count
    ]
    return " ".join(parts) or "0 minutes"
