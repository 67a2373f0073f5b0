"""Server-side SVG of a position of The Wall, drawn from ``TheWall.view`` only.

The hex map (terrain from ``seeds/thewall/map.json``, every hex numbered as in the seed), the units with
their letter and life, marks for disabled, tagged, defending, climbing and used units, corpses, then a
strip with the status and the last dice. Every interpolated value is escaped; equal views give identical
markup. The page shows the key beside the board (templates/thewall/_beside.html).

The map is drawn to fit a desktop screen's height (``data-fit="height"``) with every text at least 12
units high, so at least 12 px there: a hex's number on top, its unit in the middle with its life on the
right, terrain marks on the left.

Click targets (``interactive``): ``h<CCRR>`` on every hex. On a board to play on each is a button named
in words (a hex by its number, its terrain and who stands there), and the board a group of them. The
actions (``opt-<action>`` and ``end``) are real buttons beside the board, ``actions`` below, which the
page shows only when a legal move takes them.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache
from operator import itemgetter
from typing import Any

from games.engines.palette import seat_colour
from games.engines.svgkit import TARGET_ROLE, root_role
from games.engines.svgkit import attr as _a
from games.engines.svgkit import number as _n
from games.engines.thewall.board import (
    CASTLE,
    CATAPULTS,
    COLUMNS,
    CRANE,
    FIELD,
    FOREST,
    HEXES,
    HORN,
    KEEP,
    OTHER_SPAWNS,
    ROWS,
    SPAWN,
    TERRAIN,
    WALL,
    WANDER_SPAWNS,
    WATER,
    ZONE,
    column_row,
)

R = 24.0  # hex radius (centre to corner)
H = math.sqrt(3) * R
MARGIN = 14.0
WIDTH = round(2 * MARGIN + 2 * R + (COLUMNS - 1) * 1.5 * R)
MAP_HEIGHT = round(2 * MARGIN + (ROWS + 0.5) * H)
STRIP = 46  # the status and the dice, one line each
HEIGHT = MAP_HEIGHT + STRIP
TOKEN = 11.0  # a unit's radius: room above it for the hex's number and beside it for its life
TOKEN_DY = 4.5  # units sit a little low in their hex, under its number
SIDE = 15.0  # how far left of the centre terrain marks sit, and right of it a unit's life
DICE_CHARS = 108  # what a line of 12-unit text holds across the map
INK = "#1B1B1B"
FILL = {
    FIELD: "#DCEAF4",
    FOREST: "#6E9B72",
    WATER: "#3F74AD",
    WALL: "#FFFFFF",
    KEEP: "#7D8590",
    CASTLE: "#B9AC92",
    CRANE: "#A3A3A3",
    SPAWN: "#BFE9F2",
    "rubble": "#CFCFCF",
}
ZONE_FILL = "#F2D7D5"
WANDER_FILL = "#1F3A80"
LEADER_FILL = {"jon": "#2B2B2B", "mance": "#8A5A2E", "great": "#A9E4FF", "waymar": "#9FB59A", None: "#EAD9B8"}
LEADER_INK = {"jon": "#FFFFFF", "mance": "#FFFFFF", "great": INK, "waymar": INK, None: INK}
BUTTONS: tuple[tuple[str, str], ...] = (
    ("opt-defend", "Defend"),
    ("opt-range", "Ranging"),
    ("opt-shoot", "Shoot"),
    ("opt-catapult", "Catapult"),
    ("opt-sneak-attack", "Sneak attack"),
    ("opt-teamup", "Teamup"),
    ("opt-combo", "Combination"),
    ("opt-train-ranger", "Train: ranger"),
    ("opt-train-archer", "Train: archer"),
    ("opt-train-wildling", "Train: wildling"),
    ("opt-scout", "Scout"),
    ("opt-sneak", "Sneak in"),
    ("opt-scale", "Scale the Wall"),
    ("opt-raise", "Raise a Wight"),
    ("opt-summon", "Summon"),
    ("opt-shriek", "Frozen Shriek"),
    ("opt-horn", "Blow the Horn"),
    ("opt-recruit", "Reinforcements"),
    ("end", "End turn"),
)

STYLE = (
    "<style>"
    "div.board.interactive svg.thewall .hex.choosable{stroke:#0B5D8C;stroke-width:3.5;cursor:pointer}"
    "div.board.interactive svg.thewall .hex.chosen{stroke:#D55E00;stroke-width:4}"
    "</style>"
)


def centre(name: str) -> tuple[float, float]:
    c, r = column_row(name)
    x = MARGIN + R + (c - 1) * 1.5 * R
    y = MARGIN + H / 2 + (r - 1) * H + (H / 2 if c % 2 == 0 else 0)
    return x, y


def _corners(x: float, y: float, radius: float) -> str:
    return " ".join(
        f"{_n(x + radius * math.cos(math.radians(60 * k)))},{_n(y + radius * math.sin(math.radians(60 * k)))}"
        for k in range(6)
    )


TERRAIN_WORDS = {
    FIELD: "field",
    FOREST: "forest",
    WATER: "water",
    WALL: "the Wall",
    KEEP: "keep",
    CASTLE: "castle",
    CRANE: "crane",
    SPAWN: "Other spawn point",
}


def _describe(name: str, wall_up: bool) -> str:
    """A hex as the rules name it (its four-digit number) and what it is, in words."""
    terrain = TERRAIN[name]
    words = [TERRAIN_WORDS[terrain] if wall_up or terrain != WALL else "rubble of the Wall"]
    if name in WANDER_SPAWNS:
        words.append(f"wandering-Wildling spawn {WANDER_SPAWNS.index(name) + 1}")
    if name in CATAPULTS:
        words.append("catapult")
    if name == HORN:
        words.append("the Horn")
    if name in ZONE:
        words.append("the Others' victory zone")
    return f"Hex {name}: {', '.join(words)}"


@cache
def _hex_shapes(wall_up: bool) -> tuple[tuple[str, str, str], ...]:
    """Per hex: its name, the polygon's drawing attributes and what it is in words."""
    shapes = []
    for name in HEXES:
        x, y = centre(name)
        terrain = TERRAIN[name]
        fill = FILL[terrain] if wall_up or terrain != WALL else FILL["rubble"]
        if not wall_up and terrain == CRANE:
            fill = FILL[FIELD]
        if name in WANDER_SPAWNS:
            fill = WANDER_FILL
        elif name in ZONE and terrain == FIELD:
            fill = ZONE_FILL
        ice = wall_up and terrain == WALL
        stroke, width = ("#4F7BA6", "2") if ice else ("#5D6B7A", "1")
        attrs = f'points="{_corners(x, y, R)}" fill="{fill}" stroke="{stroke}" stroke-width="{width}"'
        shapes.append((name, attrs, _describe(name, wall_up)))
    return tuple(shapes)


@cache
def _terrain_marks(wall_up: bool) -> str:
    marks = ['<g class="terrain-marks" pointer-events="none">']
    for name in HEXES:
        x, y = centre(name)
        terrain = TERRAIN[name]
        ink = "#FFFFFF" if name in WANDER_SPAWNS or terrain in (WATER, FOREST, KEEP) else "#56636F"
        marks.append(
            f'<text x="{_n(x)}" y="{_n(y - H / 2 + 12.5)}" font-size="12" text-anchor="middle" fill="{ink}">'
            f"{name}</text>"
        )
        left = x - SIDE
        if name in WANDER_SPAWNS:
            marks.append(
                f'<text x="{_n(left)}" y="{_n(y + 9)}" font-size="13" font-weight="700" '
                f'text-anchor="middle" fill="#FFFFFF">{WANDER_SPAWNS.index(name) + 1}</text>'
            )
        if name in OTHER_SPAWNS:
            marks.append(
                f'<text x="{_n(left)}" y="{_n(y + 9)}" font-size="13" text-anchor="middle" '
                f'fill="#0B4F6C">\u2744</text>'
            )
        if wall_up and name in CATAPULTS:
            marks.append(
                f'<rect x="{_n(left - 5)}" y="{_n(y + 2)}" width="10" height="7" fill="#6B4F2A" '
                f'stroke="{INK}" stroke-width="0.6"/>'
            )
        if wall_up and terrain == CRANE:
            marks.append(
                f'<path d="M{_n(left - 4)} {_n(y + 12)} L{_n(left - 4)} {_n(y + 1)} '
                f'L{_n(left + 4)} {_n(y + 1)} L{_n(left + 4)} {_n(y + 5)}" fill="none" '
                f'stroke="{INK}" stroke-width="1.5"/>'
            )
        if name == HORN:
            marks.append(
                f'<text x="{_n(x)}" y="{_n(y + H / 2 - 3)}" font-size="12" text-anchor="middle" '
                f'fill="#7A1F1F" font-weight="700">Horn</text>'
            )
    marks.append("</g>")
    return "".join(marks)


@cache
def _map(wall_up: bool) -> str:
    """The terrain layer of a board to look at, the same for every position with the Wall up (or down)."""
    out = ['<g class="hexes">']
    for _, attrs, label in _hex_shapes(wall_up):
        out.append(f'<polygon {attrs} class="hex"><title>{_a(label)}</title></polygon>')
    out.append("</g>")
    return "".join(out) + _terrain_marks(wall_up)


def _target_hex(name: str, attrs: str, words: str) -> str:
    return (
        f'<polygon {attrs} data-target="h{name}" class="hex target" tabindex="-1" '
        f'aria-label="{_a(words)}"{TARGET_ROLE}><title>{_a(words)}</title></polygon>'
    )


@cache
def _empty_targets(wall_up: bool) -> tuple[tuple[str, str, str, str], ...]:
    """Per hex: its name, attributes, words, and its button as it reads with nobody on it."""
    return tuple(
        (name, attrs, label, _target_hex(name, attrs, label)) for name, attrs, label in _hex_shapes(wall_up)
    )


def _target_map(wall_up: bool, occupants: dict[str, list[str]]) -> str:
    """The terrain layer of a board to play on: every hex a button named by its number, its terrain and
    who stands there, since a player who hears the board cannot see the pieces on it."""
    out = ['<g class="hexes">']
    for name, attrs, label, empty in _empty_targets(wall_up):
        here = occupants.get(name)
        out.append(_target_hex(name, attrs, "; ".join([label, *here])) if here else empty)
    out.append("</g>")
    return "".join(out) + _terrain_marks(wall_up)


def _occupant(unit: dict[str, Any], leaders: dict[str, str]) -> str:
    """A unit as a hex's name mentions it: who it is, whose it is, its life and what ails it."""
    name = str(unit.get("name"))
    leader = unit.get("leader")
    if leader is None:
        words = f"{name} (wandering)"
    else:
        owner = leaders.get(leader, str(leader))
        # A leader's own figure ("Great Other", led by "the Great Other") is named once.
        words = name if owner.lower().removeprefix("the ") == name.lower() else f"{name} of {owner}"
    words += f", life {unit.get('life')} of {unit.get('max')}"
    marks = [mark for mark in ("disabled", "tagged", "defending") if unit.get(mark)]
    if unit.get("climbing"):
        marks.append(f"scaling the Wall to {unit['climbing']}")
    if unit.get("used"):
        marks.append("done this turn")
    return words + "".join(f", {mark}" for mark in marks)


def _occupants(view: dict[str, Any]) -> dict[str, list[str]]:
    leaders = {str(leader["key"]): str(leader.get("name")) for leader in view.get("leaders", [])}
    found: dict[str, list[str]] = {}
    for leader in view.get("leaders", []):
        for unit in leader.get("units", []):
            found.setdefault(str(unit["hex"]), []).append(_occupant(unit, leaders))
    for unit in view.get("wanderers", []):
        found.setdefault(str(unit["hex"]), []).append(_occupant(unit, leaders))
    for corpse in view.get("corpses", []):
        found.setdefault(str(corpse["hex"]), []).append(f"corpse of {corpse.get('name')}")
    return found


UNIT_FIELDS = (
    "id", "name", "hex", "leader", "category", "letter", "att", "def", "mov", "rng", "life", "max",
    "disabled", "tagged", "defending", "climbing", "led", "used",
)  # fmt: skip


_FIELDS_OF = itemgetter(*UNIT_FIELDS)


def _unit(unit: dict[str, Any], colours: dict[str, str]) -> str:
    # A position is drawn several times (each viewer, with and without targets): units repeat.
    ring = colours.get(unit.get("leader") or "", "#777777")
    return _unit_markup(_FIELDS_OF(unit), ring)


@lru_cache(maxsize=4096)
def _unit_markup(fields: tuple[Any, ...], ring: str) -> str:
    unit = dict(zip(UNIT_FIELDS, fields, strict=True))
    x, y = centre(str(unit["hex"]))
    y += TOKEN_DY
    leader = unit.get("leader")
    fill = LEADER_FILL.get(leader, LEADER_FILL[None])
    ink = LEADER_INK.get(leader, INK)
    category = unit.get("category")
    r = TOKEN
    opacity = ' opacity="0.6"' if unit.get("used") else ""
    dash = ' stroke-dasharray="3 2"' if leader is None else ""
    if category == "other":
        shape = (
            f'<polygon points="{_n(x)},{_n(y - r * 1.15)} {_n(x + r * 1.15)},{_n(y)} '
            f'{_n(x)},{_n(y + r * 1.15)} {_n(x - r * 1.15)},{_n(y)}" fill="{fill}" stroke="{ring}" '
            'stroke-width="2.5"/>'
        )
    elif category == "wight":
        shape = (
            f'<rect x="{_n(x - r * 0.9)}" y="{_n(y - r * 0.9)}" width="{_n(1.8 * r)}" '
            f'height="{_n(1.8 * r)}" rx="3" fill="{fill}" stroke="{ring}" stroke-width="2.5"/>'
        )
    else:
        shape = (
            f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}" fill="{fill}" stroke="{ring}" '
            f'stroke-width="2.5"{dash}/>'
        )
    out = [
        # ``data-on``: the hex it stands on, so the board script can show it moved before the move is sent.
        f'<g class="unit" data-unit="{_a(unit["id"])}" data-on="h{_a(unit["hex"])}"{opacity}>'
        f"<title>{_a(_card(unit))}</title>",
        shape,
        f'<text x="{_n(x)}" y="{_n(y + 4.7)}" font-size="13" font-weight="700" text-anchor="middle" '
        f'fill="{ink}">{_a(unit.get("letter", "?"))}</text>',
        # The life on the right, haloed in white so that it reads on any terrain.
        f'<text x="{_n(x + SIDE + 0.5)}" y="{_n(y + 4.5)}" font-size="12" font-weight="700" '
        'text-anchor="middle" fill="#B3261E" stroke="#FFFFFF" stroke-width="3" paint-order="stroke" '
        f'class="life">{_a(unit.get("life", 0))}</text>',
    ]
    if unit.get("defending"):
        out.append(
            f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r + 3)}" fill="none" stroke="#0B5D8C" '
            'stroke-width="1.5"/>'
        )
    if unit.get("disabled"):
        out.append(
            f'<line x1="{_n(x - r)}" y1="{_n(y - r)}" x2="{_n(x + r)}" y2="{_n(y + r)}" stroke="#B3261E" '
            f'stroke-width="3" class="disabled-mark"/>'
        )
    if unit.get("tagged"):
        out.append(
            f'<polygon points="{_n(x - r - 9)},{_n(y - 5)} {_n(x - r)},{_n(y - 1)} '
            f'{_n(x - r - 9)},{_n(y + 3)}" fill="#E69F00" stroke="{INK}" stroke-width="0.8" '
            'class="tag-mark"/>'
        )
    if unit.get("climbing"):
        out.append(
            f'<path d="M{_n(x + r)} {_n(y - 4)} L{_n(x + r + 4)} {_n(y - 10)} L{_n(x + r + 8)} '
            f'{_n(y - 4)}" fill="none" stroke="{INK}" stroke-width="2" class="climb-mark"/>'
        )
    out.append("</g>")
    return "".join(out)


def _card(unit: dict[str, Any]) -> str:
    marks = []
    if unit.get("disabled"):
        marks.append("disabled")
    if unit.get("tagged"):
        marks.append("tagged")
    if unit.get("defending"):
        marks.append("defending")
    if unit.get("climbing"):
        marks.append(f"scaling the Wall to {unit['climbing']}")
    if unit.get("led"):
        marks.append("led by the Watch")
    if unit.get("leader") is None:
        marks.append("wandering")
    rng = unit.get("rng") or "-"
    text = (
        f"{unit.get('name')} on {unit.get('hex')}: attack {unit.get('att')}, defence {unit.get('def')}, "
        f"movement {unit.get('mov')}, range {rng}, life {unit.get('life')}/{unit.get('max')}"
    )
    return text + (f" ({', '.join(marks)})" if marks else "")


def actions(view: dict[str, Any], seat: int | None) -> list[tuple[str, str]]:
    """The action buttons the page puts beside the map (``Engine.board_actions``): always the same
    list, of which the page shows those a legal move takes."""
    return list(BUTTONS)


def _status(view: dict[str, Any]) -> str:
    if view.get("phase") == "over":
        return f"Game over: {view.get('end_reason') or ''}."
    leader = view.get("leader_name", "")
    text = (
        f"Round {view.get('round')} of {view.get('rounds')}: {leader}'s turn, "
        f"{view.get('spent', 0)} of {view.get('unit_turns', 4)} unit turns used."
    )
    if view.get("awaiting") == "chance":
        text += " Rolling the dice..."
    if not view.get("wall_up", True):
        text += " The Wall has fallen."
    return text


def render(view: dict[str, Any], seat: int | None, *, interactive: bool) -> str:
    wall_up = bool(view.get("wall_up", True))
    colours = {
        leader["key"]: seat_colour(int(leader["seat"]))
        for leader in view.get("leaders", [])
        if isinstance(leader.get("seat"), int)
    }
    status = _status(view)
    out = [
        # A board this wide gets the page's whole width above the side panels; on a desktop it fits the
        # screen's height, with the actions beside it (static/css/site.css).
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="{root_role(interactive)}" class="board thewall" font-family="sans-serif" data-layout="wide" '
        f'data-fit="height" style="--ratio: {WIDTH / HEIGHT:.4f}" aria-label="The Wall: {_a(status)}">',
        f"<title>The Wall: {_a(status)}</title>",
        STYLE,
        f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#EEF3F7"/>',
        _target_map(wall_up, _occupants(view)) if interactive else _map(wall_up),
    ]
    out.append('<g class="pieces" pointer-events="none">')
    for corpse in view.get("corpses", []):
        x, y = centre(str(corpse["hex"]))
        label = f"Corpse of {corpse.get('name')} on {corpse['hex']}"
        # Left of the middle, where a unit standing on it leaves it in sight.
        out.append(
            f'<g class="corpse"><title>{_a(label)}</title>'
            f'<text x="{_n(x - SIDE)}" y="{_n(y + 11)}" font-size="16" text-anchor="middle" '
            'fill="#555555">\u271d</text>'
            "</g>"
        )
    for leader in view.get("leaders", []):
        for unit in leader.get("units", []):
            out.append(_unit(unit, colours))
    for unit in view.get("wanderers", []):
        out.append(_unit(unit, colours))
    out.append("</g>")

    top = MAP_HEIGHT
    out.append(f'<g class="strip" font-size="12" fill="{INK}">')
    out.append(
        f'<text x="{_n(MARGIN)}" y="{top + 16}" font-size="13" font-weight="700" class="status">'
        f"{_a(status)}</text>"
    )
    last = view.get("last") or {}
    if last.get("text"):
        dice = str(last["text"])
        if len(dice) > DICE_CHARS:
            dice = dice[: DICE_CHARS - 3] + "..."  # the whole of it is in the panel and the log
        out.append(
            f'<text x="{_n(MARGIN)}" y="{top + 36}" font-size="12" class="dice">Dice: {_a(dice)}</text>'
        )
    out.append("</g></svg>")
    return "".join(out)
