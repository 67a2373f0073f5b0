"""A rating history drawn on the server as SVG: the skill estimate (mu) as a line inside its band of
uncertainty (mu - sigma to mu + sigma), and the cautious rating (the ordinal, mu - 3 sigma) dashed.

One point per rated match, evenly spaced (days between moves vary too much for a time axis to help).
Every piece of text is escaped; the picture carries a title and a description for screen readers, and
the profile page lists the same numbers in a table.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from html import escape

from games.engines.svgkit import number

WIDTH = 480
HEIGHT = 200
LEFT = 44
RIGHT = 12
TOP = 14
BOTTOM = 28
INK = "#22313f"
LINE = "#0B5D8C"
BAND = "#CFE3F1"
ORDINAL = "#B35C00"
GRID = "#DDDDDD"


@dataclass(frozen=True)
class Point:
    at: datetime
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


def history_svg(points: list[Point], *, title: str, chart_id: str) -> str:
    """The chart of ``points`` (oldest first; the first is the starting rating)."""
    title_id, desc_id = escape(f"{chart_id}-title"), escape(f"{chart_id}-desc")
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="rating-chart" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-labelledby="{title_id} {desc_id}">'
        f'<title id="{title_id}">{escape(title)}</title>'
        f'<desc id="{desc_id}">{escape(describe(points))}</desc>'
    )
    if len(points) < 2:
        return head + "</svg>"
    lows = [p.ordinal for p in points] + [p.mu - p.sigma for p in points]
    highs = [p.mu + p.sigma for p in points]
    low, high = min(lows), max(highs)
    if high - low < 1:
        high, low = high + 0.5, low - 0.5
    inner_w = WIDTH - LEFT - RIGHT
    inner_h = HEIGHT - TOP - BOTTOM

    def x(index: int) -> float:
        return LEFT + inner_w * index / (len(points) - 1)

    def y(value: float) -> float:
        return TOP + inner_h * (high - value) / (high - low)

    out = [head, f'<g font-size="11" fill="{INK}" font-family="system-ui, sans-serif">']
    for tick in _ticks(low, high):
        ty = number(y(tick))
        out.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{ty}" y2="{ty}" stroke="{GRID}"/>')
        out.append(f'<text x="{LEFT - 4}" y="{number(y(tick) + 4)}" text-anchor="end">{number(tick)}</text>')
    upper = " ".join(f"{number(x(i))},{number(y(p.mu + p.sigma))}" for i, p in enumerate(points))
    lower = " ".join(
        f"{number(x(i))},{number(y(p.mu - p.sigma))}" for i, p in reversed(list(enumerate(points)))
    )
    out.append(f'<polygon class="band" points="{upper} {lower}" fill="{BAND}"/>')
    mu_line = " ".join(f"{number(x(i))},{number(y(p.mu))}" for i, p in enumerate(points))
    out.append(f'<polyline class="mu" points="{mu_line}" fill="none" stroke="{LINE}" stroke-width="2"/>')
    ordinal_line = " ".join(f"{number(x(i))},{number(y(p.ordinal))}" for i, p in enumerate(points))
    out.append(
        f'<polyline class="ordinal" points="{ordinal_line}" fill="none" stroke="{ORDINAL}" '
        'stroke-width="1.5" stroke-dasharray="5 3"/>'
    )
    first, last = points[0].at, points[-1].at
    out.append(f'<text x="{LEFT}" y="{HEIGHT - 8}">{escape(_day(first))}</text>')
    out.append(f'<text x="{WIDTH - RIGHT}" y="{HEIGHT - 8}" text-anchor="end">{escape(_day(last))}</text>')
    out.append("</g></svg>")
    return "".join(out)


def describe(points: list[Point]) -> str:
    if len(points) < 2:
        return "No rated matches yet."
    start, end = points[0], points[-1]
    best = max(points[1:], key=lambda p: p.ordinal)
    matches = len(points) - 1
    return (
        f"{matches} rated match{'es' if matches != 1 else ''}. The rating went from {start.ordinal:.1f} to "
        f"{end.ordinal:.1f} (best {best.ordinal:.1f}); the skill estimate is now {end.mu:.1f} "
        f"plus or minus {end.sigma:.1f}."
    )


def _ticks(low: float, high: float) -> list[float]:
    span = high - low
    step = next(s for s in (1, 2, 5, 10, 20, 50, 100) if span / s <= 6)
    first = int(low // step + 1) * step
    return [float(v) for v in range(first, int(high) + 1, step) if low <= v <= high]


def _day(moment: datetime) -> str:
    return f"{moment.day} {moment:%b %Y}"
