"""The two big boards, The Wall and The Great Wall, measured in a real Chromium as a player meets them.

On a 1280 x 800 desktop the board is drawn as tall as the screen with the actions beside it: every
action a legal move takes and the end of the turn are on the screen together with the board's top
edge, no action that no legal move takes is offered, the page is a few screens long rather than
five thousand pixels, and no text of the picture is drawn smaller than 12 px. On a 390 x 844 phone
both boards open zoomed in, where their text reads, and the zoomed board is moved around by dragging
it with a mouse or by scrolling it with a finger.

Test setup: matches played some random legal moves into the game through the services, with the
match's own dice seeded, then opened as the player to move.
"""

from __future__ import annotations

import json
import random

import pytest

from games import services
from games.engines import registry
from games.models import Match
from games.playouts import play_random_moves
from games.services import creating
from tests.e2e.browsing import PASSWORD, open_page

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
NAMES = ["annabelle", "benedikt", "caroline", "dominique"]
# The Wall's page was five thousand pixels long with its board, its buttons and its side tables.
PAGE_HEIGHT_MAX = 3200

# The rendered size in CSS pixels of the smallest text of the board's picture: its font size in the
# picture's units times the scale the picture is drawn at.
SMALLEST_TEXT = """() => {
  const sizes = [...document.querySelectorAll("#board svg text")]
    .filter((t) => t.textContent.trim() && t.getClientRects().length)
    .map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a);
  return Math.min(...sizes);
}"""
BOX = """(el) => {
  const b = el.getBoundingClientRect();
  return {top: b.top, bottom: b.bottom, left: b.left, right: b.right};
}"""


def users(django_user_model, count: int) -> list:
    return [
        django_user_model.objects.create_user(username=name, email=f"{name}@example.com", password=PASSWORD)
        for name in NAMES[:count]
    ]


def match_in_play(monkeypatch, game: str, people: list, *, moves: int, seed: int = 11) -> Match:
    monkeypatch.setattr(creating, "rng_new", lambda: random.Random(seed))
    match = services.match_create(creator=people[0], game=game, seat_count=len(people), name="Big board")
    for user in people[1:]:
        services.seat_join(match_id=match.pk, user=user)
    match = play_random_moves(match_id=match.pk, rng=random.Random(seed), moves=moves)
    assert match.status == Match.Status.ACTIVE
    return match


def to_move(match: Match):
    match.refresh_from_db()
    actors = match.engine.actors(match.engine_state)
    assert actors, "the match waits for a chance step"
    return match.seats.get(position=min(actors)).user


def legal_paths(page) -> list[list[str]]:
    return [m["path"] for m in json.loads(page.locator("#legal-moves").text_content())]


def action_buttons(page) -> dict[str, dict]:
    """The buttons beside the board: per target, whether it is offered as the next click."""
    return {
        item["target"]: item
        for item in page.locator("[data-testid=board-actions] button").evaluate_all(
            """els => els.map(e => ({target: e.dataset.target, label: e.textContent.trim(),
                                     offered: e.classList.contains("choosable"),
                                     disabled: e.disabled || e.getAttribute("aria-disabled") === "true"}))"""
        )
    }


def inside(box: dict, viewport: dict) -> bool:
    return (
        box["top"] >= 0
        and box["left"] >= 0
        and box["bottom"] <= viewport["height"]
        and (box["right"] <= viewport["width"])
    )


def assert_offers_only_what_is_legal(page, clicks: list[str]) -> None:
    """Every action button stands for a legal move's click, is offered exactly when a legal move goes on
    with it after ``clicks``, and looks and reads as disabled otherwise; no other action is drawn."""
    paths = legal_paths(page)
    engine_actions = {target for path in paths for target in path}
    following = {p[len(clicks)] for p in paths if p[: len(clicks)] == clicks and len(p) > len(clicks)}
    buttons = action_buttons(page)
    assert set(buttons) <= engine_actions, f"offered without a legal move: {set(buttons) - engine_actions}"
    for target, button in buttons.items():
        assert button["offered"] == (target in following), (target, clicks)
        assert button["disabled"] == (target not in following), (target, clicks)
    # Nothing else of the kind is on the page: no action control outside the list of legal ones.
    drawn = set(
        page.locator("#board [data-target^='opt-'], #board [data-target=end]").evaluate_all(
            "els => els.map(e => e.dataset.target)"
        )
    )
    assert drawn <= engine_actions


# --- the desktop ---------------------------------------------------------------------------------------
def test_the_walls_board_its_legal_actions_and_end_turn_are_on_a_desktop_screen_together(
    live_server, browser, django_user_model, monkeypatch
):
    match = match_in_play(monkeypatch, "thewall", users(django_user_model, 2), moves=9)
    context, page = open_page(browser, live_server.url, DESKTOP, to_move(match))
    page.goto(live_server.url + match.get_absolute_url())

    def check_on_screen() -> None:
        board = page.locator("#board svg").evaluate(BOX)
        assert 0 <= board["top"] < DESKTOP["height"], board
        for target in action_buttons(page):
            box = page.locator(f'[data-testid=board-actions] [data-target="{target}"]').evaluate(BOX)
            assert inside(box, DESKTOP), (target, box)
        assert inside(page.locator("#move-submit").evaluate(BOX), DESKTOP)

    assert "end" in action_buttons(page), "End turn is offered from the start of a leader's turn"
    check_on_screen()
    assert_offers_only_what_is_legal(page, [])
    assert page.evaluate("() => document.documentElement.scrollHeight") <= PAGE_HEIGHT_MAX

    # Scrolled to the board, the whole of it is on the screen, with the actions still beside it.
    page.locator("#board svg").evaluate("(el) => el.scrollIntoView({block: 'start'})")
    board = page.locator("#board svg").evaluate(BOX)
    assert board["bottom"] <= DESKTOP["height"] and board["right"] <= DESKTOP["width"]
    assert board["right"] - board["left"] >= 780, board  # not shrunk to make room
    check_on_screen()

    # A unit chosen: its actions are offered, the others still shown dimmed or not at all.
    paths = [p for p in legal_paths(page) if len(p) == 2 and p[1].startswith("opt-")]
    assert paths, "no unit has an action of its own in this position"
    unit, action = paths[0]
    page.click(f'#board [data-target="{unit}"]')
    assert_offers_only_what_is_legal(page, [unit])
    assert action_buttons(page)[action]["offered"]
    check_on_screen()
    context.close()


def test_the_great_walls_text_is_12_px_at_least_and_done_is_offered_only_when_legal(
    live_server, browser, django_user_model, monkeypatch
):
    # Summer's sealed Command cards: a choice must be made, so there is nothing to decline.
    match = match_in_play(monkeypatch, "greatwall", users(django_user_model, 2), moves=7)
    engine = match.engine
    for _ in range(40):
        match.refresh_from_db()
        state = match.engine_state
        actor = min(engine.actors(state))
        if not any(engine.click_path(m) == ["done"] for m in engine.legal_moves(state, actor)):
            break
        match = play_random_moves(match_id=match.pk, rng=random.Random(len(match.engine_state)), moves=1)
    else:
        raise AssertionError("no position without a legal 'done' within 40 moves")
    context, page = open_page(browser, live_server.url, DESKTOP, to_move(match))
    page.goto(live_server.url + match.get_absolute_url())
    assert ["done"] not in legal_paths(page)
    done = page.locator('#board [data-target="done"]')
    assert done.count() == 0 or done.is_disabled() or done.get_attribute("aria-disabled") == "true"
    assert page.evaluate(SMALLEST_TEXT) >= 12
    assert_offers_only_what_is_legal(page, [])
    context.close()

    # A position where declining is legal: the button is there, offered, and on the screen.
    for _ in range(80):
        match.refresh_from_db()
        state = match.engine_state
        actors = engine.actors(state)
        if actors and any(engine.click_path(m) == ["done"] for m in engine.legal_moves(state, min(actors))):
            break
        match = play_random_moves(match_id=match.pk, rng=random.Random(len(match.engine_state)), moves=1)
    else:
        raise AssertionError("no position with a legal 'done' within 80 moves")
    context, page = open_page(browser, live_server.url, DESKTOP, to_move(match))
    page.goto(live_server.url + match.get_absolute_url())
    assert action_buttons(page)["done"]["offered"]
    assert inside(page.locator('[data-testid=board-actions] [data-target="done"]').evaluate(BOX), DESKTOP)
    assert page.evaluate(SMALLEST_TEXT) >= 12
    assert page.locator("#board svg").evaluate(BOX)["top"] < DESKTOP["height"]
    context.close()


def test_the_walls_map_text_is_12_px_at_least_on_a_desktop(
    live_server, browser, django_user_model, monkeypatch
):
    match = match_in_play(monkeypatch, "thewall", users(django_user_model, 2), moves=3)
    context, page = open_page(browser, live_server.url, DESKTOP, to_move(match))
    page.goto(live_server.url + match.get_absolute_url())
    assert page.evaluate(SMALLEST_TEXT) >= 12
    # The key beside the map names every unit's letter.
    key = " ".join(page.text_content("[data-testid=thewall-key]").split())
    for name in (
        "Jon Snow",
        "Samwell Tarly",
        "Ranger",
        "Archer",
        "Mance Rayder",
        "Wildling",
        "Great Other",
        "White Walker",
        "Waymar Royce",
        "Wight",
    ):
        assert name in key, name
    context.close()


# --- the phone -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", ["thewall", "greatwall"])
def test_a_big_board_opens_zoomed_on_a_phone_and_moves_under_a_drag_and_a_scroll(
    live_server, browser, django_user_model, monkeypatch, game
):
    engine = registry.get_engine(game)
    match = match_in_play(monkeypatch, game, users(django_user_model, max(engine.min_players, 2)), moves=3)
    context, page = open_page(browser, live_server.url, PHONE, to_move(match))
    page.goto(live_server.url + match.get_absolute_url())
    zoom = page.get_by_role("button", name="Zoom in")
    assert zoom.get_attribute("aria-pressed") == "true"
    assert page.evaluate(SMALLEST_TEXT) >= 12
    assert page.evaluate("() => document.documentElement.scrollWidth") == PHONE["width"]

    frame = page.locator("#board-frame")
    frame.scroll_into_view_if_needed()
    where = "() => { const f = document.getElementById('board-frame'); return [f.scrollLeft, f.scrollTop]; }"
    # A drag with the mouse pulls the board along, and chooses nothing where it ends.
    start = page.evaluate(where)
    box = frame.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + min(box["height"], PHONE["height"] - box["y"]) / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 60, y - 20, steps=5)
    page.mouse.move(x - 120, y - 40, steps=5)
    page.mouse.up()
    dragged = page.evaluate(where)
    assert dragged[0] > start[0], (start, dragged)
    assert page.locator("#board [data-target].chosen").count() == 0
    # A finger's scroll moves it too.
    frame.evaluate("(f) => f.scrollBy({left: -80, top: 0})")
    assert page.evaluate(where)[0] < dragged[0]

    # Fitted again by choice, it stays fitted when the page comes back.
    zoom.click()
    assert zoom.get_attribute("aria-pressed") == "false"
    page.reload()
    assert page.get_by_role("button", name="Zoom in").get_attribute("aria-pressed") == "false"
    context.close()
