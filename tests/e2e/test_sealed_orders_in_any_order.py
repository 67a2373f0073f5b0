"""Three Houses of Wildlings at the Wall open the match page before any of them gives an order, then
commit their sealed orders one after another, each from the page it loaded: nobody's order is refused
because another House committed in the meantime."""

from __future__ import annotations

import pytest

from games import services
from games.models import Match
from tests.e2e.browsing import PASSWORD, open_page
from tests.e2e.test_wildlings_in_the_browser import NAMES, click_move, pick

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}


def to_orders(match: Match, users: list) -> Match:
    """Answer whatever the first Westeros draw asks (the worker, eager here, drew it) with the first
    choice offered, until every House is to give its order."""
    match.refresh_from_db()
    while match.engine_state["phase"] != "orders":
        for seat in sorted(match.engine.actors(match.engine_state)):
            move = match.engine.legal_moves(match.engine_state, seat)[0]
            services.move_play(match_id=match.pk, user=users[seat], expected_version=match.version, move=move)
            match.refresh_from_db()
    assert match.engine.actors(match.engine_state) == {0, 1, 2}
    return match


@pytest.mark.parametrize("order", [(2, 0, 1), (1, 2, 0)], ids=["green-first", "blue-first"])
def test_three_houses_commit_sealed_orders_in_any_order_from_pages_loaded_before_anyone_did(
    live_server, browser, django_user_model, order
):
    users = [
        django_user_model.objects.create_user(username=name, email=f"{name}@example.com", password=PASSWORD)
        for name in NAMES
    ]
    match = services.match_create(creator=users[0], game="wildlings", seat_count=3)
    for user in users[1:]:
        services.seat_join(match_id=match.pk, user=user)
    match = to_orders(match, users)
    seen = match.version
    pages = []
    for user in users:
        _, page = open_page(browser, live_server.url, DESKTOP, user)
        page.goto(f"{live_server.url}/matches/{match.pk}/")
        assert "Your move." in page.text_content("[data-testid=match-status]")
        pages.append(page)

    for seat in order:
        click_move(pages[seat], pick(pages[seat], "consolidate"))  # asserts "Played ...", not a refusal

    # The last order revealed them all and carried them out.
    match.refresh_from_db()
    assert match.version >= seen + 3
    assert "Orders revealed:" in pages[order[-1]].text_content("[data-testid=log]")
