"""The Great Wall's board as assistive technology meets it: a board to play on is a group of labelled
buttons (Horde cards, vital spots, Tank blocks, wall sections, locations, soldiers), each named in words a
player understands, what covers a vital spot included, and the cards and the decline are buttons beside
it; a board to look at is one picture. Pure: no database, no browser (tests/e2e/test_accessibility.py
plays it with the keyboard, tests/e2e/test_big_boards.py measures it)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from tests.engines.test_greatwall import ENGINE, State, at, card, clan, cleared, started

SVG_NS = "{http://www.w3.org/2000/svg}"
SPEAR0 = ["s", 0, "spearman"]


def drawn(state: State, seat: int | None, *, interactive: bool) -> tuple[str, ET.Element]:
    svg = ENGINE.render_svg(ENGINE.view(state, seat), seat, interactive=interactive)
    return svg, ET.fromstring(svg)


def targets(root: ET.Element) -> dict[str, ET.Element]:
    return {el.get("data-target"): el for el in root.iter() if el.get("data-target") is not None}


def barracks() -> State:
    """Blue (the Turtle clan, with Tanks) recruits or attacks; Warbands wait before sections A and B,
    the one before A wounded on spot 5, with Orange's Spearman on spot 6 and a Snake token on spot 2."""
    state = cleared(2)
    clan(state, 1, "turtle")
    card(state, 0, 1, "warband", {5: ["w"], 6: SPEAR0, 2: ["k", 0]})
    card(state, 1, 1, "warband")
    at(state, {"task": "barracks", "seat": 1, "orders": 1})
    return state


def test_a_board_to_play_on_is_a_named_group_of_buttons_each_with_a_name_of_its_own() -> None:
    state = barracks()
    _, root = drawn(state, 1, interactive=True)
    assert root.get("role") == "group"
    assert root.get("aria-label") == (
        "The Great Wall board: Year 1 of 6, summer: Blue recruits or attacks (1 orders left)."
    )
    found = targets(root)
    assert {"sec-0", "loc-barracks", "spot-0-1-1", "tank-0-1", "sup-spearman", "res-tank"} <= set(found)
    assert "done" not in found  # a button beside the board
    for target, element in found.items():
        # Unavailable until the page's script offers it; reachable by the keyboard once it does.
        assert element.get("role") == "button", target
        assert element.get("aria-disabled") == "true", target
        assert element.get("tabindex") == "-1", target
        assert element.get("aria-label"), target
        assert element.find(f"{SVG_NS}title").text == element.get("aria-label"), target
    labels = [element.get("aria-label") for element in found.values()]
    assert len(set(labels)) == len(labels), "two buttons share a name"


def test_every_place_a_legal_move_clicks_is_a_labelled_button_on_the_board_or_beside_it() -> None:
    for state, seat in ((barracks(), 1), (started(2), 0)):
        found = targets(drawn(state, seat, interactive=True)[1])
        beside = dict(ENGINE.board_actions(ENGINE.view(state, seat), seat))
        legal = ENGINE.legal_moves(state, seat)
        assert legal
        for move in legal:
            for target in ENGINE.click_path(move):
                assert target in beside or found[target].get("role") == "button", target


def test_the_buttons_beside_the_board_are_the_viewers_own_cards_and_the_decline() -> None:
    state = started(2)
    view = ENGINE.view(state, 0)
    beside = ENGINE.board_actions(view, 0)
    hand = view["private"]["hand"]
    assert [t for t, _ in beside if t.startswith("cmd-")] == [f"cmd-{c}" for c in view["private"]["commands"]]
    assert {t for t, _ in beside if t.startswith("adv-")} == {f"adv-{a}" for a in hand}
    assert beside[-1] == ("done", "Done: pass")
    labels = [label for _, label in beside]
    assert len(set(labels)) == len(labels)
    # A spectator has no hand: only the decline, which no legal move of theirs ever takes.
    assert ENGINE.board_actions(ENGINE.view(state, None), None) == [("done", "Done: pass")]


def test_a_vital_spot_says_what_covers_it() -> None:
    found = targets(drawn(barracks(), 1, interactive=True)[1])
    assert found["spot-0-1-1"].get("aria-label") == "Vital spot 1 of Warband (A1)"
    assert found["spot-0-1-5"].get("aria-label").endswith(", wounded")
    assert found["spot-0-1-6"].get("aria-label").endswith(", Orange's Spearman")
    assert found["spot-0-1-2"].get("aria-label").endswith(", Orange's Snake Clan token")
    assert not found["spot-1-1-5"].get("aria-label").endswith("wounded")


def test_a_tank_block_names_the_section_and_row_it_is_before() -> None:
    state = barracks()
    found = targets(drawn(state, 1, interactive=True)[1])
    assert found["tank-0-1"].get("aria-label") == "Tank block from spot 1 of Warband (A1)"
    assert found["tank-1-1"].get("aria-label") == "Tank block from spot 1 of Warband (B1)"
    state["sections"][1]["rows"][0]["cover"][0] = ["t", 1, 1]
    found = targets(drawn(state, 1, interactive=True)[1])
    assert found["spot-1-1-1"].get("aria-label").endswith(", Blue's Tank")


def test_a_board_to_look_at_is_one_picture_without_buttons() -> None:
    svg, root = drawn(barracks(), None, interactive=False)
    assert root.get("role") == "img"
    assert root.get("aria-label").startswith("The Great Wall board: Year 1 of 6")
    assert "data-target" not in svg and 'role="button"' not in svg and "tabindex" not in svg


def test_the_labelled_board_is_drawn_the_same_every_time() -> None:
    state = barracks()
    first = ENGINE.render_svg(ENGINE.view(state, 1), 1, interactive=True)
    assert ENGINE.render_svg(ENGINE.view(state, 1), 1, interactive=True) == first
