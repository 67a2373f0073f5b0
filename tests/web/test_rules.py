"""Learning a game on the site: the games list, the rules pages with their pictures, the links to them,
the sentence above the board, and the favicon."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.urls import reverse
from django.utils.html import escape

from games import rulebook, rules_examples, services
from games.engines import registry
from tests.conftest import play_random

pytestmark = pytest.mark.django_db

GAMES = rulebook.site_games()
FENCE = re.compile(r"^```example (.+)$", re.MULTILINE)


def digest(slug: str) -> str:
    return (Path(settings.BASE_DIR) / "seeds" / f"{slug}.md").read_text(encoding="utf-8")


def card_of(page: str, slug: str) -> str:
    """The HTML of one game's entry in the games list."""
    found = re.search(rf'<li class="game-card"[^>]*data-game="{slug}">(.*?)</li>', page, re.DOTALL)
    assert found, f"{slug} is not in the list"
    return found[1]


def test_the_site_has_five_games_and_the_tests_engines_are_not_among_them():
    assert GAMES == ["wallgo", "stairways", "thewall", "wildlings", "greatwall"]
    assert "testdice" in registry.ENGINES


def test_the_games_list_shows_each_game_with_its_board_player_counts_length_and_summary(client):
    page = client.get(reverse("game-list")).content.decode()
    assert page.count('data-testid="game-card"') == 5
    assert "testdice" not in page
    for slug in GAMES:
        engine = registry.get_engine(slug)
        card = card_of(page, slug)
        assert engine.title in card
        assert card.count("<svg") == 1
        assert f"{engine.min_players} to {engine.max_players} players" in card
        assert re.search(r"about \d+ moves per player", card)
        assert escape(rulebook.SUMMARIES[slug]) in card
        assert reverse("game-rules", args=[slug]) in card


def test_the_board_pictures_and_lengths_are_the_same_on_every_run():
    for slug in GAMES:
        first = (rules_examples.showcase(slug), rules_examples.moves_per_player(slug))
        rules_examples.showcase.cache_clear()
        rules_examples.moves_per_player.cache_clear()
        assert (rules_examples.showcase(slug), rules_examples.moves_per_player(slug)) == first


@pytest.mark.parametrize("slug", GAMES)
def test_each_rules_page_shows_the_digests_headings_and_its_example_pictures(client, slug):
    response = client.get(reverse("game-rules", args=[slug]))
    assert response.status_code == 200
    page = response.content.decode()
    contents = re.search(r'data-testid="rules-contents">(.*?)</nav>', page, re.DOTALL)[1]
    every = re.findall(r"^## (.+)$", digest(slug), re.MULTILINE)
    headings = [heading for heading in every if not heading.endswith(rulebook.FOR_DEVELOPERS)]
    assert headings
    for left_out in set(every) - set(headings):  # for those who build the site, not for players
        assert left_out.removesuffix(rulebook.FOR_DEVELOPERS).strip() not in page
    for heading in headings:
        text = re.sub(r"[`*]", "", heading)
        anchor = re.search(rf'<h2 id="([^"]+)">{re.escape(html.escape(text, quote=False))}</h2>', page)
        assert anchor, f"no anchored heading {text!r}"
        assert f'href="#{anchor[1]}"' in contents
    names = [name for line in FENCE.findall(digest(slug)) for name in line.split()]
    assert names, f"the {slug} digest has no example picture"
    for name in names:
        panel = re.search(
            rf'<figure class="example-panel" data-example="{name}">(.*?)</figure>', page, re.DOTALL
        )
        assert panel, f"the example {name} is not drawn"
        assert panel[1].startswith("<svg") and '<figcaption class="example-caption">' in panel[1]
    assert "```" not in page and "example wallgo" not in page


def test_the_digests_show_the_five_asked_for_positions_and_every_example_is_used():
    used = {name for slug in GAMES for line in FENCE.findall(digest(slug)) for name in line.split()}
    assert used == set(rules_examples.EXAMPLES)
    for required in (
        "wallgo-turn",
        "stairways-pivot",
        "thewall-attack",
        "wildlings-attack",
        "greatwall-assault",
    ):
        assert required in used


def test_each_example_is_played_by_the_rules_and_comes_out_the_same_every_time():
    for name, draw in rules_examples.EXAMPLES.items():
        caption, svg = draw()
        assert caption.strip() and svg.startswith("<svg"), name
        assert (caption, svg) == rules_examples.example(name)
    # The positions the captions describe really are what the pictures are about.
    assert "pushed to" in rules_examples.example("stairways-pivot")[0]
    assert "life point" in rules_examples.example("thewall-attack")[0]
    assert "Bids revealed" in rules_examples.example("wildlings-attack")[0]
    assert "Offensive Power" in rules_examples.example("greatwall-assault")[0]


@pytest.fixture
def digest_with_html(tmp_path, monkeypatch) -> Iterator[None]:
    """Wall Go's digest, with lines of raw HTML in it."""
    text = digest("wallgo").replace(
        "## Components",
        '<script>alert("x")</script>\n\n'
        '<b onclick="steal()">bold</b> and <img src=x onerror=alert(1)>\n\n## Components',
    )
    path = tmp_path / "wallgo.md"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(rulebook, "_digest_path", lambda slug: path)
    rulebook.rules_page.cache_clear()
    yield
    rulebook.rules_page.cache_clear()


def test_raw_html_in_a_digest_is_shown_as_text(client, digest_with_html):
    page = client.get(reverse("game-rules", args=["wallgo"])).content.decode()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert "&lt;b onclick=&quot;steal()&quot;&gt;bold&lt;/b&gt;" in page
    assert "<script>alert" not in page and "<b onclick" not in page and "<img src=x" not in page
    # The pictures are still ours.
    assert 'data-example="wallgo-turn"' in page


@pytest.mark.parametrize("slug", ["nonesuch", "testdice", "WALLGO", "wallgo-"])
def test_a_game_that_is_not_one_of_the_sites_has_no_rules_page(client, slug):
    assert client.get(f"/games/{slug}/rules/").status_code == 404


def test_a_rules_address_that_is_not_a_slug_is_not_found(client):
    assert client.get("/games/wall%20go/rules/").status_code == 404
    assert client.get("/games/..%2Fsettings/rules/").status_code == 404


def test_the_header_and_the_lobby_link_to_the_games_and_each_rules_page(client):
    page = client.get(reverse("lobby")).content.decode()
    assert f'href="{reverse("game-list")}" data-testid="games-link"' in page
    lobby = re.search(r'data-testid="lobby-rules">(.*?)</p>', page, re.DOTALL)[1]
    for slug in GAMES:
        assert f'href="{reverse("game-rules", args=[slug])}"' in lobby


def test_the_new_match_form_links_to_the_rules_of_each_game_beside_the_choice(client, alice):
    client.force_login(alice)
    page = client.get(reverse("match-create") + "?game=stairways").content.decode()
    for slug in GAMES:
        assert re.search(
            rf'<a class="game-rules-link" data-game="{slug}" href="{reverse("game-rules", args=[slug])}"',
            page,
        )
    # Beside the game's select, before the next field.
    assert page.index('id="id_game"') < page.index("game-rules-link") < page.index('id="id_seat_count"')


def test_the_match_page_links_to_the_rules_next_to_its_title(client, started_match):
    match = started_match()
    page = client.get(match.get_absolute_url()).content.decode()
    title = re.search(r"<h1>(.*?)</h1>", page, re.DOTALL)[1]
    link = f'href="{reverse("game-rules", args=["wallgo"])}" data-testid="rules-link">Rules</a>'
    assert link in title


def prompt_of(page: str) -> str:
    found = re.search(r'<p class="prompt" data-testid="match-prompt">(.*?)</p>', page, re.DOTALL)
    assert found, "no prompt above the board"
    return html.unescape(found[1])


def test_the_match_page_says_the_step_at_hand_to_each_viewer_above_the_board(client, started_match, bob):
    match = started_match()
    client.force_login(match.seats.get(position=0).user)
    page = client.get(match.get_absolute_url()).content.decode()
    assert prompt_of(page) == "Place a token on any empty square (4 still to place)."
    assert page.index('data-testid="match-prompt"') < page.index('data-testid="board"')
    client.force_login(bob)
    assert prompt_of(client.get(match.get_absolute_url()).content.decode()) == (
        "Waiting for alice to place a token."
    )
    client.logout()
    assert prompt_of(client.get(match.get_absolute_url()).content.decode()) == (
        "Waiting for alice to place a token."
    )


def test_the_prompt_follows_the_game_into_its_turns(client, started_match, alice):
    # Every token placed: alice placed last, so bob takes the first turn.
    match = play_random(started_match(), moves=8)
    client.force_login(alice)
    assert prompt_of(client.get(match.get_absolute_url()).content.decode()) == (
        "Waiting for bob to move a token and build a wall."
    )
    client.force_login(match.seats.get(position=1).user)
    assert prompt_of(client.get(match.get_absolute_url()).content.decode()).startswith(
        "Choose one of your tokens and move it up to two squares"
    )


def test_an_open_match_has_no_prompt(client, alice):
    match = services.match_create(creator=alice, game="wallgo", seat_count=2)
    assert 'data-testid="match-prompt"' not in client.get(match.get_absolute_url()).content.decode()


def test_pages_link_the_favicon_and_favicon_ico_leads_to_it(client):
    page = client.get(reverse("lobby")).content.decode()
    icon = settings.STATIC_URL + "favicon.svg"
    assert f'<link rel="icon" href="{icon}" type="image/svg+xml">' in page
    response = client.get("/favicon.ico")
    assert response.status_code == 302 and response["Location"] == icon
    found = finders.find("favicon.svg")
    assert found and Path(found).read_text(encoding="utf-8").startswith("<svg")
