"""Server-side SVG of a Wall Go position, drawn from ``WallGo.view`` only (never from the state).

Only notation, numbers and seat indices reach the markup, and every interpolated value is escaped all
the same. The output is deterministic so that equal views give byte-identical boards.
"""

from __future__ import annotations

import math
from typing import Any

from games.engines.palette import SEAT_NAMES, SEAT_SHAPES, seat_colour
from games.engines.svgkit import TARGET_ROLE, coordinate_labels, root_role
from games.engines.svgkit import attr as _a
from games.engines.svgkit import mix as _mix
from games.engines.svgkit import number as _n

FILES = "abcdefg"
CELL = 56
MARGIN = 28
BOARD_FILL = "#F3EDE2"
GRID = "#B9AE9A"
INK = "#1B1B1B"
HIT_INSET = 5
HIT_HALF = 7  # half the thickness of a wall's click band
TINT = 0.30  # how much of the owner's colour shows on an owned region: light enough to read tokens
MARK = 0.38  # a territory mark's size against a token's: the tint alone fails colour-blind players


def _geometry(size: int) -> dict[str, tuple[int, int]]:
    """Square name -> top-left corner; rank 1 at the bottom, file a on the left."""
    return {
        f"{FILES[f]}{r + 1}": (MARGIN + f * CELL, MARGIN + (size - 1 - r) * CELL)
        for f in range(size)
        for r in range(size)
    }


def _edge_line(edge: str, corners: dict[str, tuple[int, int]]) -> tuple[int, int, int, int] | None:
    """End points of a canonical wall (``c3n`` / ``c3e``); None for anything that is not one."""
    square, side = edge[:-1], edge[-1:]
    if square not in corners or side not in ("n", "e"):
        return None
    x, y = corners[square]
    if side == "n":
        return x, y, x + CELL, y
    return x + CELL, y, x + CELL, y + CELL


def _interior_edges(size: int) -> list[str]:
    edges = []
    for f in range(size):
        for r in range(size):
            name = f"{FILES[f]}{r + 1}"
            if f < size - 1:
                edges.append(name + "e")
            if r < size - 1:
                edges.append(name + "n")
    return edges


def _token(
    shape: str,
    cx: float,
    cy: float,
    fill: str,
    seat: int,
    *,
    mark: bool = False,
    on: str = "",
    kind: str = "",
) -> str:
    """A seat's piece, or (``mark``) the small copy of it that marks an empty square of its territory.

    ``on`` names the square it stands on (``data-on``), so the board script can show it moved before the
    move is sent; ``kind`` replaces its class (the template of a piece not on the board)."""
    rad = CELL * 0.31 * (MARK if mark else 1.0)
    stroke = 1.5 if mark else 2.5
    kind = kind or ("territory-mark" if mark else "token")
    where = f' data-on="{_a(on)}"' if on else ""
    common = (
        f'fill="{_a(fill)}" stroke="{INK}" stroke-width="{_n(stroke)}" class="{kind} seat-{seat}" '
        f'data-seat="{seat}"{where}'
    )
    if shape == "circle":
        return f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(rad)}" {common}/>'
    if shape == "square":
        side = rad * 1.7
        return (
            f'<rect x="{_n(cx - side / 2)}" y="{_n(cy - side / 2)}" width="{_n(side)}" '
            f'height="{_n(side)}" rx="2" {common}/>'
        )
    corners, start = {"triangle": (3, -90), "diamond": (4, -90), "pentagon": (5, -90)}.get(shape, (6, 0))
    r = rad * (1.2 if shape == "triangle" else 1.1)
    dy = rad * 0.2 if shape == "triangle" else 0  # a triangle's centroid sits low; lift it to look centred
    points = " ".join(
        f"{_n(cx + r * math.cos(math.radians(start + k * 360 / corners)))},"
        f"{_n(cy + dy + r * math.sin(math.radians(start + k * 360 / corners)))}"
        for k in range(corners)
    )
    return f'<polygon points="{points}" stroke-linejoin="round" {common}/>'


def _seat_name(seat: int) -> str:
    return SEAT_NAMES[seat % len(SEAT_NAMES)].capitalize()


def _square_label(sq: str, tokens: dict[str, int], owner_of: dict[str, int]) -> str:
    """What a square holds, in words, for those who hear the board rather than see it."""
    parts = [sq]
    if sq in tokens:
        owner = int(tokens[sq])
        parts.append(f"{_seat_name(owner)} {SEAT_SHAPES[owner % len(SEAT_SHAPES)]}")
    if sq in owner_of:
        parts.append(f"{_seat_name(owner_of[sq])} territory")
    return ", ".join(parts)


def render(view: dict[str, Any], seat: int | None, *, interactive: bool) -> str:
    size = int(view.get("size", 7))
    corners = _geometry(size)
    width = 2 * MARGIN + size * CELL
    tokens: dict[str, int] = view.get("tokens", {})
    walls: dict[str, int] = view.get("walls", {})

    owner_of: dict[str, int] = {}
    for region in view.get("regions", []):
        if region.get("owner") is not None:
            for sq in region.get("squares", []):
                owner_of[sq] = int(region["owner"])

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {width}" '
        f'role="{root_role(interactive)}" aria-label="Wall Go board" class="board wallgo" '
        'font-family="sans-serif">',
        f'<rect x="0" y="0" width="{width}" height="{width}" fill="#E4DACB"/>',
    ]

    out.append(coordinate_labels(size=size, cell=CELL, margin=MARGIN, extent=width, ink=INK))

    out.append('<g class="squares">')
    for sq, (x, y) in corners.items():
        fill = _mix(seat_colour(owner_of[sq]), BOARD_FILL, TINT) if sq in owner_of else BOARD_FILL
        attrs = (
            f'x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{fill}" stroke="{GRID}" stroke-width="1"'
        )
        if interactive:
            out.append(
                f'<rect {attrs} data-target="sq-{_a(sq)}" class="square target" tabindex="-1" '
                f'aria-label="{_a(_square_label(sq, tokens, owner_of))}"{TARGET_ROLE}/>'
            )
        else:
            out.append(f'<rect {attrs} class="square"/>')
    out.append("</g>")
    out.append(
        f'<rect x="{MARGIN}" y="{MARGIN}" width="{size * CELL}" height="{size * CELL}" fill="none" '
        f'stroke="{INK}" stroke-width="3" pointer-events="none"/>'
    )

    last = view.get("last_move") or {}
    last_move = last.get("move") or {}
    marks = []
    if "place" in last_move:
        marks.append((last_move["place"], "last-to", ""))
    elif "from" in last_move:
        if last_move["from"] != last_move["to"]:
            marks.append((last_move["from"], "last-from", ' stroke-dasharray="6 4"'))
        marks.append((last_move["to"], "last-to", ""))
    for sq, cls, dash in marks:
        if sq in corners:
            x, y = corners[sq]
            out.append(
                f'<rect x="{x + 3}" y="{y + 3}" width="{CELL - 6}" height="{CELL - 6}" fill="none" '
                f'stroke="{INK}" stroke-width="2.5"{dash} class="{cls}" pointer-events="none"/>'
            )

    out.append('<g class="walls" stroke-linecap="round" pointer-events="none">')
    last_wall = last_move.get("wall")
    for edge in sorted(walls):
        line = _edge_line(edge, corners)
        if line is None:
            continue
        x1, y1, x2, y2 = line
        ends = f'x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"'
        if edge == last_wall:
            out.append(f'<line {ends} stroke="#FFFFFF" stroke-width="16" class="last-wall-halo"/>')
            out.append(f'<line {ends} stroke="{INK}" stroke-width="12" class="last-wall-halo"/>')
        colour = seat_colour(int(walls[edge]))
        out.append(f'<line {ends} stroke="{INK}" stroke-width="9"/>')
        out.append(
            f'<line {ends} stroke="{_a(colour)}" stroke-width="6" class="wall seat-{int(walls[edge])}" '
            f'data-wall="{_a(edge)}"/>'
        )
    out.append("</g>")

    # An empty owned square also shows its owner's shape, small, as Go boards mark territory.
    out.append('<g class="territory" pointer-events="none">')
    for sq in sorted(owner_of):
        if sq in corners and sq not in tokens:
            owner = owner_of[sq]
            x, y = corners[sq]
            shape = SEAT_SHAPES[owner % len(SEAT_SHAPES)]
            out.append(_token(shape, x + CELL / 2, y + CELL / 2, seat_colour(owner), owner, mark=True))
    out.append("</g>")

    out.append('<g class="tokens" pointer-events="none">')
    for sq in sorted(tokens):
        if sq not in corners:
            continue
        owner = int(tokens[sq])
        x, y = corners[sq]
        shape = SEAT_SHAPES[owner % len(SEAT_SHAPES)]
        out.append(_token(shape, x + CELL / 2, y + CELL / 2, seat_colour(owner), owner, on=f"sq-{sq}"))
    out.append("</g>")

    if interactive and seat is not None:
        # The mover's own piece, drawn nowhere: the board script shows a copy of it on the square chosen
        # for a token being placed, before the move is sent.
        shape = SEAT_SHAPES[seat % len(SEAT_SHAPES)]
        piece = _token(shape, 0, 0, seat_colour(seat), seat, kind="preview-token")
        out.append(f'<defs><g data-preview-piece="own">{piece}</g></defs>')

    if interactive:
        # Wide invisible hit areas on top, so a wall is easy to pick even on a phone.
        out.append('<g class="edges">')
        for edge in _interior_edges(size):
            if edge in walls:
                continue
            line = _edge_line(edge, corners)
            x1, y1, x2, y2 = line
            side = "north" if edge.endswith("n") else "east"
            # A band along the edge, stopping short of the corners so two bands never overlap where
            # walls meet; a band (not a bare line) has an area, so it is easy to hit on a phone too.
            if side == "north":
                x, y, w, h = x1 + HIT_INSET, y1 - HIT_HALF, x2 - x1 - 2 * HIT_INSET, 2 * HIT_HALF
            else:
                x, y, w, h = x1 - HIT_HALF, y1 + HIT_INSET, 2 * HIT_HALF, y2 - y1 - 2 * HIT_INSET
            out.append(
                f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" '
                f'data-target="wall-{_a(edge)}" class="edge target" fill="transparent" tabindex="-1" '
                f'aria-label="wall {side} of {_a(edge[:-1])}"{TARGET_ROLE}/>'
            )
        out.append("</g>")

    out.append("</svg>")
    return "".join(out)
