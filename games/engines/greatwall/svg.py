"""Server-side SVG of a Great Wall position, drawn from ``GreatWall.view`` only (never from the state).

From the top: the status; the Horde cards before the three wall sections (row 3, the farthest, at the
top; row 1 next to the wall), each with its 3 x 3 vital-spot grid, wounds, soldiers and Snake Clan
tokens; the wall with its levels, Firing spots, War Machines and the four Towers, each section's Rest
Zone under it; the six locations with their clerks; the War Machines and the wall level beside the
board; then the viewer's own soldiers. Every general's pieces have its seat's shape as well as its
colour (the Imperial general's a hexagon). Every interpolated value is escaped; equal views give
identical markup.

It is drawn to fit a desktop screen's height (``data-fit="height"``) with every text at least 12 units
high, so at least 12 px there. The players' Honor, Shame and resources, the viewer's Command cards and
Advisors, and the buttons to decline or to save Killed soldiers are on the page beside the board
(templates/greatwall/_beside.html and ``actions`` below), where they read as text and only what may be
played now is offered.

Click targets (``interactive``): ``horde-<s>-<r>`` (a card, shot at), ``spot-<s>-<r>-<k>`` (a vital spot),
``tank-<s>-<k>`` (a Tank's 2 x 2 block on a first-row card), ``sec-<s>`` (a wall section), ``fire-<s>``
(its Firing spots), ``mach-<s>-<type>`` (a War Machine on the wall), ``tower-<t>``, ``loc-<location>``,
``wm-<type>`` and ``build-level`` (what the Builders build), ``sup-<soldier>`` (recruit) and
``res-<soldier>`` (attack): on a board to play on, each is a button named in words (what covers a vital
spot included), and the board a group of them. ``cmd-<card>``, ``adv-<card>``, ``save-<n>`` and ``done``
are the buttons beside the board.
"""

from __future__ import annotations

import math
from typing import Any

from games.engines.greatwall.cards import (
    ADVISOR_ORDER,
    ADVISORS,
    CLAN_SPECIAL,
    COMMAND_NAMES,
    COMMAND_TEXT,
    COMMANDS,
    FIRING_SPOTS,
    LEVEL_COST,
    LOCATION_NAMES,
    LOCATIONS,
    MACHINE_NAMES,
    MACHINE_ORDER,
    MACHINES,
    MAX_LEVEL,
    RESOURCES,
    SECTION_TOWERS,
    SOLDIER_LETTER,
    SOLDIER_NAMES,
    SOLDIER_ORDER,
    SOLDIERS,
    TANK_ANCHORS,
    TOWERS,
)
from games.engines.palette import SEAT_NAMES, SEAT_SHAPES, seat_colour
from games.engines.svgkit import TARGET_ROLE, root_role
from games.engines.svgkit import attr as _a
from games.engines.svgkit import mix as _mix
from games.engines.svgkit import number as _n

WIDTH = 880
TOWER_W = 24
CARD_W, CARD_H = 252, 100  # a section's column, and a Horde card in it
COL = CARD_W + TOWER_W + 8  # from one section's column to the next, a Tower between them
LEFT = TOWER_W + 6  # section A's column, right of the first Tower
EDGE = 2  # the margin of the rows that take the whole width
ROW_GAP = 6
WALL_H = 100
GRID = 28  # distance between vital spots
INK = "#1B1B1B"
PAPER = "#F4EEDF"
FIELD = "#E3D9C0"
STONE = "#9C9182"
NEUTRAL = "#7F7F7F"
WOUND = "#B3261E"
SNAKE = "#2E7D32"
RES_LETTER = {"wood": "W", "stone": "S", "gold": "G", "chi": "C", "honor": "H"}
ABILITY = {
    "ram": ("moves up, then", "rams the wall"),
    "trebuchet": ("row 3 only;", "hurls stones"),
    "ladders": ("in row 1:", "Defence 0"),
}
NEUTRAL_SHAPE = "hexagon"  # the Imperial general's: none of the four seats of this game has it

STYLE = (
    "<style>"
    "svg.greatwall .pick{pointer-events:none}"
    "div.board.interactive svg.greatwall .pick.choosable{pointer-events:all;cursor:pointer;"
    "stroke:#0B5D8C;stroke-width:3}"
    "div.board.interactive svg.greatwall .pick.chosen{stroke:#0B5D8C;stroke-width:4;fill:#CFE8FF}"
    "</style>"
)


def _who(view: dict[str, Any], general: int) -> str:
    if general == view.get("neutral"):
        return "Imperial"
    return SEAT_NAMES[general % len(SEAT_NAMES)].capitalize()


def _colour(view: dict[str, Any], general: int) -> str:
    return NEUTRAL if general == view.get("neutral") else seat_colour(general)


def _shape(view: dict[str, Any], general: int) -> str:
    return NEUTRAL_SHAPE if general == view.get("neutral") else SEAT_SHAPES[general % len(SEAT_SHAPES)]


def _piece(view: dict[str, Any], general: int, x: float, y: float, rad: float, letter: str = "") -> str:
    """A general's piece: its colour and, so that colour is never the only cue, its seat's shape (the
    same as beside the players' names), with the soldier's letter on it."""
    shape = _shape(view, general)
    common = (
        f'fill="{_colour(view, general)}" stroke="{INK}" stroke-width="1.5" stroke-linejoin="round" '
        f'class="marker seat-{general}" data-shape="{shape}" pointer-events="none"'
    )
    dy = 0.0
    if shape == "circle":
        body = f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(rad)}" {common}/>'
    elif shape == "square":
        side = rad * 1.7
        body = (
            f'<rect x="{_n(x - side / 2)}" y="{_n(y - side / 2)}" width="{_n(side)}" height="{_n(side)}" '
            f"{common}/>"
        )
    else:
        corners, start = {"triangle": (3, -90), "diamond": (4, -90), "pentagon": (5, -90)}.get(shape, (6, 0))
        r = rad * {"triangle": 1.35, "diamond": 1.25}.get(shape, 1.1)
        # A triangle's centroid sits low: lift the shape so it looks centred, and its letter with it.
        dy = rad * 0.25 if shape == "triangle" else 0.0
        points = " ".join(
            f"{_n(x + r * math.cos(math.radians(start + k * 360 / corners)))},"
            f"{_n(y + dy + r * math.sin(math.radians(start + k * 360 / corners)))}"
            for k in range(corners)
        )
        body = f'<polygon points="{points}" {common}/>'
    if not letter:
        return body
    size = 13 if rad >= 10 else 12
    return body + _text(x, y + dy + size * 0.36, letter, size=size, anchor="middle", weight="700")


def _target(target: str, interactive: bool) -> str:
    return f' data-target="{_a(target)}" tabindex="-1"{TARGET_ROLE}' if interactive else ""


def _text(
    x: float,
    y: float,
    body: str,
    *,
    size: int = 12,
    anchor: str = "start",
    weight: str = "400",
    fill: str = INK,
) -> str:
    return (
        f'<text x="{_n(x)}" y="{_n(y)}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}" '
        f'fill="{fill}" pointer-events="none">{_a(body)}</text>'
    )


def _box(
    target: str,
    x: float,
    y: float,
    w: float,
    h: float,
    label: str,
    interactive: bool,
    *,
    fill: str = "#FFFFFF",
    rx: int = 5,
) -> str:
    return (
        f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" rx="{rx}" fill="{fill}" '
        f'stroke="{INK}" stroke-width="1.2" class="pick"{_target(target, interactive)} '
        f'aria-label="{_a(label)}"><title>{_a(label)}</title></rect>'
    )


def _cost(cost: dict[str, int]) -> str:
    return " ".join(f"{cost[r]}{RES_LETTER[r]}" for r in RESOURCES if cost.get(r)) or "free"


def _spot_xy(cx: float, cy: float, k: int) -> tuple[float, float]:
    row, col = divmod(k - 1, 3)
    return cx + (col - 1) * GRID, cy + (row - 1) * GRID


def _mark(view: dict[str, Any], mark: list[Any], x: float, y: float) -> str:
    kind = mark[0]
    if kind == "w":
        d = 7
        return (
            f'<path d="M{_n(x - d)} {_n(y - d)}L{_n(x + d)} {_n(y + d)}M{_n(x + d)} {_n(y - d)}L{_n(x - d)} '
            f'{_n(y + d)}" stroke="{WOUND}" stroke-width="3" pointer-events="none"/>'
        )
    if kind == "k":
        return (
            f'<circle cx="{_n(x)}" cy="{_n(y)}" r="9" fill="{SNAKE}" stroke="{_colour(view, mark[1])}" '
            f'stroke-width="3" pointer-events="none"/>'
            + _text(x, y + 4, "~", size=12, anchor="middle", fill="#FFFFFF", weight="700")
        )
    if kind == "s":
        return _piece(view, mark[1], x, y, 10, SOLDIER_LETTER.get(mark[2], "?"))
    return ""  # a Tank is drawn once over its block


def _cover_words(view: dict[str, Any], mark: list[Any]) -> str:
    """What lies on a vital spot, in words."""
    kind = mark[0]
    if kind == "w":
        return "wounded"
    if kind == "k":
        return f"{_who(view, mark[1])}'s Snake Clan token"
    if kind == "s":
        return f"{_who(view, mark[1])}'s {SOLDIER_NAMES.get(mark[2], 'soldier')}"
    return f"{_who(view, mark[1])}'s Tank"


def _card(
    view: dict[str, Any], s: int, r: int, card: dict[str, Any] | None, x: float, y: float, interactive: bool
) -> str:
    out = []
    if card is None:
        out.append(
            f'<rect x="{_n(x)}" y="{_n(y)}" width="{CARD_W}" height="{CARD_H}" rx="6" fill="none" '
            f'stroke="{STONE}" stroke-dasharray="5 4"/>'
        )
        out.append(
            _text(
                x + CARD_W / 2,
                y + CARD_H / 2 + 5,
                f"row {r}: empty",
                size=13,
                anchor="middle",
                fill="#6E6557",
            )
        )
        return "".join(out)
    label = (
        f"{card['name']} before section {view['sections'][s]['name']}, row {r}: Offensive Power "
        f"{card['power']}, {card['honor']} Honor"
    )
    fill = "#F6D9C9" if card["type"] in ("ram", "trebuchet", "ladders", "elite") else "#FBF3E4"
    out.append(_box(f"horde-{s}-{r}", x, y, CARD_W, CARD_H, label, interactive, fill=fill, rx=6))
    out.append(_text(x + 8, y + 20, card["name"], size=15, weight="700"))
    out.append(_text(x + 8, y + 40, f"Power {card['power']}", size=13))
    out.append(_text(x + 8, y + 57, f"Honor {card['honor']}", size=13))
    # What the new types do, in two short lines: the text column is narrow beside the vital spots.
    for line, words in enumerate(ABILITY.get(card["type"], ())):
        out.append(_text(x + 8, y + 75 + line * 16, words, size=12, fill="#6B2B12"))
    cx, cy = x + CARD_W - 50, y + CARD_H / 2
    cover = card["cover"]
    rewards = card["rewards"]
    for k in range(1, 10):
        sx, sy = _spot_xy(cx, cy, k)
        if k not in card["spots"]:
            out.append(f'<circle cx="{_n(sx)}" cy="{_n(sy)}" r="2" fill="{STONE}"/>')
            continue
        spot_label = f"Vital spot {k} of {card['name']} ({view['sections'][s]['name']}{r})"
        if str(k) in rewards:
            spot_label += f", reward: 1 {rewards[str(k)]}"
        if cover[k - 1] is not None:
            spot_label += f", {_cover_words(view, cover[k - 1])}"
        out.append(
            f'<circle cx="{_n(sx)}" cy="{_n(sy)}" r="11" fill="#FFFFFF" stroke="{INK}" stroke-width="1" '
            f'class="pick"{_target(f"spot-{s}-{r}-{k}", interactive)} aria-label="{_a(spot_label)}">'
            f"<title>{_a(spot_label)}</title></circle>"
        )
        if str(k) in rewards and cover[k - 1] is None:
            out.append(
                _text(sx, sy + 4.5, RES_LETTER[rewards[str(k)]], size=12, anchor="middle", fill="#7A5F12")
            )
        if cover[k - 1] is not None:
            out.append(_mark(view, cover[k - 1], sx, sy))
    tanks: list[tuple[int, int]] = []
    for m in cover:
        if m is not None and m[0] == "t" and (m[1], m[2]) not in tanks:
            tanks.append((m[1], m[2]))
    for owner, anchor in tanks:
        ax, ay = _spot_xy(cx, cy, anchor)
        out.append(
            f'<rect x="{_n(ax - 13)}" y="{_n(ay - 13)}" width="{GRID + 26}" height="{GRID + 26}" rx="8" '
            f'fill="{_colour(view, owner)}" fill-opacity="0.75" stroke="{INK}" stroke-width="2" '
            f'pointer-events="none"/>'
        )
        # The owner's piece on the block's first spot, clear of the block handles drawn at its centre.
        out.append(_piece(view, owner, ax, ay, 10, "T"))
    if r == 1 and "turtle" in view["clans"]:
        for anchor in TANK_ANCHORS:
            ax, ay = _spot_xy(cx, cy, anchor)
            px, py = ax + GRID / 2, ay + GRID / 2
            tank_label = f"Tank block from spot {anchor} of {card['name']} ({view['sections'][s]['name']}{r})"
            out.append(
                f'<path d="M{_n(px)} {_n(py - 5)}L{_n(px + 5)} {_n(py)}L{_n(px)} {_n(py + 5)}L{_n(px - 5)} '
                f'{_n(py)}Z" fill="#DDDDDD" stroke="{INK}" stroke-width="0.8" class="pick"'
                f'{_target(f"tank-{s}-{anchor}", interactive)} aria-label="{_a(tank_label)}">'
                f"<title>{_a(tank_label)}</title></path>"
            )
    return "".join(out)


def _rest(view: dict[str, Any], soldiers: list[list[Any]], x: float, y: float) -> str:
    """A section's Rest Zone: its soldiers as pieces, in a row under the wall."""
    out = [_text(x, y + 4, "Rest:" if soldiers else "Rest: empty", size=12, fill="#4A4136")]
    for i, (owner, kind) in enumerate(soldiers[:11]):
        out.append(_piece(view, owner, x + 48 + i * 19, y, 8, SOLDIER_LETTER.get(kind, "?")))
    if len(soldiers) > 11:
        out.append(_text(x + 48 + 11 * 19, y + 4, f"+{len(soldiers) - 11}", size=12))
    return "".join(out)


def _machine_words(kind: str) -> str:
    """A War Machine on the wall, short: its name's first word and what a shot costs."""
    cost = _cost(MACHINES[kind]["shot"])
    return MACHINE_NAMES[kind].split()[0] + ("" if cost == "free" else f" {cost}")


def _wall(view: dict[str, Any], y: float, interactive: bool) -> str:
    out = []
    sections = view["sections"]
    for s, sec in enumerate(sections):
        x = LEFT + s * COL
        label = (
            f"Wall section {sec['name']}: level {sec['level']} of {MAX_LEVEL}, Defence {sec['defence']} "
            f"against Offensive Power {sec['power']}"
        )
        out.append(_box(f"sec-{s}", x, y, CARD_W, WALL_H, label, interactive, fill="#CFC6B4", rx=3))
        # The levels as courses of stone, the lowest at the bottom.
        for level in range(MAX_LEVEL):
            built = level < sec["level"]
            out.append(
                f'<rect x="{_n(x + 6)}" y="{_n(y + 76 - level * 18)}" width="44" height="16" '
                f'fill="{STONE if built else "none"}" stroke="{INK}" stroke-width="0.8" '
                f'stroke-dasharray="{"none" if built else "3 3"}" pointer-events="none"/>'
            )
        out.append(
            _text(x + 58, y + 19, f"Section {sec['name']}, level {sec['level']}", size=14, weight="700")
        )
        out.append(_text(x + 58, y + 37, f"Defence {sec['defence']} / Power {sec['power']}", size=13))
        # Firing spots.
        fire_label = f"Firing spots of section {sec['name']} ({len(sec['firing'])} of {FIRING_SPOTS} taken)"
        out.append(_box(f"fire-{s}", x + 58, y + 46, 84, 46, fire_label, interactive, fill="#EDE6D6"))
        for i in range(FIRING_SPOTS):
            fx, fy = x + 79 + i * 42, y + 69
            if i < len(sec["firing"]):
                owner, kind = sec["firing"][i]
                out.append(_piece(view, owner, fx, fy, 12, SOLDIER_LETTER.get(kind, "?")))
            else:
                out.append(
                    f'<circle cx="{_n(fx)}" cy="{_n(fy)}" r="13" fill="none" stroke="{INK}" '
                    f'stroke-dasharray="3 2" pointer-events="none"/>'
                )
        # War Machines, one above the other right of the Firing spots.
        for i, m in enumerate(sec["machines"][:2]):
            mx, my = x + 148, y + 46 + i * 24
            label = f"{MACHINE_NAMES[m]} on section {sec['name']}"
            out.append(_box(f"mach-{s}-{m}", mx, my, 98, 22, label, interactive, fill="#D8C7A5"))
            out.append(_text(mx + 49, my + 16, _machine_words(m), size=12, anchor="middle", weight="700"))
        out.append(_rest(view, sec["rest"], x + 2, y + WALL_H + 15))
    for t in range(TOWERS):
        # Left of each section, and the last one right of section C.
        tx = EDGE + t * COL
        owner = view["towers"][t]
        near = " and ".join(sections[s]["name"] for s in _tower_sections(t))
        who = "empty" if owner is None else f"{_who(view, owner)}'s Spearman"
        label = f"Tower {t + 1} beside section {near}: {who}"
        fill = "#FFFFFF" if owner is None else _mix(_colour(view, owner), "#FFFFFF", 0.45)
        out.append(_box(f"tower-{t + 1}", tx, y + 10, TOWER_W, 80, label, interactive, fill=fill, rx=3))
        out.append(_text(tx + TOWER_W / 2, y + 28, f"T{t + 1}", size=12, anchor="middle", weight="700"))
        if owner is not None:
            out.append(_piece(view, owner, tx + TOWER_W / 2, y + 60, 10, "S"))
    return "".join(out)


def _tower_sections(t: int) -> list[int]:
    return [s for s, towers in enumerate(SECTION_TOWERS) if t in towers]


def _lines(name: str, width: int) -> list[str]:
    """A name in one line, or two at its last space when longer than ``width`` characters."""
    if len(name) <= width or " " not in name:
        return [name]
    head, _, tail = name.rpartition(" ")
    return [head, tail]


LOC_W = (WIDTH - 2 * EDGE - 5 * 6) / 6
LOC_H = 56


def _locations(view: dict[str, Any], y: float, interactive: bool) -> str:
    out = [_text(EDGE, y - 6, f"Locations: clerks, room for {view['capacity']} each", size=13, weight="700")]
    for i, loc in enumerate(LOCATIONS):
        x = EDGE + i * (LOC_W + 6)
        clerks = view["placed"][loc]
        label = f"{LOCATION_NAMES[loc]}: " + (", ".join(_who(view, g) for g in clerks) or "no clerks")
        out.append(_box(f"loc-{loc}", x, y, LOC_W, LOC_H, label, interactive, fill="#F7F1E3"))
        names = _lines(LOCATION_NAMES[loc], 14)
        for k, words in enumerate(names):
            out.append(_text(x + 7, y + 18 + k * 16, words, size=13, weight="700"))
        # The clerks at the foot, or after a name's second line, which leaves room there.
        first = x + 14 if len(names) == 1 else x + LOC_W - 12 - 18 * (len(clerks) - 1)
        for j, g in enumerate(clerks):
            out.append(_piece(view, g, first + j * 18, y + 43, 7))
    return "".join(out)


BESIDE_W = (WIDTH - 2 * EDGE - 3 * 6) / 4


def _supply_beside(view: dict[str, Any], y: float, interactive: bool) -> str:
    out = [
        _text(EDGE, y - 6, "Beside the board: War Machines and a wall level to build", size=13, weight="700")
    ]
    for i, m in enumerate(MACHINE_ORDER):
        x = EDGE + i * (BESIDE_W + 6)
        left = view["machines_left"][m]
        label = f"{MACHINE_NAMES[m]}: {left} left to build, costs {_cost(MACHINES[m]['build'])}"
        out.append(_box(f"wm-{m}", x, y, BESIDE_W, 42, label, interactive, fill="#EADFC8"))
        out.append(_text(x + 7, y + 17, f"{MACHINE_NAMES[m]} \u00d7{left}", size=13, weight="700"))
        out.append(
            _text(
                x + 7,
                y + 35,
                f"build {_cost(MACHINES[m]['build'])}, shot {_cost(MACHINES[m]['shot'])}",
                size=12,
            )
        )
    x = EDGE + 3 * (BESIDE_W + 6)
    label = f"A wall level: costs {_cost(LEVEL_COST)}"
    out.append(_box("build-level", x, y, BESIDE_W, 42, label, interactive, fill="#D9D2C4"))
    out.append(_text(x + 7, y + 17, "Wall level", size=13, weight="700"))
    out.append(_text(x + 7, y + 35, f"build {_cost(LEVEL_COST)}", size=12))
    return "".join(out)


def _forces(view: dict[str, Any], seat: int, y: float, interactive: bool) -> str:
    """The viewer's soldiers: in reserve (click to attack with one) and in supply (click to recruit)."""
    out = [_text(EDGE, y - 6, f"Your soldiers ({_who(view, seat)})", size=13, weight="700")]
    clan = view["clans"][seat]
    types = [t for t in SOLDIER_ORDER if t in ("spearman", "archer", "horseman") or t == CLAN_SPECIAL[clan]]
    supply, reserve = view["supply"][seat], view["reserve"][seat]
    for i, t in enumerate(types):
        x = EDGE + i * (BESIDE_W + 6)
        label = f"Attack with {SOLDIER_NAMES[t]} ({reserve[t]} in reserve)"
        out.append(_box(f"res-{t}", x, y, BESIDE_W, 26, label, interactive, fill="#E6EEF7"))
        out.append(_piece(view, seat, x + 14, y + 13, 9, SOLDIER_LETTER[t]))
        out.append(_text(x + 30, y + 18, f"{SOLDIER_NAMES[t]} \u00d7{reserve[t]}", size=13, weight="700"))
        label = f"Recruit {SOLDIER_NAMES[t]} ({supply[t]} in supply), costs {_cost(SOLDIERS[t]['cost'])}"
        out.append(_box(f"sup-{t}", x, y + 30, BESIDE_W, 26, label, interactive, fill="#F2F2F2"))
        out.append(_text(x + 7, y + 48, f"recruit {_cost(SOLDIERS[t]['cost'])}, {supply[t]} left", size=12))
    return "".join(out)


def actions(view: dict[str, Any], seat: int | None) -> list[tuple[str, str]]:
    """The buttons the page puts beside the board (``Engine.board_actions``), of which it shows those a
    legal move takes: the viewer's Command cards and Advisors (from its own view), saving Killed
    soldiers, and declining."""
    private = view.get("private") or {}
    found = [
        (f"cmd-{c}", f"Command: {COMMANDS[c]} {COMMAND_NAMES[c]} ({COMMAND_TEXT[c]})")
        for c in private.get("commands") or []
    ]
    found += [
        (f"adv-{a}", f"Play {ADVISORS[a]['name']} ({ADVISORS[a]['text']})")
        for a in ADVISOR_ORDER
        if a in (private.get("hand") or [])
    ]
    pending = view.get("pending") or {}
    if pending.get("kind") == "save":
        killed = len(pending.get("killed", []))
        found += [(f"save-{n}", f"Save {n} Killed for {n} chi") for n in range(killed + 1)]
    found.append(("done", "Done: pass"))
    return found


def _status(view: dict[str, Any]) -> str:
    if view["season"] == "over":
        return f"Game over: {view.get('end_text') or ''}."
    pending = view.get("pending") or {}
    if view.get("chance"):
        return f"Year {view['year']} of {view['years']}, {view['season']}: the game is drawing."
    kind = pending.get("kind")
    if kind == "command":
        return f"Year {view['year']} of {view['years']}, summer: choose a Command card."
    if kind is None:
        return f"Year {view['year']} of {view['years']}, {view['season']}."
    who = _who(view, pending["seat"])
    what = {
        "overseer": "upgrades an Overseer",
        "place": "places a War Machine",
        "clerk": "sends a clerk (or plays an Advisor)",
        "barracks": f"recruits or attacks ({pending.get('orders')} orders left)",
        "builders": "builds",
        "fortify": "builds the Fortifier's wall level",
        "tower": "may put a Spearman in a Tower",
        "shoot": "may shoot a War Machine",
        "fire": f"fires its {SOLDIER_NAMES.get(pending.get('type', ''), 'soldier')} on section "
        f"{'ABC'[pending.get('sec', 0)]}",
        "bomber": "may drop its Bomber onto the first row",
        "save": "may save its Killed soldiers",
    }.get(kind, kind)
    return f"Year {view['year']} of {view['years']}, {view['season']}: {who} {what}."


def render(view: dict[str, Any], seat: int | None, *, interactive: bool) -> str:
    mine = seat is not None and 0 <= seat < view["seats"]
    horde_top = 32
    wall_top = horde_top + 3 * (CARD_H + ROW_GAP) + 6
    loc_top = wall_top + WALL_H + 50
    beside_top = loc_top + LOC_H + 30
    forces_top = beside_top + 42 + 30
    height = forces_top + 62 if mine else beside_top + 50
    out = [
        # A board this wide gets the page's whole width above the side panels; on a desktop it fits the
        # screen's height, with the actions beside it (static/css/site.css).
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {_n(height)}" '
        f'role="{root_role(interactive)}" aria-label="The Great Wall board: {_a(_status(view))}" '
        'class="board greatwall" font-family="sans-serif" data-layout="wide" data-fit="height" '
        f'style="--ratio: {WIDTH / height:.4f}">',
        "<title>The Great Wall: Black Powder</title>",
        STYLE,
        f'<rect x="0" y="0" width="{WIDTH}" height="{_n(height)}" fill="{PAPER}"/>',
        f'<rect x="0" y="{horde_top - 4}" width="{WIDTH}" height="{3 * (CARD_H + ROW_GAP) + 2}" '
        f'fill="{FIELD}"/>',
        _text(EDGE + 4, 21, _status(view), size=15, weight="700"),
    ]
    for s, sec in enumerate(view["sections"]):
        x = LEFT + s * COL
        for r in (3, 2, 1):
            y = horde_top + (3 - r) * (CARD_H + ROW_GAP)
            out.append(_card(view, s, r, sec["rows"][r - 1], x, y, interactive))
    out.append(_wall(view, wall_top, interactive))
    out.append(_locations(view, loc_top, interactive))
    out.append(_supply_beside(view, beside_top, interactive))
    if mine:
        out.append(_forces(view, seat, forces_top, interactive))
    out.append("</svg>")
    return "".join(out)
