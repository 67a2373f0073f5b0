"""Post-game analysis in a real Chromium: a finished Wall Go match is analysed from its replay page, the
blunder is marked in the move list, and at that move the computer's choice is drawn on the board before
it. The test settings run the queued task at once, so the answer to Analyse shows the result."""

from __future__ import annotations

import pytest

from games import services
from games.models import Analysis, Match
from tests.e2e.browsing import PASSWORD, open_page

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
# Placement goes ann, ben, ben, ann, ...: ben's second token goes into a corner, far from everything.
MOVES = ["d4", "c3", "a1", "e5"]


def finished_match(django_user_model) -> Match:
    ann, ben = (
        django_user_model.objects.create_user(username=name, email=f"{name}@example.com", password=PASSWORD)
        for name in ("ann", "ben")
    )
    match = services.match_create(creator=ann, game="wallgo", seat_count=2, name="Corner blunder")
    services.seat_join(match_id=match.pk, user=ben)
    for version, text in enumerate(MOVES):
        match = Match.objects.get(pk=match.pk)
        mover = match.seats.get(position=min(match.engine.actors(match.engine_state))).user
        services.move_play(match_id=match.pk, user=mover, expected_version=version, text=text)
    services.match_resign(match_id=match.pk, user=ben)
    return Match.objects.get(pk=match.pk)


def test_a_finished_match_is_analysed_and_the_blunder_shown_with_the_better_move(
    live_server, browser, django_user_model
):
    match = finished_match(django_user_model)
    assert match.status == Match.Status.FINISHED
    context, page = open_page(browser, live_server.url, DESKTOP, match.created_by)
    try:
        page.goto(f"{live_server.url}/matches/{match.pk}/replay/")
        page.click("[data-testid=analyse]")
        page.wait_for_selector("[data-testid=analysis-legend]")
        analysis = Analysis.objects.get(match=match)
        assert analysis.status == Analysis.Status.DONE and analysis.total == len(MOVES)
        blunder = next(entry for entry in analysis.marks if entry["seq"] == 3)
        assert blunder["mark"] == "??"

        marked = page.locator("[data-testid=move-list] li", has=page.locator("[data-testid=move-mark]"))
        assert marked.count() >= 1
        corner = page.locator("[data-testid=move-list] li[value='3']")
        assert corner.locator("[data-testid=move-mark]").text_content() == "??"
        corner.locator("a").click()
        page.wait_for_url("**?at=3")

        better = page.text_content("[data-testid=analysis-better]")
        assert f"Better: {blunder['best']}" in better and "squares better" in better
        # The computer's token is drawn on its square of the board before ben's move, dashed.
        ghost = page.locator("[data-testid=suggestion-board] [data-testid=pending-move] .pending-ghost")
        ghost.first.wait_for()
        square = page.locator(
            f"[data-testid=suggestion-board] [data-target=sq-{blunder['best_move']['place']}]"
        )
        g, s = ghost.first.bounding_box(), square.bounding_box()
        middle = (g["x"] + g["width"] / 2, g["y"] + g["height"] / 2)
        assert s["x"] <= middle[0] <= s["x"] + s["width"] and s["y"] <= middle[1] <= s["y"] + s["height"]
    finally:
        context.close()
