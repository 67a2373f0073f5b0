"""Learning a game in a real Chromium: the games list, a rules page with its pictures and contents, at a
desktop's size and a phone's, and the sentence above the board on a match page."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe

from games import services
from games.models import Match
from tests.e2e.browsing import PASSWORD
from tests.e2e.browsing import open_page as open_context

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]},
    "resultTypes": ["violations"],
}
# Every picture's box, and the width of the column it is drawn in.
BOXES = """(selector) => [...document.querySelectorAll(selector)].map((svg) => {
  const box = svg.getBoundingClientRect();
  const column = svg.closest("article, li").getBoundingClientRect();
  return {width: box.width, height: box.height, column: column.width};
})"""


def assert_drawn(page, selector: str, count: int) -> None:
    boxes = page.evaluate(BOXES, selector)
    assert len(boxes) == count, f"{len(boxes)} pictures for {selector}, not {count}"
    for box in boxes:
        assert box["width"] > 100 and box["height"] > 50, f"a picture is not drawn: {box}"
        assert box["width"] <= box["column"] + 1, f"a picture is wider than its column: {box}"


def assert_fits(page, size: str) -> None:
    width = VIEWPORTS[size]["width"]
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width, "the page scrolls sideways"
    results = Axe().run(page, options=AXE_OPTIONS)
    assert not results.violations_count, results.generate_report()


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_a_player_finds_a_game_and_reads_its_rules_with_pictures(live_server, browser, size):
    context, page = open_context(browser, live_server.url, VIEWPORTS[size])
    try:
        page.goto(live_server.url + "/")
        page.click("[data-testid=games-link]")
        page.wait_for_url("**/games/")
        assert_drawn(page, "[data-testid=game-card] .game-card-board svg", 5)
        assert_fits(page, size)

        page.click("[data-game=stairways] h2 a")
        page.wait_for_url("**/games/stairways/rules/")
        assert page.text_content("h1") == "Walls and Stairways: the rules"
        page.locator(".example-panel").first.scroll_into_view_if_needed()
        assert_drawn(page, ".example-panel svg", 2)
        assert "pushed to" in page.text_content("[data-example=stairways-pivot] .example-caption")
        assert_fits(page, size)

        # The contents lead to their sections.
        page.click("[data-testid=rules-contents] a:text-is('Wonders')")
        page.wait_for_url("**/games/stairways/rules/#wonders")
        heading = page.locator("h2#wonders").bounding_box()
        assert heading is not None and 0 <= heading["y"] < VIEWPORTS[size]["height"] / 2
    finally:
        context.close()


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_the_match_page_says_above_the_board_what_the_step_asks(
    live_server, browser, django_user_model, size
):
    ann, ben = (
        django_user_model.objects.create_user(username=name, email=f"{name}@example.com", password=PASSWORD)
        for name in ("ann", "ben")
    )
    match = services.match_create(creator=ann, game="wallgo", seat_count=2, name="Lesson")
    services.seat_join(match_id=match.pk, user=ben)
    assert Match.objects.get(pk=match.pk).status == Match.Status.ACTIVE
    for user, sentence in (
        (ann, "Place a token on any empty square (4 still to place)."),
        (ben, "Waiting for ann to place a token."),
    ):
        context, page = open_context(browser, live_server.url, VIEWPORTS[size], user)
        try:
            page.goto(live_server.url + match.get_absolute_url())
            prompt = page.locator("[data-testid=match-prompt]")
            assert prompt.text_content() == sentence
            above = prompt.bounding_box()
            board = page.locator("[data-testid=board] svg").bounding_box()
            assert above is not None and board is not None
            assert above["height"] > 0 and above["y"] + above["height"] <= board["y"]
            page.click("[data-testid=rules-link]")
            page.wait_for_url("**/games/wallgo/rules/")
            page.locator("[data-example=wallgo-turn]").scroll_into_view_if_needed()
            assert_drawn(page, ".example-panel svg", 2)
        finally:
            context.close()
