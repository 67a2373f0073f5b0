"""The Wall is a team game: its four leaders win and lose as two sides, and are rated so."""

from __future__ import annotations

import pytest

from games import services
from games.engines import registry
from games.models import Match
from ratings.models import RatingChange
from ratings.services import match_rate, result_teams

pytestmark = pytest.mark.django_db


def test_the_wall_declares_its_two_sides():
    engine = registry.get_engine("thewall")
    assert engine.teams(4) == [[0, 2], [1, 3]]
    assert engine.teams(2) == [[0], [1]]
    assert registry.get_engine("wallgo").teams(4) is None


def test_a_four_leader_match_of_the_wall_rates_each_side_as_one_team(make_user):
    users = [make_user(f"leader{k}") for k in range(4)]
    match = services.match_create(creator=users[0], game="thewall", seat_count=4)
    for user in users[1:]:
        services.seat_join(match_id=match.pk, user=user)
    match.refresh_from_db()
    # The Watch's side (seats 0 and 2) won: what the finished match records, as _finish leaves it.
    seats = list(match.seats.order_by("position"))
    for seat in seats:
        seat.rank = 1 if seat.position in (0, 2) else 3
        seat.score = 1.0 if seat.position in (0, 2) else 0.0
        seat.save(update_fields=["rank", "score"])
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    match.refresh_from_db()
    teams = result_teams(match=match, seats=seats)
    assert [team["users"] for team in teams] == [
        sorted([users[0].pk, users[2].pk]),
        sorted([users[1].pk, users[3].pk]),
    ]
    assert match_rate(match=match) is not None
    change = {c.user_id: c.mu_after - c.mu_before for c in RatingChange.objects.filter(match=match)}
    assert change[users[0].pk] == pytest.approx(change[users[2].pk]) and change[users[0].pk] > 0
    assert change[users[1].pk] == pytest.approx(change[users[3].pk]) and change[users[1].pk] < 0
