"""A match page or My matches the browser already holds is answered 304, without being drawn, while
nothing it shows has changed (games/views.py, "whole pages answered 304"); anything it shows changing,
another viewer, the next minute or a flash message to show draws it again."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Match, Seat
from tests.conftest import play_random
from tests.support.forecasting import ALICE_REPLY, BOB_FIRST

pytestmark = pytest.mark.django_db

NOON = datetime(2026, 3, 3, 12, 0, 5, tzinfo=UTC)


@pytest.fixture
def clock():
    """A clock that stands still unless a test moves it: the pages' tags name the minute."""
    with time_machine.travel(NOON, tick=False) as traveller:
        yield traveller


def address(match: Match) -> str:
    return reverse("match-detail", args=[match.pk])


def held(client: Client, url: str) -> str:
    """Load the page as a browser does until it holds a copy with a tag (the first load of a new
    browser sets the CSRF cookie its forms need, so the tag of the copy after it is the one kept)."""
    client.get(url)
    response = client.get(url)
    assert response.status_code == 200
    assert response.has_header("ETag"), "a page without a flash message has a tag"
    return response["ETag"]


def again(client: Client, url: str, tag: str):
    return client.get(url, HTTP_IF_NONE_MATCH=tag)


def test_an_unchanged_match_page_is_a_304_that_draws_nothing(client, started_match, alice, clock):
    match = play_random(started_match(), moves=3)
    client.force_login(alice)
    tag = held(client, address(match))
    with CaptureQueriesContext(connection) as queries:
        answer = again(client, address(match), tag)
    assert answer.status_code == 304
    assert answer.content == b""
    assert not answer.templates, "nothing is rendered for a 304"
    tables = " ".join(q["sql"] for q in queries)
    for table in ("games_move", "games_turn", "games_hiddenhand"):
        assert f'"{table}"' not in tables, f"{table} was read for a 304"


def test_the_browser_is_told_to_ask_every_time_and_to_keep_the_page_to_itself(client, started_match, alice):
    match = started_match()
    client.force_login(alice)
    for url in (address(match), reverse("my-matches")):
        control = {part.strip() for part in client.get(url)["Cache-Control"].split(",")}
        assert {"private", "no-cache"} <= control, url


def test_a_move_draws_the_page_again_for_both_players(
    client, started_match, alice, bob, clock, django_capture_on_commit_callbacks
):
    match = play_random(started_match(), moves=2)
    other = Client()
    client.force_login(alice)
    other.force_login(bob)
    tags = {alice.pk: held(client, address(match)), bob.pk: held(other, address(match))}
    with django_capture_on_commit_callbacks(execute=True):  # the live keys move on as the move commits
        play_random(match, moves=1)
    for browser, user in ((client, alice), (other, bob)):
        answer = again(browser, address(match), tags[user.pk])
        assert answer.status_code == 200, user.username
        assert answer["ETag"] != tags[user.pk]
        assert again(browser, address(match), answer["ETag"]).status_code == 304


def test_a_tag_confirms_its_own_viewers_copy_only(client, started_match, alice, bob, clock):
    match = play_random(started_match(), moves=3)
    client.force_login(alice)
    tag = held(client, address(match))
    bobs = Client()
    bobs.force_login(bob)
    for browser in (bobs, Client()):  # the other seat, and a spectator
        answer = again(browser, address(match), tag)
        assert answer.status_code == 200
        assert "legal-moves" not in answer.content.decode(), "alice's board, with her moves, was sent"


def test_a_copy_is_not_taken_again_after_the_minute_it_was_made_in(client, started_match, alice, clock):
    """The page says "due in 2 days, 3 hours": a copy of another minute may say something else."""
    match = started_match(move_time_limit=timedelta(days=3))
    client.force_login(alice)
    tag = held(client, address(match))
    clock.shift(timedelta(seconds=50))
    assert again(client, address(match), tag).status_code == 304
    clock.shift(timedelta(seconds=10))
    assert again(client, address(match), tag).status_code == 200


def test_a_flash_message_is_shown_once_and_its_page_has_no_tag(client, started_match, alice, clock):
    match = started_match()
    client.force_login(alice)
    tag = held(client, address(match))
    refused = client.post(reverse("chat-post", args=[match.pk]), {"text": "   "})
    assert refused.status_code == 302
    shown = again(client, address(match), tag)
    assert shown.status_code == 200, "a page with a message to show is drawn"
    assert not shown.has_header("ETag")
    shown_texts = [str(message) for message in shown.context["messages"]]
    assert shown_texts, "the refusal is shown"
    assert all(text in shown.content.decode() for text in shown_texts)
    # Shown once: the copy before it is good again, since nothing else changed.
    assert again(client, address(match), tag).status_code == 304


def test_a_load_answered_304_still_counts_as_a_visit(client, started_match, alice, clock):
    match = started_match()
    client.force_login(alice)
    tag = held(client, address(match))
    long_ago = timezone.now() - timedelta(hours=2)
    Seat.objects.filter(match=match, user=alice).update(last_seen_at=long_ago)
    assert again(client, address(match), tag).status_code == 304
    assert Seat.objects.get(match=match, user=alice).last_seen_at == timezone.now()


def test_a_player_back_from_the_computer_is_welcomed_even_with_a_good_copy(
    client, started_match, alice, clock
):
    match = started_match()
    client.force_login(alice)
    tag = held(client, address(match))
    Seat.objects.filter(match=match, user=alice).update(autopilot=True)
    answer = again(client, address(match), tag)
    assert answer.status_code == 200
    assert "Welcome back" in answer.content.decode()
    assert not Seat.objects.get(match=match, user=alice).autopilot


def test_a_plan_changed_elsewhere_draws_the_page_again(client, bob_to_move, alice, clock):
    """Conditional moves saved over the API change what only their owner's page shows."""
    match = bob_to_move
    client.force_login(alice)
    tag = held(client, address(match))
    services.forecast_save(match_id=match.pk, user=alice, lines=[[BOB_FIRST, ALICE_REPLY]])
    answer = again(client, address(match), tag)
    assert answer.status_code == 200
    assert ALICE_REPLY in answer.content.decode()


def test_a_new_time_zone_draws_the_page_again(client, started_match, alice, clock):
    match = started_match(move_time_limit=timedelta(days=3))
    client.force_login(alice)
    tag = held(client, address(match))
    alice.time_zone = "Asia/Tokyo"
    alice.save(update_fields=["time_zone"])
    assert again(client, address(match), tag).status_code == 200


def test_my_matches_is_a_304_until_one_of_the_matches_changes(
    client, started_match, alice, clock, django_capture_on_commit_callbacks
):
    match = started_match()
    client.force_login(alice)
    url = reverse("my-matches")
    tag = held(client, url)
    with CaptureQueriesContext(connection) as queries:
        answer = again(client, url, tag)
    assert answer.status_code == 304
    assert not answer.templates
    # The user's matches' key comes from the cache: the session and the user are all a 304 reads.
    assert not [q["sql"] for q in queries if '"games_match"' in q["sql"]]
    with django_capture_on_commit_callbacks(execute=True):
        play_random(match, moves=1)
    assert again(client, url, tag).status_code == 200


def test_my_matches_shows_a_match_created_left_or_handed_over_at_the_next_load(
    client, alice, bob, carol, clock, django_capture_on_commit_callbacks
):
    """The services that seat a player or unseat one without the match's other players noticing move
    the player's own key on: My matches is drawn again at once, not when the cached key expires."""
    client.force_login(alice)
    url = reverse("my-matches")
    tag = held(client, url)
    with django_capture_on_commit_callbacks(execute=True):
        table = services.match_create(creator=alice, game="wallgo", seat_count=2, name="Alice's table")
    answer = again(client, url, tag)
    assert answer.status_code == 200 and "Alice&#x27;s table" in answer.content.decode()
    tag = answer["ETag"]
    with django_capture_on_commit_callbacks(execute=True):
        services.seat_leave(match_id=table.pk, user=alice)
    answer = again(client, url, tag)
    assert answer.status_code == 200 and "Alice&#x27;s table" not in answer.content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        match = services.match_create(creator=alice, game="wallgo", seat_count=2, name="Handed over")
        services.seat_join(match_id=match.pk, user=bob)
    tag = held(client, url)
    assert "Handed over" in client.get(url).content.decode()
    carols = Client()
    carols.force_login(carol)
    carols_tag = held(carols, url)
    with django_capture_on_commit_callbacks(execute=True):
        services.seat_hand_over(match_id=match.pk, position=0, reason="Alice asked for it.", user=carol)
    answer = again(client, url, tag)
    assert answer.status_code == 200 and "Handed over" not in answer.content.decode()
    answer = again(carols, url, carols_tag)
    assert answer.status_code == 200 and "Handed over" in answer.content.decode()


def test_the_header_count_of_a_match_page_follows_the_players_other_matches(
    client, started_match, alice, clock, django_capture_on_commit_callbacks
):
    """The page's header counts the matches awaiting the player: another match's move changes it."""
    match = started_match()
    elsewhere = started_match()
    client.force_login(alice)
    tag = held(client, address(match))
    with django_capture_on_commit_callbacks(execute=True):
        play_random(elsewhere, moves=1)
    assert again(client, address(match), tag).status_code == 200


def test_a_refused_plan_line_is_shown_even_with_a_good_copy(client, bob_to_move, alice, clock):
    """A refused line comes back to the box with its reason, which waits in the session: no 304 then."""
    match = bob_to_move
    client.force_login(alice)
    tag = held(client, address(match))
    sent = client.post(
        reverse("match-forecast", args=[match.pk]), {"line": f"{BOB_FIRST} zz99", "version": match.version}
    )
    assert sent.status_code == 302
    answer = again(client, address(match), tag)
    assert answer.status_code == 200
    assert "zz99" in answer.content.decode()
    assert again(client, address(match), tag).status_code == 304, "shown once"


def test_the_tag_is_weak_since_two_drawings_differ_in_bytes(client, started_match, alice, clock):
    match = started_match()
    client.force_login(alice)
    tag = held(client, address(match))
    assert tag.startswith('W/"'), tag
    assert again(client, address(match), tag).status_code == 304
