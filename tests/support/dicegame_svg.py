"""SVG of a dice-and-cards position, drawn from ``DiceGame.view`` only (never from the state).

Deterministic markup, so equal views give byte-identical pictures; the conformance suite relies on it.
"""

from __future__ import annotations

from html import escape
from typing import Any

from games.engines.palette import SEAT_NAMES, seat_colour

CARD_W = 36
CARD_H = 52
GAP = 8
ROW_H = CARD_H + 24
LEFT = 120
TOP = 70
INK = "#1B1B1B"
BACK = "#6B5B95"


def _a(value: Any) -> str:
    return escape(str(value), quote=True)


def _card(x: int, y: int, face: int | None, *, target: bool = False, cls: str = "card") -> str:
    """A card face (``face`` set) or a card back; a target card carries the id the board script clicks."""
    if face is None:
        return (
            f'<rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="4" fill="{BACK}" '
            f'stroke="{INK}" class="{cls} back"/>'
        )
    hook = f' data-target="card-{face}" tabindex="-1" aria-label="play {face}"' if target else ""
    extra = " target" if target else ""
    return (
        f'<g class="{cls}{extra}"{hook}>'
        f'<rect x="{x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="4" fill="#FFFFFF" stroke="{INK}"/>'
        f'<text x="{x + CARD_W // 2}" y="{y + CARD_H // 2 + 6}" text-anchor="middle" font-size="18">'
        f"{_a(face)}</text></g>"
    )


def render(view: dict[str, Any], seat: int | None, *, interactive: bool) -> str:
    seats = int(view["seats"])
    private = view.get("private") or {}
    width = LEFT + 5 * (CARD_W + GAP) + 20
    height = TOP + seats * ROW_H + 60
    die = view.get("die")
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="Dice and cards table" class="board testdice" font-family="sans-serif">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#E4EFE4"/>',
        f'<text x="12" y="24" font-size="16" fill="{INK}">Round {_a(view["round"])} of {_a(view["rounds"])}'
        f" - deck {_a(view['deck_size'])}</text>",
        f'<rect x="12" y="34" width="28" height="28" rx="5" fill="#FFFFFF" stroke="{INK}" class="die"/>',
        f'<text x="26" y="54" text-anchor="middle" font-size="16" class="die-face">'
        f"{'?' if die is None else _a(die)}</text>",
    ]
    for row in range(seats):
        y = TOP + row * ROW_H
        colour = seat_colour(row)
        out.append(
            f'<g class="seat seat-{row}">'
            f'<rect x="8" y="{y}" width="10" height="{CARD_H}" fill="{_a(colour)}"/>'
            f'<text x="24" y="{y + 20}" font-size="14">{_a(SEAT_NAMES[row % len(SEAT_NAMES)])}</text>'
            f'<text x="24" y="{y + 40}" font-size="14">{_a(view["points"][row])} pt</text>'
        )
        own = seat == row
        if own:
            can_play = interactive and row in view.get("to_act", [])
            faces: list[int | None] = list(private.get("hand", []))
        else:
            can_play = False
            faces = [None] * int(view["hand_sizes"][row])
        for i, face in enumerate(faces):
            out.append(_card(LEFT + i * (CARD_W + GAP), y, face, target=can_play))
        # The sealed slot: a back for "has committed", the face only for its own seat.
        slot_x = LEFT + 3 * (CARD_W + GAP)
        if view["committed"][row]:
            face = private.get("committed") if own else None
            out.append(_card(slot_x, y, face, cls="committed"))
        else:
            out.append(
                f'<rect x="{slot_x}" y="{y}" width="{CARD_W}" height="{CARD_H}" rx="4" fill="none" '
                f'stroke="{INK}" stroke-dasharray="4 3" class="slot"/>'
            )
        if row in view.get("eliminated", []):
            out.append(f'<text x="{LEFT}" y="{y + CARD_H + 16}" font-size="12">left the game</text>')
        out.append("</g>")
    discard = ", ".join(str(c) for c in view.get("discard", [])) or "none"
    out.append(
        f'<text x="12" y="{height - 28}" font-size="13" class="discard">Discarded: {_a(discard)}</text>'
    )
    if view.get("end_reason"):
        reason = _a(view["end_reason"])
        out.append(f'<text x="12" y="{height - 10}" font-size="13">Game over: {reason}</text>')
    out.append("</svg>")
    return "".join(out)
