"""Conditional moves in a real Chromium: Ann moves, clicks a line on the planning board, saves it, and her
reply is on her board as soon as Ben plays the move she planned for."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Forecast
from tests.e2e.browsing import open_page
from tests.support.forecasting import ALICE_OPENS, ALICE_REPLY, BOB_FIRST, wallgo_after_placement

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}


def click_path(page, scope: str, notation_path: list[str]) -> None:
    for target in notation_path:
        element = page.locator(f'{scope} [data-target="{target}"]')
        element.wait_for()
        assert "choosable" in (element.get_attribute("class") or ""), f"{target} is not offered"
        element.click()


def test_ann_plans_a_reply_on_the_board_and_it_is_played_when_ben_moves(browser, live_server, make_user):
    ann, ben = make_user("ann"), make_user("ben")
    match = services.match_create(creator=ann, game="wallgo", seat_count=2)
    services.seat_join(match_id=match.pk, user=ben)
    match = wallgo_after_placement(match, ann, ben)
    context, page = open_page(browser, live_server.url, DESKTOP, ann)
    try:
        page.goto(f"{live_server.url}/matches/{match.pk}/")
        assert page.locator("[data-testid=forecast-later]").is_visible()
        # Ann's own move, clicked on the match's board: b2-c3/c3n.
        click_path(page, "#board", ["sq-b2", "sq-c3", "wall-c3n"])
        assert page.input_value("#id_move") == ALICE_OPENS
        page.click("#move-submit")
        page.wait_for_load_state()

        # Then the line: Ben's g5-e5/e5n, her c3-d3/d3n, clicked on the planning board.
        page.click("[data-testid=forecast-plan]")
        prompt = page.locator("[data-testid=forecast-prompt]")
        expect(prompt).to_contain_text("Click the move ben might play.")
        click_path(page, "#forecast-board", ["sq-g5", "sq-e5", "wall-e5n"])
        expect(prompt).to_contain_text("Now click your reply")
        assert BOB_FIRST in page.text_content("[data-testid=forecast-so-far]")
        assert page.is_disabled("[data-testid=forecast-add-line]")
        click_path(page, "#forecast-board", ["sq-c3", "sq-d3", "wall-d3n"])
        expect(page.locator("[data-testid=forecast-add-line]")).to_be_enabled()
        page.click("[data-testid=forecast-add-line]")
        page.wait_for_selector("[data-testid=forecast-line]")
        assert page.get_attribute("[data-testid=forecast-line]", "data-line") == f"{BOB_FIRST} {ALICE_REPLY}"
        assert Forecast.objects.get().lines == [[BOB_FIRST, ALICE_REPLY]]

        # Ben plays the planned move: Ann's reply is made at once, and her open page shows it.
        match.refresh_from_db()
        services.move_play(match_id=match.pk, user=ben, expected_version=match.version, text=BOB_FIRST)
        match.refresh_from_db()
        assert match.engine_state["last_move"]["text"] == ALICE_REPLY
        expect(page.locator("[data-testid=log]")).to_contain_text(ALICE_REPLY, timeout=12_000)
        assert "conditional move" in page.text_content("[data-testid=log]")
        # The box follows: the line was used up.
        page.wait_for_selector("[data-testid=forecast-empty]", timeout=5_000)
        assert page.locator("[data-testid=forecast-line]").count() == 0
    finally:
        context.close()
