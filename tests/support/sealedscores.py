"""The score game with every seat naming its score at once (a sealed bid from the first move), for the
tests of who is asked to move when a match starts."""

from __future__ import annotations

from games.engines.base import State
from tests.ratings.scoregame import ScoreGame


class SealedScoreGame(ScoreGame):
    slug = "testsealed"
    title = "Name your score, all at once (test game)"

    def actors(self, state: State) -> frozenset[int]:
        return frozenset(
            s for s in range(state["seats"]) if state["scores"][s] is None and s not in state["out"]
        )

    def _next(self, state: State) -> int | None:
        return min(self.actors(state), default=None)
