"""Two people play Wall Go in a real Chromium, clicking on the server-drawn board."""

from __future__ import annotations

import json
import random

import pytest

from games.models import Match, Move, Seat
from tests.e2e.browsing import sign_up

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def legal_moves(page) -> list[dict]:
    return json.loads(page.locator("#legal-moves").text_content())


def click_move(page, move: dict) -> None:
    """Make a move by clicking its board elements one after another, then press Play."""
    for target in move["path"]:
        element = page.locator(f'#board [data-target="{target}"]')
        assert "choosable" in (element.get_attribute("class") or ""), f"{target} is not offered"
        element.click()
    assert page.input_value("#id_move") == move["text"]
    page.click("#move-submit")
    page.wait_for_load_state()
    assert f"Played {move['text']}." in page.text_content(".messages")


def test_two_people_play_wall_go_by_clicking_on_the_board(live_server, new_page):
    base = live_server.url
    ann, ben = new_page(), new_page()
    sign_up(ann, base, "ann")
    sign_up(ben, base, "ben")

    ann.click("text=New match")
    ann.select_option("#id_game", "wallgo")
    ann.fill("#id_seat_count", "2")
    ann.fill("#id_name", "Browser duel")
    ann.click("form[data-testid=create-form] button[type=submit]")
    assert "Waiting for players (1/2)." in ann.text_content("[data-testid=match-status]")
    match_url = ann.url

    ben.goto(f"{base}/")
    ben.click("text=Browser duel")
    ben.click("[data-testid=join]")
    assert "Waiting for the other players." in ben.text_content("[data-testid=match-status]")
    match = Match.objects.get(name="Browser duel")
    assert match.status == Match.Status.ACTIVE

    pages = {0: ann, 1: ben}
    rng = random.Random(5)
    placed: list[str] = []
    full_turns = 0
    while full_turns < 6:  # the whole placement, then three full turns each
        match.refresh_from_db()
        (actor,) = match.engine.actors(match.engine_state)
        page = pages[actor]
        page.goto(match_url)
        assert "Your move." in page.text_content("[data-testid=match-status]")
        other = pages[1 - actor]
        other.goto(match_url)
        assert "Waiting for the other players." in other.text_content("[data-testid=match-status]")
        assert other.locator("#move-form").count() == 0

        moves = legal_moves(page)
        move = rng.choice(moves)
        walls_before = page.text_content(f"[data-testid=walls-left-{actor}]")
        click_move(page, move)
        if len(move["path"]) == 1:
            placed.append(move["text"])
        else:
            full_turns += 1
            walls_after = page.text_content(f"[data-testid=walls-left-{actor}]")
            assert int(walls_after) == int(walls_before) - 1
        # The move is in the log and on the board.
        assert move["text"] in page.text_content("[data-testid=log]")
        assert page.locator("#board svg").count() == 1

    assert len(placed) == 8
    assert Move.objects.filter(match=match).count() == 8 + 6

    # An illegal move typed by hand is refused with its reason and changes nothing.
    match.refresh_from_db()
    (actor,) = match.engine.actors(match.engine_state)
    page = pages[actor]
    page.goto(match_url)
    page.fill("#id_move", "a1-a1/a7n")
    page.click("#move-submit")
    assert "outer edge" in page.text_content("[data-testid=move-error]")
    assert Move.objects.filter(match=match).count() == 14

    # A wrong click sequence can be cleared.
    first = legal_moves(page)[0]
    page.locator(f'#board [data-target="{first["path"][0]}"]').click()
    page.click("#move-clear")
    assert page.input_value("#id_move") == ""

    page.once("dialog", lambda dialog: dialog.accept())
    page.click("[data-testid=resign]")
    page.wait_for_load_state()
    winner = "ben" if actor == 0 else "ann"
    assert f"{winner} wins: every other player is out." in page.text_content("[data-testid=match-status]")
    other = pages[1 - actor]
    other.goto(match_url)
    assert f"{winner} wins" in other.text_content("[data-testid=match-status]")
    assert Seat.objects.get(match=match, position=actor).status == Seat.Status.RESIGNED
