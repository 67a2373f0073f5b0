"""Server-side SVG of a Walls and Stairways position, drawn from ``Stairways.view`` only.

The board (floor, walls, stairways, pieces, treasure), then a strip with the four wonders, the open bid,
the buttons of the moment and the hands: the viewer's own cards face up (from the view's private part),
everybody else's as a count. Every interpolated value is escaped; equal views give identical markup.

Click targets (``interactive``): ``sq-<square>``, ``wall-<wall>`` on walls, ``edge-<edge>`` on empty
edges, ``card-<card>``, ``wonder-<suit>``, ``give-<seat>`` and the buttons ``end``, ``claim``, ``yield``
and ``off`` (a wall sliding off the board in the crowded variant).

With several boards (the Multiple Boards variant) the boards stand side by side, board 1 (the one with
the stairways) on the left, under a row of board titles; squares and walls of board k >= 2 carry k in
front of their names (``sq-2c3``, ``wall-2c3e``), so every target stays unique. Teleporters are violet
rings on their squares, and the strip gets a fifth wonder, ``wonder-T``.
"""

from __future__ import annotations

from typing import Any

from games.engines.palette import SEAT_NAMES, seat_colour
from games.engines.svgkit import TARGET_ROLE, coordinate_labels, root_role
from games.engines.svgkit import attr as _a
from games.engines.svgkit import mix as _mix
from games.engines.svgkit import number as _n

FILES = "abcdefgh"
SIZE = 8
CELL = 56
MARGIN = 28
BOARD = 2 * MARGIN + SIZE * CELL
STRIP = 236  # height of the wonders, buttons and hands below the board
FLOOR = "#EFE6D2"
GRID = "#C9BC9F"
INK = "#1B1B1B"
WALL = "#5B4636"
SUIT_SYMBOL = {"H": "\u2665", "C": "\u2663", "D": "\u2666", "S": "\u2660", "T": "\u25ce"}
SUIT_INK = {"H": "#B3261E", "C": INK, "D": "#B3261E", "S": INK, "T": "#6A3D9A"}
PORTAL = "#6A3D9A"
WONDER_NAME = {"T": "teleporter"}  # the suits' wonders are labelled by their letter, as they always were
TITLE = 24  # height of the row of board titles when there are several boards
HIT_INSET = 6
HIT_HALF = 7

# The site's stylesheet knows squares and edges; the rest of this board's targets are styled here,
# scoped to this game's boards.
STYLE = (
    "<style>"
    "svg.stairways .pick{pointer-events:none}"
    "div.board.interactive svg.stairways .pick.choosable{pointer-events:all;cursor:pointer;"
    "stroke:#0B5D8C;stroke-width:3}"
    "div.board.interactive svg.stairways .pick.chosen{stroke:#0B5D8C;stroke-width:4;fill:#CFE8FF}"
    "</style>"
)


def _split(name: str) -> tuple[int, str]:
    """(board index from 0, name on that board): ``2c3`` is c3 of board 2."""
    if name[:1].isdigit():
        return int(name[0]) - 1, name[1:]
    return 0, name


def _on_board(board: int, local: str) -> str:
    return local if board == 0 else f"{board + 1}{local}"


def _corner(sq: str, top: int = 0) -> tuple[int, int] | None:
    """Top-left corner of a square's cell (boards side by side, ``top`` above them all); None for
    anything that is not a square."""
    board, sq = _split(sq)
    if len(sq) != 2 or sq[0] not in FILES or not sq[1].isdigit() or not 1 <= int(sq[1]) <= SIZE:
        return None
    x, y = FILES.index(sq[0]), int(sq[1]) - 1
    return board * BOARD + MARGIN + x * CELL, top + MARGIN + (SIZE - 1 - y) * CELL


def _edge_line(edge: str, top: int = 0) -> tuple[int, int, int, int] | None:
    """The line of an edge: ``n``/``e`` of its square, or ``s``/``w`` on the outline (a3w, c1s)."""
    corner = _corner(edge[:-1], top)
    if corner is None or edge[-1:] not in ("n", "e", "s", "w"):
        return None
    x, y = corner
    side = edge[-1]
    if side == "n":
        return x, y, x + CELL, y
    if side == "s":
        return x, y + CELL, x + CELL, y + CELL
    if side == "w":
        return x, y, x, y + CELL
    return x + CELL, y, x + CELL, y + CELL


def _interior_edges() -> list[str]:
    out = []
    for f in range(SIZE):
        for r in range(SIZE):
            sq = f"{FILES[f]}{r + 1}"
            if f < SIZE - 1:
                out.append(sq + "e")
            if r < SIZE - 1:
                out.append(sq + "n")
    return out


def _outline_edges() -> list[str]:
    """The board's outline, where a wall may be moved (never placed): west, south, east, north."""
    last = SIZE - 1
    return (
        [f"a{r + 1}w" for r in range(SIZE)]
        + [f"{FILES[f]}1s" for f in range(SIZE)]
        + [f"{FILES[last]}{r + 1}e" for r in range(SIZE)]
        + [f"{FILES[f]}{SIZE}n" for f in range(SIZE)]
    )


def _band(edge: str, top: int = 0) -> tuple[float, float, float, float]:
    x1, y1, x2, y2 = _edge_line(edge, top) or (0, 0, 0, 0)
    if y1 == y2:
        return x1 + HIT_INSET, y1 - HIT_HALF, x2 - x1 - 2 * HIT_INSET, 2 * HIT_HALF
    return x1 - HIT_HALF, y1 + HIT_INSET, 2 * HIT_HALF, y2 - y1 - 2 * HIT_INSET


def _seat_name(seat: int) -> str:
    return SEAT_NAMES[seat % len(SEAT_NAMES)].capitalize()


def _button(target: str, label: str, x: float, y: float, w: float, interactive: bool) -> str:
    data = f' data-target="{_a(target)}" tabindex="-1"{TARGET_ROLE}' if interactive else ""
    return (
        f'<g class="button"><rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="26" rx="5" '
        f'fill="#FFFFFF" stroke="{INK}" stroke-width="1.5" class="pick"{data} aria-label="{_a(label)}"/>'
        f'<text x="{_n(x + w / 2)}" y="{_n(y + 18)}" text-anchor="middle" font-size="13" '
        f'pointer-events="none">{_a(label)}</text></g>'
    )


def _card(card: str, x: float, y: float, interactive: bool) -> str:
    suit, value = card[:1], card[1:]
    data = f' data-target="card-{_a(card)}" tabindex="-1"{TARGET_ROLE}' if interactive else ""
    ink = SUIT_INK.get(suit, INK)
    return (
        f'<g class="card"><rect x="{_n(x)}" y="{_n(y)}" width="34" height="48" rx="4" fill="#FFFFFF" '
        f'stroke="{INK}" stroke-width="1.2" class="pick"{data} aria-label="{_a(card)}"/>'
        f'<text x="{_n(x + 17)}" y="{_n(y + 20)}" text-anchor="middle" font-size="14" font-weight="700" '
        f'fill="{ink}" pointer-events="none">{_a(value)}</text>'
        f'<text x="{_n(x + 17)}" y="{_n(y + 40)}" text-anchor="middle" font-size="16" fill="{ink}" '
        f'pointer-events="none">{_a(SUIT_SYMBOL.get(suit, suit))}</text></g>'
    )


def _pieces(view: dict[str, Any]) -> dict[str, list[tuple[str, str, str]]]:
    """Square -> pieces standing there, as (kind, label, note): heroes, then the giant, then rats."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    for hero in view.get("heroes", []):
        if hero.get("fate") == "floor" and hero.get("square"):
            note = _carried(hero.get("jewels", 0), hero.get("swords", 0))
            out.setdefault(hero["square"], []).append(("hero", str(hero["number"]), note))
    mortal = view.get("options", {}).get("mortal_giant") == "yes"
    several = "giants" in view
    giants = [(1, view.get("giant"))] + [(k + 2, g) for k, g in enumerate(view.get("giants") or [])]
    for number, giant in giants:
        if giant and giant.get("alive") and giant.get("square"):
            note = _carried(giant.get("jewels", 0), giant.get("swords", 0)) if mortal else ""
            label = f"G{number}" if several else "G"
            out.setdefault(giant["square"], []).append(("giant", label, note))
    for rats in view.get("rats", []):
        if rats.get("square"):
            out.setdefault(rats["square"], []).append(("rats", str(rats["size"]), ""))
    return out


def piece_squares(view: dict[str, Any]) -> set[str]:
    """The squares with a piece drawn on them (each such square's pieces carry ``data-on``)."""
    return set(_pieces(view))


def _square_label(
    sq: str,
    stairways: list[str],
    pieces: dict[str, list[tuple[str, str, str]]],
    treasure: dict[str, Any],
    teleporters: set[str],
) -> str:
    """What a square holds, in words, for those who hear the board rather than see it."""
    parts = [sq]
    if sq in stairways:
        parts.append(f"{_seat_name(stairways.index(sq))} stairway")
    if sq in teleporters:
        parts.append("teleporter")
    for kind, label, note in pieces.get(sq, []):
        name = {"hero": f"hero {label}", "giant": "giant" if label == "G" else f"giant {label[1:]}"}.get(
            kind, f"rats ({label})"
        )
        carried = _carried_words(note)
        parts.append(f"{name} carrying {carried}" if carried else name)
    pile = treasure.get(sq) or {}
    lying = _carried_words(_carried(int(pile.get("jewels", 0)), int(pile.get("swords", 0))))
    if lying:
        parts.append(f"{lying} on the floor")
    return ", ".join(parts)


def _carried_words(note: str) -> str:
    """``2♦ 1†`` as '2 jewels and 1 sword'."""
    words = []
    for part in note.split():
        count, mark = int(part[:-1]), part[-1]
        noun = "jewel" if mark == "\u2666" else "sword"
        words.append(f"{count} {noun}{'' if count == 1 else 's'}")
    return " and ".join(words)


def _carried(jewels: int, swords: int) -> str:
    parts = []
    if jewels:
        parts.append(f"{jewels}\u2666")
    if swords:
        parts.append(f"{swords}\u2020")
    return " ".join(parts)


def _piece(kind: str, label: str, note: str, cx: float, cy: float, r: float) -> str:
    if kind == "hero":
        shape = (
            f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(r)}" fill="#FFF6C2" stroke="{INK}" '
            f'stroke-width="2" class="hero"/>'
        )
        text_fill = INK
    elif kind == "giant":
        shape = (
            f'<rect x="{_n(cx - r * 1.1)}" y="{_n(cy - r * 1.1)}" width="{_n(r * 2.2)}" '
            f'height="{_n(r * 2.2)}" rx="3" fill="#7A4B2A" stroke="{INK}" stroke-width="2" class="giant"/>'
        )
        text_fill = "#FFFFFF"
    else:
        shape = (
            f'<polygon points="{_n(cx)},{_n(cy - r)} {_n(cx + r)},{_n(cy + r * 0.8)} '
            f'{_n(cx - r)},{_n(cy + r * 0.8)}" fill="#6E6E6E" stroke="{INK}" stroke-width="1.5" '
            'class="rats"/>'
        )
        text_fill = "#FFFFFF"
    out = [
        shape,
        f'<text x="{_n(cx)}" y="{_n(cy + 4.5)}" text-anchor="middle" font-size="12" font-weight="700" '
        f'fill="{text_fill}">{_a(label)}</text>',
    ]
    if note:
        out.append(
            f'<text x="{_n(cx)}" y="{_n(cy + r + 9)}" text-anchor="middle" font-size="9" fill="{INK}">'
            f"{_a(note)}</text>"
        )
    return "".join(out)


def render(view: dict[str, Any], seat: int | None, *, interactive: bool) -> str:
    boards = int(view.get("boards", 1))
    top = TITLE if boards > 1 else 0
    width = BOARD * boards
    height = top + BOARD + STRIP
    walls = set(view.get("walls", []))
    stairways: list[str] = list(view.get("stairways", []))
    teleporters = set(view.get("teleporters", []))
    pending = view.get("pending") or {}
    awaiting = view.get("awaiting")
    # Boards side by side get the page's whole width above the side panels (static/css/site.css).
    layout = ' data-layout="wide"' if boards > 1 else ""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'role="{root_role(interactive)}" aria-label="Walls and Stairways board" class="board stairways" '
        f'font-family="sans-serif"{layout}>',
        STYLE,
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#E4DACB"/>',
    ]

    labels = coordinate_labels(size=SIZE, cell=CELL, margin=MARGIN, extent=BOARD, ink=INK)
    if boards == 1:
        out.append(labels)
    else:
        for b in range(boards):
            title = "Board 1: the stairways" if b == 0 else f"Board {b + 1}"
            out.append(
                f'<text x="{b * BOARD + BOARD // 2}" y="{top - 6}" text-anchor="middle" font-size="14" '
                f'font-weight="700" fill="{INK}" class="board-title">{_a(title)}</text>'
                f'<g transform="translate({b * BOARD},{top})">{labels}</g>'
            )

    # Floor; a stairway square takes its owner's colour.
    pieces = _pieces(view)
    treasure = view.get("treasure", {})
    out.append('<g class="squares">')
    for b in range(boards):
        for f in range(SIZE):
            for r in range(SIZE):
                sq = _on_board(b, f"{FILES[f]}{r + 1}")
                x, y = _corner(sq, top) or (0, 0)
                fill = FLOOR
                if sq in stairways:
                    fill = _mix(seat_colour(stairways.index(sq)), FLOOR, 0.55)
                attrs = (
                    f'x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{fill}" stroke="{GRID}" '
                    'stroke-width="1"'
                )
                if interactive:
                    label = _square_label(sq, stairways, pieces, treasure, teleporters)
                    out.append(
                        f'<rect {attrs} data-target="sq-{sq}" class="square target" tabindex="-1" '
                        f'aria-label="{_a(label)}"{TARGET_ROLE}/>'
                    )
                else:
                    out.append(f'<rect {attrs} class="square"/>')
    out.append("</g>")

    out.append('<g class="stairways" pointer-events="none">')
    for owner, sq in enumerate(stairways):
        corner = _corner(str(sq), top)
        if corner is None:
            continue
        x, y = corner
        # Steps climbing to the north-east, and the owner's colour name for those who cannot tell colours.
        for k in range(4):
            out.append(
                f'<rect x="{x + 6 + k * 9}" y="{y + CELL - 12 - k * 9}" width="{CELL - 12 - k * 9}" '
                'height="5" '
                f'fill="{_a(seat_colour(owner))}" stroke="{INK}" stroke-width="0.8"/>'
            )
        out.append(
            f'<text x="{x + 4}" y="{y + 11}" font-size="9" fill="{INK}" class="stair-owner">'
            f"{_a(_seat_name(owner))}</text>"
        )
    out.append("</g>")
    for b in range(boards):
        out.append(
            f'<rect x="{b * BOARD + MARGIN}" y="{top + MARGIN}" width="{SIZE * CELL}" '
            f'height="{SIZE * CELL}" fill="none" stroke="{INK}" stroke-width="3" pointer-events="none"/>'
        )

    if teleporters:
        out.append('<g class="teleporters" pointer-events="none">')
        for sq in sorted(teleporters):
            corner = _corner(sq, top)
            if corner is None:
                continue
            cx, cy = corner[0] + CELL / 2, corner[1] + CELL / 2
            out.append(
                f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(CELL * 0.42)}" fill="none" stroke="{PORTAL}" '
                f'stroke-width="3" stroke-dasharray="6 3" class="teleporter"><title>teleporter on '
                f"{_a(sq)}</title></circle>"
            )
        out.append("</g>")

    # Treasure lying on the floor.
    out.append('<g class="treasure" pointer-events="none">')
    for sq, pile in sorted(view.get("treasure", {}).items()):
        corner = _corner(sq, top)
        if corner is None:
            continue
        x, y = corner
        jewels, swords = int(pile.get("jewels", 0)), int(pile.get("swords", 0))
        if jewels:
            cx, cy = x + CELL - 12, y + 12
            out.append(
                f'<polygon points="{cx},{cy - 7} {cx + 6},{cy} {cx},{cy + 7} {cx - 6},{cy}" fill="#3FA7D6" '
                f'stroke="{INK}" stroke-width="1" class="jewel"/>'
            )
            if jewels > 1:
                out.append(
                    f'<text x="{cx - 9}" y="{cy + 4}" font-size="10" text-anchor="end">{jewels}</text>'
                )
        if swords:
            cx, cy = x + CELL - 12, y + CELL - 14
            out.append(
                f'<path d="M{cx} {cy - 9} L{cx} {cy + 6} M{cx - 5} {cy + 2} L{cx + 5} {cy + 2}" '
                f'stroke="#555555" stroke-width="2.5" class="sword"/>'
            )
            if swords > 1:
                out.append(
                    f'<text x="{cx - 9}" y="{cy + 4}" font-size="10" text-anchor="end">{swords}</text>'
                )
    out.append("</g>")

    # Lines of sight of a pending decision: from the token (or rats) to each square it may go to (for a
    # teleporter, to every other teleporter, across boards).
    origin = pending.get("from")
    if origin and _corner(origin, top):
        ox, oy = _corner(origin, top) or (0, 0)
        out.append('<g class="sight" pointer-events="none">')
        for option in pending.get("options", []):
            corner = _corner(option, top)
            if corner is None or option == origin:
                continue
            tx, ty = corner
            out.append(
                f'<line x1="{ox + CELL // 2}" y1="{oy + CELL // 2}" '
                f'x2="{tx + CELL // 2}" y2="{ty + CELL // 2}" '
                f'stroke="#0B5D8C" stroke-width="2" stroke-dasharray="5 4"/>'
            )
        out.append("</g>")

    out.append('<g class="pieces" pointer-events="none">')
    for sq, here in sorted(pieces.items()):
        corner = _corner(sq, top)
        if corner is None:
            continue
        x, y = corner
        slots = [(0.5, 0.45)] if len(here) == 1 else [(0.3, 0.3), (0.7, 0.3), (0.3, 0.72), (0.7, 0.72)]
        r = CELL * (0.22 if len(here) == 1 else 0.14)
        # The square's pieces together, named by it: a wall about to sweep them is shown with them pushed.
        out.append(f'<g data-on="sq-{_a(sq)}">')
        for k, (kind, label, note) in enumerate(here[:4]):
            sx, sy = slots[k]
            out.append(_piece(kind, label, note, x + sx * CELL, y + sy * CELL, r))
        if len(here) > 4:
            out.append(
                f'<text x="{x + CELL - 3}" y="{y + CELL - 3}" font-size="9" text-anchor="end">+</text>'
            )
        out.append("</g>")
    out.append("</g>")

    out.append('<g class="walls" stroke-linecap="round" pointer-events="none">')
    for edge in sorted(walls):
        line = _edge_line(edge, top)
        if line is None:
            continue
        x1, y1, x2, y2 = line
        out.append(
            f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{WALL}" stroke-width="8" '
            f'class="wall" data-wall="{_a(edge)}"/>'
        )
    out.append("</g>")
    out.append(_opening_risk(view, top))

    if interactive:
        out.append('<g class="edges">')
        for b in range(boards):
            for local in _interior_edges() + _outline_edges():
                edge = _on_board(b, local)
                x, y, w, h = _band(edge, top)
                target = f"wall-{edge}" if edge in walls else f"edge-{edge}"
                label = f"wall {edge}" if edge in walls else f"empty edge {edge}"
                out.append(
                    f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" '
                    f'data-target="{_a(target)}" class="edge target" fill="transparent" tabindex="-1" '
                    f'aria-label="{_a(label)}"{TARGET_ROLE}/>'
                )
        out.append("</g>")

    out.append(_strip(view, seat, interactive, pending, awaiting, top))
    out.append("</svg>")
    return "".join(out)


def _risk_squares(view: dict[str, Any]) -> list[str]:
    heroes = {h.get("number"): h.get("square") for h in view.get("heroes", [])}
    return [str(heroes[n]) for n in view.get("opening_risk") or [] if heroes.get(n)]


def _opening_risk(view: dict[str, Any], top: int) -> str:
    """A custom layout whose heroes monsters can reach in the first round: a dashed red ring round each
    such hero (see ``opening_losses`` in rules.py); the strip adds a warning line for a spectator."""
    squares = _risk_squares(view)
    if not squares:
        return ""
    out = [f'<g class="opening-risk" data-testid="opening-risk" data-squares="{_a(" ".join(squares))}">']
    for sq in squares:
        corner = _corner(sq, top)
        if corner is None:
            continue
        x, y = corner
        out.append(
            f'<circle cx="{x + CELL / 2}" cy="{y + CELL / 2}" r="{CELL / 2 - 2}" fill="none" '
            f'stroke="#C0392B" stroke-width="3" stroke-dasharray="5 3" pointer-events="none">'
            "<title>a monster can reach this hero in the first round</title></circle>"
        )
    out.append("</g>")
    return "".join(out)


def _opening_risk_note(view: dict[str, Any], y: float) -> str:
    """The warning line that goes with the rings, where a player's hand would be."""
    squares = _risk_squares(view)
    if not squares:
        return ""
    numbers = ", ".join(str(n) for n in view.get("opening_risk") or [])
    text = (
        f"Warning: monsters can reach hero{'es' if len(squares) > 1 else ''} {numbers} "
        f"({', '.join(squares)}) before every player has had a turn."
    )
    return (
        f'<text x="{MARGIN}" y="{_n(y)}" font-size="12" font-weight="700" fill="#C0392B" '
        f'class="opening-risk-note" data-testid="opening-risk-note">{_a(text)}</text>'
    )


def _strip(
    view: dict[str, Any],
    seat: int | None,
    interactive: bool,
    pending: dict[str, Any],
    awaiting: Any,
    above: int = 0,
) -> str:
    top = above + BOARD + 4
    out = [f'<g class="strip" font-size="12" fill="{INK}">']
    wonders = view.get("wonders", {})
    seats = int(view.get("seats", 2))
    eliminated = set(view.get("eliminated", []))
    kinds = "HCDST" if "T" in wonders else "HCDS"
    for k, suit in enumerate(kinds):
        owner = wonders.get(suit)
        x = MARGIN + k * 62
        fill = "#FFFFFF" if owner is None else _mix(seat_colour(int(owner)), "#FFFFFF", 0.6)
        data = f' data-target="wonder-{suit}" tabindex="-1"{TARGET_ROLE}' if interactive else ""
        who = "nobody" if owner is None else _seat_name(int(owner))
        out.append(
            f'<rect x="{x}" y="{top}" width="56" height="40" rx="6" fill="{fill}" stroke="{INK}" '
            f'stroke-width="1.5" class="pick wonder"{data} '
            f'aria-label="{_a(WONDER_NAME.get(suit, suit))} wonder, owner {_a(who)}"/>'
            f'<text x="{x + 28}" y="{top + 21}" text-anchor="middle" font-size="20" fill="{SUIT_INK[suit]}" '
            f'pointer-events="none">{SUIT_SYMBOL[suit]}</text>'
            f'<text x="{x + 28}" y="{top + 35}" text-anchor="middle" font-size="10" pointer-events="none">'
            f"{_a(who)}</text>"
        )
    # Give targets: one per seat still playing.
    gx = MARGIN + len(kinds) * 62 + 6
    out.append(f'<text x="{gx}" y="{top + 12}" font-size="11">give to:</text>')
    for s in range(seats):
        if s in eliminated:
            continue
        data = f' data-target="give-{s}" tabindex="-1"{TARGET_ROLE}' if interactive else ""
        # A light tint of the seat's colour, so that the name on it reads well whatever the colour.
        out.append(
            f'<rect x="{gx + s * 40}" y="{top + 17}" width="36" height="20" rx="4" '
            f'fill="{_a(_mix(seat_colour(s), "#FFFFFF", 0.6))}" stroke="{INK}" class="pick give"{data} '
            f'aria-label="give to {_a(_seat_name(s))}"/>'
            f'<text x="{gx + s * 40 + 18}" y="{top + 31}" text-anchor="middle" font-size="9" '
            f'pointer-events="none">{_a(_seat_name(s))}</text>'
        )

    line = top + 58
    bid = view.get("bid")
    status = _status(view, pending, awaiting)
    if bid:
        cards = ", ".join(bid.get("cards", []))
        status = (
            f"{_seat_name(int(bid['seat']))} bids {bid.get('total', 0)} for the "
            f"{SUIT_SYMBOL.get(bid.get('suit'), '?')} wonder ({cards})"
        )
        if bid.get("suit") == "T" and bid.get("stage") != "response":
            status += ": a set with as many cards of each suit"
        if bid.get("stage") == "response":
            status += f"; {_seat_name(int(bid['owner']))} has blocked {bid.get('blocked', 0)} so far"
    out.append(f'<text x="{MARGIN}" y="{line}" font-size="13" class="status">{_a(status)}</text>')

    bx = MARGIN
    buttons = []
    if awaiting == "play":
        buttons.append(("end", "End turn", 90))
        if view.get("options", {}).get("crowded") == "yes":
            buttons.append(("off", "Slide off the board", 150))
    elif awaiting == "bidding":
        buttons.append(("claim", f"Claim for {bid.get('total', 0) if bid else 0}", 110))
    elif awaiting == "response":
        buttons.append(("yield", "Yield the wonder", 130))
    for target, label, w in buttons:
        out.append(_button(target, label, bx, line + 8, w, interactive))
        bx += w + 8

    hands = view.get("hand_sizes", [])
    scores = view.get("scores", [])
    counts = []
    for s, size in enumerate(hands):
        mark = " (left)" if s in eliminated else ""
        score = scores[s] if s < len(scores) else 0
        counts.append(f"{_seat_name(s)}{mark}: {size} card{'' if size == 1 else 's'}, {score} pts")
    out.append(
        f'<text x="{MARGIN}" y="{line + 52}" font-size="11">{_a("  ·  ".join(counts))} · pile '
        f"{_a(view.get('pile_size', 0))}</text>"
    )

    hand = (view.get("private") or {}).get("hand", [])
    if seat is not None and hand:
        per_row = 12
        for k, card in enumerate(hand):
            row, col = divmod(k, per_row)
            out.append(_card(str(card), MARGIN + col * 38, line + 60 + row * 52, interactive))
    elif seat is not None:
        out.append(f'<text x="{MARGIN}" y="{line + 80}" font-size="12">Your hand is empty.</text>')
    else:
        out.append(_opening_risk_note(view, line + 80))
    out.append("</g>")
    return "".join(out)


def _status(view: dict[str, Any], pending: dict[str, Any], awaiting: Any) -> str:
    if view.get("phase") == "over":
        return f"Game over: {view.get('end_reason') or ''}."
    who = view.get("to_act")
    name = _seat_name(int(who)) if isinstance(who, int) else ""
    several = "giants" in view
    if awaiting == "treasure":
        return f"{name}: choose the treasure that {_token(pending, several)} runs to."
    if awaiting == "attack":
        giant = _token({"token": pending.get("token", "giant")}, several)
        return f"{name}: choose the hero {giant} attacks."
    if awaiting == "teleport":
        return (
            f"{name}: {_token(pending, several)} is on a teleporter: click another teleporter to send "
            f"it there, or its own square {pending.get('from')} to leave it."
        )
    if awaiting == "charging":
        charge = view.get("charge") or []
        if len(charge) >= 4:
            return f"{name}: click the square for the new teleporter ({', '.join(charge)})."
        return f"{name}: set aside one card of each suit for a teleporter ({', '.join(charge)} so far)."
    if awaiting == "rats":
        return f"{name}: choose where rat group {pending.get('rats')} creeps."
    if awaiting == "respawn":
        return f"{name}: choose the stairway where rat group {pending.get('rats')} comes back."
    if awaiting == "crowd":
        return f"{name}: add a new wall ({view.get('pool', 0)} left)."
    if awaiting == "chance":
        return "Drawing cards..."
    first = " (first turn: no hero may reach a stairway)" if view.get("first_turn") else ""
    return f"{name} to play{first}."


def _token(pending: dict[str, Any], several: bool = False) -> str:
    token = str(pending.get("token"))
    if token.startswith("giant"):
        return f"giant {token[5:] or 1}" if several else "the giant"
    if token.startswith("rats"):
        return f"rat group {token[4:]}"
    return f"hero {token}"
