from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from django.test import TestCase

from games import services
from games.engines import registry
from games.models import Match


@pytest.fixture(autouse=True)
def score_games() -> Iterator[None]:
    """The test games exist only while a test of ratings or leagues runs."""
    registry.register("testscores", "tests.ratings.scoregame.ScoreGame")
    registry.register("testteams", "tests.ratings.scoregame.TeamScoreGame")
    yield
    registry.unregister("testscores")
    registry.unregister("testteams")


def play_scores(match: Match, scores: list[int]) -> Match:
    """Each seat names its score in turn, through the real service, as its player would. What each move
    queues after its commit runs as it would on the site (the rating of the finished match)."""
    match.refresh_from_db()
    for seat in match.seats.order_by("position"):
        if seat.status != seat.Status.PLAYING:
            continue
        match.refresh_from_db()
        with TestCase.captureOnCommitCallbacks(execute=True):
            services.move_play(
                match_id=match.pk,
                user=seat.user,
                expected_version=match.version,
                text=f"score {scores[seat.position]}",
            )
    match.refresh_from_db()
    return match


@pytest.fixture
def score_match(make_user) -> Callable[..., Match]:
    """A started match of the score game between the given users (seat order as given)."""

    def make(*users, game: str = "testscores", **kwargs) -> Match:
        match = services.match_create(creator=users[0], game=game, seat_count=len(users), **kwargs)
        for user in users[1:]:
            services.seat_join(match_id=match.pk, user=user)
        match.refresh_from_db()
        return match

    return make
