"""Random legal moves played through the services, as players would: demo data and tests use it."""

from __future__ import annotations

import random

from games import services
from games.models import Match


def play_random_moves(*, match_id: int, rng: random.Random, moves: int) -> Match:
    """Play up to ``moves`` random legal moves (the lowest awaited seat each time); stop when it ends, or
    when it waits for a chance step (the worker's to run)."""
    for _ in range(moves):
        match = Match.objects.get(pk=match_id)
        if match.status != Match.Status.ACTIVE:
            return match
        engine = match.engine
        actors = engine.actors(match.engine_state)
        if not actors:
            return match
        actor = min(actors)
        seat = match.seats.get(position=actor)
        move = rng.choice(engine.legal_moves(match.engine_state, actor))
        services.move_play(match_id=match_id, user=seat.user, expected_version=match.version, move=move)
    return Match.objects.get(pk=match_id)
