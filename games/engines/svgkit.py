"""What every server-drawn board shares: stable numbers, escaped attributes, solid colour mixes and
coordinate labels. Pure string work, no Django."""

from __future__ import annotations

from html import escape
from typing import Any


def number(x: float) -> str:
    """Short, stable number formatting (no float noise in the markup)."""
    r = round(x, 1)
    return str(int(r)) if r == int(r) else f"{r:.1f}"


def attr(value: Any) -> str:
    return escape(str(value), quote=True)


def mix(colour: str, base: str, amount: float) -> str:
    """``amount`` of ``colour`` over ``base``, as a solid hex colour (no transparency stacking)."""
    c = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(base[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(cc * amount + bb * (1 - amount)):02X}" for cc, bb in zip(c, b, strict=True))


def coordinate_labels(*, size: int, cell: float, margin: float, extent: float, ink: str) -> str:
    """File letters above and below a square board and rank numbers on both sides, so either player
    reads them without turning the board. ``extent`` is the width and height of board plus margins."""
    files = "abcdefghijklmnopqrstuvwxyz"[:size]
    out = [f'<g class="coords" font-size="14" fill="{ink}" text-anchor="middle" pointer-events="none">']
    for f in range(size):
        x = margin + f * cell + cell / 2
        for y in (margin / 2 + 5, extent - margin / 2 + 5):
            out.append(f'<text x="{number(x)}" y="{number(y)}">{files[f]}</text>')
    for r in range(size):
        y = margin + (size - 1 - r) * cell + cell / 2 + 5
        for x in (margin / 2, extent - margin / 2):
            out.append(f'<text x="{number(x)}" y="{number(y)}">{r + 1}</text>')
    out.append("</g>")
    return "".join(out)


# An interactive board is a group of controls, not a picture (an image's children are hidden from
# assistive technology). Each target is a button, unavailable until the page's script offers it, so a
# board drawn for the player to move reads right with or without the script.
TARGET_ROLE = ' role="button" aria-disabled="true"'


def root_role(interactive: bool) -> str:
    return "group" if interactive else "img"
