"""Wall Go (seed 003): move a token up to two steps, then build a wall; enclose regions you alone occupy.

The rules digest with every decision and the notation is ``seeds/wallgo.md``. Squares are named
``a1``..``g7`` (files west to east, ranks south to north) and walls by a square plus the side ``n`` or
``e``; ``s``/``w`` spellings are accepted on input and rewritten to the neighbour's ``n``/``e``.

Everything that depends only on the board's geometry is computed once at import so that
``legal_moves`` is a few set look-ups and one comprehension per token.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache
from typing import Any, ClassVar

from games.engines.base import Engine, Event, IllegalMove, Move, Option, State, View, waiting_for
from games.engines.palette import SEAT_NAMES
from games.engines.wallgo import svg as svg_module

SIZE = 7
FILES = "abcdefg"
WALLS_PER_PLAYER = 20
TOKENS_TWO_PLAYERS = 4
TOKENS_MORE_PLAYERS = 2

# --- board geometry, precomputed ---------------------------------------------------------------------
# Squares are listed file-major (a1..a7, b1..b7, ...) so that index order equals name order; legal
# moves then come out sorted simply by being generated in table order.


def _name(f: int, r: int) -> str:
    return f"{FILES[f]}{r + 1}"


SQUARES: tuple[str, ...] = tuple(_name(f, r) for f in range(SIZE) for r in range(SIZE))
SQUARE_SET: frozenset[str] = frozenset(SQUARES)
SQUARE_INDEX: dict[str, int] = {sq: i for i, sq in enumerate(SQUARES)}
COORDS: dict[str, tuple[int, int]] = {_name(f, r): (f, r) for f in range(SIZE) for r in range(SIZE)}

_STEP = {"n": (0, 1), "e": (1, 0), "s": (0, -1), "w": (-1, 0)}
_OPPOSITE = {"n": "s", "s": "n", "e": "w", "w": "e"}
SIDE_WORDS = {"n": "north", "e": "east", "s": "south", "w": "west"}


def _edge(f: int, r: int, side: str) -> str | None:
    """Canonical (n/e) name of the wall on ``side`` of square (f, r); None on the outer rim."""
    if side == "n":
        return _name(f, r) + "n" if r < SIZE - 1 else None
    if side == "e":
        return _name(f, r) + "e" if f < SIZE - 1 else None
    if side == "s":
        return _name(f, r - 1) + "n" if r > 0 else None
    return _name(f - 1, r) + "e" if f > 0 else None


# "a1e" < "a1n" < "a2e": per square e before n keeps the tuple in name order.
EDGES: tuple[str, ...] = tuple(
    e for sq in SQUARES for e in (_edge(*COORDS[sq], "e"), _edge(*COORDS[sq], "n")) if e is not None
)
EDGE_SET: frozenset[str] = frozenset(EDGES)

# (edge, neighbour) for each side that is not the rim, in n, e, s, w order.
NEIGHBOURS: dict[str, tuple[tuple[str, str], ...]] = {}
# The interior walls around a square, in name order (the Devil's Plan wall must be one of them).
SIDES: dict[str, tuple[str, ...]] = {}
for _sq, (_f, _r) in COORDS.items():
    _around = []
    for _side, (_df, _dr) in _STEP.items():
        _e = _edge(_f, _r, _side)
        if _e is not None:
            _around.append((_e, _name(_f + _df, _r + _dr)))
    NEIGHBOURS[_sq] = tuple(_around)
    SIDES[_sq] = tuple(sorted(e for e, _ in _around))

# Route kinds: stay put, one step, two steps (straight or L; an L has two possible paths).
STAY, ONE, TWO = 0, 1, 2
Route = tuple[str, int, Any]
# ROUTES[src]: (dest, kind, data) sorted by dest. data is the neighbour list for STAY, the edge crossed for
# ONE, and a tuple of (first edge, middle square, second edge) paths for TWO.
ROUTES: dict[str, tuple[Route, ...]] = {}
ROUTE_TO: dict[str, dict[str, tuple[int, Any]]] = {}
for _src, (_f, _r) in COORDS.items():
    _table: dict[str, tuple[int, Any]] = {_src: (STAY, NEIGHBOURS[_src])}
    _paths: dict[str, list[tuple[str, str, str]]] = {}
    for _side, (_df, _dr) in _STEP.items():
        _e1 = _edge(_f, _r, _side)
        if _e1 is None:
            continue
        _mid = _name(_f + _df, _r + _dr)
        _table[_mid] = (ONE, _e1)
        _mf, _mr = COORDS[_mid]
        for _side2, (_df2, _dr2) in _STEP.items():
            _e2 = _edge(_mf, _mr, _side2)
            if _side2 == _OPPOSITE[_side] or _e2 is None:
                continue  # stepping straight back is the 0-step move, handled by STAY
            _paths.setdefault(_name(_mf + _df2, _mr + _dr2), []).append((_e1, _mid, _e2))
    for _dest, _ps in _paths.items():
        _table[_dest] = (TWO, tuple(sorted(_ps)))
    ROUTE_TO[_src] = _table
    ROUTES[_src] = tuple(
        (d, k, data) for d, (k, data) in sorted(_table.items(), key=lambda i: SQUARE_INDEX[i[0]])
    )

del _sq, _f, _r, _around, _side, _df, _dr, _e, _src, _table, _paths, _e1, _mid, _mf, _mr
del _side2, _df2, _dr2, _e2, _dest, _ps


def _destinations(src: str, tokens: dict[str, int], walls: dict[str, int], pass_over: bool) -> list[str]:
    """Squares the token on ``src`` may end on, in name order (``src`` itself for a legal 0-step move)."""
    out = []
    for dest, kind, data in ROUTES[src]:
        if kind == STAY:
            # The neighbour must be empty: the token has to be able to step there and back.
            for e, nb in data:
                if e not in walls and nb not in tokens:
                    out.append(dest)
                    break
        elif dest in tokens:
            continue
        elif kind == ONE:
            if data not in walls:
                out.append(dest)
        else:
            for e1, mid, e2 in data:
                if e1 not in walls and e2 not in walls and (pass_over or mid not in tokens):
                    out.append(dest)
                    break
    return out


def _regions(tokens: dict[str, int], walls: dict[str, int]) -> list[tuple[list[str], list[int]]]:
    """Squares connected without crossing a wall: (squares in name order, seats with tokens there)."""
    parts, part_of = _partition(frozenset(walls))
    owners: list[set[int]] = [set() for _ in parts]
    for square, seat in tokens.items():
        owners[part_of[square]].add(seat)
    return [(list(squares), sorted(seats)) for squares, seats in zip(parts, owners, strict=True)]


# The search bots ask for the regions of the same walls again and again (a turn's end, then the
# evaluation of the position it leaves); a thousand partitions with their keys take some 5 MB.
@lru_cache(maxsize=1024)
def _partition(walls: frozenset[str]) -> tuple[tuple[tuple[str, ...], ...], dict[str, int]]:
    """The regions the walls make (each in name order, by their first square) and each square's region."""
    part_of: dict[str, int] = {}
    parts = []
    for start in SQUARES:
        if start in part_of:
            continue
        part_of[start] = len(parts)
        stack = [start]
        squares = []
        while stack:
            sq = stack.pop()
            squares.append(sq)
            for e, nb in NEIGHBOURS[sq]:
                if nb not in part_of and e not in walls:
                    part_of[nb] = len(parts)
                    stack.append(nb)
        squares.sort(key=SQUARE_INDEX.__getitem__)
        parts.append(tuple(squares))
    return tuple(parts), part_of


# The evaluation hook's marker for a square two seats reach equally fast.
_NOBODY = -1
# What a square of a mixed region is worth to the seat nearest to it at the start of play; it falls to
# nothing as the walls run out (see ``WallGo.evaluate``).
CONTESTED_WEIGHT = 0.5


def _scores(regions: list[tuple[list[str], list[int]]], seats: int) -> list[int]:
    scores = [0] * seats
    for squares, owners in regions:
        if len(owners) == 1:
            scores[owners[0]] += len(squares)
    return scores


# --- notation -----------------------------------------------------------------------------------------
_PLACE_RE = re.compile(r"([a-z]\d{1,2})")
_TURN_RE = re.compile(r"([a-z]\d{1,2})\s*-\s*([a-z]\d{1,2})\s*/\s*([a-z]\d{1,2})([nesw])")
TURN_HINT = "Write a turn as b2-c3/c3n: from, to, then the wall."
PLACE_HINT = "Write a placement as a square such as d4."


def _square(text: str) -> str:
    if text not in SQUARE_SET:
        raise IllegalMove(f"{text} is not on the board; squares run from a1 to g7.")
    return text


def _wall(square: str, side: str) -> str:
    """Canonical name of the wall on ``side`` of ``square``; refuses the rim."""
    f, r = COORDS[_square(square)]
    edge = _edge(f, r, side)
    if edge is None:
        raise IllegalMove(f"{square}{side} is on the outer edge of the board; walls go between two squares.")
    return edge


def canonical_wall(text: str) -> str:
    """``c4s`` -> ``c3n``; raises IllegalMove for anything that is not an interior wall."""
    if text in EDGE_SET:  # already canonical, as every listed move's wall is: no pattern to match
        return text
    match = re.fullmatch(r"([a-z]\d{1,2})([nesw])", text.strip().lower())
    if match is None:
        raise IllegalMove(f"Write a wall as a square and a side, such as c3n; {TURN_HINT}")
    return _wall(match[1], match[2])


def _who(seat: int) -> str:
    return SEAT_NAMES[seat % len(SEAT_NAMES)].capitalize()


class WallGo(Engine):
    slug = "wallgo"
    title = "Wall Go"
    min_players = 2
    max_players = 4
    notation_example = "d4 (placing a token) or b2-c3/c3n (moving a token and building a wall)"
    move_fields: ClassVar[dict[str, type | tuple[type, ...]]] = dict.fromkeys(
        ("place", "from", "to", "wall"), str
    )
    malformed_move = f"That is not a Wall Go move. {PLACE_HINT} {TURN_HINT}"
    # Two players alternate plain moves once the tokens are placed: a reply can be planned in advance.
    forecasts = True
    options: ClassVar[dict[str, Option]] = {
        "rules": Option(
            label="Rules",
            choices={
                "seed": "Standard: tokens may pass over tokens; a wall may go anywhere",
                "devils_plan": "Devil's Plan: no passing over tokens; the wall must touch the moved token",
            },
            default="seed",
        ),
        "placement": Option(
            label="Placement order",
            choices={
                "snake": "Snake (A B C D D C B A ...)",
                "round_robin": "Round robin (A B C D A B C D ...)",
            },
            default="snake",
        ),
    }
    svg = svg_module

    # --- setup -------------------------------------------------------------------------------------
    def new_state(self, *, seats: int, options: dict[str, str], rng: random.Random) -> State:
        resolved = self.resolve_options(options, seats=seats)
        queue = _placement_order(seats, resolved["placement"])
        return {
            "seats": seats,
            "options": resolved,
            "phase": "placement",
            "to_move": queue[0],
            "placement_queue": queue,
            "tokens": {},
            "walls": {},
            "walls_left": [WALLS_PER_PLAYER] * seats,
            "eliminated": [],
            "last_move": None,
            "ply": 0,
            "end_reason": None,
        }

    # --- whose input is awaited ---------------------------------------------------------------------
    def actors(self, state: State) -> frozenset[int]:
        to_move = state["to_move"]
        if state["phase"] == "over" or to_move is None:
            return frozenset()
        return frozenset({to_move})

    # --- moves --------------------------------------------------------------------------------------
    def legal_moves(self, state: State, seat: int) -> list[Move]:
        phase = state["phase"]
        if phase == "over" or state["to_move"] != seat:
            return []
        tokens = state["tokens"]
        if phase == "placement":
            return [{"place": sq} for sq in SQUARES if sq not in tokens]
        if state["walls_left"][seat] <= 0:
            return []
        walls = state["walls"]
        seed = state["options"]["rules"] == "seed"
        mine = sorted(sq for sq, owner in tokens.items() if owner == seat)
        if seed:
            free = [e for e in EDGES if e not in walls]
            return [
                {"from": src, "to": dest, "wall": w}
                for src in mine
                for dest in _destinations(src, tokens, walls, True)
                for w in free
            ]
        return [
            {"from": src, "to": dest, "wall": w}
            for src in mine
            for dest in _destinations(src, tokens, walls, False)
            for w in SIDES[dest]
            if w not in walls
        ]

    def apply(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        if state["phase"] == "over":
            raise IllegalMove("The game is over.")
        if seat in state["eliminated"]:
            raise IllegalMove("You are out of this game.")
        if state["to_move"] != seat:
            raise IllegalMove("It is not your turn.")
        kind = _shape(move)
        if state["phase"] == "placement":
            if kind != "place":
                raise IllegalMove(f"First place your tokens. {PLACE_HINT}")
            return self._apply_place(state, seat, move["place"])
        if kind != "turn":
            raise IllegalMove(f"Placement is over; each turn moves a token and builds a wall. {TURN_HINT}")
        return self._apply_turn(state, seat, move["from"], move["to"], move["wall"])

    def _apply_place(self, state: State, seat: int, square: str) -> tuple[State, list[Event]]:
        _square(square)
        if square in state["tokens"]:
            raise IllegalMove(f"{square} is occupied; place your token on an empty square.")
        new = _copy(state)
        new["tokens"][square] = seat
        new["placement_queue"] = state["placement_queue"][1:]
        new["ply"] = state["ply"] + 1
        new["last_move"] = {"seat": seat, "move": {"place": square}, "text": square}
        events = [Event(kind="move", text=square, data={"seat": seat, "move": {"place": square}})]
        if new["placement_queue"]:
            new["to_move"] = new["placement_queue"][0]
        else:
            new["phase"] = "play"
            events += _settle(new, _first_to_play(state))
        return new, events

    def _apply_turn(
        self, state: State, seat: int, src: str, dest: str, wall: str
    ) -> tuple[State, list[Event]]:
        tokens = state["tokens"]
        walls = state["walls"]
        seed = state["options"]["rules"] == "seed"
        _square(src)
        _square(dest)
        if tokens.get(src) != seat:
            raise IllegalMove(f"You have no token on {src}.")
        if state["walls_left"][seat] <= 0:
            raise IllegalMove("You have no walls left.")
        route = ROUTE_TO[src].get(dest)
        if route is None:
            raise IllegalMove(
                f"{dest} is out of reach: a token moves at most two steps, straight or L-shaped."
            )
        kind, data = route
        if kind == STAY:
            if not any(e not in walls and nb not in tokens for e, nb in data):
                raise IllegalMove(
                    f"The token on {src} may stay only if it could step to an empty neighbouring square "
                    "and back."
                )
        elif dest in tokens:
            raise IllegalMove(f"{dest} is occupied; a token must end on an empty square.")
        elif kind == ONE:
            if data in walls:
                raise IllegalMove(f"A wall blocks the way from {src} to {dest}.")
        else:
            open_paths = [p for p in data if p[0] not in walls and p[2] not in walls]
            if not open_paths:
                raise IllegalMove(f"A wall blocks every way from {src} to {dest}.")
            if not seed and all(mid in tokens for _, mid, _ in open_paths):
                raise IllegalMove("Under the Devil's Plan rules a token may not pass over another token.")
        if wall not in EDGE_SET:
            canon = canonical_wall(wall)  # raises for malformed and rim walls
            raise IllegalMove(f"Write the wall {wall} as {canon}.")
        if wall in walls:
            raise IllegalMove(f"There is already a wall at {wall}; walls may not overlap.")
        if not seed and wall not in SIDES[dest]:
            raise IllegalMove(f"Under the Devil's Plan rules the wall must be on a side of {dest}.")

        new = _copy(state)
        del new["tokens"][src]
        new["tokens"][dest] = seat
        new["walls"][wall] = seat
        new["walls_left"][seat] -= 1
        new["ply"] = state["ply"] + 1
        move = {"from": src, "to": dest, "wall": wall}
        text = f"{src}-{dest}/{wall}"
        new["last_move"] = {"seat": seat, "move": dict(move), "text": text}
        events = [Event(kind="move", text=text, data={"seat": seat, "move": move})]
        events += _settle(new, seat + 1)
        return new, events

    def parse_move(self, text: str) -> Move:
        if not isinstance(text, str):
            raise IllegalMove(TURN_HINT)
        cleaned = text.strip().lower()
        if _PLACE_RE.fullmatch(cleaned):
            return {"place": _square(cleaned)}
        match = _TURN_RE.fullmatch(cleaned)
        if match is None:
            if "-" in cleaned or "/" in cleaned or len(cleaned) > 3:
                raise IllegalMove(TURN_HINT)
            raise IllegalMove(f"{PLACE_HINT} {TURN_HINT}")
        src, dest, square, side = match.groups()
        return {"from": _square(src), "to": _square(dest), "wall": _wall(square, side)}

    def format_move(self, move: Move) -> str:
        return self.listed_notation(_named(move))

    def click_path(self, move: Move) -> list[str]:
        return self.listed_click_path(_named(move))

    # A listed move's squares and wall are canonical already: some 2,000 a turn are named for the board's
    # script, so they skip the checks above.
    def listed_notation(self, move: Move) -> str:
        if "place" in move:
            return move["place"]
        return f"{move['from']}-{move['to']}/{move['wall']}"

    def listed_click_path(self, move: Move) -> list[str]:
        if "place" in move:
            return [f"sq-{move['place']}"]
        return [f"sq-{move['from']}", f"sq-{move['to']}", f"wall-{move['wall']}"]

    # --- what may be known --------------------------------------------------------------------------
    def public_view(self, state: State) -> View:
        # Wall Go has no hidden information: this is all there is, and ``view`` adds an empty private part.
        seats = state["seats"]
        regions = _regions(state["tokens"], state["walls"])
        last = state["last_move"]
        return {
            "game": self.slug,
            "size": SIZE,
            "seats": seats,
            "options": dict(state["options"]),
            "phase": state["phase"],
            "to_move": state["to_move"],
            "ply": state["ply"],
            "tokens": dict(state["tokens"]),
            "walls": dict(state["walls"]),
            "walls_left": list(state["walls_left"]),
            "to_place": [state["placement_queue"].count(s) for s in range(seats)],
            "eliminated": list(state["eliminated"]),
            "regions": [
                {
                    "squares": squares,
                    "size": len(squares),
                    "seats": owners,
                    "owner": owners[0] if len(owners) == 1 else None,
                    "mixed": len(owners) > 1,
                }
                for squares, owners in regions
            ],
            "scores": _scores(regions, seats),
            "last_move": None if last is None else {**last, "move": dict(last["move"])},
            "end_reason": state["end_reason"],
        }

    def prompt(self, view: View, seat: int | None) -> str:
        phase, to_move = view["phase"], view["to_move"]
        if phase == "over" or to_move is None:
            return "The game is over."
        if phase == "placement":
            if seat != to_move:
                return waiting_for([to_move], "to place a token")
            left = view["to_place"][seat]
            if left == 1:
                return "Place your last token on any empty square."
            return f"Place a token on any empty square ({left} still to place)."
        if seat != to_move:
            return waiting_for([to_move], "to move a token and build a wall")
        where = (
            "on a side of the square where it stops"
            if view["options"].get("rules") == "devils_plan"
            else "on any free edge between two squares"
        )
        walls = view["walls_left"][seat]
        return (
            f"Choose one of your tokens and move it up to two squares (or keep it in place), then build a "
            f"wall {where} ({walls} wall{'s' if walls != 1 else ''} left)."
        )

    def outcome(self, state: State) -> list[float] | None:
        if state["phase"] != "over":
            return None
        return [float(s) for s in _scores(_regions(state["tokens"], state["walls"]), state["seats"])]

    def evaluate(self, state: State) -> list[float]:
        """An estimate of the final scores, for the search bots (``games/bots``): cheap, not a rule.

        The current scores (regions only one seat occupies), plus a share of each square of the mixed
        regions for the seat whose tokens reach it in the fewest steps without crossing a wall (nobody's
        on a tie). That share shrinks with the walls left, since a mixed region scores nothing unless
        walls split it before they run out. Once the game is over it is the outcome.
        """
        tokens = state["tokens"]
        walls = state["walls"]
        regions = _regions(tokens, walls)
        scores = [float(s) for s in _scores(regions, state["seats"])]
        contested = [squares for squares, owners in regions if len(owners) > 1]
        if state["phase"] == "over" or not contested:
            return scores
        active = _active(state)
        left = sum(state["walls_left"][s] for s in active) / (WALLS_PER_PLAYER * len(active))
        weight = CONTESTED_WEIGHT * left
        # Breadth-first from every token at once; _NOBODY marks a square two seats reach equally fast.
        owner: dict[str, int] = dict(tokens)
        dist = dict.fromkeys(owner, 0)
        frontier = list(owner)
        step = 0
        while frontier:
            step += 1
            reached = []
            for sq in frontier:
                seat = owner[sq]
                for edge, nb in NEIGHBOURS[sq]:
                    if edge in walls:
                        continue
                    seen = dist.get(nb)
                    if seen is None:
                        dist[nb] = step
                        owner[nb] = seat
                        reached.append(nb)
                    elif seen == step and owner[nb] != seat:
                        owner[nb] = _NOBODY
            frontier = [sq for sq in reached if owner[sq] != _NOBODY]
        for squares in contested:
            for sq in squares:
                seat = owner.get(sq, _NOBODY)
                if seat != _NOBODY:
                    scores[seat] += weight
        return scores

    def skip(self, state: State, seat: int, rng: random.Random) -> tuple[State, list[Event]]:
        """A timed-out seat: during placement its token goes on a random empty square (a token cannot
        stay off the board); in play its turn passes, with no move and no wall."""
        if seat not in self.actors(state):
            raise IllegalMove("It is not that seat's turn.")
        if state["phase"] == "placement":
            square = rng.choice([sq for sq in SQUARES if sq not in state["tokens"]])
            new, events = self._apply_place(state, seat, square)
            note = Event(
                kind="skip",
                text=f"{_who(seat)} is out of time: a token is placed on {square}.",
                data={"seat": seat, "reason": "timeout"},
            )
            return new, [note, *events]
        new = _copy(state)
        new["ply"] = state["ply"] + 1
        events = [
            Event(
                kind="skip",
                text=f"{_who(seat)} is out of time: the turn passes.",
                data={"seat": seat, "reason": "timeout"},
            )
        ]
        events += _settle(new, seat + 1)
        return new, events

    def eliminate(self, state: State, seat: int) -> tuple[State, list[Event]]:
        if state["phase"] == "over":
            raise IllegalMove("The game is over.")
        if not 0 <= seat < state["seats"] or seat in state["eliminated"]:
            raise IllegalMove("That seat is not in the game.")
        new = _copy(state)
        new["tokens"] = {sq: owner for sq, owner in state["tokens"].items() if owner != seat}
        new["eliminated"] = sorted([*state["eliminated"], seat])
        events = [
            Event(
                kind="eliminate",
                text=f"{_who(seat)} is out of the game; its tokens leave the board.",
                data={"seat": seat},
            )
        ]
        if new["phase"] == "placement":
            new["placement_queue"] = [s for s in state["placement_queue"] if s != seat]
            if len(_active(new)) <= 1:
                events += _end(new, "only one player is left")
            elif new["placement_queue"]:
                new["to_move"] = new["placement_queue"][0]
            else:
                new["phase"] = "play"
                events += _settle(new, _first_to_play(state))
        else:
            # The seat to move keeps the turn unless it is the one leaving.
            to_move = state["to_move"]
            events += _settle(new, seat + 1 if to_move == seat else to_move)
        return new, events


# --- helpers -----------------------------------------------------------------------------------------
def _placement_order(seats: int, placement: str) -> list[int]:
    """The seats in the order they put their tokens down."""
    per_seat = TOKENS_TWO_PLAYERS if seats == 2 else TOKENS_MORE_PLAYERS
    queue: list[int] = []
    for lap in range(per_seat):
        order = list(range(seats))
        if placement == "snake" and lap % 2 == 1:
            order.reverse()
        queue.extend(order)
    return queue


def _first_to_play(state: State) -> int:
    """The seat after the last one to place, as turns go on round the table (see the digest's decision
    on the first turn); seats that have left are skipped by ``_settle``."""
    seats = state["seats"]
    return (_placement_order(seats, state["options"]["placement"])[-1] + 1) % seats


def _shape(move: Any) -> str:
    """'place' or 'turn' for a well-formed move dict; anything else is refused with a reason."""
    if isinstance(move, dict):
        if len(move) == 1 and isinstance(move.get("place"), str):
            return "place"
        if (
            len(move) == 3
            and isinstance(move.get("from"), str)
            and isinstance(move.get("to"), str)
            and isinstance(move.get("wall"), str)
        ):
            return "turn"
    raise IllegalMove(f"That is not a Wall Go move. {PLACE_HINT} {TURN_HINT}")


def _named(move: Any) -> Move:
    """``move`` with its squares checked and its wall canonical, ready to be named."""
    if _shape(move) == "place":
        return {"place": _square(move["place"])}
    return {"from": _square(move["from"]), "to": _square(move["to"]), "wall": canonical_wall(move["wall"])}


def _copy(state: State) -> State:
    """A copy deep enough that changing the result never touches ``state`` (all values are shallow)."""
    new = dict(state)
    new["options"] = dict(state["options"])
    new["tokens"] = dict(state["tokens"])
    new["walls"] = dict(state["walls"])
    new["walls_left"] = list(state["walls_left"])
    new["placement_queue"] = list(state["placement_queue"])
    new["eliminated"] = list(state["eliminated"])
    return new


def _active(state: State) -> list[int]:
    out = state["eliminated"]
    return [s for s in range(state["seats"]) if s not in out]


def _has_turn(state: State, seat: int) -> bool:
    """Whether ``seat`` has at least one legal move-then-wall (walls left is checked by the caller).

    Any reachable square will do: under the Devil's Plan the last edge the token crossed (or, for a
    0-step move, the edge to its free neighbour) is an empty side of the destination, so a wall always
    fits; under the seed rules a wall fits while any interior edge is empty.
    """
    tokens = state["tokens"]
    walls = state["walls"]
    seed = state["options"]["rules"] == "seed"
    if seed and len(walls) >= len(EDGES):
        return False
    return any(owner == seat and _destinations(src, tokens, walls, seed) for src, owner in tokens.items())


def _end(state: State, reason: str) -> list[Event]:
    state["phase"] = "over"
    state["to_move"] = None
    state["end_reason"] = reason
    scores = _scores(_regions(state["tokens"], state["walls"]), state["seats"])
    listed = ", ".join(f"{_who(s)} {score}" for s, score in enumerate(scores))
    return [
        Event(
            kind="end",
            text=f"Game over: {reason}. Scores: {listed}.",
            data={"reason": reason, "scores": scores},
        )
    ]


def _settle(state: State, first: int) -> list[Event]:
    """After a turn (or when play starts, or a seat leaves): end the game if an end condition holds,
    otherwise hand the turn to the first seat from ``first`` on that can act, skipping the others."""
    active = _active(state)
    if len(active) <= 1:
        return _end(state, "only one player is left")
    walls_left = state["walls_left"]
    if all(walls_left[s] == 0 for s in active):
        return _end(state, "every player has used all their walls")
    regions = _regions(state["tokens"], state["walls"])
    if all(len(owners) <= 1 for _, owners in regions):
        return _end(state, "every region with tokens belongs to a single player")
    seats = state["seats"]
    skipped: list[tuple[int, str]] = []
    for i in range(seats):
        cand = (first + i) % seats
        if cand not in active:
            continue
        if walls_left[cand] == 0:
            skipped.append((cand, "no walls left"))
        elif not _has_turn(state, cand):
            skipped.append((cand, "no legal move and wall"))
        else:
            state["to_move"] = cand
            return [
                Event(kind="skip", text=f"{_who(s)} is skipped: {why}.", data={"seat": s, "reason": why})
                for s, why in skipped
            ]
    return _end(state, "nobody can make a legal turn")
