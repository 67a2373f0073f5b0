from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django import template
from django.utils import timezone
from django.utils.html import format_html

from games.engines.palette import SEAT_NAMES, SEAT_SHAPES
from games.timefmt import relative_text, when_text

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


@register.filter
def relative(value: datetime | None) -> str:
    """'in 2 days, 3 hours' or '3 hours ago', from now."""
    if not value:
        return ""
    return relative_text(value, timezone.now())


@register.filter
def deadline(value: datetime | None) -> str:
    """A deadline in the viewer's zone (the middleware activates it) and relative to now."""
    if not value:
        return ""
    tz = timezone.get_current_timezone()
    return format_html(
        '<time datetime="{}" title="{}">{}</time> <span class="relative">({})</span>',
        value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        timezone.get_current_timezone_name(),
        when_text(value, tz),
        relative_text(value, timezone.now()),
    )


@register.filter
def has_bank(match: Any) -> bool:
    """Whether the match's clocks have a reserve (a zero start that grows per move counts)."""
    return match.bank_initial is not None or bool(match.bank_increment)


@register.filter
def seat_colour(position: Any) -> str:
    """A seat's colour and marker in words ('orange circle'), as the boards draw it: said in text beside
    the swatch, so that colour is never the only way to tell seats apart."""
    try:
        k = int(position)
    except (TypeError, ValueError):
        return ""
    return f"{SEAT_NAMES[k % len(SEAT_NAMES)]} {SEAT_SHAPES[k % len(SEAT_SHAPES)]}"
