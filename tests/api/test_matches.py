"""Listing, creating, joining, leaving and resigning matches through the API."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse

from games import services
from games.models import Match, Seat

pytestmark = pytest.mark.django_db

MATCHES = "/api/matches/"


def test_ping_answers_without_authentication_or_database(api, django_assert_num_queries):
    with django_assert_num_queries(0):
        answer = api.get("/api/ping/", HTTP_AUTHORIZATION="Token not-even-looked-up")
    assert answer.status_code == 200 and answer.json() == {"ok": True}


def test_the_games_are_listed_with_their_options(api):
    games = {game["slug"]: game for game in api.get("/api/games/").json()}
    wallgo = games["wallgo"]
    assert (wallgo["title"], wallgo["min_players"], wallgo["max_players"]) == ("Wall Go", 2, 4)
    rules = next(option for option in wallgo["options"] if option["name"] == "rules")
    assert rules["default"] == "seed"
    assert [choice["value"] for choice in rules["choices"]] == ["seed", "devils_plan"]


# --- listing ------------------------------------------------------------------------------------------


def test_anyone_lists_the_open_matches(api, alice, bob):
    waiting = services.match_create(creator=alice, game="wallgo", seat_count=2, name="Come play")
    full = services.match_create(creator=alice, game="wallgo", seat_count=2)
    services.seat_join(match_id=full.pk, user=bob)
    data = api.get(MATCHES).json()
    assert data["count"] == 1 and data["next"] is None
    (row,) = data["results"]
    assert (row["id"], row["name"], row["status"], row["seat_count"]) == (waiting.pk, "Come play", "open", 2)
    assert row["seats"] == [
        {
            "position": 0,
            "player": "alice",
            "username": "alice",
            "bot": "",
            "status": "playing",
            "score": None,
            "rank": None,
        }
    ]
    assert row["your_turn"] is False and row["your_deadline"] is None
    assert api.get(MATCHES + "?scope=open").json()["count"] == 1


def test_my_matches_list_those_awaiting_me_first(client_for, started_match, alice, bob):
    first = started_match(move_time_limit=timedelta(days=1))  # alice to move
    second = started_match()
    services.move_play(match_id=second.pk, user=alice, expected_version=0, text="d4")  # bob to move
    rows = client_for(bob).get(MATCHES + "?scope=mine").json()["results"]
    assert [(row["id"], row["your_turn"]) for row in rows] == [(second.pk, True), (first.pk, False)]
    rows = client_for(alice).get(MATCHES, {"scope": "mine"}).json()["results"]
    assert [(row["id"], row["your_turn"]) for row in rows] == [(first.pk, True), (second.pk, False)]
    assert rows[0]["your_deadline"] is not None


def test_my_matches_need_authentication(api):
    answer = api.get(MATCHES + "?scope=mine")
    assert answer.status_code == 401
    assert answer.json() == {"detail": "Log in, or send a token, to list your matches."}


def test_the_list_is_paginated(api, alice):
    for _ in range(25):
        services.match_create(creator=alice, game="wallgo", seat_count=2)
    first = api.get(MATCHES).json()
    assert first["count"] == 25 and len(first["results"]) == 20 and first["next"]
    assert len(api.get(MATCHES + "?page=2").json()["results"]) == 5
    assert len(api.get(MATCHES + "?page_size=3").json()["results"]) == 3
    assert len(api.get(MATCHES + "?page_size=500").json()["results"]) == 25
    assert api.get(MATCHES + "?page=9").status_code == 404
    assert api.get(MATCHES + "?page=x").status_code == 404


def test_an_unknown_scope_is_a_400(api):
    answer = api.get(MATCHES + "?scope=everything")
    assert answer.status_code == 400
    assert answer.json()["errors"] == {"scope": ['"everything" is not a valid choice.']}


# --- creating -----------------------------------------------------------------------------------------


def test_creating_a_match_calls_the_service_with_every_setting(client_for, alice):
    answer = client_for(alice).post(
        MATCHES,
        {
            "game": "wallgo",
            "seat_count": 3,
            "options": {"rules": "devils_plan"},
            "name": "  Evening game ",
            "move_time_limit_hours": 48,
            "bank_initial_hours": 10,
            "bank_increment_hours": 1,
            "bank_max_hours": 20,
            "pause_weekends": True,
            "timeout_policy": "forfeit",
        },
        format="json",
    )
    assert answer.status_code == 201, answer.json()
    data = answer.json()
    match = Match.objects.get(pk=data["id"])
    assert answer["Location"] == reverse("api-match", args=[match.pk])
    assert (match.game, match.seat_count, match.name, match.created_by) == (
        "wallgo",
        3,
        "Evening game",
        alice,
    )
    assert match.options == {"rules": "devils_plan", "placement": "snake"}
    assert match.move_time_limit == timedelta(hours=48) and match.bank_initial == timedelta(hours=10)
    assert match.bank_increment == timedelta(hours=1) and match.bank_max == timedelta(hours=20)
    assert match.pause_weekends and match.timeout_policy == "forfeit"
    assert data["status"] == "open" and data["your_position"] == 0
    assert data["clock"]["move_time_limit_hours"] == 48.0


def test_creating_with_only_the_required_fields(client_for, alice):
    data = client_for(alice).post(MATCHES, {"game": "wallgo", "seat_count": 2}).json()
    match = Match.objects.get(pk=data["id"])
    assert match.options == {"rules": "seed", "placement": "snake"} and match.move_time_limit is None
    assert match.timeout_policy == "skip" and data["clock"]["bank_initial_hours"] is None


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"game": "chess", "seat_count": 2}, 'game: "chess" is not a valid choice.'),
        ({"game": "wallgo", "seat_count": 9}, "seat_count: Ensure this value is less than or equal to 8."),
        ({"game": "wallgo", "seat_count": 5}, "Wall Go is for 2 to 4 players."),
        ({"game": "wallgo", "seat_count": 2, "options": {"speed": "fast"}}, "Wall Go has no option speed."),
        ({"game": "wallgo", "seat_count": 2, "options": {"rules": "x"}}, "Rules: 'x' is not one of seed"),
        ({"game": "wallgo", "seat_count": 2, "options": ["rules"]}, "options: Expected a dictionary"),
        (
            {"game": "wallgo", "seat_count": 2, "options": {"rules": {"a": 1}}},
            "options.rules: Not a valid string.",
        ),
        ({"game": "wallgo", "seat_count": "two"}, "seat_count: A valid integer is required."),
        ({"game": "wallgo"}, "seat_count: This field is required."),
        ({"game": "wallgo", "seat_count": 2, "bank_initial_hours": 5}, "A reserve needs a time per move."),
        (
            {
                "game": "wallgo",
                "seat_count": 2,
                "move_time_limit_hours": 24,
                "bank_initial_hours": 9,
                "bank_max_hours": 3,
            },
            "The reserve cap cannot be below the starting reserve.",
        ),
        (
            {"game": "wallgo", "seat_count": 2, "move_time_limit_hours": 10**9},
            "move_time_limit_hours: Ensure",
        ),
        ({"game": "wallgo", "seat_count": 2, "timeout_policy": "panic"}, 'timeout_policy: "panic" is not'),
        (
            {"game": "wallgo", "seat_count": 2, "name": "x" * 81},
            "name: Ensure this field has no more than 80",
        ),
        (
            {"game": "wallgo", "seat_count": 2, "name": "a\x00b"},
            "The JSON body's field name holds a NUL character (U+0000).",
        ),
        (
            {"game": "wallgo", "seat_count": 2, "options": {"rules": "seed\ufdd0"}},
            "The JSON body's field options.rules holds U+FDD0, which Unicode reserves as a non-character.",
        ),
    ],
)
def test_creating_refuses_with_the_reason(client_for, alice, body, reason):
    answer = client_for(alice).post(MATCHES, body, format="json")
    assert answer.status_code == 400
    assert answer.json()["detail"].startswith(reason), answer.json()
    assert not Match.objects.exists()


def test_creating_needs_authentication(api):
    assert api.post(MATCHES, {"game": "wallgo", "seat_count": 2}).status_code == 401
    assert not Match.objects.exists()


# --- joining, leaving, resigning ----------------------------------------------------------------------


def action(match: Match, verb: str) -> str:
    return reverse(f"api-match-{verb}", args=[match.pk])


def test_joining_fills_the_table_and_starts_the_match(client_for, alice, bob):
    match = services.match_create(creator=alice, game="wallgo", seat_count=2)
    answer = client_for(bob).post(action(match, "join"))
    assert answer.status_code == 200
    data = answer.json()
    assert data["status"] == "active" and data["your_position"] == 1
    assert [seat["player"] for seat in data["seats"]] == ["alice", "bob"]


def test_joining_twice_is_a_409(client_for, alice):
    match = services.match_create(creator=alice, game="wallgo", seat_count=3)
    answer = client_for(alice).post(action(match, "join"))
    assert answer.status_code == 409 and answer.json() == {"detail": "You already have a seat in this match."}
    assert match.seats.count() == 1


def test_joining_a_started_match_is_a_409(client_for, started_match, carol):
    match = started_match()
    answer = client_for(carol).post(action(match, "join"))
    assert answer.status_code == 409 and answer.json() == {
        "detail": "This match is no longer open for players."
    }
    assert match.seats.count() == 2


def test_leaving_an_open_match(client_for, alice, bob):
    match = services.match_create(creator=alice, game="wallgo", seat_count=3)
    services.seat_join(match_id=match.pk, user=bob)
    data = client_for(alice).post(action(match, "leave")).json()
    assert data["your_position"] is None and [seat["player"] for seat in data["seats"]] == ["bob"]
    assert client_for(alice).post(action(match, "leave")).json() == {
        "detail": "You have no seat in this match."
    }


def test_leaving_a_started_match_is_a_409(client_for, started_match, alice):
    answer = client_for(alice).post(action(started_match(), "leave"))
    assert answer.status_code == 409 and answer.json() == {
        "detail": "The match has started: resign instead of leaving."
    }


def test_resigning(client_for, started_match, alice):
    match = started_match()
    data = client_for(alice).post(action(match, "resign")).json()
    assert data["status"] == "finished" and data["seats"][0]["status"] == Seat.Status.RESIGNED
    again = client_for(alice).post(action(match, "resign"))
    assert again.status_code == 409 and again.json() == {"detail": "Only a match in play can be resigned."}


def test_a_spectator_cannot_resign(client_for, started_match, carol):
    answer = client_for(carol).post(action(started_match(), "resign"))
    assert answer.status_code == 403 and answer.json() == {"detail": "You are not playing in this match."}


@pytest.mark.parametrize("verb", ["join", "leave", "resign"])
def test_seat_actions_need_authentication_and_an_existing_match(api, client_for, alice, verb):
    match = services.match_create(creator=alice, game="wallgo", seat_count=2)
    assert api.post(action(match, verb)).status_code == 401
    missing = client_for(alice).post(f"/api/matches/{match.pk + 1000}/{verb}/")
    assert missing.status_code == 404 and missing.json() == {"detail": "There is no such match."}


@pytest.mark.parametrize("verb", ["join", "leave", "resign", "moves"])
def test_get_on_a_post_only_endpoint_is_a_405(client_for, alice, verb):
    match = services.match_create(creator=alice, game="wallgo", seat_count=2)
    answer = client_for(alice).get(action(match, verb))
    assert answer.status_code == 405 and "detail" in answer.json()
