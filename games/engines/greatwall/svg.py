"""Server-side SVG of a Great Wall position, drawn from ``GreatWall.view`` only (never from the state).

From the top: the Horde cards before the three wall sections (row 3, the farthest, at the top; row 1 next
to the wall), each with its 3 x 3 vital-spot grid, wounds, soldiers and Snake Clan tokens; the wall with
its levels, Firing spots, War Machines and the four Towers; the Rest Zones; the six locations with their
clerks; the War Machines beside the board; then the viewer's own supply, reserve, Command cards, Advisor
hand and buttons. Every general's pieces have its seat's shape as well as its colour (the Imperial
general's a hexagon). Every interpolated value is escaped; equal views give identical markup.

Click targets (``interactive``): ``horde-<s>-<r>`` (a card, shot at), ``spot-<s>-<r>-<k>`` (a vital spot),
``tank-<s>-<k>`` (a Tank's 2 x 2 block on a first-row card), ``sec-<s>`` (a wall section), ``fire-<s>``
(its Firing spots), ``mach-<s>-<type>`` (a War Machine on the wall), ``tower-<t>``, ``loc-<location>``,
``wm-<type>`` and ``build-level`` (what the Builders build), ``sup-<soldier>`` (recruit), ``res-<soldier>``
(attack), ``cmd-<card>``, ``adv-<card>``, ``save-<n>`` and ``done``: on a board to play on, each is a
button named in words (what covers a vital spot included), and the board a group of them.
"""

from __future__ import annotations

import math
from typing import Any

from games.engines.greatwall.cards import (
    ADVISOR_ORDER,
    ADVISORS,
    CLAN_NAMES,
    CLAN_SPECIAL,
    COMMAND_NAMES,
    COMMAND_ORDER,
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

WIDTH = 1064
COL = 340  # width of a section's column
LEFT = 40
CARD_W, CARD_H = 300, 104
GRID = 28  # distance between vital spots
INK = "#1B1B1B"
PAPER = "#F4EEDF"
FIELD = "#E3D9C0"
STONE = "#9C9182"
NEUTRAL = "#7F7F7F"
WOUND = "#B3261E"
SNAKE = "#2E7D32"
RES_LETTER = {"wood": "W", "stone": "S", "gold": "G", "chi": "C", "honor": "H"}
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
    size = 11 if rad >= 10 else 9
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
        out.append(_text(x + CARD_W / 2, y + CARD_H / 2 + 4, f"row {r}: empty", anchor="middle", fill=STONE))
        return "".join(out)
    label = (
        f"{card['name']} before section {view['sections'][s]['name']}, row {r}: Offensive Power "
        f"{card['power']}, {card['honor']} Honor"
    )
    fill = "#F6D9C9" if card["type"] in ("ram", "trebuchet", "ladders", "elite") else "#FBF3E4"
    out.append(_box(f"horde-{s}-{r}", x, y, CARD_W, CARD_H, label, interactive, fill=fill, rx=6))
    out.append(_text(x + 10, y + 20, card["name"], size=14, weight="700"))
    out.append(_text(x + 10, y + 40, f"Power {card['power']}", size=12))
    out.append(_text(x + 10, y + 56, f"Honor {card['honor']}", size=12))
    out.append(_text(x + 10, y + 72, f"row {r}", size=11, fill="#555555"))
    ability = {
        "ram": "moves up; rams the wall",
        "trebuchet": "row 3 only; hurls stones",
        "ladders": "row 1: Defence 0",
        "elite": "",
    }.get(card["type"], "")
    if ability:
        out.append(_text(x + 10, y + 92, ability, size=10, fill="#6B2B12"))
    cx, cy = x + CARD_W - 62, y + CARD_H / 2
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
                _text(sx, sy + 4, RES_LETTER[rewards[str(k)]], size=10, anchor="middle", fill="#8A6D1F")
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


def _soldiers_text(view: dict[str, Any], soldiers: list[list[Any]]) -> str:
    return " ".join(f"{_who(view, o)[0]}:{SOLDIER_LETTER.get(t, '?')}" for o, t in soldiers)


def _wall(view: dict[str, Any], y: float, interactive: bool) -> str:
    out = []
    sections = view["sections"]
    for s, sec in enumerate(sections):
        x = LEFT + s * COL
        label = (
            f"Wall section {sec['name']}: level {sec['level']} of {MAX_LEVEL}, Defence {sec['defence']} "
            f"against Offensive Power {sec['power']}"
        )
        out.append(_box(f"sec-{s}", x, y, CARD_W, 92, label, interactive, fill="#CFC6B4", rx=3))
        # The levels as courses of stone, the lowest at the bottom.
        for level in range(MAX_LEVEL):
            built = level < sec["level"]
            out.append(
                f'<rect x="{_n(x + 8)}" y="{_n(y + 72 - level * 16)}" width="70" height="14" '
                f'fill="{STONE if built else "none"}" stroke="{INK}" stroke-width="0.8" '
                f'stroke-dasharray="{"none" if built else "3 3"}" pointer-events="none"/>'
            )
        out.append(
            _text(x + 86, y + 18, f"Section {sec['name']}  level {sec['level']}", size=13, weight="700")
        )
        out.append(_text(x + 86, y + 36, f"Defence {sec['defence']} / Power {sec['power']}", size=12))
        # Firing spots.
        fire_label = f"Firing spots of section {sec['name']} ({len(sec['firing'])} of {FIRING_SPOTS} taken)"
        out.append(_box(f"fire-{s}", x + 86, y + 46, 86, 38, fire_label, interactive, fill="#EDE6D6"))
        for i in range(FIRING_SPOTS):
            fx, fy = x + 106 + i * 44, y + 65
            if i < len(sec["firing"]):
                owner, kind = sec["firing"][i]
                out.append(_piece(view, owner, fx, fy, 11, SOLDIER_LETTER.get(kind, "?")))
            else:
                out.append(
                    f'<circle cx="{_n(fx)}" cy="{_n(fy)}" r="12" fill="none" stroke="{INK}" '
                    f'stroke-dasharray="3 2" pointer-events="none"/>'
                )
        # War Machines.
        for i, m in enumerate(sec["machines"]):
            mx, my = x + 182 + i * 58, y + 48
            out.append(
                _box(
                    f"mach-{s}-{m}",
                    mx,
                    my,
                    54,
                    36,
                    f"{MACHINE_NAMES[m]} on section {sec['name']}",
                    interactive,
                    fill="#D8C7A5",
                )
            )
            out.append(
                _text(mx + 27, my + 15, MACHINE_NAMES[m].split()[0], size=10, anchor="middle", weight="700")
            )
            out.append(_text(mx + 27, my + 29, "shot " + _cost(MACHINES[m]["shot"]), size=9, anchor="middle"))
        # The Rest Zone.
        rest = _soldiers_text(view, sec["rest"]) or "empty"
        out.append(_text(x, y + 108, f"Rest Zone: {rest}", size=11))
    for t in range(TOWERS):
        # Left of each section, and the last one right of section C.
        tx = LEFT + t * COL - 33 if t < 3 else LEFT + 2 * COL + CARD_W + 7
        owner = view["towers"][t]
        near = " and ".join(sections[s]["name"] for s in _tower_sections(t))
        who = "empty" if owner is None else f"{_who(view, owner)}'s Spearman"
        label = f"Tower {t + 1} beside section {near}: {who}"
        fill = "#FFFFFF" if owner is None else _mix(_colour(view, owner), "#FFFFFF", 0.45)
        out.append(_box(f"tower-{t + 1}", tx, y - 14, 26, 60, label, interactive, fill=fill, rx=3))
        out.append(_text(tx + 13, y + 10, f"T{t + 1}", size=10, anchor="middle", weight="700"))
        if owner is not None:
            out.append(_piece(view, owner, tx + 13, y + 28, 9, "S"))
    return "".join(out)


def _tower_sections(t: int) -> list[int]:
    return [s for s, towers in enumerate(SECTION_TOWERS) if t in towers]


def _locations(view: dict[str, Any], y: float, interactive: bool) -> str:
    out = [
        _text(
            LEFT,
            y - 6,
            "Locations (clerks; room for " + str(view["capacity"]) + " each)",
            size=12,
            weight="700",
        )
    ]
    w = 162
    for i, loc in enumerate(LOCATIONS):
        x = LEFT + i * (w + 8)
        clerks = view["placed"][loc]
        label = f"{LOCATION_NAMES[loc]}: " + (", ".join(_who(view, g) for g in clerks) or "no clerks")
        out.append(_box(f"loc-{loc}", x, y, w, 46, label, interactive, fill="#F7F1E3"))
        out.append(_text(x + 8, y + 17, LOCATION_NAMES[loc], size=12, weight="700"))
        for j, g in enumerate(clerks):
            out.append(_piece(view, g, x + 14 + j * 20, y + 33, 7))
    return "".join(out)


def _supply_beside(view: dict[str, Any], y: float, interactive: bool) -> str:
    out = [
        _text(LEFT, y - 6, "Beside the board: War Machines to build, and a wall level", size=12, weight="700")
    ]
    for i, m in enumerate(MACHINE_ORDER):
        x = LEFT + i * 170
        left = view["machines_left"][m]
        label = f"{MACHINE_NAMES[m]}: {left} left to build, costs {_cost(MACHINES[m]['build'])}"
        out.append(_box(f"wm-{m}", x, y, 160, 40, label, interactive, fill="#EADFC8"))
        out.append(_text(x + 8, y + 16, f"{MACHINE_NAMES[m]} x{left}", size=12, weight="700"))
        out.append(
            _text(
                x + 8,
                y + 32,
                f"build {_cost(MACHINES[m]['build'])}, shot {_cost(MACHINES[m]['shot'])}",
                size=10,
            )
        )
    x = LEFT + 3 * 170
    out.append(
        _box(
            "build-level",
            x,
            y,
            160,
            40,
            f"A wall level: costs {_cost(LEVEL_COST)}",
            interactive,
            fill="#D9D2C4",
        )
    )
    out.append(_text(x + 8, y + 16, "Wall level", size=12, weight="700"))
    out.append(_text(x + 8, y + 32, f"build {_cost(LEVEL_COST)}", size=10))
    out.append(
        _text(
            x + 180,
            y + 16,
            f"Horde deck {view['horde_deck_size']}, discards {len(view['horde_discard'])}",
            size=11,
        )
    )
    out.append(
        _text(
            x + 180, y + 32, f"Rocket deck {view['rocket_deck_size']}; Snake tokens {view['snakes']}", size=11
        )
    )
    return "".join(out)


def _generals(view: dict[str, Any], y: float) -> str:
    out = [
        _text(LEFT, y, "Tea order: " + ", ".join(_who(view, g) for g in view["tea"]), size=12, weight="700")
    ]
    for s in range(view["seats"]):
        res = view["resources"][s]
        line = (
            f"{_who(view, s)} ({CLAN_NAMES[view['clans'][s]]}): Honor {view['honor'][s]}, Shame "
            f"{view['shame'][s]}, "
            + ", ".join(f"{r} {res[r]}" for r in RESOURCES)
            + f", Advisors {view['hand_sizes'][s]}"
        )
        if view["season"] == "summer":
            line += ", committed" if view["committed"][s] else ", choosing"
        if s in view["eliminated"]:
            line += " (out)"
        out.append(_piece(view, s, LEFT + 6, y + 14 + s * 18, 6))
        out.append(_text(LEFT + 18, y + 18 + s * 18, line, size=11))
    return "".join(out)


def _viewer(view: dict[str, Any], seat: int, y: float, interactive: bool) -> str:
    out = [_text(LEFT, y - 6, f"Your forces ({_who(view, seat)})", size=12, weight="700")]
    clan = view["clans"][seat]
    types = [t for t in SOLDIER_ORDER if t in ("spearman", "archer", "horseman") or t == CLAN_SPECIAL[clan]]
    supply, reserve = view["supply"][seat], view["reserve"][seat]
    for i, t in enumerate(types):
        x = LEFT + i * 130
        label = f"Recruit {SOLDIER_NAMES[t]} ({supply[t]} in supply), costs {_cost(SOLDIERS[t]['cost'])}"
        out.append(_box(f"sup-{t}", x, y, 122, 24, label, interactive, fill="#F2F2F2"))
        out.append(
            _text(x + 6, y + 16, f"+{SOLDIER_NAMES[t]} {supply[t]} ({_cost(SOLDIERS[t]['cost'])})", size=10)
        )
        label = f"Attack with {SOLDIER_NAMES[t]} ({reserve[t]} in reserve)"
        out.append(_box(f"res-{t}", x, y + 28, 122, 24, label, interactive, fill="#E6EEF7"))
        out.append(_text(x + 6, y + 44, f"{SOLDIER_NAMES[t]} x{reserve[t]}", size=11, weight="700"))
    cy = y + 62
    private = view.get("private") or {}
    available = private.get("commands") or [c for c in COMMAND_ORDER if c != view["resting"][seat]]
    chosen = private.get("command")
    out.append(_text(LEFT, cy + 14, "Command:", size=11, weight="700"))
    for i, c in enumerate(COMMAND_ORDER):
        x = LEFT + 64 + i * 150
        resting = c not in available
        state = " (resting this year)" if resting else (" (chosen)" if chosen == c else "")
        label = f"Command card {COMMAND_NAMES[c]}, strength {COMMANDS[c]}: {COMMAND_TEXT[c]}{state}"
        fill = "#DDDDDD" if resting else ("#FFE7A8" if chosen == c else "#FFFFFF")
        out.append(_box(f"cmd-{c}", x, cy, 142, 24, label, interactive, fill=fill))
        out.append(_text(x + 6, cy + 16, f"{COMMANDS[c]} {COMMAND_NAMES[c]}: {COMMAND_TEXT[c]}", size=9))
    ay = cy + 30
    hand = private.get("hand") or []
    out.append(_text(LEFT, ay + 14, "Advisors:", size=11, weight="700"))
    names = [a for a in ADVISOR_ORDER if a in hand]
    for i, a in enumerate(names):
        x = LEFT + 64 + i * 190
        count = hand.count(a)
        label = f"Advisor {ADVISORS[a]['name']}: {ADVISORS[a]['text']}" + (
            f" (x{count})" if count > 1 else ""
        )
        out.append(_box(f"adv-{a}", x, ay, 182, 24, label, interactive, fill="#EFE3F5"))
        out.append(
            _text(
                x + 6,
                ay + 16,
                f"{ADVISORS[a]['name']}{' x' + str(count) if count > 1 else ''}: {ADVISORS[a]['text']}",
                size=9,
            )
        )
    if not names:
        out.append(_text(LEFT + 64, ay + 14, "none", size=11))
    return "".join(out)


def _buttons(view: dict[str, Any], y: float, interactive: bool) -> str:
    out = [_box("done", LEFT, y, 90, 26, "Done / decline", interactive, fill="#FFFFFF")]
    out.append(_text(LEFT + 45, y + 17, "Done", size=12, anchor="middle", weight="700"))
    pending = view.get("pending") or {}
    if pending.get("kind") == "save":
        for n in range(len(pending.get("killed", [])) + 1):
            x = LEFT + 100 + n * 80
            out.append(_box(f"save-{n}", x, y, 74, 26, f"Save {n} Killed soldiers for {n} chi", interactive))
            out.append(_text(x + 37, y + 17, f"Save {n}", size=12, anchor="middle"))
    return "".join(out)


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
    horde_top = 40
    wall_top = horde_top + 3 * (CARD_H + 10) + 22
    loc_top = wall_top + 140
    beside_top = loc_top + 76
    gen_top = beside_top + 62
    viewer_top = gen_top + 30 + 18 * view["seats"]
    buttons_top = viewer_top + (130 if mine else 0)
    height = buttons_top + 40
    out = [
        # A board this wide gets the page's whole width above the side panels (static/css/site.css).
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {_n(height)}" '
        f'role="{root_role(interactive)}" aria-label="The Great Wall board: {_a(_status(view))}" '
        'class="board greatwall" font-family="sans-serif" data-layout="wide">',
        "<title>The Great Wall: Black Powder</title>",
        STYLE,
        f'<rect x="0" y="0" width="{WIDTH}" height="{_n(height)}" fill="{PAPER}"/>',
        f'<rect x="0" y="{horde_top - 8}" width="{WIDTH}" height="{3 * (CARD_H + 10) + 12}" fill="{FIELD}"/>',
        _text(LEFT, 24, _status(view), size=14, weight="700"),
    ]
    for s, sec in enumerate(view["sections"]):
        x = LEFT + s * COL
        for r in (3, 2, 1):
            y = horde_top + (3 - r) * (CARD_H + 10)
            out.append(_card(view, s, r, sec["rows"][r - 1], x, y, interactive))
    out.append(_wall(view, wall_top, interactive))
    out.append(_locations(view, loc_top, interactive))
    out.append(_supply_beside(view, beside_top, interactive))
    out.append(_generals(view, gen_top))
    if mine:
        out.append(_viewer(view, seat, viewer_top, interactive))
    out.append(_buttons(view, buttons_top, interactive))
    out.append("</svg>")
    return "".join(out)
