"""Test helpers for Walls and Stairways matches played on the site: a chosen position stored in place
of the dealt one, and the server-drawn board read back into squares, as a player would read it."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any

from games.engines.stairways.rules import CARD_ORDER, CARDS, COPIES
from games.models import Match
from tests.support.positions import position_store

# The picture's geometry (games/engines/stairways/svg.py): one board, 8 x 8 squares of CELL pixels
# inside a MARGIN.
CELL = 56
MARGIN = 28
FILES = "abcdefgh"


def position_arrange(
    match: Match, *, hands: list[list[str]], treasure: dict[str, list[int]] | None = None
) -> Match:
    """Deal ``hands`` in place of the dealt ones (the draw pile becomes the rest of the two decks) and
    lay ``treasure`` (square -> [jewels, swords]) on the floor, then store the position with its public
    view and every seat's hidden hand recomputed, as the services would after a move.

    Only a position where nothing has been played yet is arranged, and whoever was to act still is, so
    the open turns stay right.
    """
    match.refresh_from_db()
    engine = match.engine
    state = match.engine_state
    assert not state["discards"] and not state["treasure"], "arrange the position before any play"
    before = engine.actors(state)
    deck = [card for card in CARDS for _ in range(COPIES)]
    for hand in hands:
        for card in hand:
            deck.remove(card)  # a ValueError here: more copies of a card than the two decks hold
    state["hands"] = [sorted(hand, key=CARD_ORDER.__getitem__) for hand in hands]
    state["pile"] = sorted(deck, key=CARD_ORDER.__getitem__)  # the pile has no order: draws are random
    state["treasure"] = {sq: list(pile) for sq, pile in (treasure or {}).items()}
    assert engine.actors(state) == before and not engine.chance_pending(state)
    return position_store(match, state)


@dataclass
class Picture:
    """What the drawn board shows: pieces, walls and treasure by square, and the strip below it."""

    heroes: dict[int, str] = field(default_factory=dict)  # hero number -> square
    carried: dict[int, str] = field(default_factory=dict)  # hero number -> its note ("1♦ 1†")
    giant: str | None = None
    rats: list[tuple[str, int]] = field(default_factory=list)  # (square, rats in the group)
    walls: set[str] = field(default_factory=set)
    jewels: set[str] = field(default_factory=set)
    swords: set[str] = field(default_factory=set)
    sight: set[tuple[str, str]] = field(default_factory=set)  # dashed lines of a pending choice
    stairways: dict[str, str] = field(default_factory=dict)  # square -> owner's colour name
    status: str = ""
    wonders: dict[str, str] = field(default_factory=dict)  # suit -> owner's colour name or "nobody"
    buttons: list[str] = field(default_factory=list)
    cards: list[str] = field(default_factory=list)  # the viewer's hand, face up
    counts: str = ""  # every hand's size, score and the pile
    offered: set[str] = field(default_factory=set)  # targets the page offers to click now


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def square_at(x: float, y: float) -> str:
    """The square under the point (x, y) of the picture."""
    column = math.floor((x - MARGIN) / CELL)
    row = math.floor((y - MARGIN) / CELL)
    assert 0 <= column < 8 and 0 <= row < 8, f"({x}, {y}) is off the board"
    return f"{FILES[column]}{8 - row}"


def board_read(markup: str) -> Picture:
    """Read an SVG drawn by the stairways engine (as served, or as the page holds it after the click
    script marked what it offers) back into squares."""
    root = ET.fromstring(markup)
    picture = Picture()
    for element in root.iter():
        tag = _local(element.tag)
        classes = (element.get("class") or "").split()
        if element.get("data-target") and "choosable" in classes:
            picture.offered.add(element.get("data-target"))
        if tag == "line" and "wall" in classes:
            picture.walls.add(element.get("data-wall"))
        elif tag == "polygon" and "jewel" in classes:
            x, y = (float(v) for v in element.get("points").split()[0].split(","))
            picture.jewels.add(square_at(x, y + 7))
        elif tag == "path" and "sword" in classes:
            x, y = (float(v) for v in element.get("d")[1:].split()[:2])
            picture.swords.add(square_at(x, y + 9))
        elif tag == "text" and "stair-owner" in classes:
            picture.stairways[square_at(float(element.get("x")), float(element.get("y")))] = element.text
        elif tag == "text" and "status" in classes:
            picture.status = element.text or ""
        elif tag == "rect" and "wonder" in classes:
            suit, _, owner = element.get("aria-label").partition(" wonder, owner ")
            picture.wonders[suit] = owner
        elif tag == "g" and "card" in classes:
            picture.cards.append(element.find("*").get("aria-label"))
        elif tag == "g" and "button" in classes:
            picture.buttons.append(element.find("*").get("aria-label"))
        elif tag == "g" and "sight" in classes:
            for line in element:
                start = square_at(float(line.get("x1")), float(line.get("y1")))
                picture.sight.add((start, square_at(float(line.get("x2")), float(line.get("y2")))))
        elif tag == "g" and "pieces" in classes:
            _pieces_read(element, picture)
        elif tag == "text" and " pile " in (element.text or ""):
            picture.counts = element.text or ""
    return picture


def _pieces_read(group: Any, picture: Picture) -> None:
    """Each piece is a shape, its label (a text centred on it) and, for a hero carrying treasure, a note;
    a square's pieces may stand in a group of their own (``data-on``)."""
    kind: str | None = None
    last_hero: int | None = None
    for element in (e for e in group.iter() if _local(e.tag) != "g"):
        tag, classes = _local(element.tag), (element.get("class") or "").split()
        if tag != "text":
            kind = next((k for k in ("hero", "giant", "rats") if k in classes), None)
            continue
        if kind is None:  # the note under the piece just read
            if last_hero is not None and element.get("font-size") == "9":
                picture.carried[last_hero] = element.text or ""
            continue
        sq = square_at(float(element.get("x")), float(element.get("y")) - 4.5)
        label = element.text or ""
        last_hero = None
        if kind == "hero":
            last_hero = int(label)
            picture.heroes[last_hero] = sq
        elif kind == "giant":
            picture.giant = sq
        else:
            picture.rats.append((sq, int(label)))
        kind = None
