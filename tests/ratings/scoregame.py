"""A tiny game for the rating and league tests: each seat in turn names its score (``score 7``); when
all have, the game is over and the scores are the result. The tests decide every place exactly.

``TeamScoreGame`` declares teams the way The Wall would: seats 0 and 2 against 1 and 3.
"""

from __future__ import annotations

import re
from typing import Any

from games.engines.base import Engine, Event, IllegalMove, Move, State, View

_MOVE = re.compile(r"score\s+(\d)")


class _Svg:
    @staticmethod
    def render(view: View, seat: int | None, *, interactive: bool) -> str:
        return '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"></svg>'


class ScoreGame(Engine):
    slug = "testscores"
    title = "Name your score (test game)"
    min_players = 2
    max_players = 4
    svg = _Svg()

    def new_state(self, *, seats: int, options: dict[str, str], rng: Any) -> State:
        return {"seats": seats, "scores": [None] * seats, "out": []}

    def _next(self, state: State) -> int | None:
        return next(
            (s for s in range(state["seats"]) if state["scores"][s] is None and s not in state["out"]), None
        )

    def actors(self, state: State) -> frozenset[int]:
        seat = self._next(state)
        return frozenset() if seat is None else frozenset({seat})

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        return [{"score": n} for n in range(10)] if seat in self.actors(state) else []

    def apply(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        if move not in self.legal_moves(state, seat):
            raise IllegalMove("Name a score from 0 to 9, in turn.")
        new = {**state, "scores": list(state["scores"])}
        new["scores"][seat] = move["score"]
        return new, [Event(kind="score", text=f"Seat {seat} scores {move['score']}.")]

    def skip(self, state: State, seat: int, rng: Any) -> tuple[State, list[Event]]:
        return self.apply(state, seat, {"score": 0})

    def eliminate(self, state: State, seat: int) -> tuple[State, list[Event]]:
        return {**state, "out": [*state["out"], seat]}, []

    def parse_move(self, text: str) -> Move:
        found = _MOVE.fullmatch(text.strip().lower())
        if found is None:
            raise IllegalMove("Write: score 7.")
        return {"score": int(found[1])}

    def format_move(self, move: Move) -> str:
        return f"score {move['score']}"

    def click_path(self, move: Move) -> list[str]:
        return [str(move["score"])]

    def public_view(self, state: State) -> View:
        return {"scores": list(state["scores"]), "out": list(state["out"])}

    def outcome(self, state: State) -> list[float] | None:
        if self._next(state) is not None:
            return None
        return [0.0 if s in state["out"] else float(state["scores"][s]) for s in range(state["seats"])]


class TeamScoreGame(ScoreGame):
    slug = "testteams"
    title = "Name your score in teams (test game)"

    def teams(self, seats: int) -> list[list[int]]:
        return [[s for s in range(seats) if s % 2 == side] for side in (0, 1)]

    def outcome(self, state: State) -> list[float] | None:
        """A side's score is the sum of its members': every member gets it."""
        scores = super().outcome(state)
        if scores is None:
            return None
        sides = [sum(scores[s] for s in range(state["seats"]) if s % 2 == side) for side in (0, 1)]
        return [sides[s % 2] for s in range(state["seats"])]
