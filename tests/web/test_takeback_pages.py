"""Takebacks on the match page: the button for the player who may ask, the request with Accept and
Refuse for the others, Withdraw for the asker; the open page hears of a request through its poll."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from games import services
from games.models import Match, Move, Takeback
from tests.conftest import PASSWORD

# Transactions commit for real: the cached live keys move on when a change commits (games/livekeys.py).
pytestmark = pytest.mark.django_db(transaction=True)

ETAG = re.compile(r'id="live" hidden data-url="[^"]+" data-etag="([^"]+)"')


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def logged_in(user) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def alice_just_moved(started_match, **kwargs) -> Match:
    """Wall Go, alice (seat 0) against bob: alice has just made her second move; bob is to move."""
    match = started_match(**kwargs)
    while True:
        match.refresh_from_db()
        engine = match.engine
        (actor,) = engine.actors(match.engine_state)
        seat = match.seats.select_related("user").get(position=actor)
        move = engine.legal_moves(match.engine_state, actor)[0]
        services.move_play(match_id=match.pk, user=seat.user, expected_version=match.version, move=move)
        match.refresh_from_db()
        if actor == 0 and match.log_length > 1 and 1 in engine.actors(match.engine_state):
            return match


def page(client: Client, match: Match) -> str:
    return client.get(match.get_absolute_url()).content.decode()


def test_the_player_who_just_moved_sees_the_button_and_nobody_else(started_match, alice, bob, client):
    match = alice_just_moved(started_match, rated=False)
    assert "Take back my last move" in page(logged_in(alice), match)
    assert "Take back my last move" not in page(logged_in(bob), match)
    assert "Take back my last move" not in page(client, match)


def test_a_rated_match_shows_no_button_unless_takebacks_were_allowed(started_match, alice):
    assert "Take back my last move" not in page(logged_in(alice), alice_just_moved(started_match))
    allowed = alice_just_moved(started_match, allow_takebacks=True)
    assert "Take back my last move" in page(logged_in(alice), allowed)


def test_asking_then_accepting_on_the_page_takes_the_move_back(started_match, alice, bob):
    match = alice_just_moved(started_match, rated=False)
    move = Move.objects.filter(match=match).order_by("seq").last()
    ann, ben = logged_in(alice), logged_in(bob)
    response = ann.post(reverse("takeback-ask", args=[match.pk]), {"version": match.version}, follow=True)
    assert "You asked to take back your last move." in response.content.decode()
    mine = page(ann, match)
    assert "Waiting for bob to answer." in mine and 'data-testid="takeback-withdraw"' in mine
    theirs = page(ben, match)
    assert f"asks to take back the move <strong>{move.notation}</strong>" in theirs
    assert 'data-testid="takeback-accept"' in theirs and 'data-testid="takeback-refuse"' in theirs
    request = Takeback.objects.get(match=match)
    response = ben.post(
        reverse("takeback-answer", args=[match.pk]), {"request": request.pk, "answer": "accept"}, follow=True
    )
    body = response.content.decode()
    assert "You accepted: the move was taken back." in body
    assert f"alice took back &#x27;{move.notation}&#x27; (bob agreed)." in body
    assert 'data-testid="takeback"' not in body


def test_a_refusal_and_a_withdrawal_on_the_page(started_match, alice, bob):
    match = alice_just_moved(started_match, rated=False)
    ann, ben = logged_in(alice), logged_in(bob)
    ann.post(reverse("takeback-ask", args=[match.pk]), {"version": match.version})
    first = Takeback.objects.get(match=match)
    response = ann.post(reverse("takeback-withdraw", args=[match.pk]), {"request": first.pk}, follow=True)
    assert "You withdrew your request." in response.content.decode()
    ann.post(reverse("takeback-ask", args=[match.pk]), {"version": match.version})
    second = Takeback.objects.get(match=match, status=Takeback.Status.OPEN)
    # An answer to the withdrawn request does not answer the new one.
    response = ben.post(
        reverse("takeback-answer", args=[match.pk]), {"request": first.pk, "answer": "accept"}, follow=True
    )
    assert "withdrawn" in response.content.decode()
    response = ben.post(
        reverse("takeback-answer", args=[match.pk]), {"request": second.pk, "answer": "refuse"}, follow=True
    )
    assert "You refused: the move stands." in response.content.decode()
    assert "Take back my last move" not in page(ann, match)


def test_bad_form_data_changes_nothing_and_says_so(started_match, alice, bob):
    match = alice_just_moved(started_match, rated=False)
    form = "application/x-www-form-urlencoded"
    for name, body in (
        ("takeback-ask", "version=x%00"),
        ("takeback-answer", "request=1&answer=maybe"),
        # A lone surrogate, as a hostile client may send it.
        ("takeback-withdraw", "request=%ED%A0%80"),
    ):
        response = logged_in(alice).post(reverse(name, args=[match.pk]), body, content_type=form, follow=True)
        assert response.status_code == 200
        assert "That form is out of date" in response.content.decode()
    assert not Takeback.objects.exists()


def test_the_other_player_s_open_page_hears_of_the_request_through_its_poll(started_match, alice, bob):
    match = alice_just_moved(started_match, rated=False)
    ben = logged_in(bob)
    etag = ETAG.search(page(ben, match)).group(1).replace("&quot;", '"')
    assert ben.get(reverse("match-live", args=[match.pk]), HTTP_IF_NONE_MATCH=etag).status_code == 304
    services.takeback_ask(match_id=match.pk, user=alice)
    response = ben.get(reverse("match-live", args=[match.pk]), HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert 'data-testid="takeback-accept"' in response.json()["parts"]["takeback"]


def test_the_new_match_form_allows_takebacks_in_a_rated_match(alice):
    client = logged_in(alice)
    assert "Allow takebacks in this rated match" in client.get(reverse("match-create")).content.decode()
    data = {
        "game": "wallgo",
        "seat_count": "2",
        "move_time": "3",
        "move_time_unit": "days",
        "rated": "on",
        "allow_takebacks": "on",
    }
    client.post(reverse("match-create"), data)
    match = Match.objects.get()
    assert match.rated and match.allow_takebacks and match.takebacks_on
