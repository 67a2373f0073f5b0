"""The match page's conditional moves: the owner's box, its forms, and nobody else ever seeing it."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games import services
from games.models import Forecast, Match
from tests.support.forecasting import (
    ALICE_REPLY,
    ALICE_SECOND,
    BOB_FIRST,
    BOB_OTHER,
    BOB_SECOND,
    wallgo_after_placement,
)

pytestmark = pytest.mark.django_db


def logged_in(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def page(client: Client, match: Match) -> str:
    answer = client.get(f"/matches/{match.pk}/")
    assert answer.status_code == 200
    return answer.content.decode()


def test_a_line_typed_in_the_form_is_saved_and_listed(bob_to_move, alice):
    match, client = bob_to_move, logged_in(alice)
    assert 'data-testid="forecast-empty"' in page(client, match)
    answer = client.post(
        f"/matches/{match.pk}/forecast/",
        {"line": f"{BOB_FIRST}, {ALICE_REPLY}  {BOB_SECOND} {ALICE_SECOND}", "version": match.version},
    )
    assert answer.status_code == 302 and answer["Location"] == f"/matches/{match.pk}/#forecast"
    assert Forecast.objects.get().lines == [[BOB_FIRST, ALICE_REPLY, BOB_SECOND, ALICE_SECOND]]
    html = page(client, match)
    assert f"If bob plays <code>{BOB_FIRST}</code>, you reply <code>{ALICE_REPLY}</code>" in html
    assert "Only you can see these." in html


def test_a_refused_line_is_shown_with_its_reason_beside_the_text_typed(bob_to_move, alice):
    match, client = bob_to_move, logged_in(alice)
    answer = client.post(
        f"/matches/{match.pk}/forecast/",
        {"line": f"{BOB_FIRST} c3-g7/a1n", "version": match.version},
        follow=True,
    )
    html = answer.content.decode()
    assert 'data-testid="forecast-error"' in html
    assert "This line, move 2 (c3-g7/a1n): g7 is out of reach" in html
    assert f'value="{BOB_FIRST} c3-g7/a1n"' in html, "what was typed is kept"
    assert not Forecast.objects.exists()
    # Shown once: the next load of the page has no error left.
    assert 'data-testid="forecast-error"' not in page(client, match)


def test_a_line_with_a_control_character_is_refused_without_echoing_it(bob_to_move, alice):
    match, client = bob_to_move, logged_in(alice)
    answer = client.post(
        f"/matches/{match.pk}/forecast/", {"line": "g5-e5/e5n\x00", "version": match.version}, follow=True
    )
    html = answer.content.decode()
    assert 'data-testid="forecast-error"' in html and "\x00" not in html
    assert not Forecast.objects.exists()


def test_lines_are_deleted_one_by_one_or_all_at_once(bob_to_move, alice):
    match, client = bob_to_move, logged_in(alice)
    services.forecast_save(
        match_id=match.pk, user=alice, lines=[[BOB_FIRST, ALICE_REPLY], [BOB_OTHER, ALICE_REPLY]]
    )
    client.post(f"/matches/{match.pk}/forecast/delete/", {"index": 0, "version": match.version})
    assert Forecast.objects.get().lines == [[BOB_OTHER, ALICE_REPLY]]
    client.post(f"/matches/{match.pk}/forecast/clear/")
    assert not Forecast.objects.exists()


def test_a_stale_page_saves_nothing(bob_to_move, alice):
    match, client = bob_to_move, logged_in(alice)
    answer = client.post(
        f"/matches/{match.pk}/forecast/", {"line": f"{BOB_FIRST} {ALICE_REPLY}", "version": match.version - 1}
    )
    assert answer.status_code == 302
    assert not Forecast.objects.exists()


def test_the_box_is_the_owner_s_alone(bob_to_move, alice, bob, carol):
    match = bob_to_move
    services.forecast_save(match_id=match.pk, user=alice, lines=[[BOB_FIRST, ALICE_REPLY]])
    owner = page(logged_in(alice), match)
    assert ALICE_REPLY in owner and 'id="forecast"' in owner
    for viewer in (bob, carol, None):
        # bob's page lists his own legal moves, BOB_FIRST among them: look for the plan's words instead.
        html = page(logged_in(viewer), match)
        assert 'data-testid="forecast-line"' not in html and "you reply" not in html, viewer
        live = logged_in(viewer).get(f"/matches/{match.pk}/live/").content.decode()
        assert "you reply" not in live and ALICE_REPLY not in live
        if viewer is not bob:
            assert ALICE_REPLY not in html and BOB_FIRST not in html
    # Spectators get no box; bob, to move, gets his own, which says he may plan once he has moved.
    for spectator in (carol, None):
        assert 'id="forecast"' not in page(logged_in(spectator), match)
    assert 'data-testid="forecast-later"' in page(logged_in(bob), match)


def test_the_box_waits_for_the_owner_s_own_move(started_match, alice, bob):
    match = wallgo_after_placement(started_match(), alice, bob)
    html = page(logged_in(alice), match)
    assert 'data-testid="forecast-later"' in html and 'id="forecast-form"' not in html


def test_others_cannot_write_a_plan_through_the_forms(bob_to_move, alice, carol):
    match = bob_to_move
    services.forecast_save(match_id=match.pk, user=alice, lines=[[BOB_FIRST, ALICE_REPLY]])
    client = logged_in(carol)
    for tail, data in (
        ("", {"line": "a1 a2", "version": match.version}),
        ("clear/", {}),
        ("delete/", {"index": 0, "version": match.version}),
    ):
        answer = client.post(f"/matches/{match.pk}/forecast/{tail}", data)
        assert answer.status_code == 302
    assert Forecast.objects.get().lines == [[BOB_FIRST, ALICE_REPLY]]


def test_the_planning_board_shows_the_position_after_the_line_and_who_moves(bob_to_move, alice, bob):
    match, client = bob_to_move, logged_in(alice)
    url = f"/matches/{match.pk}/forecast/board/"
    first = client.get(url).json()
    assert first["mover"] == "opponent" and first["line"] == []
    assert BOB_FIRST in {move["text"] for move in first["moves"]}
    assert all(set(move) <= {"path", "text", "preview"} for move in first["moves"])
    after = client.get(url, {"line": BOB_FIRST}).json()
    assert after["mover"] == "you" and after["line"] == [BOB_FIRST] and 'data-target="sq-c3"' in after["svg"]
    assert ALICE_REPLY in {move["text"] for move in after["moves"]}
    refused = client.get(url, {"line": "c3-g7/a1n"})
    assert refused.status_code == 400 and "Line" not in refused.json()["detail"]
    assert logged_in(bob).get(url).status_code == 409, "bob is to move: nothing to plan"
    assert logged_in(None).get(url).status_code == 403


def test_a_player_with_no_plan_costs_the_page_no_look_for_one(bob_to_move, alice):
    """The seats are read with the time their plan last changed: without one, no plan is looked for."""
    client = logged_in(alice)
    with CaptureQueriesContext(connection) as queries:
        assert 'data-testid="forecast"' in page(client, bob_to_move), "the box is there, empty"
    assert not [q for q in queries if 'FROM "games_forecast"' in q["sql"]]
    services.forecast_save(match_id=bob_to_move.pk, user=alice, lines=[[BOB_FIRST, ALICE_REPLY]])
    assert ALICE_REPLY in page(client, bob_to_move)
