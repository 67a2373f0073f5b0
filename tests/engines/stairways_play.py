"""Playing Walls and Stairways positions in the engine tests: moves in notation, turns, what they print."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from contextlib import AbstractContextManager
from typing import Any

import pytest

from games.engines.base import Event, IllegalMove
from games.engines.stairways import board, layouts
from games.engines.stairways.rules import CARDS, Stairways

ENGINE = Stairways()
DECK = [card for card in CARDS for _ in range(2)]


def start(layout: dict[str, Any], options: dict[str, str]) -> dict[str, Any]:
    """The engine's own ``new_state`` on a custom ``layout`` (the ``layout_json`` path).

    A scenario often has fewer pieces than a layout must (one hero and no rats, where the seed asks for
    as many rat groups as heroes, two of them of 4): the game then starts from the same layout with a
    set of pieces that passes, and the scenario's heroes and rat groups are put down in their place.
    """
    seats = len(layout["stairways"])
    further = layout.get("boards", [])
    if layouts.layout_validate(layout, seats):
        stand_in = {**layout, **_stand_in_pieces(layout)}
        if further:
            stand_in["boards"] = [{**b, "heroes": [], "rats": []} for b in further]
    else:
        stand_in = layout
    state = ENGINE.new_state(
        seats=seats, options={"layout_json": json.dumps(stand_in), **options}, rng=random.Random(0)
    )
    if stand_in is not layout:
        boards = [layout, *further]
        heroes = [board.on_board(k, sq) for k, b in enumerate(boards) for sq in b.get("heroes", [])]
        rats = [
            {"square": board.on_board(k, r["square"]), "size": r["size"]}
            for k, b in enumerate(boards)
            for r in b.get("rats", [])
        ]
        state["heroes"] = [
            {"square": sq, "fate": "floor", "jewels": 0, "swords": 0, "stairway": None} for sq in heroes
        ]
        state["rats"] = rats
        state["floor_at_start"] = len(heroes)
        state["options"]["layout_json"] = json.dumps(layouts.normalised(layout), sort_keys=True)
    return state


def _stand_in_pieces(layout: dict[str, Any]) -> dict[str, Any]:
    """Two heroes and two groups of 4 rats on the first free squares of the first board."""
    free = [sq for sq in board.SQUARES if sq not in layout["stairways"] and sq != layout.get("giant")]
    return {
        "heroes": free[:2],
        "rats": [{"square": free[2], "size": 4}, {"square": free[3], "size": 4}],
    }


def deal(state: dict[str, Any], hands: tuple[tuple[str, ...], ...]) -> None:
    """Give each seat exactly these cards; the rest of the two decks is the pile."""
    pile = Counter(DECK)
    for hand in hands:
        pile.subtract(hand)
    assert all(n >= 0 for n in pile.values()), "more copies of a card than the two decks hold"
    state["hands"] = [sorted(hand, key=CARDS.index) for hand in hands]
    state["pile"] = sorted(pile.elements(), key=CARDS.index)


def actor(state: dict[str, Any]) -> int:
    (seat,) = ENGINE.actors(state)
    return seat


def play(state: dict[str, Any], *texts: str) -> tuple[dict[str, Any], list[Event]]:
    """Apply moves in notation, each by the seat that must act; chance steps run with a fixed rng."""
    events: list[Event] = []
    for text in texts:
        while ENGINE.chance_pending(state):
            state, more = ENGINE.resolve_chance(state, random.Random(1))
            events += more
        state, more = ENGINE.apply(state, actor(state), ENGINE.parse_move(text))
        events += more
    return state, events


def end_turn(state: dict[str, Any]) -> tuple[dict[str, Any], list[Event]]:
    """``end``, then the draw: the position after monster movement (or at its first decision)."""
    state, events = play(state, "end")
    while ENGINE.chance_pending(state):
        state, more = ENGINE.resolve_chance(state, random.Random(1))
        events += more
    return state, events


def texts(events: list[Event]) -> str:
    return "\n".join(e.text for e in events)


def moves(state: dict[str, Any], seat: int | None = None) -> list[str]:
    seat = actor(state) if seat is None else seat
    return [ENGINE.format_move(m) for m in ENGINE.legal_moves(state, seat)]


def raises(reason: str) -> AbstractContextManager[Any]:
    return pytest.raises(IllegalMove, match=re.escape(reason))


def hero(state: dict[str, Any], number: int) -> dict[str, Any]:
    return state["heroes"][number - 1]
