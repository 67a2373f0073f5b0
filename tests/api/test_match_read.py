"""Reading a match: exactly the seat's view from the selector, never the server's state or another hand."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from games import selectors
from games.models import HiddenHand, Match
from tests.api.conftest import assert_no_server_state, keys_anywhere
from tests.conftest import play_random

pytestmark = pytest.mark.django_db


def detail(match: Match) -> str:
    return reverse("api-match", args=[match.pk])


def test_each_seat_reads_exactly_what_the_selector_gives_it(client_for, started_match, alice, bob):
    match = play_random(started_match(), moves=5)
    for user in (alice, bob):
        answer = client_for(user).get(detail(match))
        assert answer.status_code == 200
        mv = selectors.match_view_for(match_id=match.pk, user=user)
        data = answer.json()
        assert data["view"] == json.loads(json.dumps(mv.view))
        assert data["your_position"] == mv.viewer_position
        assert data["your_turn"] == mv.my_turn
        assert data["version"] == match.version == 5
        assert data["to_act"] == sorted(mv.actors)
        assert_no_server_state(data)


def test_a_spectator_reads_the_public_view(api, started_match, carol, client_for):
    match = play_random(started_match(), moves=3)
    spectator_view = json.loads(json.dumps(selectors.match_view_for(match_id=match.pk, user=None).view))
    for client in (api, client_for(carol)):
        data = client.get(detail(match)).json()
        assert data["view"] == spectator_view
        assert data["view"]["private"] == {}
        assert data["your_position"] is None and data["your_turn"] is False
        assert_no_server_state(data)


def test_the_answer_describes_seats_clock_and_whose_turn(client_for, started_match, alice):
    from datetime import timedelta

    match = started_match(move_time_limit=timedelta(days=2), bank_initial=timedelta(hours=5))
    data = client_for(alice).get(detail(match)).json()
    assert data["status"] == "active" and data["game"] == "wallgo" and data["game_title"] == "Wall Go"
    assert data["clock"] == {
        "move_time_limit_hours": 48.0,
        "bank_initial_hours": 5.0,
        "bank_increment_hours": None,
        "bank_max_hours": 5.0,
        "pause_weekends": False,
        "timeout_policy": "skip",
    }
    assert data["options"] == {"rules": "seed", "placement": "snake"}
    first, second = data["seats"]
    assert (first["player"], first["position"], first["status"], first["to_act"]) == (
        "alice",
        0,
        "playing",
        True,
    )
    assert first["deadline"] is not None and first["bank_hours"] == 5.0 and not first["autopilot"]
    assert (second["player"], second["to_act"], second["deadline"]) == ("bob", False, None)
    assert data["your_turn"] is True and data["your_deadline"] == first["deadline"]
    assert data["to_act"] == [0] and data["url"] == match.get_absolute_url()


def test_a_finished_match_shows_ranks_scores_and_the_result(client_for, started_match, alice, bob):
    match = started_match()
    client_for(bob).post(reverse("api-match-resign", args=[match.pk]))
    data = client_for(alice).get(detail(match)).json()
    assert data["status"] == "finished" and data["result_text"] == "alice wins: every other player is out."
    assert [(seat["rank"], seat["status"]) for seat in data["seats"]] == [(1, "playing"), (2, "resigned")]
    assert data["to_act"] == [] and data["your_turn"] is False


def test_reading_a_missing_match_is_a_404_with_a_message(api):
    for match_id in (424242, 2**63, 10**30):
        answer = api.get(f"/api/matches/{match_id}/")
        assert answer.status_code == 404
        assert answer.json() == {"detail": "There is no such match."}


def test_a_player_reading_the_match_is_present_and_takes_the_seat_back(client_for, started_match, alice):
    match = started_match()
    seat = match.seats.get(user=alice)
    seat.autopilot = True
    seat.save()
    data = client_for(alice).get(detail(match)).json()
    seat.refresh_from_db()
    assert seat.last_seen_at is not None and not seat.autopilot
    assert data["seats"][0]["autopilot"] is False


# --- hidden information -------------------------------------------------------------------------------


def hands(match: Match) -> dict[int, list[int]]:
    return {h.seat.position: h.data["hand"] for h in HiddenHand.objects.filter(seat__match=match)}


def every_answer(client, match: Match) -> list:
    urls = [
        detail(match),
        reverse("api-match-log", args=[match.pk]),
        reverse("api-match-legal-moves", args=[match.pk]),
        reverse("api-matches") + "?scope=mine",
    ]
    answers = [client.get(url) for url in urls]
    return [a.json() for a in answers if a.status_code == 200]


def hands_in(data) -> list:
    """Every value stored under a "hand" key, at any depth."""
    found = []

    def walk(node) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "hand":
                    found.append(value)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(data)
    return found


def test_a_player_sees_its_own_hand_and_never_another_seat(dice_match, client_for, api, alice, bob, carol):
    match = dice_match(players=(carol,))
    dealt = hands(match)
    assert len(dealt) == 3 and all(len(hand) == 2 for hand in dealt.values())
    for position, user in enumerate((alice, bob, carol)):
        client = client_for(user)
        answers = every_answer(client, match)
        assert answers[0]["view"]["private"]["hand"] == dealt[position]
        assert all(hand == dealt[position] for hand in hands_in(answers))
        legal = answers[2]["moves"]
        assert sorted(move["move"]["play"] for move in legal) == dealt[position]
        for answer in answers:
            assert_no_server_state(answer)
        # The private lines of the deal ("You draw 3, 7.") reach their own seat only.
        lines = [text for line in answers[1]["lines"] for text in line["events"]]
        assert [text for text in lines if text.startswith("You draw")] == [
            f"You draw {dealt[position][0]}, {dealt[position][1]}."
        ]
    for answer in every_answer(api, match):
        assert hands_in(answer) == []
        assert "You draw" not in json.dumps(answer)


def test_a_sealed_card_stays_hidden_from_the_other_seat(dice_match, client_for, alice, bob):
    match = dice_match()
    card = hands(match)[0][0]
    played = client_for(alice).post(
        reverse("api-match-moves", args=[match.pk]), {"move": f"play {card}", "version": match.version}
    )
    assert played.status_code == 201
    for answer in every_answer(client_for(bob), match):
        text = json.dumps(answer)
        # Neither the private event nor the move's own notation ("play 7") reaches the other seat.
        assert "You committed" not in text and f'"play {card}"' not in text
        assert_no_server_state(answer)
    bob_lines = client_for(bob).get(reverse("api-match-log", args=[match.pk])).json()["lines"]
    assert [(line["player"], line["notation"]) for line in bob_lines][-1] == ("alice", "")
    bob_view = client_for(bob).get(detail(match)).json()["view"]
    assert bob_view["committed"] == [True, False] and bob_view["private"]["committed"] is None
    alice_log = client_for(alice).get(reverse("api-match-log", args=[match.pk])).json()
    assert f"You committed {card}." in [text for line in alice_log["lines"] for text in line["events"]]
    assert alice_log["lines"][-1]["notation"] == f"play {card}"


# --- the log ------------------------------------------------------------------------------------------


def test_the_log_is_the_selector_s_filtered_log(client_for, api, dice_match, alice, bob):
    match = dice_match()
    for client, position in ((client_for(alice), 0), (client_for(bob), 1), (api, None)):
        data = client.get(reverse("api-match-log", args=[match.pk])).json()
        expected = selectors.match_log_for(match=match, position=position)
        assert data["your_position"] == position and data["match"] == match.pk
        assert [
            (line["seq"], line["seat"], line["player"], line["notation"], line["events"])
            for line in data["lines"]
        ] == [(line.seq, line.seat, line.player, line.notation, line.events) for line in expected]
        assert_no_server_state(data)


def test_the_log_lists_moves_with_their_notation(api, started_match):
    match = play_random(started_match(), moves=2)
    lines = api.get(reverse("api-match-log", args=[match.pk])).json()["lines"]
    assert [(line["seq"], line["seat"], line["player"]) for line in lines] == [(1, 0, "alice"), (2, 1, "bob")]
    assert all(line["notation"] and line["at"] for line in lines)
    assert set(keys_anywhere(lines)) == {"seq", "seat", "player", "notation", "events", "at"}


def test_the_log_of_a_missing_match_is_a_404(api):
    assert api.get("/api/matches/999999/log/").status_code == 404
