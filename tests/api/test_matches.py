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
    assert wallgo["text_options"] == []
    ranges = {slug: (game["min_players"], game["max_players"]) for slug, game in games.items()}
    assert {slug: ranges[slug] for slug in ("stairways", "thewall", "wildlings", "greatwall")} == {
        "stairways": (2, 4),
        "thewall": (2, 4),
        "wildlings": (3, 6),
        "greatwall": (1, 4),
    }
    assert [option["name"] for option in games["stairways"]["text_options"]] == ["layout_json"]


def test_a_custom_layout_is_given_as_a_text_option(client_for, alice):
    from games.engines import registry

    layout = next(iter(registry.get_engine("stairways").option_examples("layout_json", seats=2).values()))
    assert len(layout) > 64
    body = {"game": "stairways", "seat_count": 2, "options": {"layout_json": layout}}
    answer = client_for(alice).post(MATCHES, body)
    assert answer.status_code == 201, answer.json()
    broken = client_for(alice).post(MATCHES, {**body, "options": {"layout_json": "{"}})
    assert broken.status_code == 400 and broken.json()["detail"]


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
    assert len(api.get(MATCHES + "?page_size=100").json()["results"]) == 25
    missing = api.get(MATCHES + "?page=9")
    assert missing.status_code == 404
    assert missing.json() == {"detail": "There is no page 9 of this list."}


@pytest.mark.parametrize(
    ("query", "errors"),
    [
        ("scope=", {"scope": ["Give a value, or leave the parameter out."]}),
        ("page=", {"page": ["Give a value, or leave the parameter out."]}),
        ("page_size=", {"page_size": ["Give a value, or leave the parameter out."]}),
        ("page_size=false", {"page_size": ["A valid integer is required."]}),
        ("page=x", {"page": ["A valid integer is required."]}),
        ("page=0", {"page": ["Ensure this value is greater than or equal to 1."]}),
        ("page=1.5", {"page": ["A valid integer is required."]}),
        ("page_size=0", {"page_size": ["Ensure this value is greater than or equal to 1."]}),
        ("page_size=-5", {"page_size": ["Ensure this value is greater than or equal to 1."]}),
        ("page_size=101", {"page_size": ["Ensure this value is less than or equal to 100."]}),
    ],
)
def test_an_empty_or_malformed_list_parameter_is_a_400_naming_it(api, alice, query, errors):
    services.match_create(creator=alice, game="wallgo", seat_count=2)
    answer = api.get(f"{MATCHES}?{query}")
    assert answer.status_code == 400
    assert answer.json()["errors"] == errors
    name = next(iter(errors))
    assert answer.json()["detail"] == f"{name}: {errors[name][0]}"


def test_other_query_parameters_are_ignored(api, alice):
    services.match_create(creator=alice, game="wallgo", seat_count=2)
    assert api.get(MATCHES + "?x=y&_=1700000000").json()["count"] == 1


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
        ({"game": "wallgo", "seat_count": 99}, "seat_count: Ensure this value is less than or equal to"),
        ({"game": "wallgo", "seat_count": 1}, "Wall Go is for 2 to 4 players."),
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


# --- computer opponents ---------------------------------------------------------------------------------


def test_computer_opponents_take_their_seats_and_the_full_match_starts(
    client_for, alice, django_capture_on_commit_callbacks
):
    body = {"game": "wallgo", "seat_count": 3, "bot_count": 2, "bot_level": "random"}
    with django_capture_on_commit_callbacks(execute=True):
        answer = client_for(alice).post(MATCHES, body)
    assert answer.status_code == 201, answer.json()
    data = answer.json()
    assert data["status"] == "active" and data["rated"] is False
    assert [(seat["player"], seat["bot"]) for seat in data["seats"]] == [
        ("alice", ""),
        ("Computer (random)", "random"),
        ("Computer (random)", "random"),
    ]
    match = Match.objects.get(pk=data["id"])
    assert [(s.user, s.bot) for s in match.seats.all()] == [(alice, ""), (None, "random"), (None, "random")]


def test_a_computer_opponent_plays_at_the_default_strength_and_leaves_a_seat_free(client_for, alice, bob):
    data = client_for(alice).post(MATCHES, {"game": "wallgo", "seat_count": 3, "bot_count": 1}).json()
    assert data["status"] == "open"
    assert [seat["bot"] for seat in data["seats"]] == ["", "normal"]
    assert client_for(bob).post(action(Match.objects.get(pk=data["id"]), "join")).json()["status"] == "active"


def test_the_api_offers_the_new_match_form_s_computer_strengths():
    from games.api.serializers import MatchCreateSerializer
    from games.bots import DEFAULT, kinds

    field = MatchCreateSerializer().fields["bot_level"]
    assert list(field.choices.items()) == kinds() and field.default == DEFAULT


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (
            {"game": "wallgo", "seat_count": 2, "bot_count": 2},
            "Computer opponents can take at most 1 of the 2 seats: one is yours.",
        ),
        ({"game": "wallgo", "seat_count": 2, "bot_count": -1}, "bot_count: Ensure this value is greater"),
        (
            {"game": "wallgo", "seat_count": 2, "bot_count": 1, "bot_level": "grandmaster"},
            'bot_level: "grandmaster" is not a valid choice.',
        ),
        ({"game": "wallgo", "seat_count": 2, "bots": ["random"]}, "bots: There is no field bots;"),
    ],
)
def test_computer_seats_are_refused_with_the_reason(client_for, alice, body, reason):
    answer = client_for(alice).post(MATCHES, body)
    assert answer.status_code == 400
    assert answer.json()["detail"].startswith(reason), answer.json()
    assert not Match.objects.exists()


def test_computer_seats_count_towards_the_account_s_cap(settings, client_for, alice):
    settings.MAX_BOT_SEATS_PER_USER = 2
    client = client_for(alice)
    assert (
        client.post(
            MATCHES, {"game": "wallgo", "seat_count": 3, "bot_count": 2, "bot_level": "random"}
        ).status_code
        == 201
    )
    answer = client.post(MATCHES, {"game": "wallgo", "seat_count": 2, "bot_count": 1, "bot_level": "random"})
    assert answer.status_code == 403 and answer.json()["detail"]
    assert Match.objects.count() == 1


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
