"""Legal moves and move submission: the engine's list, the service's checks, 409 on a stale version."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import Match, Move
from tests.conftest import play_random

pytestmark = pytest.mark.django_db


def legal_url(match: Match) -> str:
    return reverse("api-match-legal-moves", args=[match.pk])


def moves_url(match: Match) -> str:
    return reverse("api-match-moves", args=[match.pk])


# --- legal moves --------------------------------------------------------------------------------------


@pytest.mark.parametrize("played", [0, 9])  # placement, then a turn that moves a token and builds a wall
def test_the_legal_moves_are_the_engine_s_with_their_notation(client_for, started_match, played):
    match = play_random(started_match(), moves=played)
    engine = match.engine
    position = min(engine.actors(match.engine_state))
    user = match.seats.get(position=position).user
    data = client_for(user).get(legal_url(match)).json()
    expected = engine.legal_moves(match.engine_state, position)
    assert data["your_turn"] is True and data["your_position"] == position and data["version"] == played
    assert [move["move"] for move in data["moves"]] == expected
    assert [move["notation"] for move in data["moves"]] == [engine.format_move(m) for m in expected]


def test_no_legal_moves_when_it_is_not_your_turn_or_not_your_match(client_for, started_match, bob, carol):
    match = started_match()
    for user, position in ((bob, 1), (carol, None)):
        data = client_for(user).get(legal_url(match)).json()
        assert data == {"your_turn": False, "your_position": position, "version": 0, "moves": []}


def test_legal_moves_need_authentication(api, started_match):
    answer = api.get(legal_url(started_match()))
    assert answer.status_code == 401 and answer["WWW-Authenticate"] == 'Bearer realm="api"'
    assert "detail" in answer.json()


def test_legal_moves_of_a_missing_match_are_a_404(client_for, alice):
    assert client_for(alice).get("/api/matches/987654/legal-moves/").status_code == 404


# --- playing ------------------------------------------------------------------------------------------


def test_a_move_in_notation_is_played_through_the_service(client_for, started_match, alice):
    match = started_match()
    answer = client_for(alice).post(moves_url(match), {"move": " D4 ", "version": 0}, format="json")
    assert answer.status_code == 201
    assert answer.json() == {
        "match": match.pk,
        "seq": 1,
        "notation": "d4",
        "move": {"place": "d4"},
        "version": 1,
        "status": "active",
    }
    match.refresh_from_db()
    assert match.version == 1 and match.public_view["tokens"] == {"d4": 0}
    assert Move.objects.get(match=match).notation == "d4"


def test_a_move_object_from_the_legal_moves_is_played(client_for, started_match, alice, bob):
    # Placement done, alice placing last: bob moves a token and builds a wall.
    match = play_random(started_match(), moves=8)
    listed = client_for(bob).get(legal_url(match)).json()
    choice = listed["moves"][len(listed["moves"]) // 2]
    answer = client_for(bob).post(moves_url(match), {"move": choice["move"], "version": listed["version"]})
    assert answer.status_code == 201
    assert answer.json()["notation"] == choice["notation"] and answer.json()["version"] == 9
    assert client_for(alice).get(legal_url(match)).json()["your_turn"] is True


def test_a_stale_version_is_a_409_and_changes_nothing(client_for, started_match, alice, bob):
    match = play_random(started_match(), moves=2)  # version 2, alice to move again (snake: A B B A)
    answer = client_for(alice).post(moves_url(match), {"move": "a1", "version": 1})
    assert answer.status_code == 409
    assert answer.json()["detail"].startswith("The game has moved on")
    match.refresh_from_db()
    assert match.version == 2 and Move.objects.filter(match=match).count() == 2
    assert "a1" not in match.public_view["tokens"]


def test_the_same_submission_twice_plays_once(client_for, started_match, alice):
    match = started_match()
    client = client_for(alice)
    assert client.post(moves_url(match), {"move": "d4", "version": 0}).status_code == 201
    again = client.post(moves_url(match), {"move": "d4", "version": 0})
    assert again.status_code == 409
    assert Move.objects.filter(match=match).count() == 1


@pytest.mark.parametrize(
    ("body", "status", "reason"),
    [
        ({"move": "z9", "version": 0}, 400, "z9 is not on the board"),
        ({"move": "b2-c3/c3n", "version": 0}, 400, "First place your tokens"),
        ({"move": {"place": "d4", "extra": 1}, "version": 0}, 400, "That is not a Wall Go move"),
        ({"move": {"place": 7}, "version": 0}, 400, "That is not a Wall Go move"),
        ({"move": "   ", "version": 0}, 400, "move: Enter a move."),
        ({"move": 12, "version": 0}, 400, "move: Give the move as notation"),
        ({"move": ["d4"], "version": 0}, 400, "move: Give the move as notation"),
        ({"move": None, "version": 0}, 400, "move: This field may not be null."),
        ({"move": "d4" * 200, "version": 0}, 400, "move: A move in notation has at most 200"),
        ({"move": "d4"}, 400, "version: This field is required."),
        ({"move": "d4", "version": "zero"}, 400, "version: A valid integer is required."),
        ({"move": "d4", "version": -1}, 400, "version: Ensure this value is greater than"),
        ({"move": "d4", "version": 10**40}, 400, "version: Ensure this value is less than"),
        ({"move": "d4", "version": 1.5}, 400, "version: A valid integer is required."),
    ],
)
def test_a_bad_move_is_a_400_with_the_reason_and_changes_nothing(
    client_for, started_match, alice, body, status, reason
):
    match = started_match()
    answer = client_for(alice).post(moves_url(match), body, format="json")
    assert answer.status_code == status
    assert answer.json()["detail"].startswith(reason), answer.json()
    match.refresh_from_db()
    assert match.version == 0 and not Move.objects.filter(match=match).exists()


def test_moving_out_of_turn_is_refused(client_for, started_match, bob):
    match = started_match()
    answer = client_for(bob).post(moves_url(match), {"move": "d4", "version": 0})
    assert answer.status_code == 400 and answer.json() == {"detail": "It is not your turn."}


def test_a_spectator_cannot_move(client_for, started_match, carol):
    match = started_match()
    answer = client_for(carol).post(moves_url(match), {"move": "d4", "version": 0})
    assert answer.status_code == 403 and answer.json() == {"detail": "You are not playing in this match."}


def test_moving_needs_authentication(api, started_match):
    match = started_match()
    answer = api.post(moves_url(match), {"move": "d4", "version": 0})
    assert answer.status_code == 401 and "detail" in answer.json()
    assert match.moves.count() == 0


def test_moving_in_a_missing_or_finished_match(client_for, started_match, alice, bob):
    assert (
        client_for(alice).post("/api/matches/999999/moves/", {"move": "d4", "version": 0}).status_code == 404
    )
    match = started_match()
    client_for(bob).post(reverse("api-match-resign", args=[match.pk]))
    match.refresh_from_db()
    answer = client_for(alice).post(moves_url(match), {"move": "d4", "version": match.version})
    assert answer.status_code == 409 and answer.json() == {"detail": "This match is over."}


def test_a_card_is_played_in_the_dice_game_as_a_move_object(client_for, dice_match, alice, bob):
    match = dice_match()
    listed = client_for(bob).get(legal_url(match)).json()
    answer = client_for(bob).post(
        moves_url(match), {"move": listed["moves"][0]["move"], "version": listed["version"]}
    )
    assert answer.status_code == 201 and answer.json()["notation"] == listed["moves"][0]["notation"]
    # Alice still owes her card; bob has none to play until the next round.
    assert client_for(bob).get(legal_url(match)).json()["moves"] == []
    assert client_for(alice).get(legal_url(match)).json()["your_turn"] is True
