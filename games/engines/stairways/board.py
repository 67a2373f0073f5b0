"""The geometry of the Walls and Stairways floor: squares, wall edges, wall moves and lines of sight.

Coordinates: files ``a``-``h`` run west to east (x 0-7), ranks ``1``-``8`` south to north (y 0-7).
Intersections are the grid points (X, Y) with 0 <= X, Y <= 8. A wall is a unit segment between two
neighbouring grid points and is named like a Wall Go wall: a square plus the side it lies on, ``n`` or
``e`` in the canonical form (``c3e`` is the north-south wall on the east side of c3, ``c3n`` the
east-west wall on its north side). The 112 interior edges are where walls start and where new walls
go; the 32 edges of the board's outline (``a3w``, ``c1s``, ``h3e``, ``c8n``: the west and south ones
have no ``n``/``e`` name) are places a moved wall may reach and leave again. A wall there blocks
nothing, since no line of sight and no step crosses the outline.

Everything that depends on the empty board alone is computed at import (or on first use and cached) so
that a rule asks a set or bitmask question: walls are a bitmask over the edges (the outline's last).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache, lru_cache

SIZE = 8
FILES = "abcdefgh"

Point = tuple[int, int]
Segment = tuple[Point, Point]


def name(x: int, y: int) -> str:
    return f"{FILES[x]}{y + 1}"


# File-major order (a1..a8, b1..b8, ...) so that index order is name order.
SQUARES: tuple[str, ...] = tuple(name(x, y) for x in range(SIZE) for y in range(SIZE))
SQUARE_SET: frozenset[str] = frozenset(SQUARES)
INDEX: dict[str, int] = {sq: i for i, sq in enumerate(SQUARES)}
XY: dict[str, tuple[int, int]] = {name(x, y): (x, y) for x in range(SIZE) for y in range(SIZE)}


def square_at(x: int, y: int) -> str | None:
    return name(x, y) if 0 <= x < SIZE and 0 <= y < SIZE else None


# --- edges --------------------------------------------------------------------------------------------
def _edge_segment(edge: str) -> Segment:
    x, y = XY[edge[:-1]]
    side = edge[-1]
    if side == "e":
        return ((x + 1, y), (x + 1, y + 1))
    if side == "w":
        return ((x, y), (x, y + 1))
    if side == "s":
        return ((x, y), (x + 1, y))
    return ((x, y + 1), (x + 1, y + 1))


# Per square "e" before "n" keeps the tuple in name order ("a1e" < "a1n" < "a2e").
EDGES: tuple[str, ...] = tuple(
    e
    for sq in SQUARES
    for e in (sq + "e" if XY[sq][0] < SIZE - 1 else None, sq + "n" if XY[sq][1] < SIZE - 1 else None)
    if e is not None
)
EDGE_SET: frozenset[str] = frozenset(EDGES)
# The outline, west and south sides named after their own square (the only name they have).
RIM: tuple[str, ...] = tuple(
    sorted(
        [name(0, y) + "w" for y in range(SIZE)]
        + [name(x, 0) + "s" for x in range(SIZE)]
        + [name(SIZE - 1, y) + "e" for y in range(SIZE)]
        + [name(x, SIZE - 1) + "n" for x in range(SIZE)]
    )
)
RIM_SET: frozenset[str] = frozenset(RIM)
# Every place a wall may stand, in name order; the interior edges keep their order and the low bits.
PLACES: tuple[str, ...] = tuple(sorted(EDGES + RIM))
EDGE_ORDER: dict[str, int] = {e: i for i, e in enumerate(PLACES)}
EDGE_BIT: dict[str, int] = {e: 1 << i for i, e in enumerate(EDGES + RIM)}
SEGMENT: dict[str, Segment] = {e: _edge_segment(e) for e in PLACES}
NORTH_SOUTH: frozenset[str] = frozenset(e for e in EDGES if e.endswith("e"))  # moved by hearts
EAST_WEST: frozenset[str] = frozenset(e for e in EDGES if e.endswith("n"))  # moved by clubs


def edge_of_segment(seg: Segment) -> str | None:
    """The edge a unit segment lies on (an interior edge or one of the outline); None off the board."""
    (x1, y1), (x2, _) = sorted(seg)
    if x1 == x2:  # vertical: x = x1, from y1 to y1 + 1
        if not 0 <= y1 < SIZE or not 0 <= x1 <= SIZE:
            return None
        return name(0, y1) + "w" if x1 == 0 else name(x1 - 1, y1) + "e"
    if not 0 <= x1 < SIZE or not 0 <= y1 <= SIZE:
        return None
    return name(x1, 0) + "s" if y1 == 0 else name(x1, y1 - 1) + "n"


def walls_mask(walls: list[str] | tuple[str, ...]) -> int:
    mask = 0
    for w in walls:
        mask |= EDGE_BIT[w]
    return mask


_WALL_RE = re.compile(r"([a-h])([1-8])([nesw])")


def canonical_wall(text: str, *, outline: bool = False) -> str | None:
    """``c4s`` -> ``c3n``, ``d3w`` -> ``c3e``; None for anything that is not an interior edge, or with
    ``outline`` an edge of the board's outline (``a3w``, ``c1s``, ``h3e``, ``c8n``)."""
    match = _WALL_RE.fullmatch(text.strip().lower())
    if match is None:
        return None
    x, y = FILES.index(match[1]), int(match[2]) - 1
    side = match[3]
    if outline and name(x, y) + side in RIM_SET:
        return name(x, y) + side
    if side == "s":
        side, y = "n", y - 1
    elif side == "w":
        side, x = "e", x - 1
    if not (0 <= x < SIZE and 0 <= y < SIZE):
        return None
    edge = name(x, y) + side
    return edge if edge in EDGE_SET else None


# Neighbours for walking the floor (the rats' noses): (edge crossed, neighbour square).
NEIGHBOURS: dict[str, tuple[tuple[str, str], ...]] = {}
for _sq, (_x, _y) in XY.items():
    _around = []
    for _dx, _dy in ((0, 1), (1, 0), (0, -1), (-1, 0)):
        _nb = square_at(_x + _dx, _y + _dy)
        if _nb is None:
            continue
        _lo = min((_x, _y), (_x + _dx, _y + _dy))
        _around.append((name(*_lo) + ("e" if _dx else "n"), _nb))
    NEIGHBOURS[_sq] = tuple(sorted(_around, key=lambda a: INDEX[a[1]]))
del _sq, _x, _y, _around, _dx, _dy, _nb, _lo


def edge_between(a: str, b: str) -> str:
    """The edge between two orthogonally adjacent squares."""
    (ax, ay), (bx, by) = XY[a], XY[b]
    lo = min((ax, ay), (bx, by))
    return name(*lo) + ("e" if ax != bx else "n")


# --- wall moves ----------------------------------------------------------------------------------------
# A move of the wall on ``edge``: where it ends up ("off" when it slides off the board), whether it
# pivots, and for a pivot the square it sweeps and the square beyond the new position, where whatever
# stood in the swept square is pushed (None for a pivot onto the outline: there is no square beyond).
WallMove = tuple[str, str | None, str | None]  # (destination, swept square, pushed to)


def _wall_moves(edge: str) -> tuple[tuple[WallMove, ...], bool]:
    """The geometrically possible moves of a wall and whether it can slide off the board."""
    p, q = SEGMENT[edge]
    dx, dy = q[0] - p[0], q[1] - p[1]  # the wall's own direction (east or north)
    out: list[WallMove] = []
    off = False
    for sign in (1, -1):  # slides along its own line
        moved = ((p[0] + sign * dx, p[1] + sign * dy), (q[0] + sign * dx, q[1] + sign * dy))
        dest = edge_of_segment(moved)
        if dest is None:
            off = True
        else:
            out.append((dest, None, None))
    for pivot, far in ((p, q), (q, p)):
        for sx, sy in ((dy, dx), (-dy, -dx)):  # the two directions at right angles to the wall
            tip = (pivot[0] + sx, pivot[1] + sy)
            dest = edge_of_segment((pivot, tip))
            if dest is None:
                continue
            corner = (far[0] + sx, far[1] + sy)
            cx = min(pivot[0], far[0], tip[0], corner[0])
            cy = min(pivot[1], far[1], tip[1], corner[1])
            swept = square_at(cx, cy)
            push = (pivot[0] - far[0], pivot[1] - far[1])
            pushed = square_at(cx + push[0], cy + push[1])
            assert swept is not None and (pushed is not None or dest in RIM_SET)
            out.append((dest, swept, pushed))
    return tuple(sorted(out)), off


WALL_MOVES: dict[str, tuple[WallMove, ...]] = {}
SLIDES_OFF: dict[str, bool] = {}
for _e in PLACES:
    WALL_MOVES[_e], SLIDES_OFF[_e] = _wall_moves(_e)
del _e


# --- lines of sight ------------------------------------------------------------------------------------
# A way of seeing from one square to another is (edges crossed as a bitmask, squares passed between the
# two as a bitmask): the sight is clear when no wall lies on a crossed edge.
Path = tuple[int, int]

_BOX = ((0.0, -1000.0), (64.0, -1000.0), (64.0, 1000.0), (0.0, 1000.0))
_AREA_MIN = 1e-7  # vertices have denominators of at most 8: a real region has an area far above this


def _clip(poly: list[tuple[float, float]], a: float, b: float, d: float) -> list[tuple[float, float]]:
    """Keep the part of a convex polygon in (m, c) space where a*m + b*c + d >= 0."""
    out: list[tuple[float, float]] = []
    n = len(poly)
    for i in range(n):
        p1, p2 = poly[i], poly[(i + 1) % n]
        v1 = a * p1[0] + b * p1[1] + d
        v2 = a * p2[0] + b * p2[1] + d
        if v1 >= 0:
            out.append(p1)
        if (v1 >= 0) != (v2 >= 0):
            t = v1 / (v1 - v2)
            out.append((p1[0] + t * (p2[0] - p1[0]), p1[1] + t * (p2[1] - p1[1])))
    return out


def _area(poly: list[tuple[float, float]]) -> float:
    if len(poly) < 3:
        return 0.0
    s = 0.0
    for i in range(len(poly)):
        x1, y1 = poly[i]
        x2, y2 = poly[(i + 1) % len(poly)]
        s += x1 * y2 - x2 * y1
    return abs(s) / 2


@cache
def _step_sequences(dx: int, dy: int) -> tuple[str, ...]:
    """Every sequence of steps ("R" east, "U" north) that a straight line can take through the squares
    from (0, 0) to (dx, dy), dx, dy >= 1, entering each square through the interior of an edge.

    A line y = m*x + c with m > 0 crosses x = k at height m*k + c and y = j between x = (j - c) / m; each
    step is an open half-plane condition on (m, c), so a sequence is possible exactly when the region
    they cut out has an area (an empty or degenerate region means the line would have to pass through a
    grid point, which touches every wall ending there).
    """
    found: list[str] = []

    def walk(cx: int, cy: int, poly: list[tuple[float, float]], steps: str) -> None:
        if (cx, cy) == (dx, dy):
            found.append(steps)
            return
        if cx < dx:  # cross x = cx + 1 between heights cy and cy + 1
            nxt = _clip(_clip(poly, cx + 1, 1, -cy), -(cx + 1), -1, cy + 1)
            if _area(nxt) > _AREA_MIN:
                walk(cx + 1, cy, nxt, steps + "R")
        if cy < dy:  # cross y = cy + 1 between x = cx and x = cx + 1
            nxt = _clip(_clip(poly, -cx, -1, cy + 1), cx + 1, 1, -(cy + 1))
            if _area(nxt) > _AREA_MIN:
                walk(cx, cy + 1, nxt, steps + "U")

    walk(0, 0, list(_BOX), "")
    return tuple(found)


def _path_masks(a: str, b: str, steps: str, sx: int, sy: int) -> Path:
    x, y = XY[a]
    edges = cells = 0
    for step in steps:
        nx, ny = (x + sx, y) if step == "R" else (x, y + sy)
        edges |= EDGE_BIT[edge_between(name(x, y), name(nx, ny))]
        x, y = nx, ny
        if (x, y) != XY[b]:
            cells |= 1 << INDEX[name(x, y)]
    return edges, cells


@cache
def row_paths(a: str, b: str) -> tuple[Path, ...]:
    """Sight along a row or column (the first-game rule): one way, or none off the row and column."""
    (ax, ay), (bx, by) = XY[a], XY[b]
    if a == b:
        return ((0, 0),)
    if ax == bx:
        return (_path_masks(a, b, "U" * abs(by - ay), 1, 1 if by > ay else -1),)
    if ay == by:
        return (_path_masks(a, b, "R" * abs(bx - ax), 1 if bx > ax else -1, 1),)
    return ()


@cache
def true_paths(a: str, b: str) -> tuple[Path, ...]:
    """Every way a straight line can run from the inside of ``a`` to the inside of ``b``."""
    (ax, ay), (bx, by) = XY[a], XY[b]
    if ax == bx or ay == by:
        return row_paths(a, b)
    sx = 1 if bx > ax else -1
    sy = 1 if by > ay else -1
    return tuple(
        sorted({_path_masks(a, b, steps, sx, sy) for steps in _step_sequences(abs(bx - ax), abs(by - ay))})
    )


def in_sight(a: str, b: str, walls: int, true_los: bool) -> bool:
    paths = true_paths(a, b) if true_los else row_paths(a, b)
    return any(not (edges & walls) for edges, _ in paths)


def route(a: str, b: str, walls: int, true_los: bool) -> list[str]:
    """The squares a token moving in sight from ``a`` to ``b`` passes between the two, nearest first.

    Under true sight several lines may be clear; a square counts as passed when every clear line runs
    through it (a token is not pushed into rats it could have gone round on a straight line).
    """
    paths = true_paths(a, b) if true_los else row_paths(a, b)
    cells = -1
    for edges, passed in paths:
        if not (edges & walls):
            cells &= passed
    if cells == -1:
        return []
    ax, ay = XY[a]
    between = [SQUARES[i] for i in range(len(SQUARES)) if cells >> i & 1]
    return sorted(between, key=lambda sq: (abs(XY[sq][0] - ax) + abs(XY[sq][1] - ay), INDEX[sq]))


# The search bots ask this of the same few wall layouts thousands of times a move (the rats' noses, the
# evaluation); 4,096 answers of at most 64 squares each take under 10 MB.
@lru_cache(maxsize=4096)
def distances(start: str, walls: int) -> Mapping[str, int]:
    """Steps from ``start`` to every square reachable without crossing a wall. The answer is shared
    between callers: read it, never change it."""
    dist = {start: 0}
    frontier = [start]
    while frontier:
        reached = []
        for sq in frontier:
            d = dist[sq] + 1
            for edge, nb in NEIGHBOURS[sq]:
                if nb not in dist and not (EDGE_BIT[edge] & walls):
                    dist[nb] = d
                    reached.append(nb)
        frontier = reached
    return dist


# --- several boards (the Multiple Boards variant) ------------------------------------------------------
# Board 1 keeps the plain names (``c3``, ``c3e``); a square or wall of board k >= 2 carries k in front
# (``2c3``, ``2c3e``). Every board is the same 8 x 8 floor, so the tables above serve all of them through
# the local name. Orders run board by board, and on board 1 they are the orders above.
MAX_BOARDS = 3


def on_board(board: int, local: str) -> str:
    """The name of ``local`` (a square or an edge) on board ``board`` (0 for board 1)."""
    return local if board == 0 else f"{board + 1}{local}"


def split(name: str) -> tuple[int, str]:
    """(board index from 0, local name) of a square or edge name."""
    if name[:1].isdigit():
        return int(name[0]) - 1, name[1:]
    return 0, name


ALL_SQUARES: tuple[str, ...] = tuple(on_board(b, sq) for b in range(MAX_BOARDS) for sq in SQUARES)
SQUARE_ORDER: dict[str, int] = {sq: i for i, sq in enumerate(ALL_SQUARES)}
ALL_EDGES: tuple[str, ...] = tuple(on_board(b, e) for b in range(MAX_BOARDS) for e in EDGES)
# Every place a wall may stand (the outline included), board by board.
ALL_PLACES: tuple[str, ...] = tuple(on_board(b, e) for b in range(MAX_BOARDS) for e in PLACES)
ALL_EDGE_ORDER: dict[str, int] = {e: i for i, e in enumerate(ALL_PLACES)}
# (board, local name) of every square and edge name, and (board, bit) of every edge: dict look-ups, since
# the rules ask them in their innermost loops.
SPLIT: dict[str, tuple[int, str]] = {n: split(n) for n in (*ALL_SQUARES, *ALL_PLACES)}
EDGE_BOARD_BIT: dict[str, tuple[int, int]] = {e: (split(e)[0], EDGE_BIT[split(e)[1]]) for e in ALL_PLACES}
# Wall moves with every square and edge named on the wall's own board.
ALL_WALL_MOVES: dict[str, tuple[WallMove, ...]] = {
    on_board(b, e): tuple(
        (
            on_board(b, dest) if dest != "off" else dest,
            None if swept is None else on_board(b, swept),
            None if pushed is None else on_board(b, pushed),
        )
        for dest, swept, pushed in WALL_MOVES[e]
    )
    for b in range(MAX_BOARDS)
    for e in PLACES
}


def squares_of(boards: int) -> tuple[str, ...]:
    return ALL_SQUARES[: boards * len(SQUARES)]


def edges_of(boards: int) -> tuple[str, ...]:
    return ALL_EDGES[: boards * len(EDGES)]


_BOARD_RE = re.compile(r"([1-9])?(.+)")


def canonical_square(text: str) -> str | None:
    """``1c3`` -> ``c3``, ``2c3`` stays; None for anything that is not a square of boards 1 to 3."""
    match = _BOARD_RE.fullmatch(text.strip().lower())
    if match is None or match[2] not in SQUARE_SET:
        return None
    board = int(match[1] or 1) - 1
    return on_board(board, match[2]) if board < MAX_BOARDS else None


def canonical_edge(text: str) -> str | None:
    """``canonical_wall`` on any board, the outline included: ``2c4s`` -> ``2c3n``, ``1d3w`` -> ``c3e``,
    ``2a3w`` stays."""
    match = _BOARD_RE.fullmatch(text.strip().lower())
    if match is None:
        return None
    edge = canonical_wall(match[2], outline=True)
    board = int(match[1] or 1) - 1
    return None if edge is None or board >= MAX_BOARDS else on_board(board, edge)
