"""The map of The Wall, loaded from ``seeds/thewall/map.json``, and its fixed geometry.

Hexes are named by the seed's four-digit numbering ``CCRR`` (column, then row; ``1110`` is the heart of
Castle Black). Columns run west to east, rows north to south; hexes are flat-topped and even-numbered
columns sit half a hex lower than odd ones. Everything here is computed once at import: terrain,
neighbours, distances, the movement tables of each kind of unit, and the triangles of three mutually
adjacent hexes a catapult can hit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# seeds/ sits at the top of the checkout, next to games/.
MAP_PATH = Path(__file__).resolve().parents[3] / "seeds" / "thewall" / "map.json"

FIELD, FOREST, WATER, WALL, KEEP, CASTLE, CRANE, SPAWN = (
    "field",
    "forest",
    "water",
    "wall",
    "keep",
    "castle",
    "crane",
    "spawn",
)
# Movement categories: living humans, true Others, Wights. Unacquired wandering Wildlings only drift.
HUMAN, OTHER, WIGHT = "human", "other", "wight"
CATEGORIES = (HUMAN, OTHER, WIGHT)


def _load() -> dict[str, Any]:
    with MAP_PATH.open(encoding="utf-8") as handle:
        return json.load(handle)


MAP: dict[str, Any] = _load()
COLUMNS: int = MAP["columns"]
ROWS: int = MAP["rows"]


def hex_name(column: int, row: int) -> str:
    return f"{column:02d}{row:02d}"


def column_row(name: str) -> tuple[int, int]:
    return int(name[:2]), int(name[2:])


# Reading order: row by row from the north-west corner. Every list of hexes is kept in this order.
HEXES: tuple[str, ...] = tuple(hex_name(c, r) for r in range(1, ROWS + 1) for c in range(1, COLUMNS + 1))
HEX_SET = frozenset(HEXES)
ORDER: dict[str, int] = {h: i for i, h in enumerate(HEXES)}


def _terrain() -> dict[str, str]:
    terrain = dict.fromkeys(HEXES, FIELD)
    for h in MAP["forest"]:
        terrain[h] = FOREST
    for h in MAP["water"]:
        terrain[h] = WATER
    for h in MAP["wall"]:
        terrain[h] = WALL
    for castle in MAP["castles"]:
        terrain[castle["keep"]] = KEEP
        for h in castle["hexes"]:
            terrain[h] = CASTLE
    for h in MAP["cranes"]:
        terrain[h] = CRANE
    for h in MAP["other_spawns"]:
        terrain[h] = SPAWN
    return terrain


TERRAIN: dict[str, str] = _terrain()
HORN: str = MAP["horn"]
CASTLES: tuple[dict[str, Any], ...] = tuple(MAP["castles"])
KEEPS: tuple[str, ...] = tuple(c["keep"] for c in CASTLES)
CASTLE_OF: dict[str, str] = {h: c["name"] for c in CASTLES for h in (c["keep"], *c["hexes"])}
CATAPULTS: tuple[str, ...] = tuple(MAP["catapults"])
CRANES: tuple[str, ...] = tuple(MAP["cranes"])
WANDER_SPAWNS: tuple[str, ...] = tuple(MAP["wandering_spawns"])  # index i: the die shows i + 1
OTHER_SPAWNS: tuple[str, ...] = tuple(MAP["other_spawns"])
ZONE = frozenset(MAP["victory_zone"])
SETUP: tuple[dict[str, str], ...] = tuple(MAP["setup"])
WANDERERS: int = MAP["wanderers"]
# Reinforcements arrive on the first free castle hexes in this order: Castle Black's heart first.
ARRIVALS: tuple[str, ...] = tuple(
    h
    for c in sorted(CASTLES, key=lambda c: c["name"] != "Castle Black")
    for h in sorted(c["hexes"], key=lambda h, c=c: (h[:2] != c["keep"][:2], ORDER[h]))
)


# --- neighbours and distance ------------------------------------------------------------------------------
# Directions in the order of the wandering-Wildling chart: die 1 north, then clockwise.
DIRECTIONS = ("north", "north-east", "south-east", "south", "south-west", "north-west")


def _step(name: str, direction: int) -> str | None:
    c, r = column_row(name)
    low = c % 2 == 0  # even columns sit half a hex lower
    dc, dr = {
        0: (0, -1),
        1: (1, 0 if low else -1),
        2: (1, 1 if low else 0),
        3: (0, 1),
        4: (-1, 1 if low else 0),
        5: (-1, 0 if low else -1),
    }[direction]
    c, r = c + dc, r + dr
    if 1 <= c <= COLUMNS and 1 <= r <= ROWS:
        return hex_name(c, r)
    return None


TOWARD: dict[str, tuple[str | None, ...]] = {h: tuple(_step(h, d) for d in range(6)) for h in HEXES}
NEIGHBOURS: dict[str, tuple[str, ...]] = {h: tuple(n for n in TOWARD[h] if n is not None) for h in HEXES}
NEIGHBOUR_SET: dict[str, frozenset[str]] = {h: frozenset(n) for h, n in NEIGHBOURS.items()}


def _cube(name: str) -> tuple[int, int, int]:
    c, r = column_row(name)
    x = c - 1
    z = (r - 1) - (x - (x & 1)) // 2
    return x, -x - z, z


CUBE: dict[str, tuple[int, int, int]] = {h: _cube(h) for h in HEXES}


def distance(a: str, b: str) -> int:
    ax, ay, az = CUBE[a]
    bx, by, bz = CUBE[b]
    return max(abs(ax - bx), abs(ay - by), abs(az - bz))


def _triangles() -> dict[str, tuple[tuple[str, str, str], ...]]:
    """Each hex's triangles: three mutually adjacent hexes, named in reading order."""
    found: set[tuple[str, str, str]] = set()
    for h in HEXES:
        for n in NEIGHBOURS[h]:
            for m in NEIGHBOURS[h]:
                if n < m and m in NEIGHBOUR_SET[n]:
                    found.add(tuple(sorted((h, n, m), key=ORDER.__getitem__)))  # type: ignore[arg-type]
    per: dict[str, list[tuple[str, str, str]]] = {h: [] for h in HEXES}
    for tri in sorted(found, key=lambda t: tuple(ORDER[x] for x in t)):
        for h in tri:
            per[h].append(tri)
    return {h: tuple(t) for h, t in per.items()}


TRIANGLES = _triangles()


# --- movement -----------------------------------------------------------------------------------------
def step_cost(category: str, a: str, b: str, wall_up: bool) -> tuple[int, bool] | None:
    """The movement points to step from ``a`` into ``b`` for a unit of ``category``, ignoring who
    stands where: (cost, only through a keep a Wight holds), or None when the step is forbidden.

    While the Wall stands its top is reached only from a crane (humans, one extra point) and left only
    onto a crane; keeps are doors for humans, and for Wights only from inside or through a keep another
    Wight holds. True Others never pass the Wall. Water is for true Others only, at one extra point.
    Once the Wall has fallen every hex but water is open ground.
    """
    ta, tb = TERRAIN[a], TERRAIN[b]
    if tb == WATER:
        return (2, False) if category == OTHER else None
    if wall_up:
        if tb == WALL:
            if ta == WALL and category != OTHER:
                return 1, False
            if ta == CRANE and category == HUMAN:
                return 2, False
            return None
        if ta == WALL:
            return (1, False) if tb == CRANE else None
        if tb == KEEP:
            if category == HUMAN:
                return 1, False
            if category == WIGHT:
                return 1, ta != CASTLE
            return None
        if tb == CASTLE and category == OTHER:
            return None
    return (2 if tb == FOREST else 1), False


# category -> wall standing? -> hex -> ((neighbour, cost, needs a held keep), ...)
MOVES: dict[str, dict[bool, dict[str, tuple[tuple[str, int, bool], ...]]]] = {
    cat: {
        up: {
            h: tuple((n, *cost) for n in NEIGHBOURS[h] if (cost := step_cost(cat, h, n, up)) is not None)
            for h in HEXES
        }
        for up in (True, False)
    }
    for cat in CATEGORIES
}


def is_wall(name: str, wall_up: bool) -> bool:
    return wall_up and TERRAIN[name] == WALL


def _over_the_gates() -> dict[str, tuple[tuple[str, int], ...]]:
    """The walkway on top of the Wall runs over each keep: the Wall hexes either side of a keep are two
    points apart for a unit up there (the keep below is not entered)."""
    jumps: dict[str, list[tuple[str, int]]] = {h: [] for h in HEXES}
    for keep in KEEPS:
        sides = [n for n in NEIGHBOURS[keep] if TERRAIN[n] == WALL]
        for a in sides:
            for b in sides:
                if a != b and b not in NEIGHBOUR_SET[a]:
                    jumps[a].append((b, 2))
    return {h: tuple(j) for h, j in jumps.items()}


OVER_THE_GATES = _over_the_gates()

# The same tables for the search of reachable hexes: plain steps (with the walkway over the gates while
# the Wall stands), and apart, for Wights, the steps into a keep that count only while a Wight holds it.
STEPS: dict[str, dict[bool, dict[str, tuple[tuple[str, int], ...]]]] = {
    cat: {
        up: {
            h: tuple((n, c) for n, c, held in t if not held)
            + (OVER_THE_GATES[h] if up and cat != OTHER else ())
            for h, t in by_up.items()
        }
        for up, by_up in tables.items()
    }
    for cat, tables in MOVES.items()
}
HELD_STEPS: dict[bool, dict[str, tuple[tuple[str, int], ...]]] = {
    up: {h: tuple((n, c) for n, c, held in t if held) for h, t in MOVES[WIGHT][up].items()}
    for up in (True, False)
}

# Melee: for each hex, the neighbours a unit of each category could step into it from (reading order).
MELEE_SOURCES: dict[str, dict[bool, dict[str, tuple[str, ...]]]] = {
    cat: {
        up: {
            t: tuple(
                sorted(
                    (
                        s
                        for s in NEIGHBOURS[t]
                        if any(n == t and not held for n, _, held in MOVES[cat][up][s])
                    ),
                    key=ORDER.__getitem__,
                )
            )
            for t in HEXES
        }
        for up in (True, False)
    }
    for cat in CATEGORIES
}
