from __future__ import annotations

import re

import pytest
from django.core import mail
from django.urls import reverse

from games import services
from games.models import Match, Move
from tests.conftest import PASSWORD, play_random

pytestmark = pytest.mark.django_db


@pytest.fixture
def as_alice(client, alice):
    client.force_login(alice)
    return client


def test_the_lobby_lists_open_matches(client, alice):
    services.match_create(creator=alice, game="wallgo", seat_count=2, name="Come and play")
    page = client.get(reverse("lobby"))
    assert page.status_code == 200
    assert "Come and play" in page.content.decode()


def test_creating_a_match_from_the_form(as_alice):
    response = as_alice.post(
        reverse("match-create"),
        {
            "game": "wallgo",
            "seat_count": 3,
            "name": "Trio",
            "move_time": 2,
            "move_time_unit": "days",
            "opt_wallgo_rules": "devils_plan",
            "opt_wallgo_placement": "round_robin",
        },
    )
    match = Match.objects.get()
    assert response.status_code == 302 and response["Location"] == match.get_absolute_url()
    assert match.options == {"rules": "devils_plan", "placement": "round_robin"}
    assert match.move_time_limit.days == 2 and match.seat_count == 3


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({"game": "wallgo", "seat_count": 6, "move_time_unit": "days"}, "2 to 4 players"),
        ({"game": "nope", "seat_count": 2, "move_time_unit": "days"}, "Select a valid choice"),
        ({"game": "wallgo", "seat_count": "two", "move_time_unit": "days"}, "Enter a whole number"),
        (
            {"game": "wallgo", "seat_count": 2, "move_time_unit": "days", "name": "Right\u202eto left"},
            "A name is one line of text; this one holds U+202E",
        ),
        (
            {"game": "wallgo", "seat_count": 2, "move_time_unit": "days", "opt_wallgo_rules": "x"},
            "valid choice",
        ),
    ],
)
def test_the_create_form_shows_why_it_refuses(as_alice, data, reason):
    response = as_alice.post(reverse("match-create"), data)
    assert response.status_code == 400
    assert reason in response.content.decode()
    assert not Match.objects.exists()


def test_creating_needs_a_login(client):
    response = client.get(reverse("match-create"))
    assert response.status_code == 302 and reverse("login") in response["Location"]


def test_joining_fills_the_table_and_starts_the_match(client, alice, bob):
    match = services.match_create(creator=alice, game="wallgo", seat_count=2)
    client.force_login(bob)
    response = client.post(reverse("match-join", args=[match.pk]), follow=True)
    assert "You have joined." in response.content.decode()
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE


def test_joining_a_full_match_shows_a_message_and_changes_nothing(client, started_match, carol):
    match = started_match()
    client.force_login(carol)
    response = client.post(reverse("match-join", args=[match.pk]), follow=True)
    assert "no longer open" in response.content.decode()
    assert match.seats.count() == 2


def test_the_player_to_move_sees_a_clickable_board_and_the_move_form(client, started_match, alice):
    match = started_match()
    client.force_login(alice)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "Your move." in page
    assert 'data-target="sq-d4"' in page
    assert 'id="legal-moves"' in page and '"text": "d4"' in page
    assert 'name="version" value="0"' in page


def test_the_players_table_names_its_columns_for_screen_readers(client, started_match):
    page = client.get(started_match().get_absolute_url()).content.decode()
    table = re.search(r'<table class="seats".*?</table>', page, re.S).group(0)
    headers = re.findall(r'<th scope="col">([^<]+)</th>', table)
    assert headers == ["Colour", "Player", "Status", "Rank"]
    body = table.split("<tbody>", 1)[1]
    rows = re.findall(r"<tr.*?</tr>", body, re.S)
    assert len(rows) == 2 and all(row.count("<td") == len(headers) for row in rows)


def test_a_spectator_sees_the_board_but_no_move_form(client, started_match, carol):
    match = play_random(started_match(), moves=10)
    for viewer in (None, carol):
        if viewer:
            client.force_login(viewer)
        page = client.get(match.get_absolute_url()).content.decode()
        assert "<svg" in page
        assert 'id="move-form"' not in page and 'id="legal-moves"' not in page
        assert "data-target" not in page


def test_the_waiting_player_sees_no_move_form(client, started_match, bob):
    match = started_match()
    client.force_login(bob)
    page = client.get(match.get_absolute_url()).content.decode()
    assert "Waiting for the other players." in page and 'id="move-form"' not in page


def test_a_move_posted_in_notation_is_played(as_alice, started_match):
    match = started_match()
    response = as_alice.post(
        reverse("match-move", args=[match.pk]), {"move": "d4", "version": 0}, follow=True
    )
    assert "Played d4." in response.content.decode()
    assert Move.objects.get(match=match).notation == "d4"


@pytest.mark.parametrize(
    ("data", "status", "reason"),
    [
        ({"move": "h9", "version": 0}, 400, "h9"),
        ({"move": "b2-c3/c3n", "version": 0}, 400, "First place your tokens"),
        ({"move": "d4", "version": 7}, 409, "moved on"),
        ({"move": "d4"}, 400, "This field is required"),
        ({"move": "d4", "version": "x"}, 400, "Enter a whole number"),
        ({"version": 0}, 400, "This field is required"),
    ],
)
def test_a_bad_move_shows_its_reason_and_changes_nothing(as_alice, started_match, data, status, reason):
    match = started_match()
    response = as_alice.post(reverse("match-move", args=[match.pk]), data)
    assert response.status_code == status
    body = response.content.decode()
    assert 'role="alert"' in body and reason in body
    match.refresh_from_db()
    assert match.version == 0 and not Move.objects.filter(match=match).exists()


def test_moving_out_of_turn_shows_the_reason(client, started_match, bob):
    match = started_match()
    client.force_login(bob)
    response = client.post(reverse("match-move", args=[match.pk]), {"move": "d4", "version": 0})
    assert response.status_code == 400 and "It is not your turn." in response.content.decode()


@pytest.mark.parametrize("name", ["match-detail", "match-board", "match-join", "match-move", "match-resign"])
def test_a_missing_match_is_a_404_not_a_500(as_alice, name):
    url = reverse(name, args=[987654])
    response = (
        as_alice.post(url, {"move": "d4", "version": 0}) if name != "match-detail" else as_alice.get(url)
    )
    if name == "match-board":
        response = as_alice.get(url)
    assert response.status_code == 404


def test_get_on_a_post_only_url_is_refused(as_alice, started_match):
    match = started_match()
    assert as_alice.get(reverse("match-move", args=[match.pk])).status_code == 405


def test_resigning_from_the_page(as_alice, started_match):
    match = started_match()
    response = as_alice.post(reverse("match-resign", args=[match.pk]), follow=True)
    page = response.content.decode()
    assert "You resigned." in page and "bob wins" in page


def test_the_board_svg_is_served_for_the_viewer(client, started_match):
    match = play_random(started_match(), moves=4)
    response = client.get(reverse("match-board", args=[match.pk]))
    assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
    assert response.content.startswith(b"<svg")


def test_my_matches_lists_matches_awaiting_my_move_first_and_the_header_counts_them(
    client, alice, bob, carol
):
    waiting = services.match_create(creator=alice, game="wallgo", seat_count=2, name="Not started")
    mine = services.match_create(creator=bob, game="wallgo", seat_count=2, name="Alice to move")
    services.seat_join(match_id=mine.pk, user=alice)
    services.move_play(match_id=mine.pk, user=bob, expected_version=0, text="a1")
    theirs = services.match_create(creator=alice, game="wallgo", seat_count=2, name="Carol to move")
    services.seat_join(match_id=theirs.pk, user=carol)
    services.move_play(match_id=theirs.pk, user=alice, expected_version=0, text="a1")
    client.force_login(alice)
    page = client.get(reverse("my-matches")).content.decode()
    order = [page.index(name) for name in ("Alice to move", "Carol to move", "Not started")]
    assert order == sorted(order)
    assert re.search(r'data-testid="awaiting-badge">1<', page)
    assert waiting.pk


def test_sign_up_log_out_and_log_in(client, django_user_model):
    response = client.post(
        reverse("signup"),
        {"username": "newcomer", "email": "new@example.com", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302
    assert django_user_model.objects.filter(username="newcomer").exists()
    assert client.get(reverse("my-matches")).status_code == 200
    client.post(reverse("logout"))
    assert client.get(reverse("my-matches")).status_code == 302
    response = client.post(reverse("login"), {"username": "newcomer", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == reverse("my-matches")


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({"username": "alice", "email": "x@example.com"}, "That name is taken."),
        ({"username": "newbie", "email": "alice@example.com"}, "already exists"),
        ({"username": "bad name!", "email": "n@example.com"}, "Enter a valid username"),
        ({"username": "newbie", "email": "not-an-email"}, "Enter a valid email address"),
    ],
)
def test_sign_up_shows_why_it_refuses(client, alice, data, reason):
    response = client.post(reverse("signup"), {**data, "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 400
    assert reason in response.content.decode()


def test_a_wrong_password_does_not_log_in(client, alice):
    response = client.post(reverse("login"), {"username": "alice", "password": "wrong"})
    assert response.status_code == 200 and "correct username and password" in response.content.decode()


def test_password_reset_by_e_mail(client, alice):
    client.post(reverse("password_reset"), {"email": "alice@example.com"})
    assert len(mail.outbox) == 1
    link = re.search(r"https?://[^/]+(/accounts/reset/\S+)", mail.outbox[0].body).group(1)
    form_page = client.get(link, follow=True)
    assert form_page.status_code == 200
    new = "another-long-password-77"
    client.post(form_page.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert client.login(username="alice", password=new)


def test_the_profile_lists_a_players_matches(client, started_match, alice):
    match = started_match(name="Profile match")
    page = client.get(reverse("profile", args=["alice"]))
    assert page.status_code == 200 and "Profile match" in page.content.decode()
    assert client.get(reverse("profile", args=["nobody"])).status_code == 404
    assert match.pk
