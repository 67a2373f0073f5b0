"""Seats that act at the same time (Wildlings at the Wall's sealed orders) do not void each other's moves:
another seat's commit since the page was loaded leaves a seat's own move playable, as long as its turn
is the one it was shown. A page older than the seat's own turn is still refused."""

from __future__ import annotations

import random

import pytest

from games import services
from games.errors import Conflict
from games.models import Match
from games.services import creating

pytestmark = pytest.mark.django_db


@pytest.fixture
def sealed(alice, bob, carol, monkeypatch) -> Match:
    """A three-House match at a step where every House gives its orders at once (the first Westeros
    draw decides: a seeded one that leads there)."""
    monkeypatch.setattr(creating, "rng_new", lambda: random.Random(SEED))
    match = services.match_create(creator=alice, game="wildlings", seat_count=3)
    services.seat_join(match_id=match.pk, user=bob)
    services.seat_join(match_id=match.pk, user=carol)
    match.refresh_from_db()
    while match.engine.chance_pending(match.engine_state):  # the Westeros draw, as the worker makes it
        services.chance_resolve(match_id=match.pk, version=match.version)
        match.refresh_from_db()
    assert match.engine.actors(match.engine_state) == {0, 1, 2}
    return match


SEED = 1


def a_move(match: Match, position: int) -> dict:
    match.refresh_from_db()
    return match.engine.legal_moves(match.engine_state, position)[0]


def test_houses_commit_in_any_order_on_pages_loaded_before_the_others_committed(sealed, alice, bob, carol):
    seen = sealed.version
    orders = {position: a_move(sealed, position) for position in range(3)}
    for position, user in ((2, carol), (0, alice), (1, bob)):
        services.move_play(match_id=sealed.pk, user=user, expected_version=seen, move=orders[position])
    sealed.refresh_from_db()
    assert sealed.version == seen + 3


def test_a_house_cannot_commit_twice_from_the_same_page(sealed, alice):
    seen = sealed.version
    move = a_move(sealed, 0)
    services.move_play(match_id=sealed.pk, user=alice, expected_version=seen, move=move)
    with pytest.raises(Conflict, match="moved on"):
        services.move_play(match_id=sealed.pk, user=alice, expected_version=seen, move=move)
    sealed.refresh_from_db()
    assert sealed.version == seen + 1


def test_in_a_game_of_turns_a_page_from_before_the_last_move_is_refused(started_match, alice, bob):
    match = started_match()  # Wall Go: alice (seat 0) to move
    services.move_play(match_id=match.pk, user=alice, expected_version=0, move=a_move(match, 0))
    match.refresh_from_db()
    seat = min(match.engine.actors(match.engine_state))
    user = {0: alice, 1: bob}[seat]
    with pytest.raises(Conflict, match="moved on"):
        services.move_play(match_id=match.pk, user=user, expected_version=0, move=a_move(match, seat))
