"""Walls and Stairways, variant 4 of the seed: Multiple Boards and Teleporters (option ``boards``).

One scenario per rule of the variant and per decision in the Variants section of seeds/stairways.md.
Positions come from the engine's own ``new_state`` on a custom layout with further boards (the
``layout_json`` path), then hands, wonders, turns and teleporters are set; a few tests put a piece or
treasure down directly to reach a position quickly, and say so.
"""

from __future__ import annotations

import json
import random
import re
import xml.etree.ElementTree as ET
from collections import Counter
from types import SimpleNamespace
from typing import Any

import pytest

from games.engines.base import IllegalMove
from games.engines.stairways import board, layouts
from games.engines.stairways.rules import Stairways
from tests.engines.stairways_play import DECK, actor, deal, end_turn, hero, moves, play, raises, start, texts

ENGINE = Stairways()


# --- helpers -------------------------------------------------------------------------------------------
def position(
    heroes: tuple[str, ...] = ("d4",),
    *,
    walls: tuple[str, ...] = (),
    stairways: tuple[str, ...] = ("a8", "h8"),
    giant: str | None = None,
    rats: tuple[tuple[str, int], ...] = (),
    boards: tuple[dict[str, Any], ...] = ({},),
    teleporters: tuple[str, ...] = (),
    hands: tuple[tuple[str, ...], ...] | None = None,
    wonders: str = "00000",
    turns: tuple[int, ...] | None = None,
    current: int = 0,
    **options: str,
) -> dict[str, Any]:
    """A position in play with board 1 as given and the further ``boards`` (dicts in the layout's own
    format, squares named a1-h8 on their board). ``wonders`` gives the owner of H, C, D, S and the
    teleporter wonder T in that order ("-" for nobody); ``turns`` 2 each by default (no first turn)."""
    layout = {
        "walls": list(walls),
        "stairways": list(stairways),
        "heroes": list(heroes),
        "giant": giant,
        "rats": [{"square": sq, "size": n} for sq, n in rats],
        "boards": [dict(b) for b in boards],
    }
    seats = len(stairways)
    state = start(layout, options)
    deal(state, hands or ((),) * seats)
    state["wonders"] = {s: None if o == "-" else int(o) for s, o in zip("HCDST", wonders, strict=True)}
    state["turns"] = list(turns or (2,) * seats)
    state["current"] = current
    state["teleporters"] = sorted(teleporters, key=board.SQUARE_ORDER.__getitem__)
    assert json.loads(json.dumps(state)) == state
    return state


def all_cards(state: dict[str, Any]) -> Counter[str]:
    bid = state["bid"] or {"cards": [], "block": []}
    return Counter(
        state["pile"] + state["discards"] + bid["cards"] + bid["block"] + (state.get("charge") or [])
    ) + Counter(c for h in state["hands"] for c in h)


# --- setup: boards, pieces, layouts --------------------------------------------------------------------
def test_the_boards_option_adds_boards_with_their_own_walls_heroes_rats_and_giants() -> None:
    state = ENGINE.new_state(seats=2, options={"boards": "3"}, rng=random.Random(0))
    one = layouts.preset("classic", 2, "first_game")
    assert [h["square"] for h in state["heroes"]] == [*one["heroes"], "2c5", "2f4", "3e6", "3d3"]
    assert state["giant"]["square"] == one["giant"]
    assert [g["square"] for g in state["giants"]] == ["2e8", "3h4"]
    assert [r["square"] for r in state["rats"]] == [
        *(r["square"] for r in one["rats"]),
        *("2b2", "2g7", "3b7", "3g2"),
    ]
    on_two = [w for w in state["walls"] if w.startswith("2")]
    assert len(on_two) == 20 and all(board.canonical_edge(w) == w for w in on_two)
    assert state["stairways"] == ["a1", "h8"]  # all stairways stay on the first board
    assert state["wonders"] == dict.fromkeys("HCDST")
    assert state["teleporters"] == [] and state["charge"] is None


def test_the_recommended_pieces_are_set_up_on_every_board() -> None:
    state = ENGINE.new_state(seats=2, options={"boards": "2", "pieces": "recommended"}, rng=random.Random(0))
    assert len(state["heroes"]) == 8 and len(state["rats"]) == 8
    assert sorted(r["size"] for r in state["rats"] if r["square"].startswith("2")) == [1, 1, 4, 4]


def test_one_board_games_have_no_teleporter_wonder_and_keep_their_state_as_before() -> None:
    state = ENGINE.new_state(seats=2, options={}, rng=random.Random(0))
    assert "T" not in state["wonders"]
    assert not {"giants", "teleporters", "hops", "charge"} & set(state)
    assert "boards" not in ENGINE.public_view(state)


def test_a_custom_layout_lists_further_boards_and_decides_how_many_boards_there_are() -> None:
    layout = {
        "walls": ["c3e"],
        "stairways": ["a1", "h8"],
        "heroes": ["d4", "e4"],
        "giant": None,
        "rats": [{"square": "b2", "size": 4}, {"square": "g7", "size": 4}],
        "boards": [
            {
                "walls": ["c4s"],
                "heroes": ["e5", "d5"],
                "giant": "a1",
                "rats": [{"square": "h8", "size": 4}, {"square": "b8", "size": 4}],
            }
        ],
    }
    assert layouts.layout_validate(layout, 2) == []
    options = ENGINE.resolve_options({"layout_json": json.dumps(layout), "boards": "3"}, seats=2)
    assert options["boards"] == "2"
    assert json.loads(options["layout_json"])["boards"][0]["walls"] == ["c3n"]
    state = ENGINE.new_state(seats=2, options=options, rng=random.Random(0))
    assert state["walls"] == ["c3e", "2c3n"] and state["giant"] is None
    assert state["giants"] == [{"square": "2a1", "alive": True, "jewels": 0, "swords": 0}]
    assert [h["square"] for h in state["heroes"]] == ["d4", "e4", "2e5", "2d5"]
    assert [r["square"] for r in state["rats"]] == ["b2", "g7", "2h8", "2b8"]


def test_a_one_board_layout_keeps_its_old_shape() -> None:
    rats = [{"square": "b2", "size": 4}, {"square": "g7", "size": 4}]
    layout = {"walls": ["c3e"], "stairways": ["a1", "h8"], "heroes": ["d4", "e4"], "rats": rats}
    assert "boards" not in layouts.normalised(layout)
    options = ENGINE.resolve_options({"layout_json": json.dumps(layout)}, seats=2)
    assert options["boards"] == "1"


@pytest.mark.parametrize(
    ("extra", "complaint"),
    [
        ([{"stairways": ["a1"], "heroes": ["d4"]}], "Board 2: stairways all stand on the first board."),
        ([{"walls": ["a8n"]}], "Board 2: wall 'a8n' is not an edge"),
        ([{"heroes": ["d4"], "giant": "d4"}], "Board 2: the giant and Hero 1 share d4"),
        ([{"heroes": ["2d4"]}], "Board 2: hero 1: '2d4' is not a square"),
        ([{"rats": [{"square": "a1", "size": 3}]}], "Board 2: rat group 1 must have 1 or 4 rats."),
        ([{}, {"colour": "red"}], "Board 3: unknown fields colour."),
        ([{}, {}, {}], "boards must list at most 2 further boards"),
        ("two", "boards must list at most 2 further boards"),
    ],
)
def test_layout_validate_explains_what_is_wrong_on_a_further_board(extra: Any, complaint: str) -> None:
    layout = {"walls": [], "stairways": ["a1", "h8"], "heroes": ["d4"], "giant": None, "rats": []}
    errors = layouts.layout_validate({**layout, "boards": extra}, 2)
    assert any(complaint in e for e in errors), errors


def test_a_further_board_may_be_empty_and_a_custom_layout_with_errors_is_refused() -> None:
    rats = [{"square": "b2", "size": 4}, {"square": "g7", "size": 4}]
    layout = {"walls": [], "stairways": ["a1", "h8"], "heroes": ["d4", "e4"], "rats": rats, "boards": [{}]}
    assert layouts.layout_validate(layout, 2) == []
    layout["boards"] = [{"stairways": ["b2"]}]
    with pytest.raises(ValueError, match="Board 2: stairways all stand on the first board"):
        ENGINE.resolve_options({"layout_json": json.dumps(layout)}, seats=2)


@pytest.mark.parametrize("name", sorted(layouts.PRESETS))
@pytest.mark.parametrize("pieces", sorted(layouts.PIECE_SETS))
def test_every_annex_board_is_valid_and_its_giant_starts_out_of_sight_of_its_heroes(
    name: str, pieces: str
) -> None:
    for seats in (2, 3, 4):
        layout = layouts.preset(name, seats, pieces, boards=3)
        assert layouts.layout_validate(layout, seats) == []
    for extra in layout["boards"]:
        walls = board.walls_mask(extra["walls"])
        for sq in extra["heroes"]:
            for true_los in (False, True):
                assert not board.in_sight(sq, extra["giant"], walls, true_los)


def _half_turn(sq: str) -> str:
    x, y = board.XY[sq]
    return board.name(7 - x, 7 - y)


def _quarter_turn(sq: str) -> str:
    x, y = board.XY[sq]
    return board.name(y, 7 - x)


def _turned_walls(walls: list[str], turn: Any) -> set[str]:
    """Walls turned about the board's centre, as the sets of the two squares each separates (a wall on
    the rim would have one)."""
    out = set()
    for wall in walls:
        sq = wall[:-1]
        x, y = board.XY[sq]
        other = board.name(x + 1, y) if wall.endswith("e") else board.name(x, y + 1)
        out.add(frozenset({turn(sq), turn(other)}))
    return out


@pytest.mark.parametrize("name", sorted(layouts.PRESETS))
def test_annex_boards_are_symmetric_as_the_digest_says(name: str) -> None:
    second, third = layouts.preset(name, 2, "recommended", boards=3)["boards"]
    same = _turned_walls(second["walls"], lambda sq: sq)
    assert _turned_walls(second["walls"], _half_turn) == same
    assert {_half_turn(sq) for sq in second["heroes"]} == set(second["heroes"])
    rats = {(r["square"], r["size"]) for r in second["rats"]}
    assert {(_half_turn(sq), n) for sq, n in rats} == rats
    assert _turned_walls(second["walls"], _quarter_turn) == _turned_walls(third["walls"], lambda sq: sq)
    assert {_quarter_turn(sq) for sq in second["heroes"]} == set(third["heroes"])
    assert _quarter_turn(second["giant"]) == third["giant"]


# --- notation ------------------------------------------------------------------------------------------
NOTATION = [
    ("D7 2e4", {"play": "D7", "square": "2e4"}, ["card-D7", "sq-2e4"]),
    ("H5 2c3e-2c4e", {"play": "H5", "wall": "2c3e", "to": "2c4e"}, ["card-H5", "wall-2c3e", "edge-2c4e"]),
    ("bid H2 for T", {"bid": "H2", "wonder": "T"}, ["wonder-T", "card-H2"]),
    ("claim T", {"claim": "T"}, ["claim"]),
    ("give T to blue", {"give": "T", "to": 1}, ["wonder-T", "give-1"]),
    ("charge S10", {"charge": "S10"}, ["wonder-T", "card-S10"]),
    ("teleporter 3h1", {"teleporter": "3h1"}, ["sq-3h1"]),
    ("choose 2a1", {"choose": "2a1"}, ["sq-2a1"]),
    ("wall 3c3n", {"place": "3c3n"}, ["edge-3c3n"]),
]


@pytest.mark.parametrize(("text", "move", "path"), NOTATION)
def test_notation_of_the_variant_round_trips_with_click_paths(
    text: str, move: dict[str, Any], path: list[str]
) -> None:
    assert ENGINE.parse_move(text) == move
    assert ENGINE.format_move(move) == text
    assert ENGINE.click_path(move) == path


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("H5 2c3e-c4e", "H5 2c3e-2c4e"),  # a wall's destination is on the wall's own board
        ("H5 2d3w > 2c5s", "H5 2c3e-2c4n"),
        ("D7 1e4", "D7 e4"),
        ("1e4", "choose e4"),
        ("bid hearts 2 for the teleporter wonder", "bid H2 for T"),
        ("bid H2 T", "bid H2 for T"),
        ("claim teleporter 2+3+4+5", "claim T"),
        ("give the teleporter wonder to green", "give T to green"),
        ("tp @ 2c3", "teleporter 2c3"),
        ("charge ♠A", "charge S1"),
    ],
)
def test_variant_notation_is_forgiving_and_canonical(text: str, canonical: str) -> None:
    assert ENGINE.format_move(ENGINE.parse_move(text)) == canonical


@pytest.mark.parametrize("text", ["D7 4e4", "H5 4c3e-4c4e", "teleporter 2i9", "bid H2 for X"])
def test_squares_of_a_fourth_board_and_rubbish_are_refused(text: str) -> None:
    with pytest.raises(IllegalMove, match=r"\w"):
        ENGINE.parse_move(text)


def test_a_one_board_game_refuses_squares_of_other_boards_and_the_teleporter_wonder() -> None:
    state = ENGINE.new_state(seats=2, options={}, rng=random.Random(0))
    state["wonders"]["D"] = 0
    state["hands"][0] = ["D5", "H2", "C2", "S2"]
    with raises("2e4 is not a square of this game's boards."):
        ENGINE.apply(state, 0, {"play": "D5", "square": "2e4"})
    with raises("only in play with several boards"):
        ENGINE.apply(state, 0, {"bid": "H2", "wonder": "T"})
    with raises("only in play with several boards"):
        ENGINE.apply(state, 0, {"give": "T", "to": 1})


# --- the boards ----------------------------------------------------------------------------------------
def test_squares_on_different_boards_never_see_each_other() -> None:
    state = position(("d4",), boards=({"heroes": ["d1"]},), hands=(("D5", "D6"), ()))
    state, _ = play(state, "D5 2d4")  # in line with d4 of board 1, but on another board
    assert hero(state, 1)["square"] == "d4" and hero(state, 2)["square"] == "2d4"
    assert state["treasure"] == {}  # hero 2, on board 2, saw it and took it
    assert hero(state, 2)["jewels"] == 1


def test_each_board_has_its_own_walls_and_a_wall_moves_only_on_its_board() -> None:
    state = position(
        ("d4",), walls=("c3e",), boards=({"walls": ["c3e"], "heroes": ["d3"]},), hands=(("H5",), ())
    )
    state, events = play(state, "H5 2c3e-2d2n")  # pivots about its south end, sweeping 2d3
    assert state["walls"] == ["c3e", "2d2n"]
    assert hero(state, 2)["square"] == "2d2" and "pushed to 2d2" in texts(events)
    assert "H5 c3e-2d2n" not in moves(state)  # no wall jumps from one board to another


def test_treasure_may_go_on_any_board_but_not_under_any_giant() -> None:
    state = position(("d4",), giant="a2", boards=({"heroes": ["h8"], "giant": "a2"}, {}), hands=(("D5",), ()))
    squares = {m["square"] for m in ENGINE.legal_moves(state, 0) if m.get("play") == "D5"}
    assert len(squares) == 3 * 64 - 4
    assert not {"d4", "a2", "2h8", "2a2"} & squares and {"3a2", "2a3"} <= squares


def test_rats_smell_only_heroes_on_their_own_board() -> None:
    state = position(
        ("h1",), rats=(("a1", 1),), boards=({"heroes": ["a3"], "rats": [{"square": "a6", "size": 1}]},)
    )
    state, _ = end_turn(state)
    assert state["rats"][0]["square"] == "b1"  # toward hero 1 on h1; hero 2 is on 2a3, another board
    assert state["rats"][1]["square"] == "2a5"


def test_each_giant_attacks_a_hero_in_sight_on_its_own_board() -> None:
    state = position(("d4",), giant="d8", boards=({"heroes": ["a1", "h1"], "giant": "a8"},))
    state, events = end_turn(state)
    assert "Giant 1 sees a hero and charges from d8 to d4." in texts(events)
    assert "Giant 2 sees a hero and charges from 2a8 to 2a1." in texts(events)
    assert [h["fate"] for h in state["heroes"]] == ["dead", "dead", "floor"]


def test_the_current_player_chooses_which_hero_a_further_giant_attacks() -> None:
    state = position(("b2",), boards=({"heroes": ["a1", "h8"], "giant": "a8"},))
    state["giants"][0]["square"] = "2h1"  # set directly: giant 2 sees both heroes of board 2
    state, _ = end_turn(state)
    assert state["pending"]["kind"] == "attack" and state["pending"]["token"] == "giant2"
    assert moves(state) == ["choose 2a1", "choose 2h8"]
    svg = ENGINE.render_svg(ENGINE.view(state, 0), 0, interactive=False)
    assert "choose the hero giant 2 attacks" in svg
    state, _ = play(state, "choose 2h8")
    assert hero(state, 3)["fate"] == "dead" and hero(state, 2)["fate"] == "floor"


def test_heroes_of_further_boards_count_for_the_end_of_the_game() -> None:
    state = position(("a7",), boards=({"heroes": ["d4"]},), hands=(("D2",), ()))
    state, _ = play(state, "D2 a8")  # hero 1 escapes; hero 2 is still in the maze on board 2
    assert hero(state, 1)["fate"] == "escaped" and state["phase"] == "play"
    assert ENGINE.view(state, None)["scores"] == [7, 0]


# --- the teleporter wonder -----------------------------------------------------------------------------
FULL = ("H2", "C3", "D4", "S5", "H9", "C9", "D9", "S9")


def test_the_teleporter_wonder_is_claimed_with_one_card_of_each_suit() -> None:
    state = position(hands=(FULL, ()), wonders="-----")
    assert "bid H2 for T" in moves(state)
    state, _ = play(state, "bid H2 for T", "bid C3 for T", "bid D4 for T")
    assert "claim T" not in moves(state)  # not yet one card of each suit
    assert all(m.startswith("bid ") for m in moves(state))
    state, events = play(state, "bid S5 for T", "claim T")
    assert state["wonders"]["T"] == 0 and "claims the unowned teleporter wonder with 14" in texts(events)
    assert sorted(state["discards"]) == ["C3", "D4", "H2", "S5"]


def test_a_bid_of_eight_cards_has_two_of_each_suit() -> None:
    state = position(hands=(FULL, ()), wonders="-----")
    state, _ = play(state, "bid H2 for T", "bid C3 for T", "bid D4 for T", "bid S5 for T", "bid H9 for T")
    assert "claim T" not in moves(state)
    state, _ = play(state, "bid C9 for T", "bid D9 for T", "bid S9 for T", "claim T")
    assert state["wonders"]["T"] == 0 and state["bid"] is None


def test_bidding_for_the_teleporter_needs_a_card_of_every_suit_in_hand() -> None:
    state = position(hands=(("H2", "C3", "D4", "H5"), ()), wonders="-----")
    assert not [m for m in moves(state) if m.endswith("for T")]
    with raises("Bidding for the teleporter wonder needs a card of each suit in your hand."):
        ENGINE.apply(state, 0, {"bid": "H2", "wonder": "T"})


def test_a_teleporter_bid_is_never_left_without_a_way_to_close() -> None:
    state = position(hands=(("H2", "H3", "C3", "D4", "S5"), ()), wonders="-----")
    state, _ = play(state, "bid H2 for T")
    assert moves(state) == ["bid C3 for T", "bid D4 for T", "bid S5 for T"]  # a second heart could not pair


def test_the_owner_blocks_a_teleporter_claim_with_a_set_of_equal_or_greater_value() -> None:
    state = position(hands=(FULL, ("H1", "H10", "C10", "D10", "S10")), wonders="----1")
    state, events = play(state, "bid H9 for T", "bid C9 for T", "bid D9 for T", "bid S9 for T", "claim T")
    assert ENGINE.actors(state) == {1}
    assert "may block with a set of one card of each suit (or two of each...) worth 36 or more" in texts(
        events
    )
    # Only cards that can still make a set worth 36 are offered: the ace of hearts cannot.
    assert moves(state) == ["block H10", "block C10", "block D10", "block S10", "yield"]
    state, _ = play(state, "block H10", "block C10", "block D10")
    assert state["bid"] is not None  # 30, and not a set yet
    state, events = play(state, "block S10")
    assert (
        state["wonders"]["T"] == 1 and state["bid"] is None and "blocks with 40 against 36" in texts(events)
    )


def test_a_bigger_set_may_block_a_smaller_bid_and_a_set_short_of_the_bid_goes_on() -> None:
    state = position(hands=(FULL, ("H1", "C1", "D1", "S1", "H10", "C10", "D10", "S10")), wonders="----1")
    state, _ = play(state, "bid H9 for T", "bid C9 for T", "bid D9 for T", "bid S9 for T", "claim T")
    state, _ = play(state, "block H1", "block C1", "block D1", "block S1")
    assert state["bid"]["block"] == ["H1", "C1", "D1", "S1"]  # a set, but 4 is short of 36
    state, _ = play(state, "block H10", "block C10", "block D10", "block S10")
    assert state["wonders"]["T"] == 1  # eight cards worth 44


def test_an_owner_who_cannot_make_a_big_enough_set_may_only_yield() -> None:
    state = position(hands=(FULL, ("H10", "C10", "D10", "H9")), wonders="----1")
    state, _ = play(state, "bid H2 for T", "bid C3 for T", "bid D4 for T", "bid S5 for T", "claim T")
    assert moves(state) == ["yield"]
    state, _ = play(state, "yield")
    assert state["wonders"]["T"] == 0


def test_the_teleporter_wonder_may_be_given_away() -> None:
    state = position(hands=((), ()), wonders="----0")
    assert "give T to blue" in moves(state)
    state, _ = play(state, "give T to blue")
    assert state["wonders"]["T"] == 1


def test_using_the_wonder_takes_one_card_of_each_suit_and_puts_a_teleporter_on_any_square() -> None:
    state = position(hands=(FULL, ()), wonders="----0", boards=({}, {}))
    assert "charge H2" in moves(state) and "charge S9" in moves(state)
    state, events = play(state, "charge H9")
    assert state["charge"] == ["H9"] and "sets H9 aside for a teleporter (1 of 4)" in texts(events)
    assert moves(state) == ["charge C3", "charge C9", "charge D4", "charge D9", "charge S5", "charge S9"]
    state, _ = play(state, "charge C3", "charge D4", "charge S5")
    targets = moves(state)
    assert len(targets) == 3 * 64 and "teleporter 3h8" in targets and "teleporter d4" in targets
    state, events = play(state, "teleporter 3h8")
    assert state["teleporters"] == ["3h8"] and state["charge"] is None
    assert sorted(state["discards"]) == ["C3", "D4", "H9", "S5"]
    assert "plays H9, C3, D4, S5: a teleporter on 3h8." in texts(events)
    assert hero(state, 1)["square"] == "d4"  # placing a teleporter moves nobody


def test_no_teleporter_without_a_card_of_every_suit_and_none_on_a_teleporter() -> None:
    state = position(hands=(("H2", "C3", "D4", "D5"), ()), wonders="----0")
    assert not [m for m in moves(state) if m.startswith("charge")]
    state = position(hands=(FULL[:4], ()), wonders="----0", teleporters=("c3",))
    state, _ = play(state, "charge H2", "charge C3", "charge D4", "charge S5")
    assert "teleporter c3" not in moves(state) and len(moves(state)) == 2 * 64 - 1


def test_cards_set_aside_for_a_teleporter_must_be_used_first() -> None:
    state = position(hands=(FULL, ()), wonders="00000")
    state, _ = play(state, "charge H2")
    with raises("Set aside a card of each suit for your teleporter first (charge H2)."):
        ENGINE.apply(state, 0, ENGINE.parse_move("D9 e4"))
    with raises("Set aside a card of each suit"):
        ENGINE.apply(state, 0, {"charge": "H9"})  # a second heart


def test_skipping_a_charge_discards_the_cards_set_aside() -> None:
    state = position(hands=(FULL, ()), wonders="----0")
    state, _ = play(state, "charge H2", "charge C3")
    state, events = ENGINE.skip(state, 0, random.Random(0))
    assert state["charge"] is None and {"H2", "C3"} <= set(state["discards"])
    assert "The cards set aside for a teleporter (H2, C3) are discarded." in texts(events)
    assert all_cards(state) == Counter(DECK)


def test_cards_set_aside_are_public() -> None:
    state = position(hands=(FULL, ()), wonders="----0")
    state, _ = play(state, "charge H2")
    assert ENGINE.view(state, 1)["charge"] == ["H2"]
    assert ENGINE.view(state, 1)["private"] == {"hand": []}


# --- teleporting ---------------------------------------------------------------------------------------
def test_a_hero_running_onto_a_teleporter_may_be_sent_to_a_teleporter_on_another_board() -> None:
    state = position(("d1",), teleporters=("d5", "2f6", "3a1"), boards=({}, {}), hands=(("D3",), ()))
    state, events = play(state, "D3 d5")
    assert hero(state, 1)["square"] == "d5" and hero(state, 1)["jewels"] == 1
    pending = state["pending"]
    assert pending["kind"] == "teleport" and pending["token"] == "1" and pending["from"] == "d5"
    assert moves(state) == ["choose d5", "choose 2f6", "choose 3a1"]
    state, events = play(state, "choose 2f6")
    assert hero(state, 1)["square"] == "2f6" and hero(state, 1)["jewels"] == 1
    assert "Hero 1 steps into the teleporter on d5 and comes out on 2f6." in texts(events)


def test_choosing_the_token_s_own_square_leaves_it_on_the_teleporter() -> None:
    state = position(("d1",), teleporters=("d5", "2f6"), hands=(("D3",), ()))
    state, _ = play(state, "D3 d5")
    state, events = play(state, "choose d5")
    assert hero(state, 1)["square"] == "d5" and "leaves Hero 1 on the teleporter on d5" in texts(events)
    assert ENGINE.actors(state) == {0} and state["pending"] is None


def test_with_a_single_teleporter_there_is_nowhere_to_go_and_nothing_is_asked() -> None:
    state = position(("d1",), teleporters=("d5",), hands=(("D3",), ()))
    state, _ = play(state, "D3 d5")
    assert state["pending"] is None and hero(state, 1)["square"] == "d5"


def test_passing_over_a_teleporter_is_not_moving_into_it() -> None:
    state = position(("d1",), teleporters=("d3", "2a1"), hands=(("D3",), ()))
    state, _ = play(state, "D3 d5")
    assert hero(state, 1)["square"] == "d5" and state["pending"] is None


def test_a_teleported_hero_meets_what_stands_on_the_far_side() -> None:
    state = position(
        ("d1",),
        teleporters=("d5", "2c3"),
        boards=({"rats": [{"square": "c3", "size": 4}]},),
        hands=(("D3",), ()),
    )
    state, _ = play(state, "D3 d5")
    state, events = play(state, "choose 2c3")
    assert hero(state, 1)["fate"] == "dead" and "fights 4 rats on 2c3" in texts(events)


def test_a_teleported_hero_runs_on_to_treasure_it_sees_on_the_far_side() -> None:
    state = position(("d1",), teleporters=("d5", "2c3"), hands=(("D3",), ()))
    state["treasure"]["2c7"] = [0, 2]  # set directly: swords waiting in sight of 2c3
    state, _ = play(state, "D3 d5", "choose 2c3")
    assert hero(state, 1)["square"] == "2c7" and (hero(state, 1)["jewels"], hero(state, 1)["swords"]) == (
        1,
        2,
    )


def test_a_hero_teleported_onto_a_stairway_escapes_and_scores_for_its_owner() -> None:
    state = position(("a1",), teleporters=("h8", "2d5"), boards=({"heroes": ["d1"]},), hands=(("D3",), ()))
    state, _ = play(state, "D3 2d5", "choose h8")
    assert hero(state, 2)["fate"] == "escaped" and hero(state, 2)["stairway"] == 1
    assert ENGINE.view(state, None)["scores"] == [0, 7]


def test_teleporting_does_not_chain() -> None:
    state = position(("d1",), teleporters=("d5", "2c3", "3c3"), boards=({}, {}), hands=(("D3",), ()))
    state, _ = play(state, "D3 d5", "choose 2c3")
    assert hero(state, 1)["square"] == "2c3" and state["pending"] is None


def test_a_giant_charging_onto_a_teleporter_may_be_sent_on() -> None:
    state = position(("d4", "a2"), giant="d8", teleporters=("d4", "2h1"))
    state, events = end_turn(state)
    assert hero(state, 1)["fate"] == "dead"
    assert state["pending"]["kind"] == "teleport" and state["pending"]["token"] == "giant"
    state, events = play(state, "choose 2h1")
    assert state["giant"]["square"] == "2h1" and "Giant 1 steps into the teleporter on d4" in texts(events)


def test_a_rat_pack_stepping_onto_a_teleporter_may_be_sent_on() -> None:
    state = position(("a4",), rats=(("a1", 4),), teleporters=("a2", "2h8"))
    state, _ = end_turn(state)
    assert state["rats"][0]["square"] == "a2" and state["pending"]["token"] == "rats1"
    assert moves(state) == ["choose a2", "choose 2h8"]
    state, _ = play(state, "choose 2h8")
    assert state["rats"][0]["square"] == "2h8" and ENGINE.actors(state) == {1}


def test_a_token_pushed_onto_a_teleporter_may_be_sent_on() -> None:
    state = position(("d3",), walls=("c3e",), teleporters=("d2", "2b2"), hands=(("H5",), ()))
    state, _ = play(state, "H5 c3e-d2n")  # sweeps d3: hero 1 is pushed to d2
    assert hero(state, 1)["square"] == "d2" and state["pending"]["kind"] == "teleport"
    state, _ = play(state, "choose 2b2")
    assert hero(state, 1)["square"] == "2b2"


def test_several_tokens_arriving_together_are_asked_about_one_by_one() -> None:
    state = position(("d1", "d8"), teleporters=("d5", "2a1"), hands=(("D3",), ()))
    state, _ = play(state, "D3 d5")  # both heroes reach it: the jewel is discarded
    assert state["pending"]["token"] == "1"
    state, _ = play(state, "choose 2a1")
    assert state["pending"]["token"] == "2"
    state, _ = play(state, "choose d5")
    assert (hero(state, 1)["square"], hero(state, 2)["square"]) == ("2a1", "d5")


def test_in_a_first_turn_a_teleport_onto_a_stairway_is_not_offered() -> None:
    state = position(("d1",), teleporters=("d5", "h8", "2c3"), hands=(("D3",), ()), turns=(1, 0))
    state, _ = play(state, "D3 d5")
    assert moves(state) == ["choose d5", "choose 2c3"]
    with raises("No hero may reach a stairway during its player's first turn."):
        ENGINE.apply(state, 0, {"choose": "h8"})


def test_a_pending_teleport_of_a_player_who_leaves_keeps_the_token_where_it_is() -> None:
    state = position(
        ("d1", "a4"), stairways=("a8", "h8", "h1"), teleporters=("d5", "2c3"), hands=(("D3",), (), ())
    )
    state, _ = play(state, "D3 d5")
    state, _ = ENGINE.eliminate(state, 0)
    assert hero(state, 1)["square"] == "d5" and ENGINE.actors(state) == {1}


def test_skip_sends_a_token_to_a_random_allowed_square() -> None:
    state = position(("d1",), teleporters=("d5", "2c3"), hands=(("D3",), ()))
    state, _ = play(state, "D3 d5")
    state, events = ENGINE.skip(state, 0, random.Random(0))
    assert hero(state, 1)["square"] in ("d5", "2c3") and "Orange is out of time." in texts(events)


def test_rats_coming_back_on_a_stairway_with_a_teleporter_are_not_sent_on() -> None:
    state = position(
        ("d4",), rats=(("d6", 1),), teleporters=("a8", "2c3"), hands=(("S2",), ()), super_rats="yes"
    )
    state["heroes"][0]["swords"] = 1  # set directly: enough to beat one rat
    state, _ = play(state, "S2 d6")  # hero 1 runs to the sword and wins against the rat there
    assert state["pending"]["kind"] == "respawn"
    state, _ = play(state, "choose a8")
    assert state["rats"][0]["square"] == "a8" and state["pending"] is None


def test_variants_combine_with_several_boards() -> None:
    state = ENGINE.new_state(
        seats=2, options={"boards": "3", "mortal_giant": "yes", "crowded": "yes"}, rng=random.Random(0)
    )
    assert state["pool"] == 60  # 20 walls per board
    assert all((g["jewels"], g["swords"]) == (10, 10) for g in [state["giant"], *state["giants"]])
    state = position(("f6",), hands=((), ()), crowded="yes")
    state, _ = end_turn(state)
    assert "wall 2c3n" in moves(state) and len(moves(state)) == 2 * 112


def test_a_seat_that_leaves_loses_the_teleporter_wonder_too() -> None:
    state = position(stairways=("a8", "h8", "h1"), hands=((), (), ()), wonders="2---2")
    state, events = ENGINE.eliminate(state, 2)
    assert state["wonders"]["T"] is None and "its wonders (H, T) are unowned again" in texts(events)


# --- the picture, the panel, random games -------------------------------------------------------------
def _targets(svg: str) -> list[str]:
    return re.findall(r'data-target="([^"]+)"', svg)


def test_the_svg_draws_every_board_side_by_side_with_unique_targets() -> None:
    state = position(("d4",), boards=({"heroes": ["d4"], "giant": "a1"}, {}), teleporters=("c3", "3f6"))
    svg = ENGINE.render_svg(ENGINE.view(state, 0), 0, interactive=True)
    root = ET.fromstring(svg)
    assert root.get("viewBox") == "0 0 1512 764"
    ids = [t for t in _targets(svg) if not t.startswith("card-")]
    assert len(ids) == len(set(ids))
    for b in ("", "2", "3"):
        assert {f"sq-{b}a1", f"sq-{b}h8", f"edge-{b}c3e", f"edge-{b}g7n"} <= set(ids)
    assert "Board 1: the stairways" in svg and "Board 3" in svg
    assert svg.count('class="teleporter"') == 2 and "teleporter on 3f6" in svg
    assert 'data-target="wonder-T"' in svg and ">G2<" in svg
    assert "data-target" not in ENGINE.render_svg(ENGINE.view(state, None), None, interactive=False)


def test_every_click_path_of_the_variant_has_its_targets_and_no_two_moves_share_one() -> None:
    cases = [
        position(("d4",), walls=("c3e",), boards=({"walls": ["c3e"]},), hands=(FULL, ()), wonders="-----"),
        position(("d4",), walls=("c3e",), boards=({"walls": ["c3e"]},), hands=(FULL, ()), wonders="00000"),
        play(position(hands=(FULL, ()), wonders="-----"), "bid H2 for T")[0],
        play(
            position(hands=(FULL, FULL), wonders="----1"),
            "bid H2 for T",
            "bid C3 for T",
            "bid D4 for T",
            "bid S5 for T",
            "claim T",
        )[0],
        play(position(hands=(FULL, ()), wonders="----0"), "charge H2", "charge C3", "charge D4", "charge S5")[
            0
        ],
        play(position(("d1",), teleporters=("d5", "2c3"), hands=(("D3",), ())), "D3 d5")[0],
        end_turn(position(("f6",), hands=((), ()), crowded="yes"))[0],
    ]
    for state in cases:
        seat = actor(state)
        svg = ENGINE.render_svg(ENGINE.view(state, seat), seat, interactive=True)
        ET.fromstring(svg)
        listed = ENGINE.legal_moves(state, seat)
        paths = [tuple(ENGINE.click_path(m)) for m in listed]
        assert len(paths) == len(set(paths)), "two moves share a click path"
        needed = {t for path in paths for t in path}
        assert needed <= set(_targets(svg)), needed - set(_targets(svg))


def test_the_side_panel_shows_the_teleporter_wonder_the_teleporters_and_the_giants() -> None:
    from django.template.loader import render_to_string

    state = position(
        ("d4",), giant="a1", boards=({"giant": "b2"},), teleporters=("c3", "2c3"), wonders="----1"
    )
    seats = [SimpleNamespace(position=0, player_name="alice"), SimpleNamespace(position=1, player_name="bob")]
    html = render_to_string("stairways/_panel.html", {"view": ENGINE.view(state, 0), "seats": seats})
    assert re.search(r'wonder-T">.*teleporter.*bob', html)
    assert "Teleporters: c3, 2c3" in html and "Giant 2: on 2b2" in html and "Giant 1: on a1" in html
    one = ENGINE.new_state(seats=2, options={}, rng=random.Random(0))
    assert "wonder-T" not in render_to_string(
        "stairways/_panel.html", {"view": ENGINE.view(one, 0), "seats": seats}
    )


def test_sample_hidden_keeps_the_view_of_a_multi_board_game() -> None:
    state = play(position(hands=(FULL, ("H1", "C1")), wonders="----0"), "charge H2")[0]
    for seat in (0, 1, None):
        other = ENGINE.sample_hidden(state, seat, random.Random(3))
        assert ENGINE.view(other, seat) == ENGINE.view(state, seat)


@pytest.mark.parametrize("boards", ["2", "3"])
def test_random_multi_board_games_keep_all_eighty_cards_and_end(boards: str) -> None:
    for number in range(12):
        rng = random.Random(number)
        seats = 2 + number % 3
        options = {"boards": boards, **({"crowded": "yes"} if number % 4 == 0 else {})}
        state = ENGINE.new_state(seats=seats, options=options, rng=rng)
        for _ in range(5000):
            if ENGINE.is_over(state):
                break
            if ENGINE.chance_pending(state):
                state, _ = ENGINE.resolve_chance(state, rng)
            else:
                seat = rng.choice(sorted(ENGINE.actors(state)))
                state, _ = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_moves(state, seat)))
            assert all_cards(state) == Counter(DECK)
        assert ENGINE.is_over(state)
