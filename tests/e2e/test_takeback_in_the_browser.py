"""A move taken back by consent, in a real Chromium: Ann plays in Wall Go and asks to take it back, Ben's
open page shows the request, Ben accepts, and the board and the log show what happened."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from games import services
from games.models import Match
from tests.e2e.browsing import open_page

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}


def ann_to_move(ann, ben) -> Match:
    """An unrated Wall Go match past its first move, Ann to place a token that hands the turn to Ben."""
    match = services.match_create(creator=ann, game="wallgo", seat_count=2, rated=False)
    services.seat_join(match_id=match.pk, user=ben)
    users = {0: ann, 1: ben}
    while True:
        match.refresh_from_db()
        engine = match.engine
        (actor,) = engine.actors(match.engine_state)
        move = engine.legal_moves(match.engine_state, actor)[-1]
        after, _ = engine.apply(match.engine_state, actor, move)
        if actor == 0 and match.log_length > 0 and engine.actors(after) == {1}:
            return match
        services.move_play(match_id=match.pk, user=users[actor], expected_version=match.version, move=move)


def test_a_move_taken_back_with_the_other_player_s_consent(browser, live_server, make_user):
    cache.clear()
    ann, ben = make_user("ann"), make_user("ben")
    match = ann_to_move(ann, ben)
    square = next(sq for sq in ("d4", "c3", "e5", "b2", "f6") if sq not in match.public_view["tokens"])
    url = f"{live_server.url}{match.get_absolute_url()}"
    ann_context, ann_page = open_page(browser, live_server.url, DESKTOP, ann)
    ben_context, ben_page = open_page(browser, live_server.url, DESKTOP, ben)
    try:
        ben_page.goto(url)
        ann_page.goto(url)
        ann_page.fill("#id_move", square)
        ann_page.click("#move-submit")
        ann_page.wait_for_load_state()
        assert f"Played {square}." in ann_page.text_content(".messages")
        ann_page.click("[data-testid=takeback-ask] button")
        ann_page.wait_for_load_state()
        assert "Waiting for ben to answer." in ann_page.text_content("[data-testid=takeback]")

        # Ben's page, open all along, shows the request by itself (its poll), with the buttons.
        request = ben_page.locator("[data-testid=takeback]")
        request.wait_for(timeout=12_000)
        assert f"ann asks to take back the move {square}" in request.text_content()
        ben_page.click("[data-testid=takeback-accept]")
        ben_page.wait_for_load_state()
        assert "You accepted: the move was taken back." in ben_page.text_content(".messages")
        log = ben_page.text_content("[data-testid=log]")
        assert square in log and f"ann took back '{square}' (ben agreed)." in log

        ann_page.goto(url)
        assert ann_page.get_attribute(f'#board [data-target="sq-{square}"]', "aria-label") == square
        assert ann_page.locator("[data-testid=takeback]").count() == 0
        assert "Your move." in ann_page.text_content("[data-testid=match-status]")
    finally:
        ann_context.close()
        ben_context.close()


def test_the_new_match_form_offers_takebacks_only_for_a_rated_match(browser, live_server, make_user):
    # An unrated match always allows them: its creator has nothing to choose.
    context, page = open_page(browser, live_server.url, DESKTOP, make_user("ann"))
    try:
        page.goto(f"{live_server.url}/matches/new/")
        assert page.is_checked("#id_rated") and page.is_visible("#id_allow_takebacks")
        page.uncheck("#id_rated")
        assert not page.is_visible("#id_allow_takebacks")
        page.check("#id_rated")
        assert page.is_visible("#id_allow_takebacks")
    finally:
        context.close()
