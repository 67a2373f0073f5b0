"""The move a player is building is drawn on the board before Play, in every game, in a real Chromium.

Each case starts a match through the services, opens the page of the player to move and clicks a legal
move's path without pressing Play: the page's ``pending-move`` group must hold the expected shapes, each
centred on the expected place of the board (a ghost stone on its new square, a wall on its edge, a hero
pushed by a moved wall, a unit's ghost on its hex, an archer's target ringed, an order written on the
House's row, a clerk's label on its location). Clear takes it all away, the real pieces included (no
piece stays dimmed), and the same clicks then played send the move.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.core.cache import cache

from games import services
from games.models import Match
from games.playouts import play_random_moves
from tests.e2e.browsing import PASSWORD, open_page
from tests.support.positions import position_store
from tests.support.stairways import position_arrange

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
NAMES = ["ann", "ben", "cat"]
PENDING = "#board [data-testid=pending-move]"

# Whether some element matching ``selector`` in the pending group has its middle inside the place
# (a click target or a data-place) named ``place``, on the screen; a label may instead sit just above a
# place too small to hold it (its lower edge on the place's upper edge).
CENTRED_ON = """([selector, place]) => {
  const group = document.querySelector("#board [data-testid=pending-move]");
  const el = document.querySelector(`#board [data-target="${place}"], #board [data-place="${place}"]`);
  if (!group || !el) return false;
  const p = el.getBoundingClientRect();
  return [...group.querySelectorAll(selector)].some((shape) => {
    const b = shape.getBoundingClientRect();
    const x = b.left + b.width / 2, y = b.top + b.height / 2;
    const across = x >= p.left - 1 && x <= p.right + 1;
    const inside = across && y >= p.top - 1 && y <= p.bottom + 1;
    const above = selector === ".pending-label" && across && b.bottom >= p.top - 1 && b.bottom <= p.top + 8;
    return b.width + b.height > 0 && (inside || above);
  });
}"""


@dataclass
class Case:
    """A match in the game, the move(s) to build and look at, the last of them then played; for each,
    the shapes expected as (CSS selector inside the pending group, place its middle lies in)."""

    seats: int
    arrange: Callable[[Match], Match]
    moves: list[tuple[str, list[tuple[str, str]]]]
    options: dict[str, str] | None = None


def _after(moves: int) -> Callable[[Match], Match]:
    def arrange(match: Match) -> Match:
        return play_random_moves(match_id=match.pk, rng=random.Random(7), moves=moves)

    return arrange


def _wildlings_orders(match: Match) -> Match:
    """Whatever the first Westeros cards ask decided at random, up to the Houses' orders; but Put to the
    Sword forbids nothing, so that the march the test builds is allowed whoever holds Fiefdoms."""
    rng = random.Random(7)
    for _ in range(20):
        match.refresh_from_db()
        if match.engine_state["phase"] == "orders":
            return _marches_allowed(match)
        actors = match.engine.actors(match.engine_state)
        if not actors:
            play_random_moves(match_id=match.pk, rng=rng, moves=1)
            continue
        actor = min(actors)
        moves = match.engine.legal_moves(match.engine_state, actor)
        forbid_nothing = [m for m in moves if "none" in m.values()]
        move = forbid_nothing[0] if forbid_nothing else rng.choice(moves)
        services.move_play(
            match_id=match.pk,
            user=match.seats.get(position=actor).user,
            expected_version=match.version,
            move=move,
        )
    raise AssertionError("no orders phase in the first steps")


def _marches_allowed(match: Match) -> Match:
    """When Rains of Autumn came up (no march orders this round), the round is set to forbid nothing, in
    place: the test builds a march, whatever the deck dealt."""
    state = match.engine_state
    if state["restriction"] != "march":
        return match
    state["restriction"] = None
    match = position_store(match, state)
    cache.clear()  # the page cache is keyed on versions, and this change made none
    return match


def _stairways_wall_owner(match: Match) -> Match:
    """Ann holds the heart wonder and H7, so her heart can pivot the wall e5e through hero 2's square."""
    match = position_arrange(
        match,
        hands=[
            ["H1", "H7", "C5", "C9", "D1", "D6", "S3", "S4"],
            ["H3", "H9", "C2", "C7", "D8", "S2", "S6", "S10"],
        ],
    )
    ann = match.seats.get(position=0).user
    for text in ("bid H1", "claim H"):
        match.refresh_from_db()
        services.move_play(match_id=match.pk, user=ann, expected_version=match.version, text=text)
    match.refresh_from_db()
    return match


# The classic two-player layout with hero 2 on e5, beside the wall e5e.
STAIRWAYS_LAYOUT = {
    "walls": ["a2n", "b2e", "b5e", "b6n", "b7e", "c4e", "c5n", "c6e", "d3n", "d6n", "e1e", "e1n", "e5e",
              "e5n", "f2n", "f3e", "f8e", "g4e", "g6n", "h3n"],
    "stairways": ["a1", "h8"],
    "heroes": ["d5", "e5"],
    "giant": "b7",
    "rats": [{"square": "c2", "size": 4}, {"square": "g6", "size": 4}],
}  # fmt: skip

CASES = {
    "wallgo-placing": Case(
        2, _after(0), [("d4", [(".pending-ghost", "sq-d4"), (".pending-landing", "sq-d4")])]
    ),
    # The eight tokens placed: a move is from, to and a wall, picked from the page's list (see below).
    "wallgo-moving": Case(2, _after(8), []),
    "stairways": Case(
        2,
        _stairways_wall_owner,
        [
            (
                "H7 e5e-e4n",
                [
                    (".pending-unwall", "wall-e5e"),
                    (".pending-wall", "edge-e4n"),
                    (".pending-ghost", "sq-e4"),  # hero 2, swept from e5
                ],
            )
        ],
        options={"layout_json": json.dumps(STAIRWAYS_LAYOUT)},
    ),
    "thewall": Case(
        2,
        _after(0),
        [
            ("0310-0108", [(".pending-ghost", "h0108"), (".pending-landing", "h0108")]),
            ("0909 shoot 0905", [(".pending-ring", "h0905"), (".pending-label", "h0905")]),
        ],
    ),
    "wildlings": Case(
        3, _wildlings_orders, [("march blue ", [(".pending-label", "round-0"), (".pending-ring", "house-1")])]
    ),
    "greatwall": Case(2, _after(0), [("overseer wood", [(".pending-label", "loc-wood")])]),
}


def legal(page) -> list[dict]:
    return json.loads(page.locator("#legal-moves").text_content())


def build(page, entry: dict) -> None:
    for target in entry["path"]:
        element = page.locator(f'#board [data-target="{target}"]').first
        assert "choosable" in (element.get_attribute("class") or ""), f"{target} is not offered"
        element.click()
    assert page.input_value("#id_move") == entry["text"]


def check(page, entry: dict, shapes: list[tuple[str, str]]) -> None:
    assert page.locator(PENDING).count() == 1, f"nothing drawn for {entry['text']}"
    for selector, place in shapes:
        assert page.evaluate(CENTRED_ON, [selector, place]), f"{entry['text']}: no {selector} on {place}"


def wall_go_move(entries: list[dict]) -> tuple[str, list[tuple[str, str]]]:
    """A stone that really moves, and the places its ghost, its origin and its wall are drawn on."""
    entry = next(e for e in entries if len(e["path"]) == 3 and e["path"][0] != e["path"][1])
    _, to, wall = entry["path"]
    return entry["text"], [(".pending-ghost", to), (".pending-landing", to), (".pending-wall", wall)]


@pytest.mark.parametrize("case", list(CASES))
def test_the_move_being_built_is_drawn_on_the_board_until_clear_and_play_sends_it(
    live_server, browser, django_user_model, case
):
    spec = CASES[case]
    game = case.split("-")[0]
    users = [
        django_user_model.objects.create_user(username=name, email=f"{name}@example.com", password=PASSWORD)
        for name in NAMES[: spec.seats]
    ]
    match = services.match_create(
        creator=users[0],
        game=game,
        seat_count=spec.seats,
        name="Drawn before sent",
        options=spec.options or {},
    )
    for user in users[1:]:
        services.seat_join(match_id=match.pk, user=user)
    match = spec.arrange(match)
    assert match.status == Match.Status.ACTIVE
    seat = min(match.engine.actors(match.engine_state))
    context, page = open_page(browser, live_server.url, DESKTOP, match.seats.get(position=seat).user)
    try:
        page.goto(f"{live_server.url}/matches/{match.pk}/")
        entries = {e["text"]: e for e in legal(page)}
        moves = spec.moves or [wall_go_move(list(entries.values()))]
        assert page.locator(PENDING).count() == 0
        for text, shapes in moves:
            # A move named in full, or the first that starts so (the cards in a hand are dealt at random).
            entry = entries.get(text) or next(e for t, e in entries.items() if t.startswith(text))
            build(page, entry)
            check(page, entry, shapes)
            page.click("#move-clear")
            assert page.locator(PENDING).count() == 0
            assert page.locator("#board .pending-left").count() == 0, "a piece stays dimmed after Clear"
        if game == "wallgo" and len(entry["path"]) == 3:
            # The stone's own square is dimmed while its ghost stands on the new one.
            build(page, entry)
            assert page.locator(f'#board .pending-left[data-on="{entry["path"][0]}"]').count() == 1
            page.click("#move-clear")
        build(page, entry)
        page.click("#move-submit")
        page.wait_for_load_state()
        assert f"Played {entry['text']}." in page.text_content(".messages")
    finally:
        context.close()
