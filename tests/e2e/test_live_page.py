"""Open pages follow their matches without a reload, in a real Chromium against the live server: a move
made in one browser shows in the other within five seconds, a move being chosen survives changes that
leave it playable and is cleared (with a notice) by a change of position, My matches and the badge
follow, a button leads to the next match waiting, a rematch is offered and taken, and the game-over line
is in sight."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import time_machine
from django.test.signals import template_rendered
from django.utils import timezone
from playwright.sync_api import expect

from chat import services as chat_services
from games import services
from games.models import Match
from tests.conftest import play_random
from tests.e2e.browsing import PASSWORD, open_page

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
# ms: a change shows within 5 s (the page polls every 4.8 s in sight); half a second more for the
# rendering on this shared test machine.
SOON = 5_500
CLEARED = "The position changed while you were choosing: your move was cleared."


@pytest.fixture
def players(django_user_model) -> dict:
    return {
        name: django_user_model.objects.create_user(
            username=name, email=f"{name}@example.com", password=PASSWORD
        )
        for name in ("ann", "ben")
    }


def duel(players: dict, *, name: str = "Live duel", placed: bool = True, **options) -> Match:
    """A Wall Go match of ann (seat 0) and ben, with its tokens placed when ``placed``, and ben's first
    turn made (ann places last, so he moves first): ann is then to move, and each turn is three clicks
    (a token, where it goes, a wall)."""
    match = services.match_create(creator=players["ann"], game="wallgo", seat_count=2, name=name, **options)
    services.seat_join(match_id=match.pk, user=players["ben"])
    match.refresh_from_db()
    if placed:
        match = play_random(match, moves=8 + 1)
    return match


def legal_moves(page) -> list[dict]:
    return json.loads(page.locator("#legal-moves").text_content())


def click(page, target: str) -> None:
    page.locator(f'#board [data-target="{target}"]').click()


def chosen(page) -> list[str]:
    return page.eval_on_selector_all("#board [data-target].chosen", "els => els.map(e => e.dataset.target)")


def play(page, move: dict) -> None:
    for target in move["path"]:
        click(page, target)
    page.click("#move-submit")
    page.wait_for_load_state()


def test_a_move_shows_in_the_other_browser_and_a_move_being_chosen_survives_what_leaves_it_playable(
    live_server, browser, players
):
    base = live_server.url
    match = duel(players, move_time_limit=timedelta(days=3))
    assert match.engine.actors(match.engine_state) == {0}  # ann's turn: move a token, then a wall
    ann_context, ann = open_page(browser, base, DESKTOP, players["ann"])
    ben_context, ben = open_page(browser, base, DESKTOP, players["ben"])
    url = f"{base}{match.get_absolute_url()}"
    ann.goto(url)
    ben.goto(url)
    expect(ann.locator("[data-testid=match-status]")).to_contain_text("Your move.")
    expect(ben.locator("[data-testid=to-move]")).to_contain_text("ann's move is due")

    # Ann starts a move: one click on a token.
    move = next(m for m in legal_moves(ann) if len(m["path"]) == 3 and m["path"][0] != m["path"][1])
    click(ann, move["path"][0])
    assert chosen(ann) == [move["path"][0]]

    # Ben writes in the chat (his page sends it without a reload): it shows on ann's page; her click stays.
    ben.fill("#chat-text", "Take your time.")
    ben.click("form[data-testid=chat-form] button[type=submit]")
    expect(ben.locator("#chat-text")).to_have_value("")
    expect(ann.locator("[data-testid=chat-messages]")).to_contain_text("Take your time.", timeout=SOON)
    assert chosen(ann) == [move["path"][0]]

    # A moderator gives ann two more days: her deadline and the log change, and her click stays.
    services.turn_extend(match_id=match.pk, position=0, by=timedelta(days=2), reason="A long weekend.")
    expect(ann.locator("[data-testid=log]")).to_contain_text("A long weekend.", timeout=SOON)
    assert chosen(ann) == [move["path"][0]]
    expect(ann.locator("#live-notice")).to_be_hidden()

    # Ann finishes her move and plays it: it shows on ben's page, which offers him the board.
    for target in move["path"][1:]:
        click(ann, target)
    ann.click("#move-submit")
    ann.wait_for_load_state()
    expect(ann.locator(".messages")).to_contain_text(f"Played {move['text']}.")
    expect(ben.locator("[data-testid=match-status]")).to_contain_text("Your move.", timeout=SOON)
    expect(ben.locator("[data-testid=log]")).to_contain_text(move["text"])
    expect(ben.locator("#move-form")).to_be_visible()

    # Ben starts his move with one click; a moderator takes ann's move back: the position changed, so
    # ben's click is cleared and the page says so, with the board as it now is (ann to move again).
    answer = next(m for m in legal_moves(ben) if len(m["path"]) == 3)
    click(ben, answer["path"][0])
    assert chosen(ben) == [answer["path"][0]]
    services.move_rollback(match_id=match.pk, reason="Misclick, agreed by both.")
    expect(ben.locator("#live-notice")).to_have_text(CLEARED, timeout=SOON)
    expect(ben.locator("#move-form")).to_have_count(0)
    expect(ben.locator("[data-testid=to-move]")).to_contain_text("ann's move is due")
    expect(ann.locator("#move-form")).to_be_visible(timeout=SOON)
    ann_context.close()
    ben_context.close()


def test_a_move_chosen_in_a_simultaneous_round_survives_another_seat_committing(
    live_server, browser, players
):
    """In the dice-and-cards test game every seat plays a card at once: ben's commit redraws ann's board
    (his card lies face down now), and her chosen card stays chosen since her legal moves are the same."""
    base = live_server.url
    match = services.match_create(creator=players["ann"], game="testdice", seat_count=2)
    services.seat_join(match_id=match.pk, user=players["ben"])  # the deal runs at once (eager tasks)
    match.refresh_from_db()
    assert match.engine.actors(match.engine_state) == {0, 1}
    context, ann = open_page(browser, base, DESKTOP, players["ann"])
    ann.goto(f"{base}{match.get_absolute_url()}")
    (card, *_) = legal_moves(ann)
    click(ann, card["path"][0])
    assert ann.input_value("#id_move") == card["text"]
    svg_before = ann.inner_html("#board svg")
    bens = match.engine.legal_moves(match.engine_state, 1)[0]
    services.move_play(match_id=match.pk, user=players["ben"], expected_version=match.version, move=bens)
    expect(ann.locator("#board svg")).not_to_have_js_property("innerHTML", svg_before, timeout=SOON)
    ann.wait_for_function("() => window.wallsiteBoard && window.wallsiteBoard.selection().length === 1")
    assert chosen(ann) == [card["path"][0]] and ann.input_value("#id_move") == card["text"]
    expect(ann.locator("#live-notice")).to_be_hidden()
    context.close()


def test_a_typed_move_and_a_chat_draft_survive_a_message_from_the_other_player(live_server, browser, players):
    base = live_server.url
    match = duel(players)
    ann_context, ann = open_page(browser, base, DESKTOP, players["ann"])
    ann.goto(f"{base}{match.get_absolute_url()}")
    ann.fill("#id_move", "a1-a2/a2n")
    ann.fill("#chat-text", "Half a sentence")
    chat_services.message_post(match_id=match.pk, user=players["ben"], text="Hello from Ben")
    expect(ann.locator("[data-testid=chat-messages]")).to_contain_text("Hello from Ben", timeout=SOON)
    assert ann.input_value("#id_move") == "a1-a2/a2n"
    assert ann.input_value("#chat-text") == "Half a sentence"
    ann_context.close()


def test_my_matches_names_who_is_to_move_and_follows_a_move(live_server, browser, players):
    base = live_server.url
    match = duel(players, move_time_limit=timedelta(days=2))
    context, ben = open_page(browser, base, DESKTOP, players["ben"])
    ben.goto(f"{base}/me/matches/")
    row = ben.locator("[data-testid=my-matches] tbody tr", has_text="Live duel")
    expect(row.locator("[data-testid=row-status]")).to_contain_text("ann to move")
    expect(row.locator("[data-testid=deadline] time")).to_be_visible()
    expect(ben.locator("[data-testid=awaiting-badge]")).to_have_count(0)

    match.refresh_from_db()
    move = match.engine.legal_moves(match.engine_state, 0)[0]
    services.move_play(match_id=match.pk, user=players["ann"], expected_version=match.version, move=move)
    expect(row.locator("[data-testid=row-status]")).to_contain_text("Your move", timeout=SOON)
    expect(ben.locator("[data-testid=awaiting-badge]")).to_have_text("1", timeout=SOON)
    context.close()


def test_after_play_the_next_match_waiting_is_one_click_away(live_server, browser, players):
    base = live_server.url
    first = duel(players, name="First board")
    second = duel(players, name="Second board")
    context, ann = open_page(browser, base, DESKTOP, players["ann"])
    ann.goto(f"{base}{first.get_absolute_url()}")
    move = next(m for m in legal_moves(ann) if len(m["path"]) == 3)
    play(ann, move)
    button = ann.locator("[data-testid=next-match]")
    expect(button).to_contain_text("Next match waiting for you: Second board")
    button.click()
    ann.wait_for_url(f"{base}{second.get_absolute_url()}")
    expect(ann.locator("[data-testid=match-status]")).to_contain_text("Your move.")
    context.close()


def test_a_rematch_is_offered_on_the_ended_match_s_page_and_taken_from_it(live_server, browser, players):
    base = live_server.url
    match = duel(players, name="Grudge match")
    url = f"{base}{match.get_absolute_url()}"
    ann_context, ann = open_page(browser, base, DESKTOP, players["ann"])
    ben_context, ben = open_page(browser, base, DESKTOP, players["ben"])
    ann.goto(url)
    ben.goto(url)

    ann.once("dialog", lambda dialog: dialog.accept())
    ann.click("[data-testid=resign]")
    ann.wait_for_load_state()
    # Ben's open page learns the result by itself and offers him a rematch.
    expect(ben.locator("[data-testid=match-status]")).to_contain_text("ben wins", timeout=SOON)
    ben.click("[data-testid=rematch-offer] button")
    ben.wait_for_load_state()
    expect(ben.locator("[data-testid=match-status]")).to_contain_text("Waiting for players (1/2).")
    rematch = Match.objects.get(rematch_of=match)
    assert ben.url == f"{base}{rematch.get_absolute_url()}"

    # Ann's page of the old match shows the offer without a reload; she joins from there.
    offer = ann.locator("[data-testid=rematch]")
    expect(offer).to_contain_text("ben offers a rematch", timeout=SOON)
    offer.locator("[data-testid=rematch-join]").click()
    ann.wait_for_url(f"{base}{rematch.get_absolute_url()}")
    # The rematch starts; ben's page of it draws the board by itself.
    expect(ben.locator("#board svg")).to_be_visible(timeout=SOON)
    rematch.refresh_from_db()
    assert rematch.status == Match.Status.ACTIVE
    # A second offer on the old match leads to this one.
    ann.goto(url)
    expect(ann.locator("[data-testid=rematch]")).to_contain_text("The rematch is in play.")
    expect(ann.locator("[data-testid=rematch-offer]")).to_have_count(0)
    ann_context.close()
    ben_context.close()


def test_the_game_over_line_is_in_sight_without_scrolling(live_server, browser, players):
    base = live_server.url
    match = duel(players, placed=False)
    match = play_random(match, moves=24)
    services.match_resign(match_id=match.pk, user=players["ann"])
    context, page = open_page(browser, base, DESKTOP, players["ben"])
    page.goto(f"{base}{match.get_absolute_url()}")
    log = page.locator("[data-testid=log]")
    last = log.locator("li").last
    expect(last).to_contain_text("resigns")
    inside = page.evaluate(
        """() => {
            const log = document.querySelector("[data-testid=log]");
            const last = log.querySelector("li:last-child");
            const box = log.getBoundingClientRect(), line = last.getBoundingClientRect();
            const scrolls = log.scrollHeight > log.clientHeight;
            return scrolls && line.top >= box.top - 1 && line.bottom <= box.bottom + 1;
        }"""
    )
    assert inside, "the last log line is hidden at the bottom of a scrolled box"
    context.close()


def test_a_reload_of_an_unchanged_page_is_the_browsers_copy_and_still_plays(live_server, browser, players):
    """Chromium asks again with the tag of its copy: the server answers 304 without drawing the page, and
    the copy Chromium shows works as the page did (the board offers the same moves and takes clicks).
    After a change, a reload draws the new page."""
    match = duel(players)
    context, page = open_page(browser, live_server.url, DESKTOP, players["ann"])
    address = f"{live_server.url}/matches/{match.pk}/"
    drawn = []

    def on_render(sender, template, **kwargs) -> None:
        if template.name == "games/match_detail.html":
            drawn.append(template.name)

    # The page's tag names the minute: the clock starts the test at the top of one, with a minute to go.
    clock = time_machine.travel(timezone.now().replace(second=0, microsecond=0), tick=True)
    clock.start()
    template_rendered.connect(on_render)
    try:
        page.goto(address)
        page.reload()  # the first load set the CSRF cookie the tag names: this copy is the one kept
        offered = legal_moves(page)
        assert len(drawn) == 2
        asked = page.reload().request.all_headers()
        assert asked.get("if-none-match"), "Chromium asks with the tag of its copy"
        assert len(drawn) == 2, "the server drew nothing: a 304"
        assert legal_moves(page) == offered
        first = offered[0]["path"][0]
        click(page, first)
        assert chosen(page) == [first], "the copy's board takes clicks"
        play_random(match, moves=1, seed=5)
        page.reload()
        assert len(drawn) == 3
        expect(page.locator("#legal-moves")).to_have_count(0)  # ben is to move now
    finally:
        template_rendered.disconnect(on_render)
        clock.stop()
        context.close()
