"""The Wall's board as assistive technology meets it: a board to play on is a group of labelled buttons
(every hex), each named in words a player understands, and its actions are buttons beside it with names
of their own; a board to look at is one picture. Pure: no database, no browser
(tests/e2e/test_accessibility.py plays it with the keyboard, tests/e2e/test_big_boards.py measures it)."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

from games.engines.thewall import board
from tests.engines.test_thewall import ENGINE, position

SVG_NS = "{http://www.w3.org/2000/svg}"


def drawn(state: dict, seat: int | None, *, interactive: bool) -> tuple[str, ET.Element]:
    svg = ENGINE.render_svg(ENGINE.view(state, seat), seat, interactive=interactive)
    return svg, ET.fromstring(svg)


def targets(root: ET.Element) -> dict[str, ET.Element]:
    found: dict[str, ET.Element] = {}
    for element in root.iter():
        target = element.get("data-target")
        if target is not None:
            assert target not in found, f"{target} is drawn twice"
            found[target] = element
    return found


def test_a_board_to_play_on_is_a_named_group_of_buttons_each_with_a_name_of_its_own() -> None:
    state = ENGINE.new_state(seats=2, options={}, rng=random.Random(0))
    _, root = drawn(state, 0, interactive=True)
    assert root.get("role") == "group"
    assert root.get("aria-label") == "The Wall: Round 1 of 20: Jon Snow's turn, 0 of 4 unit turns used."
    found = targets(root)
    assert {f"h{name}" for name in board.HEXES} <= set(found)
    # The actions are buttons beside the map, not drawn on it.
    assert not {"end", "opt-defend", "opt-catapult"} & set(found)
    for target, element in found.items():
        # Unavailable until the page's script offers it; reachable by the keyboard once it does.
        assert element.get("role") == "button", target
        assert element.get("aria-disabled") == "true", target
        assert element.get("tabindex") == "-1", target
        assert element.get("aria-label"), target
    labels = [element.get("aria-label") for element in found.values()]
    assert len(set(labels)) == len(labels), "two buttons share a name"


def test_every_place_a_legal_move_clicks_is_a_labelled_button_on_the_map_or_beside_it() -> None:
    state = ENGINE.new_state(seats=2, options={}, rng=random.Random(0))
    _, root = drawn(state, 0, interactive=True)
    found = targets(root)
    beside = dict(ENGINE.board_actions(ENGINE.view(state, 0), 0))
    for move in ENGINE.legal_moves(state, 0):
        for target in ENGINE.click_path(move):
            assert target in beside or found[target].get("role") == "button", target


def test_a_hex_is_named_by_its_number_its_terrain_and_who_stands_on_it() -> None:
    state = ENGINE.new_state(seats=2, options={}, rng=random.Random(0))
    _, root = drawn(state, 0, interactive=True)
    found = targets(root)
    assert found["h0101"].get("aria-label") == "Hex 0101: field"
    assert found["h1210"].get("aria-label").startswith("Hex 1210: ")
    assert found["h1210"].get("aria-label").endswith("; Jon Snow, life 4 of 4")
    # A leader's own figure is named once, the others with the leader they follow.
    labels = [element.get("aria-label") for element in found.values()]
    great = next(label for label in labels if "Great Other" in label)
    assert "; Great Other, life 4 of 4" in great and "of the Great Other" not in great
    assert any("White Walker 1 of the Great Other, life 4 of 4" in label for label in labels)
    # The tooltip says the same.
    assert found["h1210"].find(f"{SVG_NS}title").text == found["h1210"].get("aria-label")


def test_a_hex_label_tells_the_marks_that_are_only_drawn() -> None:
    state = position(
        ("ranger", "1612", {"defend": True}),
        ("white_walker", "1613", {"disabled": 2}),
        ("wight_watch", "0505", {"tag": True}),
    )
    _, root = drawn(state, 0, interactive=True)
    found = targets(root)
    assert found["h1612"].get("aria-label").endswith("; Ranger 1 of Jon Snow, life 3 of 3, defending")
    assert found["h1613"].get("aria-label").endswith(", disabled")
    assert found["h0505"].get("aria-label").endswith(", tagged")
    assert "; " not in found["h0101"].get("aria-label")


def test_the_action_buttons_beside_the_map_say_what_they_do_each_in_words_of_its_own() -> None:
    state = ENGINE.new_state(seats=2, options={}, rng=random.Random(0))
    beside = ENGINE.board_actions(ENGINE.view(state, 0), 0)
    labels = dict(beside)
    assert labels["end"] == "End turn"
    assert labels["opt-defend"] == "Defend"
    assert labels["opt-train-ranger"] == "Train: ranger"
    assert len(set(labels.values())) == len(beside)
    # Every action a move may take has its button.
    assert set(labels) >= {f"opt-{word}" for word in ("range", "shoot", "catapult", "scout", "horn")}


def test_a_board_to_look_at_is_one_picture_without_buttons() -> None:
    state = ENGINE.new_state(seats=2, options={}, rng=random.Random(0))
    svg, root = drawn(state, None, interactive=False)
    assert root.get("role") == "img" and root.get("aria-label").startswith("The Wall: Round 1 of 20")
    assert "data-target" not in svg and 'role="button"' not in svg and "tabindex" not in svg


def test_the_labelled_board_is_drawn_the_same_every_time() -> None:
    state = position(("ranger", "1612"), ("white_walker", "1613", {"disabled": 2}))
    view = ENGINE.view(state, 0)
    first = ENGINE.render_svg(view, 0, interactive=True)
    assert ENGINE.render_svg(ENGINE.view(state, 0), 0, interactive=True) == first
    assert ENGINE.render_svg(view, 0, interactive=False) != first
