"""The match page and My matches keep their parts in the cache (games/views.py): a second load of an
unchanged page makes none of them again, a change shows at the next load, and each seat is served only
the parts made for it, the same bytes as the page rendered with an empty cache."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import livekeys, services
from games.engines import registry
from games.models import Match
from tests.conftest import play_random
from tests.web.test_secrets import advance

pytestmark = pytest.mark.django_db

CSRF = re.compile(r'(name="csrfmiddlewaretoken" value=|data-csrf=)"[A-Za-z0-9]+"')
# The templates of the parts kept in the cache: none of them is rendered on a second load.
PART_TEMPLATES = {"games/_match_log.html", "games/_log.html", "games/_match_panel.html", "wallgo/_panel.html"}
ROW_TEMPLATES = {"games/_my_matches_table.html", "games/_match_row.html"}


def page(client: Client, match: Match):
    response = client.get(reverse("match-detail", args=[match.pk]))
    assert response.status_code == 200
    return response


def text(response) -> str:
    """The page without its CSRF tokens, which are masked anew on every response."""
    return CSRF.sub(r'\1"csrf"', response.content.decode())


def rendered(response) -> set[str]:
    return {template.name for template in response.templates}


@pytest.fixture
def engine_calls(monkeypatch) -> Counter:
    """How often the Wall Go engine draws a board or lists legal moves."""
    calls: Counter = Counter()
    engine_class = type(registry.get_engine("wallgo"))
    for name in ("render_svg", "legal_moves"):
        original = getattr(engine_class, name)

        def counted(self, *args, _original=original, _name=name, **kwargs):
            calls[_name] += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(engine_class, name, counted)
    return calls


def test_a_second_load_of_an_unchanged_match_page_makes_none_of_its_parts_again(
    client, started_match, alice, engine_calls
):
    match = play_random(started_match(), moves=3)
    client.force_login(alice)
    first = page(client, match)
    assert 'id="legal-moves"' in first.content.decode(), "it is alice's turn: her board offers moves"
    assert rendered(first) >= PART_TEMPLATES
    assert engine_calls["render_svg"] and engine_calls["legal_moves"]
    engine_calls.clear()
    with CaptureQueriesContext(connection) as queries:
        second = page(client, match)
    assert not PART_TEMPLATES & rendered(second)
    assert not engine_calls, engine_calls
    assert not [q["sql"] for q in queries if 'FROM "games_move"' in q["sql"]], "the log was read again"
    assert text(second) == text(first)


def test_a_move_shows_at_the_next_load(client, started_match, alice, bob):
    # Placement goes in snake order: after four tokens alice places one more, then it is bob's turn.
    match = play_random(started_match(), moves=4)
    client.force_login(alice)
    before = text(page(client, match))
    assert 'data-testid="move-form"' in before
    engine = match.engine
    move = engine.legal_moves(match.engine_state, 0)[0]
    played = services.move_play(match_id=match.pk, user=alice, expected_version=match.version, move=move)
    after = page(client, match)
    shown = text(after)
    assert rendered(after) >= PART_TEMPLATES, "a new version makes its parts anew"
    assert f"<code>{played.notation}</code>" in shown and f"<code>{played.notation}</code>" not in before
    assert 'data-testid="move-form"' not in shown, "it is bob's turn now"
    assert 'id="legal-moves"' not in shown
    # Bob's page, after alice's and on the same version, is drawn for bob: his move form and his moves.
    bobs = Client()
    bobs.force_login(bob)
    assert 'data-testid="move-form"' in text(page(bobs, match))


@pytest.mark.parametrize("slug", ["stairways", "greatwall"])
def test_each_seat_is_served_what_an_empty_cache_would_render_for_it_before_and_after_a_move(slug, make_user):
    """Seats read in one order fill the cache; each then reads again from it, and once more after the
    cache is emptied: the same bytes every time, so nobody was handed a part made for another seat."""
    engine = registry.get_engine(slug)
    seats = min(2, engine.max_players) if engine.min_players <= 2 else engine.min_players
    users = [make_user(f"{slug}-{k}") for k in range(seats)]
    match = services.match_create(creator=users[0], game=slug, seat_count=seats)
    for user in users[1:]:
        services.seat_join(match_id=match.pk, user=user)
    viewers = [Client() for _ in users] + [Client()]
    for client, user in zip(viewers, users, strict=False):
        client.force_login(user)
    rng = random.Random(f"cache-{slug}")
    for _ in range(2):  # before a move and after some
        match = advance(Match.objects.get(pk=match.pk), steps=6, rng=rng)
        cache.clear()
        fresh = [text(page(client, match)) for client in viewers]
        assert len(set(fresh)) == len(viewers), "every seat and the spectator see a page of their own"
        for order in (viewers, list(reversed(viewers))):
            cache.clear()
            for client in order:
                page(client, match)  # fills the cache with this viewer's parts
            served = [text(page(client, match)) for client in viewers]
            assert served == fresh, f"{slug}: a cached page differs from the one rendered afresh"


def test_my_matches_makes_its_rows_once_per_change(
    client, started_match, alice, django_capture_on_commit_callbacks
):
    match = play_random(started_match(), moves=4)
    client.force_login(alice)
    url = reverse("my-matches")
    first = client.get(url)
    assert rendered(first) >= ROW_TEMPLATES
    assert "<strong>Your move</strong>" in first.content.decode()
    with CaptureQueriesContext(connection) as queries:
        second = client.get(url)
    assert not ROW_TEMPLATES & rendered(second)
    assert not [q["sql"] for q in queries if 'FROM "games_seat"' in q["sql"] and "DISTINCT" in q["sql"]]
    assert text(second) == text(first)
    engine = match.engine
    with django_capture_on_commit_callbacks(execute=True):  # the user's key moves on as the move commits
        services.move_play(
            match_id=match.pk,
            user=alice,
            expected_version=match.version,
            move=engine.legal_moves(match.engine_state, 0)[0],
        )
    third = client.get(url)
    assert rendered(third) >= ROW_TEMPLATES
    assert "<strong>Your move</strong>" not in third.content.decode()


def test_the_pages_are_drawn_without_the_cache_when_it_is_away(client, started_match, alice, monkeypatch):
    match = play_random(started_match(), moves=3)
    client.force_login(alice)
    expected = text(page(client, match))
    cache.clear()

    def away(*args, **kwargs):
        raise ConnectionError("the cache is away")

    # The pages' fall-back starts and ends with this test.
    monkeypatch.setattr(livekeys, "_away_until", 0.0)
    monkeypatch.setattr(cache, "get_many", away)
    monkeypatch.setattr(cache, "set_many", away)
    assert text(page(client, match)) == expected
    assert client.get(reverse("my-matches")).status_code == 200
