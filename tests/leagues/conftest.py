from __future__ import annotations

from tests.ratings.conftest import score_games, score_match  # noqa: F401  (the same test games)
