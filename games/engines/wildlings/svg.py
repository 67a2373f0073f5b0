"""Server-side SVG of a Wildlings at the Wall position, drawn from ``Wildlings.view`` only.

From the top: the wildling threat track and the wildling deck, the three Westeros decks, the three
influence tracks, one row per House (Power, Supply, levies, Castles, House cards, its sealed or revealed
choice), then the viewer's own hand and the buttons of the moment. Every interpolated value is escaped;
equal views give identical markup.

Click targets (``interactive`` and the viewer is awaited): ``order-<kind>`` buttons, ``house-<seat>`` on
the House rows (a raid's or march's target, a tie's pick), ``card-<strength>`` on the viewer's hand,
``discard-<strength>`` on its discard pile, ``levy-footmen`` / ``levy-knight``, ``bid-<n>`` for a bid of
n Power and ``opt-<value>`` for the options of a decision.
"""

from __future__ import annotations

import math
from typing import Any

from games.engines.palette import SEAT_NAMES, SEAT_SHAPES, seat_colour
from games.engines.svgkit import TARGET_ROLE, root_role
from games.engines.svgkit import attr as _a
from games.engines.svgkit import mix as _mix
from games.engines.svgkit import number as _n
from games.engines.wildlings.cards import DECK_NAMES, TRACK_NAMES, WESTEROS, WILDLINGS

WIDTH = 960
INK = "#1B1B1B"
PAPER = "#F1EEE6"
ICE = "#DCEBF5"
MUTED = "#5A5A5A"
ROW_H = 40
ORDER_LABELS = {
    "consolidate": "Consolidate",
    "defend": "Defend",
    "march": "March",
    "muster": "Muster",
    "raid": "Raid",
}
OPTION_LABELS = {
    "muster": "Muster",
    "supply": "Supply",
    "none": "Nothing",
    "clash": "Clash of Kings",
    "thrones": "Game of Thrones",
    "defend": "No defend orders",
    "march": "No march orders",
    "levies": "Lose 2 levies",
    "throne": "Iron Throne",
    "fiefdoms": "Fiefdoms",
    "court": "King's Court",
    "footmen": "Two footmen",
    "knight": "A knight",
}
DECISIONS = {
    "tie": "The Iron Throne breaks a tie: click a House",
    "clash_tie": "The Iron Throne orders a tie: click the House to place next",
    "blades": "A Throne of Blades: the Iron Throne chooses",
    "dark_wings": "Dark Wings, Dark Words: the King's Court chooses",
    "sword": "Put to the Sword: the Fiefdoms holder chooses",
    "preemptive": "Preemptive Raid: lose 2 levies or drop 2 places on your best track",
    "king_reward": "A King Beyond the Wall: take the top of one track",
    "king_other": "A King Beyond the Wall: go to the bottom of one track",
    "horde_reward": "The Horde Descends: muster now",
    "milkwater_other": "Massing on the Milkwater: click a House card to discard",
    "mammoth_reward": "Mammoth Riders: click a discarded House card to take back",
}
# Decisions answered with the option buttons; the others are answered on House rows or cards.
DECISION_BUTTONS = frozenset(
    {"blades", "dark_wings", "sword", "preemptive", "king_reward", "king_other", "horde_reward"}
)
STYLE = (
    "<style>"
    "svg.wildlings .pick{pointer-events:none}"
    "div.board.interactive svg.wildlings .pick.choosable{pointer-events:all;cursor:pointer;"
    "stroke:#0B5D8C;stroke-width:3}"
    "div.board.interactive svg.wildlings .pick.chosen{stroke:#0B5D8C;stroke-width:4;fill:#CFE8FF}"
    "</style>"
)


def _name(seat: int) -> str:
    return SEAT_NAMES[seat % len(SEAT_NAMES)].capitalize()


def _marker(seat: int, cx: float, cy: float, rad: float = 8) -> str:
    shape = SEAT_SHAPES[seat % len(SEAT_SHAPES)]
    common = f'fill="{_a(seat_colour(seat))}" stroke="{INK}" stroke-width="1.5" class="marker seat-{seat}"'
    if shape == "circle":
        return f'<circle cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(rad)}" {common}/>'
    if shape == "square":
        side = rad * 1.7
        return (
            f'<rect x="{_n(cx - side / 2)}" y="{_n(cy - side / 2)}" width="{_n(side)}" height="{_n(side)}" '
            f"{common}/>"
        )
    corners, start = {"triangle": (3, -90), "diamond": (4, -90), "pentagon": (5, -90)}.get(shape, (6, 0))
    r = rad * (1.2 if shape == "triangle" else 1.1)
    points = " ".join(
        f"{_n(cx + r * math.cos(math.radians(start + k * 360 / corners)))},"
        f"{_n(cy + r * math.sin(math.radians(start + k * 360 / corners)))}"
        for k in range(corners)
    )
    return f'<polygon points="{points}" stroke-linejoin="round" {common}/>'


def _text(x: float, y: float, text: Any, *, size: int = 13, anchor: str = "start", weight: str = "") -> str:
    bold = f' font-weight="{weight}"' if weight else ""
    return (
        f'<text x="{_n(x)}" y="{_n(y)}" font-size="{size}" text-anchor="{anchor}"{bold} fill="{INK}">'
        f"{_a(text)}</text>"
    )


def _button(target: str | None, label: str, x: float, y: float, w: float) -> str:
    data = f' data-target="{_a(target)}" tabindex="-1"{TARGET_ROLE}' if target else ""
    return (
        f'<g class="button"><rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="26" rx="5" fill="#FFFFFF" '
        f'stroke="{INK}" stroke-width="1.5" class="pick target"{data} aria-label="{_a(label)}"/>'
        f'<text x="{_n(x + w / 2)}" y="{_n(y + 18)}" text-anchor="middle" font-size="13" '
        f'pointer-events="none">{_a(label)}</text></g>'
    )


def _card(value: int, x: float, y: float, target: str | None, *, faded: bool = False) -> str:
    # A card nobody can click is a picture of a card (a bare shape may not carry a label).
    data = f' data-target="{_a(target)}" tabindex="-1"{TARGET_ROLE}' if target else ' role="img"'
    fill = "#E4E0D6" if faded else "#FFFFFF"
    return (
        f'<g class="house-card"><rect x="{_n(x)}" y="{_n(y)}" width="30" height="40" rx="4" fill="{fill}" '
        f'stroke="{INK}" stroke-width="1.2" class="pick target"{data} aria-label="House card {_a(value)}"/>'
        f'<text x="{_n(x + 15)}" y="{_n(y + 26)}" text-anchor="middle" font-size="16" font-weight="700" '
        f'pointer-events="none">{_a(value)}</text></g>'
    )


def _phase_text(view: dict[str, Any]) -> str:
    phase = view.get("phase")
    if phase == "over":
        return f"Game over: {view.get('end_reason') or ''}"
    if phase == "westeros":
        return "Westeros phase: the cards are being drawn"
    if phase == "orders":
        return "Every House gives one order in secret"
    if phase == "bidding":
        bidding = view.get("bidding") or {}
        if bidding.get("kind") == "wildlings":
            return f"The wildlings attack with strength {bidding.get('strength')}: bid Power in secret"
        return f"Clash of Kings: bid Power in secret for the {TRACK_NAMES.get(bidding.get('kind'), '')} track"
    pending = view.get("pending") or {}
    if pending:
        return f"{_name(pending['seat'])} decides: {DECISIONS.get(pending['kind'], pending['kind'])}"
    return ""


def render(view: dict[str, Any], seat: int | None, *, interactive: bool) -> str:
    seats = int(view["seats"])
    houses = view["houses"]
    private = view.get("private") or {}
    phase = view.get("phase")
    acting = interactive and seat is not None and seat in view.get("to_act", [])
    pending = view.get("pending")
    out: list[str] = []

    # --- threat track and wildling deck --------------------------------------------------------------
    top = 16
    out.append(
        _text(
            16,
            top + 14,
            f"Round {view['round']} of {view['rounds']} · {_phase_text(view)}",
            size=15,
            weight="700",
        )
    )
    y = top + 30
    out.append(_text(16, y + 18, "Wildling threat", weight="700"))
    threat = int(view["threat"])
    for k, value in enumerate(range(0, int(view["threat_max"]) + 1, 2)):
        x = 140 + k * 46
        here = value == threat
        fill = "#8FB8D8" if here else ICE
        label = f"threat {value}" + (" (current)" if here else "")
        out.append(
            f'<rect x="{x}" y="{y}" width="40" height="28" rx="4" fill="{fill}" stroke="{INK}" '
            f'class="threat-space{" current" if here else ""}"><title>{_a(label)}</title></rect>'
        )
        out.append(_text(x + 20, y + 19, value, anchor="middle", weight="700" if here else ""))
    deck = view.get("wildling_deck") or {}
    buried = [WILDLINGS[c].name for c in deck.get("buried", []) if c in WILDLINGS]
    out.append(_text(480, y + 12, f"Wildling deck: {deck.get('size', 0)} cards, face down", weight="700"))
    out.append(_text(480, y + 28, "Buried at the bottom: " + (", ".join(buried) or "none"), size=11))
    top_card = private.get("wildling_top")
    if top_card in WILDLINGS:
        out.append(
            _text(
                480,
                y + 44,
                f"Top card (you hold the King's Court): {WILDLINGS[top_card].name}",
                size=12,
                weight="700",
            )
        )

    # --- Westeros decks --------------------------------------------------------------------------------
    y += 58
    for k, name in enumerate(DECK_NAMES):
        info = view["westeros"][name]
        x = 16 + k * 312
        drawn = info.get("drawn")
        title = WESTEROS[drawn].name if drawn in WESTEROS else "no card yet"
        icon = drawn in WESTEROS and WESTEROS[drawn].icon
        out.append(
            f'<g class="westeros-deck"><rect x="{x}" y="{y}" width="300" height="46" rx="5" fill="#FFFFFF" '
            f'stroke="{INK}"/>'
            + _text(x + 8, y + 18, f"Westeros {name}: {title}{' (icon)' if icon else ''}", weight="700")
            + _text(x + 8, y + 36, f"{info['left']} cards left, {len(info['used'])} drawn", size=11)
            + "</g>"
        )
    restriction = view.get("restriction")
    if restriction:
        out.append(_text(16, y + 64, f"No {restriction} orders this round", weight="700"))
        y += 20

    # --- influence tracks ------------------------------------------------------------------------------
    y += 62
    for k, track in enumerate(("throne", "fiefdoms", "court")):
        ty = y + k * 26
        out.append(_text(16, ty + 16, TRACK_NAMES[track], weight="700"))
        for place, who in enumerate(view["tracks"][track]):
            x = 140 + place * 120
            gone = who in view.get("eliminated", [])
            out.append(_marker(who, x, ty + 11, 7))
            out.append(
                _text(x + 12, ty + 16, f"{place + 1}. {_name(who)}{' (out)' if gone else ''}", size=12)
            )

    # --- Houses ----------------------------------------------------------------------------------------
    y += 3 * 26 + 14
    heads = [
        (16, "House"),
        (150, "Power"),
        (206, "Supply"),
        (270, "Footmen"),
        (336, "Knights"),
        (400, "Strength"),
        (470, "Castles"),
        (536, "Cards"),
        (600, "Discarded"),
        (720, "This round"),
    ]
    for x, label in heads:
        out.append(_text(x, y + 14, label, size=12, weight="700"))
    y += 22
    committed = view.get("committed") or [False] * seats
    revealed = view.get("revealed_orders")
    bidding = view.get("bidding")
    for row in range(seats):
        house = houses[row]
        ry = y + row * ROW_H
        colour = seat_colour(row)
        own = row == seat
        tint = _mix(colour, "#FFFFFF", 0.18)
        out.append(f'<g class="house seat-{row}">')
        target = f' data-target="house-{row}" tabindex="-1"{TARGET_ROLE}' if acting else ""
        out.append(
            f'<rect x="10" y="{ry}" width="{WIDTH - 20}" height="{ROW_H - 4}" rx="4" fill="{tint}" '
            f'stroke="{INK}" stroke-width="{2 if own else 1}" class="pick target house-row"{target} '
            f'aria-label="House {_a(_name(row))}"/>'
        )
        out.append(_marker(row, 26, ry + 18))
        gone = row in view.get("eliminated", [])
        label = _name(row) + (" (you)" if own else "") + (" (out)" if gone else "")
        cells = [
            (40, label),
            (150, house["power"]),
            (206, f"{house['supply']} (≤{house['cap']})"),
            (270, house["footmen"]),
            (336, house["knights"]),
            (400, house["strength"]),
            (470, house["castles"]),
            (536, f"{house['hand_size']} in hand"),
        ]
        for x, value in cells:
            out.append(
                f'<text x="{x}" y="{ry + 23}" font-size="13" fill="{INK}" pointer-events="none">'
                f"{_a(value)}</text>"
            )
        for k, value in enumerate(house["discard"]):
            target_id = f"discard-{value}" if acting and own else None
            out.append(
                f'<g transform="translate({600 + k * 17} {ry + 5}) scale(0.55)">'
                + _card(value, 0, 0, target_id, faded=True)
                + "</g>"
            )
        status = ""
        if phase in ("orders", "bidding") and (
            bidding is None or row in bidding.get("bidders", range(seats))
        ):
            if own and private.get("order") is not None:
                status = "your order is sealed"
            elif own and private.get("bid") is not None:
                status = f"you bid {private['bid']} (sealed)"
            elif committed[row]:
                status = "committed"
            elif not gone:
                status = "thinking…"
        elif revealed is not None and revealed[row] is not None:
            order = revealed[row]
            status = "order: " + order_label(order)
        out.append(
            f'<text x="720" y="{ry + 23}" font-size="13" fill="{INK}" pointer-events="none" '
            f'class="status">{_a(status)}</text>'
        )
        if acting:
            # Where the board script shows the order or bid being chosen, before it is sent.
            out.append(
                f'<rect x="714" y="{ry + 4}" width="{WIDTH - 20 - 710}" height="{ROW_H - 12}" fill="none" '
                f'pointer-events="none" data-place="round-{row}"/>'
            )
        out.append("</g>")
    y += seats * ROW_H + 6

    # --- last reveal -----------------------------------------------------------------------------------
    last = view.get("last_bids")
    if last is not None:
        shown = ", ".join(f"{_name(s)} {b}" for s, b in enumerate(last["bids"]) if b is not None)
        if last["kind"] == "wildlings":
            side = "the Night's Watch held" if last["watch"] else "the wildlings won"
            text = f"Last wildling attack: {shown}; total {last['total']} against {last['strength']}: {side}."
        else:
            text = f"Last bids for the {TRACK_NAMES.get(last['kind'], '')} track: {shown}."
        out.append(_text(16, y + 14, text, size=12))
    attack = view.get("attack")
    if attack is not None and attack.get("card") in WILDLINGS:
        card = WILDLINGS[attack["card"]]
        out.append(_text(16, y + 32, f"Wildling card in play: {card.name}", size=12, weight="700"))
    y += 42

    # --- the viewer's hand and the buttons -------------------------------------------------------------
    if seat is not None and 0 <= seat < seats:
        hand = private.get("hand", [])
        out.append(_text(16, y + 26, "Your hand", weight="700"))
        for k, value in enumerate(hand):
            out.append(_card(value, 100 + k * 36, y, f"card-{value}" if acting else None))
        if not hand:
            out.append(_text(100, y + 26, "no House cards", size=12))
    y += 52
    if acting:
        buttons: list[tuple[str, str, float]] = []
        prompt = "Choose"
        if phase == "orders":
            prompt = "Order"
            banned = view.get("restriction")
            buttons += [(f"order-{k}", v, 104) for k, v in ORDER_LABELS.items() if k != banned]
            buttons += [("levy-footmen", "Two footmen", 110), ("levy-knight", "A knight", 90)]
        elif phase == "bidding":
            prompt = "Bid Power"
            power = int(houses[seat]["power"])
            buttons += [(f"bid-{n}", str(n), 36) for n in range(power + 1)]
        elif pending is not None and pending.get("options") and pending["kind"] in DECISION_BUTTONS:
            buttons += [(f"opt-{o}", OPTION_LABELS.get(o, str(o)), 150) for o in pending["options"]]
        if buttons:
            out.append(_text(16, y + 18, prompt, weight="700"))
        x = 100
        for target, label, w in buttons:
            if x + w > WIDTH - 16:
                x = 100
                y += 32
            out.append(_button(target, label, x, y, w))
            x += w + 8
        y += 36
    height = y + 8
    head = (
        # A board this wide gets the page's whole width above the side panels (static/css/site.css).
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {_n(height)}" '
        f'role="{root_role(acting)}" '
        f'aria-labelledby="wildlings-title" class="board wildlings" font-family="sans-serif" '
        'data-layout="wide">'
        f'<title id="wildlings-title">Wildlings at the Wall, round {_a(view["round"])}: '
        f"threat {threat}</title>"
        f"{STYLE}"
        f'<rect x="0" y="0" width="{WIDTH}" height="{_n(height)}" fill="{PAPER}"/>'
    )
    return head + "".join(out) + "</svg>"


def order_label(order: dict[str, Any]) -> str:
    """An order in words, as its House's row shows it once revealed (and to its House while chosen)."""
    kind = order.get("order")
    if kind == "raid":
        return f"raid {_name(order['target'])}"
    if kind == "march":
        return f"march on {_name(order['target'])} with {order['card']}"
    if kind == "defend":
        return f"defend with {order['card']}"
    if kind == "muster":
        return f"muster {order['levy']}"
    return "consolidate"
