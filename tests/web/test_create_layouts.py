"""Custom starting layouts in the match-creation form: the editor's box, its checks, the preview."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from games import services
from games.engines import registry
from games.engines.stairways.layouts import layout_validate, preset
from games.models import Match

pytestmark = pytest.mark.django_db

FIELD = "opt_stairways_layout_json"


@pytest.fixture
def as_alice(client, alice):
    client.force_login(alice)
    return client


def create(client, layout: object, *, seats: int = 2, preview: bool = False, **extra):
    text = layout if isinstance(layout, str) else json.dumps(layout)
    form = {"game": "stairways", "seat_count": seats, "move_time_unit": "days", FIELD: text, **extra}
    if preview:
        form["preview"] = "1"
    return client.post(reverse("match-create"), form)


def own_layout() -> dict:
    layout = preset("classic", 2, "first_game")
    layout["name"] = "home-made"
    layout["walls"] = [w for w in layout["walls"] if w != "d4e"] + ["d4e"]
    layout["heroes"] = ["b7", "g2"]
    return layout


def test_a_custom_layout_starts_the_match_on_exactly_that_board(as_alice, alice):
    layout = own_layout()
    response = create(as_alice, layout)
    assert response.status_code == 302
    match = Match.objects.get()
    assert match.options["layout"] == "custom"
    assert json.loads(match.options["layout_json"])["name"] == "home-made"
    page = as_alice.get(reverse("match-detail", args=[match.pk])).content.decode()
    assert "Layout" in page and "custom" in page


def test_a_layout_with_mistakes_is_refused_with_every_reason_and_nothing_is_made(as_alice):
    layout = own_layout()
    layout["walls"].append("h3e")  # the rim holds no walls
    layout["stairways"] = ["a1"]  # one stairway for two seats
    layout["heroes"].append("a1")  # on the stairway
    layout["rats"].append({"square": "z9", "size": 3})
    response = create(as_alice, layout)
    assert response.status_code == 400
    assert Match.objects.count() == 0
    errors = response.context["form"].errors[FIELD]
    assert "This layout has 1 stairways; the match has 2 seats." in errors
    assert any("h3e" in e and "rim" in e for e in errors)
    assert any("stairway a1" in e for e in errors)
    assert any("'z9' is not a square" in e for e in errors)
    assert any("1 or 4 rats" in e for e in errors)
    page = response.content.decode()
    assert 'data-testid="option-errors"' in page and "the match has 2 seats" in page
    # What the player wrote is kept, so it can be corrected rather than typed again.
    assert "h3e" in page


def test_text_that_is_not_json_is_refused_with_the_reason(as_alice):
    response = create(as_alice, "{walls: [c3e")
    assert response.status_code == 400
    assert Match.objects.count() == 0
    assert any("not valid JSON" in e for e in response.context["form"].errors[FIELD])


def test_a_layout_for_another_number_of_players_is_refused(as_alice):
    response = create(as_alice, own_layout(), seats=3)
    assert response.status_code == 400
    assert "This layout has 2 stairways; the match has 3 seats." in response.context["form"].errors[FIELD]


def test_the_preview_draws_the_custom_board_and_creates_nothing(as_alice):
    response = create(as_alice, own_layout(), preview=True)
    assert response.status_code == 200
    assert Match.objects.count() == 0
    preview = response.context["preview"]
    assert preview.startswith("<svg") and 'data-testid="preview"' in response.content.decode()
    # The drawn board is the custom one: the wall moved onto d4e is there, and no card of any hand.
    assert "d4e" in preview


def test_the_preview_works_for_every_game_with_its_default_options(as_alice):
    for slug in registry.slugs():
        engine = registry.get_engine(slug)
        form = {"game": slug, "seat_count": engine.min_players, "move_time_unit": "days", "preview": "1"}
        response = as_alice.post(reverse("match-create"), form)
        assert response.status_code == 200, slug
        assert response.context["preview"].startswith("<svg"), slug
    assert Match.objects.count() == 0


def test_a_preview_of_a_wrong_layout_shows_the_reasons_instead(as_alice):
    layout = own_layout()
    layout["giant"] = layout["heroes"][0]
    response = create(as_alice, layout, preview=True)
    assert response.status_code == 400
    assert response.context["preview"] == ""
    assert any("share" in e for e in response.context["form"].errors[FIELD])


def test_the_form_offers_every_preset_as_a_starting_point_for_the_editor(as_alice):
    page = as_alice.get(reverse("match-create"))
    examples = page.context["option_examples"]["stairways"]["layout_json"]
    assert set(examples) == {2, 3, 4}
    for seats, offered in examples.items():
        assert len(offered) >= 4
        for text in offered.values():
            assert layout_validate(json.loads(text), seats) == []
    html = page.content.decode()
    assert 'id="option-examples"' in html and 'data-editor="stairways-layout"' in html


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        # Each escape is six plain characters in the form: only the JSON inside holds the character.
        (json.dumps({**own_layout(), "name": "\u0000"}), "The text at name is not plain text"),
        (json.dumps({**own_layout(), "name": "a\ud800"}), "The text at name is not plain text"),
        (json.dumps({**own_layout(), "name": "\ufdd0"}), "The text at name is not plain text"),
        (json.dumps({**own_layout(), "name": "x" * 81}), "The text at name is not plain text"),
        (json.dumps({**own_layout(), "walls": ["c3e\u0000"]}), "The text at walls[0] is not plain text"),
        (json.dumps({**own_layout(), "\u0000": 1}), "A field name of the layout is not plain text"),
        (
            json.dumps({**own_layout(), "boards": [{"heroes": ["a1"], "rats": [{"square": "\uffff"}]}]}),
            "The text at boards[0].rats[0].square is not plain text",
        ),
        # Deep enough that parsing it in a request recurses past Python's limit, and less deep.
        (json.dumps(own_layout())[:-1] + ', "walls": ' + deep(990) + "}", "A layout nests lists"),
        ('{"name": ' + deep(990) + "}", "A layout nests lists"),
        ('{"stairways": ' + deep(7) + "}", "A layout nests lists and objects at most 6 levels deep"),
    ],
)
def test_a_layout_holding_what_is_not_text_or_nested_too_deep_is_refused_with_the_reason(
    as_alice, text, reason
):
    """Such a layout used to pass, or to raise RecursionError (a 500): a NUL or a lone surrogate in its
    name then made PostgreSQL refuse the game state, and every join of the match was a 500."""
    response = create(as_alice, text)
    assert response.status_code == 400
    assert Match.objects.count() == 0
    [error] = response.context["form"].errors[FIELD]
    assert error.startswith(reason), error
    for refused in ("\x00", "\ud800", "\ufdd0", "\uffff"):
        assert refused not in error


def test_a_layout_named_in_readable_text_plays_on_postgresql_too(as_alice, bob):
    """The name goes into the game state, which PostgreSQL stores as JSON: joining starts the match."""
    response = create(as_alice, {**own_layout(), "name": "Ève\u2019s maze ✓"})
    assert response.status_code == 302
    match = Match.objects.get()
    services.seat_join(match_id=match.pk, user=bob)
    match.refresh_from_db()
    assert match.status == Match.Status.ACTIVE


def risky_layout() -> dict:
    """Rats two steps from a hero on open floor: they reach it before the second player's first turn."""
    return {
        "name": "risky",
        "walls": [],
        "stairways": ["a1", "h8"],
        "heroes": ["d1", "e8"],
        "giant": None,
        "rats": [{"square": "d3", "size": 4}, {"square": "h4", "size": 4}],
    }


def test_the_preview_warns_when_monsters_can_reach_a_hero_before_every_player_has_had_a_turn(as_alice):
    response = create(as_alice, risky_layout(), preview=True)
    assert response.status_code == 200
    page = response.content.decode()
    assert 'data-testid="opening-risk"' in page and 'data-squares="d1"' in page
    assert "Warning: monsters can reach hero 1 (d1) before every player has had a turn." in page


def test_a_preset_or_a_safe_layout_previews_without_a_warning(as_alice):
    for layout in (preset("maze", 2, "recommended"), own_layout()):
        page = create(as_alice, layout, preview=True).content.decode()
        assert 'data-testid="preview"' in page and "opening-risk" not in page


def test_the_warning_is_no_error_a_risky_layout_still_starts_a_match(as_alice):
    response = create(as_alice, risky_layout())
    assert response.status_code == 302
    assert json.loads(Match.objects.get().options["layout_json"])["name"] == "risky"
