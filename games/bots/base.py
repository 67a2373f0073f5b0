"""The interface every computer opponent has, and the simplest one: a random legal move."""

from __future__ import annotations

import random
from typing import Protocol

from games.engines.base import Engine, Move, State


class NoLegalMove(ValueError):
    """The bot was asked to move for a seat that has nothing to play (not its turn, or the game is over)."""


class Bot(Protocol):
    kind: str

    def choose(self, engine: Engine, state: State, seat: int, rng: random.Random) -> Move:
        """One of ``engine.legal_moves(state, seat)``; ``rng`` is the only source of randomness."""
        ...


def own_moves(engine: Engine, state: State, seat: int) -> list[Move]:
    """The seat's legal moves in the real state: a seat always knows these, so reading them is fair."""
    moves = engine.legal_moves(state, seat)
    if not moves:
        raise NoLegalMove(f"Seat {seat} has no legal move in this position.")
    return moves


def side_of(seat: int, teams: list[list[int]] | None) -> list[int]:
    """The seats that win and lose with ``seat``, itself included (``Engine.teams``), or it alone."""
    return next((team for team in teams or [] if seat in team), [seat])


class RandomBot:
    kind = "random"

    def choose(self, engine: Engine, state: State, seat: int, rng: random.Random) -> Move:
        return rng.choice(own_moves(engine, state, seat))
