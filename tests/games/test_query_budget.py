"""A match page and a move cost the same number of queries at move 3 as at move 42."""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games.models import Match
from tests.conftest import play_random

pytestmark = pytest.mark.django_db

# 7 today on SQLite once the page's parts are in the cache (games/views.py): session, user, match, seats,
# turns, awaiting badge, chat; the first load of a version reads the log too.
PAGE_BUDGET = 9
# 11 today on SQLite: the token, BEGIN, the locked match, its seats, its open turns, the log line, the
# closed turn, the new turn, the your-turn e-mail, the match, COMMIT.
MOVE_BUDGET = 14


LONG = 42


def long_match(started_match) -> Match:
    """A Wall Go match still in play after LONG moves (random games end near move 48)."""
    for seed in range(2, 40):
        match = play_random(started_match(), moves=LONG, seed=seed)
        if match.status == Match.Status.ACTIVE:
            return match
    raise AssertionError("no random game lasted")


def page_queries(client, match: Match) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("match-detail", args=[match.pk]))
    assert response.status_code == 200
    return len(queries)


def move_queries(match: Match, users: dict[int, object]) -> int:
    match.refresh_from_db()
    engine = match.engine
    seat = min(engine.actors(match.engine_state))
    move = random.Random(match.version).choice(engine.legal_moves(match.engine_state, seat))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=users[seat])[0].key}")
    body = {"move": move, "version": match.version}
    with CaptureQueriesContext(connection) as queries:
        response = api.post(reverse("api-match-moves", args=[match.pk]), body, format="json")
    assert response.status_code == 201, response.content
    return len(queries)


def test_the_match_page_runs_the_same_queries_however_long_the_log(client, started_match, alice, bob):
    short = play_random(started_match(), moves=3)
    long = long_match(started_match)
    assert long.log_length == LONG
    client.force_login(alice)
    # First visits stamp the player's presence; later ones within seconds need no write.
    page_queries(client, short)
    page_queries(client, long)
    short_count, long_count = page_queries(client, short), page_queries(client, long)
    assert short_count == long_count <= PAGE_BUDGET, (short_count, long_count)
    # The page shows the latest lines and links to the rest.
    page = client.get(reverse("match-detail", args=[long.pk])).content.decode()
    assert 'data-testid="whole-log"' in page and "12 earlier lines" in page


def test_the_log_names_its_players_from_the_seats_the_page_read_without_joining_them_to_each_line(
    client, started_match, alice
):
    match = play_random(started_match(), moves=6)
    client.force_login(alice)
    for name in ("match-detail", "match-log", "match-replay"):
        with CaptureQueriesContext(connection) as queries:
            response = client.get(reverse(name, args=[match.pk]))
        assert response.status_code == 200
        lines = [q["sql"] for q in queries if 'FROM "games_move"' in q["sql"]]
        assert lines and not [sql for sql in lines if "JOIN" in sql], (name, lines)
        assert "alice" in response.content.decode()
    # The lines still name their movers (the header names the viewer anyway, so the page's text cannot
    # tell): both players of six alternating moves, and the replay's last line its mover.
    lines = client.get(reverse("match-log", args=[match.pk])).context["log"]
    assert {line.player for line in lines} == {"alice", "bob"}
    assert all(line.player == ("alice", "bob")[line.seat] for line in lines)
    step = client.get(reverse("match-replay", args=[match.pk])).context["step"]
    assert step.line.player == ("alice", "bob")[step.line.seat]


def test_a_move_runs_the_same_queries_at_move_3_as_at_move_42(started_match, alice, bob):
    users = {0: alice, 1: bob}
    short = play_random(started_match(), moves=3)
    long = long_match(started_match)
    first, later = move_queries(short, users), move_queries(long, users)
    assert first == later <= MOVE_BUDGET, (first, later)


def test_the_whole_log_pages_through_every_line(client, started_match, alice):
    match = long_match(started_match)
    client.force_login(alice)
    with CaptureQueriesContext(connection) as queries:
        last = client.get(reverse("match-log", args=[match.pk]))
    assert last.status_code == 200 and len(queries) <= PAGE_BUDGET
    lines = last.context["log"]
    assert [line.seq for line in lines] == list(range(1, LONG + 1)) and last.context["pages"] == 1
    for page in ("0", "99", "x"):
        assert client.get(reverse("match-log", args=[match.pk]) + f"?page={page}").status_code == 200
    assert client.get(reverse("match-log", args=[999999])).status_code == 404


def test_neither_a_reader_nor_a_player_s_move_reads_or_writes_the_random_generator(
    client, started_match, alice, bob
):
    match = play_random(started_match(), moves=3)
    engine = match.engine
    seat = min(engine.actors(match.engine_state))
    move = engine.legal_moves(match.engine_state, seat)[0]
    client.force_login(alice)
    reader, mover = APIClient(), APIClient()
    reader.force_authenticate(alice)
    mover.force_authenticate({0: alice, 1: bob}[seat])
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("match-detail", args=[match.pk])).status_code == 200
        assert client.get(reverse("match-board", args=[match.pk])).status_code == 200
        assert reader.get(reverse("api-match", args=[match.pk])).status_code == 200
        body = {"move": move, "version": match.version}
        assert mover.post(reverse("api-match-moves", args=[match.pk]), body, format="json").status_code == 201
    statements = [query["sql"] for query in queries]
    assert any('FROM "games_match"' in sql and "FOR UPDATE" in sql for sql in statements) or (
        connection.vendor == "sqlite"  # no row locks there: the version guard alone
    )
    touched = [sql for sql in statements if "rng_state" in sql]
    assert not touched, touched  # kilobytes that only chance steps and computer players use
