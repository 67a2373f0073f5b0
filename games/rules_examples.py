"""Pictures for the games list and the rules pages: positions played from a game's start, drawn by the
game's own SVG renderer.

A position here is never written by hand: it is reached from ``new_state`` by moves taken from
``legal_moves`` (picked by what they do, or by a seeded generator) and chance steps with a seeded
generator, so a picture cannot drift from the rules, and every run draws the same one. Each is drawn
from the spectator's view, so no hand or sealed bid shows. Nothing here imports Django; every result is
kept for the life of the process (the rules do not change while the site runs).
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

from games.engines import registry
from games.engines.base import Engine, Event, Move, State
from games.engines.palette import SEAT_NAMES, SEAT_SHAPES

Example = tuple[str, str]  # (caption, svg)

# How far the searches for a position with a given event look: games, and steps per game.
SEARCH_GAMES = 40
SEARCH_STEPS = 600
# The games list: steps played before the picture (enough for walls and units to have moved), and the
# random games whose length is measured.
SHOWCASE_STEPS = {"wallgo": 16}
SHOWCASE_DEFAULT_STEPS = 12
LENGTH_GAMES = 3


@dataclass(frozen=True)
class Step:
    """A move (``seat`` and ``move``) or a chance step (both None), with the positions around it."""

    before: State
    seat: int | None
    move: Move | None
    after: State
    events: list[Event]


class NoExample(LookupError):
    """The search for a position found none: the rules changed under the example."""


def _engine(slug: str) -> Engine:
    return registry.get_engine(slug)


def _start(engine: Engine, seed: int, seats: int | None = None) -> State:
    count = seats if seats is not None else min(max(2, engine.min_players), engine.max_players)
    return engine.new_state(seats=count, options={}, rng=random.Random(seed))


def _steps(engine: Engine, state: State, rng: random.Random, *, limit: int) -> Iterator[Step]:
    """A seeded random game from ``state``: chance steps, and the first awaited seat's random move."""
    for _ in range(limit):
        if engine.is_over(state):
            return
        if engine.chance_pending(state):
            after, events = engine.resolve_chance(state, rng)
            yield Step(state, None, None, after, events)
        else:
            seat = min(engine.actors(state))
            move = rng.choice(engine.legal_moves(state, seat))
            after, events = engine.apply(state, seat, move)
            yield Step(state, seat, move, after, events)
        state = after


def _pick(moves: list[Move], **wanted: object) -> Move:
    """The listed move with these fields (the list is the rules' own, so an illegal wish fails here)."""
    for move in moves:
        if all(move.get(key) == value for key, value in wanted.items()):
            return move
    raise NoExample(f"no legal move with {wanted}")


def _picture(engine: Engine, state: State) -> str:
    return engine.render_svg(engine.view(state, None), None, interactive=False)


def _public(events: list[Event], kinds: tuple[str, ...] | None = None) -> str:
    return " ".join(e.text for e in events if e.visible_to is None and (kinds is None or e.kind in kinds))


def _who(seat: int) -> str:
    return SEAT_NAMES[seat % len(SEAT_NAMES)].capitalize()


# --- the games list -----------------------------------------------------------------------------------
@cache
def showcase(slug: str) -> str:
    """The board a few seeded random steps into a game, for the games list."""
    engine = _engine(slug)
    state = _start(engine, 0)
    for step in _steps(
        engine, state, random.Random(0), limit=SHOWCASE_STEPS.get(slug, SHOWCASE_DEFAULT_STEPS)
    ):
        state = step.after
    return _picture(engine, state)


@cache
def moves_per_player(slug: str) -> int:
    """About how many moves each player makes in a game: the median of a few seeded random games with the
    fewest players (two where the game allows), rounded to two significant figures."""
    engine = _engine(slug)
    counts = []
    for seed in range(LENGTH_GAMES):
        state = _start(engine, seed)
        moves = sum(1 for s in _steps(engine, state, random.Random(seed), limit=10_000) if s.seat is not None)
        counts.append(moves / state["seats"] if isinstance(state.get("seats"), int) else moves)
    median = statistics.median(counts)
    return max(1, int(float(f"{median:.2g}")))


# --- Wall Go: one turn ---------------------------------------------------------------------------------
# Two players place four tokens each in snake order (Orange, Blue, Blue, Orange, ...); Orange places
# last, so Blue takes the first turn.
_WALLGO_PLACEMENT = ("f6", "b2", "f2", "b6", "d5", "d3", "e4", "c5")
_WALLGO_TURN = {"from": "d3", "to": "c4", "wall": "c4n"}


@cache
def _wallgo_turn() -> tuple[State, int, Move, State]:
    engine = _engine("wallgo")
    state = _start(engine, 0, seats=2)
    for square in _WALLGO_PLACEMENT:
        seat = min(engine.actors(state))
        state, _ = engine.apply(state, seat, _pick(engine.legal_moves(state, seat), place=square))
    seat = min(engine.actors(state))
    move = _pick(engine.legal_moves(state, seat), **_WALLGO_TURN)
    after, _ = engine.apply(state, seat, move)
    return state, seat, move, after


def _wallgo_tokens(state: State, seat: int) -> str:
    squares = sorted(sq for sq, owner in state["tokens"].items() if owner == seat)
    return f"{_who(seat)} ({SEAT_SHAPES[seat]}s) on {', '.join(squares[:-1])} and {squares[-1]}"


def wallgo_turn_before() -> Example:
    engine = _engine("wallgo")
    state, seat, _, _ = _wallgo_turn()
    other = 1 - seat
    caption = (
        f"Every token is placed (the frame marks the last, on {_WALLGO_PLACEMENT[-1]}): "
        f"{_wallgo_tokens(state, seat)}, {_wallgo_tokens(state, other)}. {_who(seat)} is to move."
    )
    return caption, _picture(engine, state)


def wallgo_turn() -> Example:
    engine = _engine("wallgo")
    _, seat, move, after = _wallgo_turn()
    caption = (
        f"{_who(seat)} plays {engine.format_move(move)}: the token on {move['from']} goes two steps, "
        f"an L, to {move['to']} (the dashed frame marks where it started), then a wall goes up on the "
        f"north side of {move['to']}, shutting it off from {_who(1 - seat)}'s token on c5."
    )
    return caption, _picture(engine, after)


# --- Walls and Stairways: a pivot that pushes ----------------------------------------------------------
@cache
def _stairways_push() -> Step:
    """A wall move, in seeded random games, whose pivot pushes a piece into the next square: the first
    after which the turn simply goes on (no piece then runs for treasure), else the first of all."""
    engine = _engine("stairways")
    first: Step | None = None
    for seed in range(SEARCH_GAMES):
        for played in _steps(engine, _start(engine, seed, seats=2), random.Random(seed), limit=SEARCH_STEPS):
            state, seat = played.before, played.seat
            if seat is None:
                continue
            for move in engine.legal_moves(state, seat):
                if "wall" in move and "play" in move:
                    after, events = engine.apply(state, seat, move)
                    if not any(e.kind == "push" for e in events):
                        continue
                    step = Step(state, seat, move, after, events)
                    if engine.view(after, None)["awaiting"] == "play" and len(events) <= 3:
                        return step
                    first = first or step
    if first is None:
        raise NoExample("no wall pivot in the searched games pushes a piece")
    return first


_SUITS = {"H": "heart", "C": "club"}


def stairways_pivot_before() -> Example:
    engine = _engine("stairways")
    step = _stairways_push()
    assert step.seat is not None and step.move is not None
    move = step.move
    caption = (
        f"{_who(step.seat)} owns the {_SUITS[move['play'][0]]} wonder and is about to play "
        f"{engine.format_move(move)}: the wall on {move['wall']} turns a quarter about one of its ends "
        f"to {move['to']}."
    )
    return caption, _picture(engine, step.before)


def stairways_pivot() -> Example:
    engine = _engine("stairways")
    step = _stairways_push()
    caption = f"After it: {_public(step.events, ('wall', 'push'))}"
    return caption, _picture(engine, step.after)


# --- The Wall: an attack ---------------------------------------------------------------------------------
@cache
def _thewall_attack() -> tuple[Step, list[Event]]:
    """The first plain melee attack, in seeded random games, whose dice cost the defender a life point."""
    engine = _engine("thewall")
    for seed in range(SEARCH_GAMES):
        for played in _steps(engine, _start(engine, seed, seats=2), random.Random(seed), limit=SEARCH_STEPS):
            state, seat = played.before, played.seat
            if seat is None:
                continue
            for move in (m for m in engine.legal_moves(state, seat) if m.get("act") == "attack"):
                declared, events = engine.apply(state, seat, move)
                if not engine.chance_pending(declared):
                    continue
                rolled, dice = engine.resolve_chance(declared, random.Random(seed))
                if any(e.kind in ("wound", "killed") for e in dice):
                    return Step(state, seat, move, rolled, events), dice
    raise NoExample("no attack in the searched games draws blood")


def thewall_attack() -> Example:
    engine = _engine("thewall")
    step, dice = _thewall_attack()
    assert step.move is not None
    caption = (
        f"The move {engine.format_move(step.move)}: {_public(step.events, ('attack',))} {_public(dice)}"
    ).strip()
    return caption, _picture(engine, step.after)


# --- Wildlings at the Wall: a wildling attack ----------------------------------------------------------
@cache
def _wildlings_attack() -> Step:
    """The step, in seeded random games of four Houses, in which the last sealed bid against a wildling
    attack comes in and the bids are revealed: one the wildlings win at strength 8 or more if the search
    finds one (the penalties are the instructive part), else the first."""
    engine = _engine("wildlings")
    first: Step | None = None
    for seed in range(SEARCH_GAMES):
        state = _start(engine, seed, seats=4)
        for step in _steps(engine, state, random.Random(seed), limit=SEARCH_STEPS):
            reveal = next((e for e in step.events if e.kind == "reveal" and "watch" in e.data), None)
            if reveal is None:
                continue
            if not reveal.data["watch"] and reveal.data["strength"] >= 8:
                return step
            first = first or step
    if first is None:
        raise NoExample("no wildling attack in the searched games")
    return first


def wildlings_attack() -> Example:
    engine = _engine("wildlings")
    step = _wildlings_attack()
    shown = _public(step.events, ("reveal", "threat", "wildling_card", "reward", "penalty", "wildlings"))
    caption = f"Every House has bid Power in secret; the last bid is in, and all are shown at once. {shown}"
    return caption, _picture(engine, step.after)


# --- The Great Wall: an assault --------------------------------------------------------------------------
@cache
def _greatwall_assault() -> Step:
    """The step, in seeded random games, that runs a Winter assault: one with a breach if the search
    finds one, else the first."""
    engine = _engine("greatwall")
    first: Step | None = None
    for seed in range(SEARCH_GAMES):
        state = _start(engine, seed, seats=2)
        for step in _steps(engine, state, random.Random(seed), limit=SEARCH_STEPS):
            assaults = [e for e in step.events if e.kind == "assault"]
            if any(e.data.get("breach") for e in assaults):
                return step
            if assaults and first is None:
                first = step
    if first is None:
        raise NoExample("no assault in the searched games")
    return first


def greatwall_assault() -> Example:
    engine = _engine("greatwall")
    step = _greatwall_assault()
    caption = (
        "Winter, before the Assault: the Horde cards in rows 1 and 2 of each section add up their "
        f"Offensive Power against the section's Defence. {_public(step.events, ('assault',))}"
    )
    return caption, _picture(engine, step.before)


# The names used in the digests' ```example <name>``` blocks.
EXAMPLES: dict[str, Callable[[], Example]] = {
    "wallgo-turn-before": wallgo_turn_before,
    "wallgo-turn": wallgo_turn,
    "stairways-pivot-before": stairways_pivot_before,
    "stairways-pivot": stairways_pivot,
    "thewall-attack": thewall_attack,
    "wildlings-attack": wildlings_attack,
    "greatwall-assault": greatwall_assault,
}


@cache
def example(name: str) -> Example:
    """The caption and SVG of the example called ``name``; KeyError for a name that is not one."""
    return EXAMPLES[name]()
