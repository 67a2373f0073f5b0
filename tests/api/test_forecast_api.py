"""/api/matches/{id}/forecast/: a seat's own conditional moves, read, replaced and cleared."""

from __future__ import annotations

import pytest

from games.api import serializers as s
from games.models import Forecast, Match
from tests.support.forecasting import (
    ALICE_REPLY,
    ALICE_SECOND,
    BOB_FIRST,
    BOB_OTHER,
    BOB_SECOND,
)

pytestmark = pytest.mark.django_db


def url(match: Match) -> str:
    return f"/api/matches/{match.pk}/forecast/"


def test_a_plan_is_put_read_back_and_deleted(bob_to_move, alice, client_for):
    match, api = bob_to_move, client_for(alice)
    empty = api.get(url(match))
    assert empty.status_code == 200
    assert empty.json() == {"match": match.pk, "your_position": 0, "version": match.version, "lines": []}
    lines = [[BOB_FIRST, ALICE_REPLY, BOB_SECOND, ALICE_SECOND], [BOB_OTHER, ALICE_REPLY]]
    put = api.put(url(match), {"lines": lines, "version": match.version}, format="json")
    assert put.status_code == 200, put.json()
    assert put.json()["lines"] == lines
    checked = s.ForecastSerializer(data=put.json())
    assert checked.is_valid() and set(put.json()) == set(s.ForecastSerializer().fields)
    assert api.get(url(match)).json()["lines"] == lines
    assert api.delete(url(match)).status_code == 204
    assert api.get(url(match)).json()["lines"] == []


def test_the_reply_fires_when_the_opponent_moves_through_the_api(bob_to_move, alice, bob, client_for):
    match = bob_to_move
    client_for(alice).put(url(match), {"lines": [[BOB_FIRST, ALICE_REPLY]]}, format="json")
    played = client_for(bob).post(
        f"/api/matches/{match.pk}/moves/", {"move": BOB_FIRST, "version": match.version}, format="json"
    )
    assert played.status_code == 201
    assert played.json()["version"] == match.version + 2, "bob's move and alice's reply"
    again = client_for(bob).post(
        f"/api/matches/{match.pk}/moves/", {"move": BOB_FIRST, "version": match.version}, format="json"
    )
    assert again.status_code == 409
    log = client_for(bob).get(f"/api/matches/{match.pk}/log/").json()["lines"]
    assert [line["notation"] for line in log[-3:]] == [BOB_FIRST, ALICE_REPLY, ""]


@pytest.mark.parametrize(
    ("body", "status", "reason"),
    [
        ({"lines": [[BOB_FIRST, "c3-g7/a1n"]]}, 400, "Line 1, move 2"),
        ({"lines": [[BOB_FIRST]]}, 400, "add your reply"),
        ({"lines": [["a1"] * 9]}, 400, "lines.0"),
        ({"lines": [[BOB_FIRST, ALICE_REPLY]] * 11}, 400, "lines"),
        ({"lines": "g5-e5/e5n"}, 400, "lines"),
        ({"lines": [[1, 2]]}, 400, "Line 1, move 1"),
        ({"lines": [["a1\x00", "b2"]]}, 400, "NUL"),
        ({"lines": [], "extra": 1}, 400, "There is no field extra"),
        ({"lines": [[BOB_FIRST, ALICE_REPLY]], "version": 1}, 409, "moved on"),
    ],
)
def test_a_bad_plan_is_a_4xx_with_a_reason_and_saves_nothing(
    bob_to_move, alice, client_for, body, status, reason
):
    answer = client_for(alice).put(url(bob_to_move), body, format="json")
    assert answer.status_code == status, answer.content
    assert reason in answer.json()["detail"]
    assert not Forecast.objects.exists()


def test_nobody_else_reads_or_changes_the_plan(bob_to_move, alice, bob, carol, client_for, api):
    match = bob_to_move
    client_for(alice).put(url(match), {"lines": [[BOB_FIRST, ALICE_REPLY]]}, format="json")
    assert client_for(bob).get(url(match)).json()["lines"] == [], "bob reads only his own (empty) plan"
    assert client_for(carol).get(url(match)).status_code == 403
    assert client_for(carol).delete(url(match)).status_code == 403
    assert api.get(url(match)).status_code == 401
    for reader in (client_for(bob), client_for(carol), api):
        for tail in ("", "log/"):
            assert ALICE_REPLY not in reader.get(f"/api/matches/{match.pk}/{tail}").content.decode()
    assert Forecast.objects.get().lines == [[BOB_FIRST, ALICE_REPLY]]
