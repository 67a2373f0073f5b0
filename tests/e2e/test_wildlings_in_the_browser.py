"""Three people play a round of Wildlings at the Wall in a real Chromium, one browser context each: sealed
orders, then the Westeros phase a worker runs, a wildling attack and sealed bids, all given by clicking on
the server-drawn board. Until the last House commits, the others (and a spectator) see only "committed";
the reveal then shows everything to everyone, and the log tells how the attack ended.

The first Westeros draw (made when the table filled) is whatever the match's own RNG gave; the test
answers anything it asks with the first offered choice. Then, as a test setup stored with the view and
hidden hands recomputed, it stacks the next draw: Muster, Last Days of Summer (an icon: threat 8 -> 10)
and Wildlings Attack, with The Horde Descends on top of the wildling deck (or Mammoth Riders, should the
first round's own attack have buried the Horde where everyone saw it: both cost every House levies).
"""

from __future__ import annotations

import json
import re

import pytest

from games.engines.wildlings.cards import WILDLINGS
from games.models import Match, Move
from tests.e2e.browsing import sign_up
from tests.support.wildlings import attack_ahead, state_store

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

NAMES = ["ann", "ben", "cat"]
COLOURS = ["Orange", "Blue", "Green"]
BIDS = [2, 1, 0]  # Green is the one lowest bidder: no tie for the Iron Throne to break


def choices(page) -> list[dict]:
    return json.loads(page.locator("#legal-moves").text_content())


def click_move(page, move: dict) -> None:
    """Make a move by clicking its board elements one after another, then press Play."""
    for target in move["path"]:
        # A hand may hold two cards of one strength: either will do.
        element = page.locator(f'#board [data-target="{target}"]').first
        assert "choosable" in (element.get_attribute("class") or ""), f"{target} is not offered"
        element.click()
    assert page.input_value("#id_move") == move["text"]
    page.click("#move-submit")
    page.wait_for_load_state()
    assert f"Played {move['text']}." in page.text_content(".messages")


def pick(page, *wanted: str) -> dict:
    """The first offered choice whose text starts with one of ``wanted`` (in that order of preference),
    else the first offered choice."""
    offered = choices(page)
    for prefix in wanted:
        for move in offered:
            if move["text"].startswith(prefix):
                return move
    return offered[0]


def state_of(match: Match) -> dict:
    match.refresh_from_db()
    return match.engine_state


def status_cells(page) -> list[str]:
    """The "this round" column of the side panel, one cell per House."""
    return [page.text_content(f"[data-testid=status-{k}]").strip() for k in range(3)]


def svg_statuses(page) -> list[str]:
    return [text.strip() for text in page.locator("#board svg .house .status").all_text_contents()]


def log_since(page, seq: int) -> str:
    """The lines of the page's game log after line ``seq``."""
    lines = page.locator("[data-testid=log] li").evaluate_all("els => els.map(e => [e.value, e.textContent])")
    return " ".join(text for number, text in lines if number > seq)


def public_text(page, since: int) -> str:
    """What the page says about the Houses and the sealed stage that began after log line ``since``,
    leaving out the viewer's own offered choices (which may well read like another House's choice)."""
    parts = ["[data-testid=wildlings-panel]", "#board svg .house"]
    return " ".join(
        [*(" ".join(page.locator(part).all_text_contents()) for part in parts), log_since(page, since)]
    )


def last_bids(page) -> str:
    shown = page.locator("[data-testid=last-bids]")
    return " ".join(shown.text_content().split()) if shown.count() else ""


def assert_sees_committed(page, count: int, *, own: int | None) -> None:
    """The first ``count`` Houses show as committed and the others as still thinking, in the panel and
    on the board (where the viewer's own committed row tells its own sealed choice instead)."""
    expected = ["committed"] * count + ["thinking…"] * (3 - count)
    assert status_cells(page) == expected
    shown = svg_statuses(page)
    for k in range(3):
        if not (k == own and k < count):
            assert shown[k] == expected[k], (k, shown)


def test_three_houses_give_sealed_orders_and_bids_by_clicking_and_the_wildlings_attack(live_server, new_page):
    base = live_server.url
    pages = [new_page() for _ in NAMES]
    for page, name in zip(pages, NAMES, strict=True):
        sign_up(page, base, name)
    ann, ben, cat = pages

    ann.click("text=New match")
    ann.select_option("#id_game", "wildlings")
    ann.fill("#id_seat_count", "3")
    ann.fill("#id_name", "Beyond the Wall")
    ann.click("form[data-testid=create-form] button[type=submit]")
    assert "Waiting for players (1/3)." in ann.text_content("[data-testid=match-status]")
    match_url = ann.url
    for page in (ben, cat):
        page.goto(f"{base}/")
        page.click("text=Beyond the Wall")
        page.click("[data-testid=join]")
    match = Match.objects.get(name="Beyond the Wall")
    assert match.status == Match.Status.ACTIVE
    # The last join queued the first Westeros draw, and the worker (eager here) has made it.
    assert state_of(match)["phase"] != "westeros"
    assert Move.objects.filter(match=match, seat=None).exists()
    spectator = new_page()
    everyone = [*pages, spectator]

    def look(page):
        page.goto(match_url)
        return page

    # Whatever the first draw asks for (a Clash of Kings, a decision), the first offered choice answers.
    while (state := state_of(match))["phase"] != "orders":
        assert state["phase"] in ("bidding", "decide"), state["phase"]
        for seat in sorted(match.engine.actors(state)):
            page = look(pages[seat])
            click_move(page, choices(page)[0])
    deck, known = state["wild_deck"], state["wild_known"]
    card = next(c for c in ("horde", "mammoth") if c in deck[: len(deck) - known])
    card_name = WILDLINGS[card].name
    match = state_store(match, attack_ahead(state, threat=8, wildling_card=card, powers=[8, 8, 8]))

    # --- sealed orders -------------------------------------------------------------------------------
    start = match.log_length
    orders: dict[int, str] = {}
    for seat, wanted in ((0, ("march green", "consolidate")), (1, ("raid green", "consolidate")), (2, ())):
        page = look(pages[seat])
        assert "Your move." in page.text_content("[data-testid=match-status]")
        assert "Every House gives one order in secret." in page.text_content("[data-testid=wildlings-round]")
        move = pick(page, *wanted)
        click_move(page, move)
        orders[seat] = move["text"]
        if seat == 2:
            break
        assert "Your order is sealed." in page.text_content("[data-testid=my-order]")
        assert f"You order: {move['text']}." in page.text_content("[data-testid=log]")
        for other in everyone:
            if other is page:
                continue
            look(other)
            assert_sees_committed(other, seat + 1, own=pages.index(other) if other in pages else None)
            seen = public_text(other, start)
            assert f"{COLOURS[seat]} has committed." in seen
            assert "You order" not in seen or other in pages[:seat]
            for earlier in range(seat + 1):
                if other is not pages[earlier]:
                    assert orders[earlier] not in seen, (earlier, seen)

    # Green's order was the last: the orders were revealed and carried out, and the next Westeros phase
    # was drawn by the worker within the same request: the wildlings attack.
    state = state_of(match)
    assert (state["phase"], state["round"], state["threat"]) == ("bidding", 2, 10)
    assert (state["bidding"]["kind"], state["bidding"]["strength"]) == ("wildlings", 10)
    for page in everyone:
        look(page)
        log = page.text_content("[data-testid=log]")
        assert "Orders revealed:" in log
        for seat, text in orders.items():
            assert f"{COLOURS[seat]}: {text}" in log
        assert "Westeros III: Wildlings Attack." in log
        assert "The wildlings attack with strength 10" in page.text_content("[data-testid=wildlings-round]")
        assert_sees_committed(page, 0, own=None)

    # --- sealed bids ---------------------------------------------------------------------------------
    start = match.log_length
    shown_before = {k: last_bids(page) for k, page in enumerate(everyone)}  # from the first round, if any
    for seat, value in enumerate(BIDS):
        page = look(pages[seat])
        move = next(m for m in choices(page) if m["text"] == f"bid {value}")
        assert move["path"] == [f"bid-{value}"]
        click_move(page, move)
        if seat == 2:
            break
        assert f"Your sealed bid: {value} Power." in page.text_content("[data-testid=my-bid]")
        assert f"you bid {value} (sealed)" in svg_statuses(page)
        for other in everyone:
            if other is page:
                continue
            look(other)
            assert_sees_committed(other, seat + 1, own=pages.index(other) if other in pages else None)
            seen = public_text(other, start)
            assert "Bids revealed" not in seen and last_bids(other) == shown_before[everyone.index(other)]
            for earlier in range(seat + 1):
                assert f"{COLOURS[earlier]} has committed." in seen
                if other is not pages[earlier]:
                    bid = BIDS[earlier]
                    for text in (
                        f"bid {bid}",
                        f"You bid {bid} Power",
                        f"sealed bid: {bid}",
                        f"{NAMES[earlier]} {bid},",
                        f"{COLOURS[earlier]} {bid},",
                    ):
                        assert text not in seen, (text, seen)
            if other in pages:
                assert (other.locator("[data-testid=my-bid]").count() == 1) is (other in pages[:seat])

    # Green's bid was the last: every page shows all three at once, and how the attack ended.
    state = state_of(match)
    assert state["last_bids"]["bids"] == BIDS and state["phase"] == "orders"
    for page in everyone:
        look(page)
        assert " ".join(page.text_content("[data-testid=last-bids]").split()) == (
            "Last wildling attack: ann 2, ben 1, cat 0: 3 against 10, the wildlings won."
        )
        board = page.text_content("#board svg")
        assert (
            "Last wildling attack: Orange 2, Blue 1, Green 0; total 3 against 10: the wildlings won." in board
        )
        log = page.text_content("[data-testid=log]")
        assert (
            "Bids revealed: Orange 2, Blue 1, Green 0. The Night's Watch has 3 against 10: "
            "the wildlings break through. Every bid is discarded." in log
        )
        assert "The wildling threat goes from 10 to 6." in log
        assert f"The wildling card is {card_name}." in log
        for colour in COLOURS:  # the lowest bidder, Green, the severe penalty; the others the lesser one
            assert re.search(rf"{colour} loses [^.]+ \({card_name}\)\.", log), colour
        assert f"{card_name} is buried at the bottom of the wildling deck." in log
        assert "Round 2: every House gives one order in secret." in log
        assert page.text_content("[data-testid=threat]").split()[2] == "6"
