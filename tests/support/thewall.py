"""Test setups for The Wall matches played on the site.

Every die of The Wall is a chance step, rolled with the match's server-side RNG. A test that needs a
chance step to come out one way (an attack that hits, a wandering group that spawns where nobody
acquires it) seeds that RNG in advance: it tries seeds on the engine itself, on the position the step
will be rolled in, and stores the first seed that gives the wanted result. Nothing else of the match
is touched, and every move is still made the ordinary way.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

from games.engines.base import Event
from games.models import Match
from games.rng import rng_dump

SEEDS_TRIED = 5000


def position_after(match: Match, moves: Iterable[str], state: dict[str, Any] | None = None) -> dict[str, Any]:
    """The position ``moves`` (notation, each by the one seat then to act) lead to from ``state`` (the
    match's current position by default), without storing anything."""
    engine = match.engine
    if state is None:
        match.refresh_from_db()
        state = match.engine_state
    for text in moves:
        (seat,) = engine.actors(state)
        state, _ = engine.apply(state, seat, engine.parse_move(text))
    return state


def dice_arrange(match: Match, pending: dict[str, Any], wanted: Callable[[list[Event]], bool]) -> list[Event]:
    """Seed the match's RNG so that the chance step due in the position ``pending`` gives events that
    satisfy ``wanted``; returns those events. The moves that lead to ``pending`` must roll no die."""
    engine = match.engine
    assert engine.chance_pending(pending), "no chance step is due in that position"
    for seed in range(SEEDS_TRIED):
        _, events = engine.resolve_chance(pending, random.Random(seed))
        if wanted(events):
            Match.objects.filter(pk=match.pk).update(rng_state=rng_dump(random.Random(seed)))
            return events
    raise AssertionError(f"none of {SEEDS_TRIED} seeds gives the wanted chance step")


def kinds(events: list[Event]) -> list[str]:
    return [event.kind for event in events]
