"""An open match page and My matches follow their matches by polling: an unchanged poll is a 304 that
costs at most two queries, and a changed one carries the page's parts as the viewer may see them."""

from __future__ import annotations

import json
import random
import re
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from chat import services as chat_services
from games import presence, services
from games.engines import registry
from games.models import Match, Seat
from tests.conftest import play_random
from tests.web.test_secrets import SECRET_GAMES, advance, redeal_hidden

# Transactions commit for real: the cached live keys move on when a change commits (games/livekeys.py).
pytestmark = pytest.mark.django_db(transaction=True)

ETAG = re.compile(r'id="live" hidden data-url="[^"]+" data-etag="([^"]+)" data-board-key="([^"]+)"')
CSRF = re.compile(r'(name="csrfmiddlewaretoken" value=)"[A-Za-z0-9]+"')


@pytest.fixture(autouse=True)
def fresh_cache():
    """Each test starts with an empty cache: match ids come round again from one test to the next."""
    cache.clear()
    yield
    cache.clear()


def live_url(match: Match) -> str:
    return reverse("match-live", args=[match.pk])


def page_keys(client: Client, match: Match) -> tuple[str, str]:
    """The ETag and board key the match page embeds for its first poll."""
    page = client.get(match.get_absolute_url()).content.decode()
    found = ETAG.search(page)
    assert found, "the page embeds no live keys"
    return found.group(1).replace("&quot;", '"'), found.group(2)


def poll(client: Client, match: Match, etag: str | None = None, board: str = "", log: str = ""):
    """A poll as static/js/live.js sends it: the ETag, and the board's key and the log's length it has."""
    headers = {"HTTP_IF_NONE_MATCH": etag} if etag else {}
    if board:
        headers["HTTP_X_LIVE_BOARD"] = board
    if log:
        headers["HTTP_X_LIVE_LOG"] = log
    return client.get(live_url(match), **headers)


def unchanged_poll_queries(client: Client, match: Match, etag: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = poll(client, match, etag)
    assert response.status_code == 304, response.status_code
    return len(queries)


@pytest.fixture
def as_alice(client, alice):
    client.force_login(alice)
    return client


def test_an_unchanged_poll_is_a_304_after_at_most_two_queries(as_alice, started_match):
    match = play_random(started_match(), moves=3)
    etag, _ = page_keys(as_alice, match)
    assert unchanged_poll_queries(as_alice, match, etag) <= 2
    # Again and again: nothing is written by a poll, so nothing changes its answer.
    assert unchanged_poll_queries(as_alice, match, etag) <= 2


def test_once_its_key_is_cached_an_unchanged_poll_reads_no_row_at_all(as_alice, started_match):
    match = started_match()
    etag, _ = page_keys(as_alice, match)
    poll(as_alice, match, etag)  # the first poll caches the match's key (games/livekeys.py)
    assert unchanged_poll_queries(as_alice, match, etag) == 0


def test_a_spectator_s_unchanged_poll_is_a_304_too(client, started_match):
    match = started_match()
    etag, _ = page_keys(client, match)
    assert unchanged_poll_queries(client, match, etag) <= 2


def test_the_tag_belongs_to_the_viewer(client, started_match, alice, bob):
    match = started_match()
    client.force_login(alice)
    alices, _ = page_keys(client, match)
    other = Client()
    other.force_login(bob)
    # Bob's page differs from alice's (it is not his move): her tag is no good for his poll.
    assert poll(other, match, alices).status_code == 200


def test_a_move_changes_the_poll_and_brings_the_board_the_log_and_the_status(
    client, started_match, alice, bob
):
    match = started_match()
    client.force_login(bob)
    etag, board_key = page_keys(client, match)
    services.move_play(
        match_id=match.pk, user=match.seats.get(position=0).user, expected_version=0, text="d4"
    )
    response = poll(client, match, etag, board=board_key, log="0")
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-cache" and response["ETag"] != etag
    data = response.json()
    assert data["version"] == 1 and data["my_turn"] is True
    parts = data["parts"]
    assert "Your move." in parts["head"]
    assert 'id="move-form"' in parts["board"] and 'id="legal-moves"' in parts["board"]
    assert "d4" in parts["log"]
    assert set(parts) >= {"head", "seats", "panel", "buttons", "chat", "badge", "board", "log"}
    # The new tag answers 304 until the next change, and that answer too is the viewer's own.
    unchanged = poll(client, match, response["ETag"])
    assert unchanged.status_code == 304 and unchanged["Cache-Control"] == "private, no-cache"


def test_the_board_and_the_log_come_only_when_they_changed(as_alice, started_match, alice):
    match = started_match()
    etag, board_key = page_keys(as_alice, match)
    chat_services.message_post(match_id=match.pk, user=alice, text="Good luck!")
    parts = poll(as_alice, match, etag, board=board_key, log="0").json()["parts"]
    assert "board" not in parts and "log" not in parts
    assert "Good luck!" in parts["chat"]


def test_a_chat_message_changes_the_poll(client, started_match, alice, bob):
    match = started_match()
    client.force_login(bob)
    etag, board_key = page_keys(client, match)
    chat_services.message_post(match_id=match.pk, user=alice, text="Your move, Bob.")
    response = poll(client, match, etag, board=board_key, log="0")
    assert response.status_code == 200
    assert "Your move, Bob." in response.json()["parts"]["chat"]


def test_a_chat_message_sent_by_the_page_s_script_is_answered_in_json(as_alice, started_match):
    url = reverse("chat-post", args=[started_match().pk])
    sent = as_alice.post(url, {"text": "Hello"}, HTTP_ACCEPT="application/json")
    assert sent.status_code == 201 and sent.json()["detail"]
    refused = as_alice.post(url, {"text": "   "}, HTTP_ACCEPT="application/json")
    assert refused.status_code == 400 and refused.json() == {"detail": "Write a message first."}
    missing = as_alice.post("/matches/987654/chat/", {"text": "Hi"}, HTTP_ACCEPT="application/json")
    assert missing.status_code == 404 and missing.json()["detail"]


def test_a_join_changes_the_poll_of_an_open_match(client, alice, bob, carol):
    match = services.match_create(creator=alice, game="wallgo", seat_count=3)
    client.force_login(alice)
    etag, board_key = page_keys(client, match)
    services.seat_join(match_id=match.pk, user=bob)
    response = poll(client, match, etag, board=board_key, log="0")
    assert response.status_code == 200
    parts = response.json()["parts"]
    assert "Waiting for players (2/3)." in parts["head"] and "bob" in parts["seats"]
    # Leaving changes it too, and the table filling starts the match: the board comes.
    etag = response["ETag"]
    services.seat_leave(match_id=match.pk, user=bob)
    assert poll(client, match, etag).status_code == 200
    services.seat_join(match_id=match.pk, user=bob)
    services.seat_join(match_id=match.pk, user=carol)
    parts = poll(client, match, etag, board=board_key).json()["parts"]
    assert "<svg" in parts["board"] and "Your move." in parts["head"]


def test_a_deadline_extension_changes_the_poll(client, started_match, alice):
    match = started_match(move_time_limit=timedelta(days=1))
    client.force_login(alice)
    etag, board_key = page_keys(client, match)
    before = poll(client, match, None, board=board_key).json()["parts"]["head"]
    services.turn_extend(match_id=match.pk, position=0, by=timedelta(days=2), reason="Travelling.")
    response = poll(client, match, etag, board=board_key, log="0")
    assert response.status_code == 200
    parts = response.json()["parts"]
    assert 'data-testid="my-deadline"' in parts["head"] and parts["head"] != before
    assert "Travelling." in parts["log"] and "board" not in parts


def test_the_end_of_the_match_changes_the_poll_and_offers_a_rematch(client, started_match, alice, bob):
    match = started_match()
    client.force_login(bob)
    etag, board_key = page_keys(client, match)
    services.match_resign(match_id=match.pk, user=alice)
    response = poll(client, match, etag, board=board_key, log="0")
    assert response.status_code == 200
    data = response.json()
    assert data["status"] == "finished"
    assert "bob wins" in data["parts"]["head"] and 'data-testid="rematch-offer"' in data["parts"]["head"]
    assert "resigns" in data["parts"]["log"] and "board" in data["parts"]
    assert 'data-testid="resign"' not in data["parts"]["buttons"]


def test_a_player_returning_to_a_seat_the_computer_kept_changes_the_poll(client, started_match, alice, bob):
    match = started_match()
    Seat.objects.filter(match=match, user=alice).update(autopilot=True)
    client.force_login(bob)
    etag, _ = page_keys(client, match)
    assert presence.seat_return(match_id=match.pk, user=alice)
    parts = poll(client, match, etag).json()["parts"]
    assert 'data-testid="autopilot"' not in parts["seats"]


def test_a_poll_of_no_match_is_a_404_with_a_reason(client):
    for match_id in (987654, 2**63):
        response = client.get(f"/matches/{match_id}/live/")
        assert response.status_code == 404
        assert response.json() == {"detail": "There is no such match."}


def test_a_poll_answers_get_only(as_alice, started_match):
    assert as_alice.post(live_url(started_match())).status_code == 405


@pytest.mark.parametrize("slug", SECRET_GAMES)
def test_a_seat_s_parts_never_hold_another_seat_s_hand(slug, make_user):
    """The parts of one seat's poll are the same bytes whatever the other hands and the deck hold."""
    engine = registry.get_engine(slug)
    users = [make_user(f"{slug}-{k}") for k in range(engine.min_players)]
    match = services.match_create(creator=users[0], game=slug, seat_count=len(users))
    for user in users[1:]:
        services.seat_join(match_id=match.pk, user=user)
    match = advance(match, steps=12, rng=random.Random(f"live-{slug}"))
    clients = []
    for user in users:
        client = Client()
        client.force_login(user)
        clients.append(client)
    checked = 0
    for position, client in enumerate(clients):

        def parts(client: Client = client) -> str:
            # The CSRF token is masked afresh on every answer; nothing else may change.
            data = poll(client, match).json()
            return json.dumps({name: CSRF.sub("csrf", html) for name, html in data["parts"].items()})

        before = parts()
        assert '"board"' in before and "<svg" in before  # the whole page's worth, board included
        if redeal_hidden(match, engine, position, random.Random(position), decks_too=True):
            assert parts() == before, f"seat {position}'s parts depend on what it may not know"
            checked += 1
    assert checked, "nothing could be re-dealt: the test proved nothing"


# --- My matches and the header's badge ------------------------------------------------------------------


def mine_poll(client: Client, etag: str | None = None, **query: str):
    headers = {"HTTP_IF_NONE_MATCH": etag} if etag else {}
    return client.get(reverse("my-matches-live"), query, **headers)


def test_my_matches_poll_is_a_304_after_at_most_two_queries_until_a_match_changes(
    as_alice, started_match, alice
):
    match = started_match()
    first = mine_poll(as_alice, table="1")
    assert first.status_code == 200
    with CaptureQueriesContext(connection) as queries:
        assert mine_poll(as_alice, first["ETag"], table="1").status_code == 304
    assert len(queries) <= 2
    services.move_play(
        match_id=match.pk, user=match.seats.get(position=0).user, expected_version=0, text="d4"
    )
    changed = mine_poll(as_alice, first["ETag"], table="1")
    assert changed.status_code == 200
    parts = changed.json()["parts"]
    assert "bob" in parts["table"] and "to move" in parts["table"]
    assert 'data-testid="awaiting-badge"' not in parts["badge"]


def test_my_matches_embeds_the_tag_of_its_first_poll(as_alice, started_match):
    started_match()
    page = as_alice.get(reverse("my-matches")).content.decode()
    found = re.search(r'id="live-table" data-live="table" data-etag="([^"]+)"', page)
    assert found
    assert mine_poll(as_alice, found.group(1).replace("&quot;", '"'), table="1").status_code == 304


def test_the_badge_follows_a_move_that_makes_it_my_turn(as_alice, started_match, alice, bob):
    match = started_match()
    services.move_play(
        match_id=match.pk, user=match.seats.get(position=0).user, expected_version=0, text="d4"
    )
    etag = mine_poll(as_alice)["ETag"]
    # Placement goes in snake order (alice, bob, bob, alice ...): two of bob's and it is alice's turn.
    services.move_play(match_id=match.pk, user=bob, expected_version=1, text="c3")
    assert mine_poll(as_alice, etag).status_code == 200
    services.move_play(match_id=match.pk, user=bob, expected_version=2, text="e5")
    badge = mine_poll(as_alice, etag).json()["parts"]["badge"]
    assert re.search(r'data-testid="awaiting-badge">1<', badge)


def test_my_matches_poll_needs_a_login(client):
    response = mine_poll(client)
    assert response.status_code == 403 and response.json()["detail"]


def test_my_matches_names_who_is_to_move_and_the_deadline_in_every_row(client, alice, bob, carol):
    to_move = services.match_create(
        creator=alice, game="wallgo", seat_count=2, name="Bob to move", move_time_limit=timedelta(days=2)
    )
    services.seat_join(match_id=to_move.pk, user=bob)
    services.move_play(match_id=to_move.pk, user=alice, expected_version=0, text="d4")
    mine = services.match_create(creator=carol, game="wallgo", seat_count=2, name="Mine to move")
    services.seat_join(match_id=mine.pk, user=alice)
    services.move_play(match_id=mine.pk, user=carol, expected_version=0, text="d4")
    client.force_login(alice)
    page = client.get(reverse("my-matches")).content.decode()
    rows = re.findall(r'<tr role="row".*?</tr>', page, re.S)
    bobs = next(row for row in rows if "Bob to move" in row)
    assert re.search(r'data-testid="row-status">.*<span class="name">bob</span> to move', bobs, re.S)
    assert "<time" in bobs.split('data-testid="deadline"')[1]
    mine_row = next(row for row in rows if "Mine to move" in row)
    assert "<strong>Your move</strong>" in mine_row and "no time limit" in mine_row


def test_my_matches_costs_the_same_queries_for_one_match_or_many(client, alice, bob):
    def cost() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse("my-matches")).status_code == 200
        return len(queries)

    client.force_login(alice)
    match = services.match_create(creator=alice, game="wallgo", seat_count=2)
    services.seat_join(match_id=match.pk, user=bob)
    one = cost()
    for _ in range(4):
        other = services.match_create(
            creator=bob, game="wallgo", seat_count=2, move_time_limit=timedelta(days=1)
        )
        services.seat_join(match_id=other.pk, user=alice)
    assert cost() == one


# --- what to do next ------------------------------------------------------------------------------------


def test_after_play_a_button_leads_to_the_next_match_waiting_for_the_player(as_alice, alice, bob, carol):
    first = services.match_create(creator=alice, game="wallgo", seat_count=2, name="First")
    services.seat_join(match_id=first.pk, user=bob)
    second = services.match_create(creator=carol, game="wallgo", seat_count=2, name="Second")
    services.seat_join(match_id=second.pk, user=alice)
    services.move_play(match_id=second.pk, user=carol, expected_version=0, text="d4")
    page = as_alice.post(reverse("match-move", args=[first.pk]), {"move": "d4", "version": 0}, follow=True)
    html = page.content.decode()
    assert "Played d4." in html
    assert re.search(
        rf'<a class="button" href="{second.get_absolute_url()}" data-testid="next-match">'
        r"Next match waiting for you: Second",
        html,
    )
    # Once that one is played too (placement goes in snake order: two of alice's), nothing waits.
    as_alice.post(reverse("match-move", args=[second.pk]), {"move": "c3", "version": 1})
    as_alice.post(reverse("match-move", args=[second.pk]), {"move": "e5", "version": 2})
    assert 'data-testid="next-match"' not in as_alice.get(first.get_absolute_url()).content.decode()


def test_the_next_match_waiting_is_looked_up_once_for_every_page_read_until_a_match_changes(
    as_alice, alice, bob, carol
):
    urgent = services.match_create(
        creator=alice, game="wallgo", seat_count=2, name="Urgent", move_time_limit=timedelta(hours=1)
    )
    services.seat_join(match_id=urgent.pk, user=bob)
    relaxed = services.match_create(creator=alice, game="wallgo", seat_count=2, name="Relaxed")
    services.seat_join(match_id=relaxed.pk, user=carol)
    waiting = services.match_create(creator=bob, game="wallgo", seat_count=2, name="Waiting")
    services.seat_join(match_id=waiting.pk, user=alice)
    also_waiting = services.match_create(creator=carol, game="wallgo", seat_count=2, name="Also")
    services.seat_join(match_id=also_waiting.pk, user=alice)

    def next_button(match: Match) -> tuple[str | None, int]:
        with CaptureQueriesContext(connection) as queries:
            html = as_alice.get(match.get_absolute_url()).content.decode()
        found = re.search(r'data-testid="next-match">Next match waiting for you: (\w+)', html)
        searches = sum("NULLS LAST" in q["sql"] for q in queries)  # turns_awaiting's order
        return (found.group(1) if found else None), searches

    # The two most urgent are looked up (one query each), so the match being read can be left out.
    assert next_button(waiting) == ("Urgent", 2)
    # Not again for another page of the same matches.
    assert next_button(urgent) == (None, 0)  # alice is to move there: no button
    assert next_button(also_waiting) == ("Urgent", 0)
    services.move_play(match_id=urgent.pk, user=alice, expected_version=0, text="d4")
    # Her matches changed: looked up again (the second search finds nothing more).
    assert next_button(waiting) == ("Relaxed", 2)


def test_a_waiting_player_is_told_who_is_to_move_and_until_when(client, started_match, bob):
    match = started_match(move_time_limit=timedelta(days=1))
    client.force_login(bob)
    page = client.get(match.get_absolute_url()).content.decode()
    listed = page.split('data-testid="to-move"')[1].split("</ul>")[0]
    assert '<span class="name">alice</span>\'s move is due <time' in listed
