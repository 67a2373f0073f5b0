"""Wall Go rules, one scenario per rule sentence of the seed and per decision in GAMES.md section 1.

Pure: no Django, no database. Positions are built by ``position``, which starts from the engine's own
``new_state`` and fills in the board, so every test position has the engine's state format.
"""

from __future__ import annotations

import copy
import itertools
import json
import random
import re
import xml.etree.ElementTree as ET
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from games.engines import registry
from games.engines.base import Event, IllegalMove
from games.engines.palette import seat_colour
from games.engines.wallgo import rules
from games.engines.wallgo.rules import EDGES, SQUARES, WallGo

ENGINE = WallGo()
TURN_HINT = "Write a turn as b2-c3/c3n: from, to, then the wall."


# --- helpers -------------------------------------------------------------------------------------------
def fresh(seats: int = 2, **options: str) -> dict[str, Any]:
    return ENGINE.new_state(seats=seats, options=options, rng=random.Random(0))


def position(
    seat_tokens: list[str],
    seat_walls: list[str] | None = None,
    *,
    to_move: int = 0,
    rules_: str = "seed",
    eliminated: tuple[int, ...] = (),
) -> dict[str, Any]:
    """A play-phase position: ``seat_tokens[s]`` and ``seat_walls[s]`` are space-separated squares and
    walls of seat s. Checks that it is consistent with what the engine itself produces."""
    seats = len(seat_tokens)
    state = fresh(seats, rules=rules_)
    per_seat = 4 if seats == 2 else 2
    tokens: dict[str, int] = {}
    for seat, squares in enumerate(seat_tokens):
        names = squares.split()
        assert len(names) == (0 if seat in eliminated else per_seat), f"seat {seat} needs {per_seat} tokens"
        for sq in names:
            assert sq in rules.SQUARE_SET and sq not in tokens, sq
            tokens[sq] = seat
    walls: dict[str, int] = {}
    for seat, edges in enumerate(seat_walls or []):
        for edge in edges.split():
            assert edge in rules.EDGE_SET and edge not in walls, edge
            walls[edge] = seat
    built = [list(walls.values()).count(s) for s in range(seats)]
    assert max(built) <= 20
    state.update(
        phase="play",
        placement_queue=[],
        tokens=tokens,
        walls=walls,
        walls_left=[20 - n for n in built],
        eliminated=sorted(eliminated),
        to_move=to_move,
        ply=per_seat * seats + len(walls),
    )
    assert json.loads(json.dumps(state)) == state
    return state


def play(state: dict[str, Any], *texts: str) -> tuple[dict[str, Any], list[Event]]:
    """Apply moves written in notation, each by the seat whose turn it is."""
    events: list[Event] = []
    for text in texts:
        state, new = ENGINE.apply(state, state["to_move"], ENGINE.parse_move(text))
        events += new
    return state, events


def destinations(state: dict[str, Any], square: str) -> list[str]:
    """Where the token on ``square`` may end, asked as if its owner were to move."""
    seat = state["tokens"][square]
    asked = dict(state, to_move=seat)
    return sorted({m["to"] for m in ENGINE.legal_moves(asked, seat) if m["from"] == square})


def walls_for(state: dict[str, Any], src: str, dest: str) -> list[str]:
    seat = state["tokens"][src]
    asked = dict(state, to_move=seat)
    return [m["wall"] for m in ENGINE.legal_moves(asked, seat) if m["from"] == src and m["to"] == dest]


def raises(reason: str) -> AbstractContextManager[Any]:
    """Expect IllegalMove whose message contains ``reason`` literally."""
    return pytest.raises(IllegalMove, match=re.escape(reason))


def refused(state: dict[str, Any], text: str, reason: str) -> None:
    with raises(reason):
        ENGINE.apply(state, state["to_move"], ENGINE.parse_move(text))


def words(text: str) -> list[str]:
    return text.split()


def placement_order(state: dict[str, Any]) -> list[int]:
    order = []
    while state["phase"] == "placement":
        seat = state["to_move"]
        order.append(seat)
        state, _ = ENGINE.apply(state, seat, ENGINE.legal_moves(state, seat)[0])
    return order


OPEN = ["d4 a7 b7 c7", "g1 g2 g3 f1"]  # seat 0 on d4 in open ground, the rest out of the way


# --- metadata and setup ---------------------------------------------------------------------------
def test_the_registry_loads_wall_go() -> None:
    engine = registry.get_engine("wallgo")
    assert isinstance(engine, WallGo)
    assert (engine.slug, engine.title, engine.min_players, engine.max_players) == ("wallgo", "Wall Go", 2, 4)


def test_options_are_rules_and_placement_order_with_seed_and_snake_by_default() -> None:
    assert set(WallGo.options) == {"rules", "placement"}
    assert set(WallGo.options["rules"].choices) == {"seed", "devils_plan"}
    assert set(WallGo.options["placement"].choices) == {"snake", "round_robin"}
    assert fresh()["options"] == {"rules": "seed", "placement": "snake"}


@pytest.mark.parametrize("seats", [1, 5])
def test_it_is_for_two_to_four_players(seats: int) -> None:
    with pytest.raises(ValueError, match="2 to 4 players"):
        fresh(seats)


def test_unknown_option_values_are_refused() -> None:
    with pytest.raises(ValueError):
        fresh(2, rules="chess")


def test_the_board_is_seven_by_seven() -> None:
    assert len(SQUARES) == 49 and SQUARES[0] == "a1" and SQUARES[-1] == "g7"
    assert len(EDGES) == 84  # 2 * 7 * 6 interior edges, none on the rim
    assert ENGINE.view(fresh(), None)["size"] == 7


def test_two_players_get_four_tokens_each() -> None:
    state = fresh(2)
    assert ENGINE.view(state, 0)["to_place"] == [4, 4]
    assert len(placement_order(state)) == 8


def test_three_players_get_two_tokens_each() -> None:
    state = fresh(3)
    assert ENGINE.view(state, 0)["to_place"] == [2, 2, 2]
    assert len(placement_order(state)) == 6


def test_four_players_get_two_tokens_each() -> None:
    state = fresh(4)
    assert ENGINE.view(state, 0)["to_place"] == [2, 2, 2, 2]
    assert len(placement_order(state)) == 8


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_each_player_has_twenty_walls(seats: int) -> None:
    assert ENGINE.view(fresh(seats), None)["walls_left"] == [20] * seats


def test_snake_placement_order_for_two_players() -> None:
    assert placement_order(fresh(2)) == [0, 1, 1, 0, 0, 1, 1, 0]


def test_snake_placement_order_for_three_players() -> None:
    assert placement_order(fresh(3)) == [0, 1, 2, 2, 1, 0]


def test_snake_placement_order_for_four_players() -> None:
    assert placement_order(fresh(4)) == [0, 1, 2, 3, 3, 2, 1, 0]


def test_round_robin_placement() -> None:
    assert placement_order(fresh(2, placement="round_robin")) == [0, 1] * 4
    assert placement_order(fresh(4, placement="round_robin")) == [0, 1, 2, 3] * 2


def test_a_token_may_be_placed_on_any_empty_square() -> None:
    state, _ = play(fresh(), "d4")
    assert ENGINE.legal_moves(state, 1) == [{"place": sq} for sq in SQUARES if sq != "d4"]
    assert state["tokens"] == {"d4": 0}


def test_no_two_tokens_may_share_a_square_at_placement() -> None:
    state, _ = play(fresh(), "d4")
    refused(state, "d4", "d4 is occupied")


def test_only_placements_are_accepted_during_placement() -> None:
    refused(fresh(), "d4-d5/d5n", "First place your tokens")


def test_after_round_robin_placement_the_turn_passes_on_from_the_last_seat_to_seat_zero() -> None:
    state, events = play(fresh(3, placement="round_robin"), "a1", "b1", "c1", "a2", "b2", "c2")
    assert state["phase"] == "play" and ENGINE.actors(state) == frozenset({0})
    assert [e.text for e in events] == ["a1", "b1", "c1", "a2", "b2", "c2"]


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_after_snake_placement_the_turn_passes_on_from_seat_zero_which_placed_last(seats: int) -> None:
    squares = iter(SQUARES)
    state = fresh(seats)
    while state["phase"] == "placement":
        state, _ = play(state, next(squares))
    assert state["last_move"]["seat"] == 0
    assert state["phase"] == "play" and ENGINE.actors(state) == frozenset({1})


def test_play_starts_after_the_last_placer_even_when_it_leaves_before_placing() -> None:
    # Snake with three: 0 1 2 2 1 0. Seat 0 leaves with its last token still to place.
    state, _ = play(fresh(3), "a1", "b1", "c1", "a2", "b2")
    state, _ = ENGINE.eliminate(state, 0)
    assert state["phase"] == "play" and ENGINE.actors(state) == frozenset({1})


def test_placement_moves_are_refused_once_play_has_begun() -> None:
    refused(position(OPEN), "e5", "Placement is over")


# --- turn order and the turn -----------------------------------------------------------------------
def test_players_take_turns_in_seat_order() -> None:
    state = position(["a1 a2", "d4 d5", "g6 g7"])
    seen = []
    for text in ("a1-b1/b1n", "d4-e4/e4n", "g6-f6/f6n", "b1-c1/c1n"):
        seen.append(state["to_move"])
        state, _ = play(state, text)
    assert seen == [0, 1, 2, 0]
    assert state["to_move"] == 1


def test_a_turn_needs_both_a_move_and_a_wall() -> None:
    with pytest.raises(IllegalMove, match=re.escape(TURN_HINT)):
        ENGINE.parse_move("d4-d5")
    state = position(OPEN)
    with raises("not a Wall Go move"):
        ENGINE.apply(state, 0, {"from": "d4", "to": "d5"})
    with raises("not a Wall Go move"):
        ENGINE.apply(state, 0, {"wall": "d5n"})


def test_a_turn_builds_one_wall_and_moves_one_token() -> None:
    state, events = play(position(OPEN), "d4-d6/d6n")
    assert state["tokens"]["d6"] == 0 and "d4" not in state["tokens"]
    assert state["walls"] == {"d6n": 0}
    assert state["walls_left"] == [19, 20]
    assert events[0] == Event(
        kind="move", text="d4-d6/d6n", data={"seat": 0, "move": ENGINE.parse_move("d4-d6/d6n")}
    )
    assert state["last_move"] == {
        "seat": 0,
        "move": {"from": "d4", "to": "d6", "wall": "d6n"},
        "text": "d4-d6/d6n",
    }


def test_it_refuses_a_move_out_of_turn() -> None:
    state = position(OPEN)
    with raises("It is not your turn."):
        ENGINE.apply(state, 1, ENGINE.parse_move("g1-g1/a1n"))
    assert ENGINE.legal_moves(state, 1) == []


def test_it_refuses_to_move_a_token_you_do_not_have() -> None:
    refused(position(OPEN), "g1-e1/a1n", "You have no token on g1.")
    refused(position(OPEN), "e4-e5/a1n", "You have no token on e4.")


# --- movement ----------------------------------------------------------------------------------------
def test_a_token_moves_zero_one_or_two_steps_straight_or_l_shaped() -> None:
    expected = ["b4", "c3", "c4", "c5", "d2", "d3", "d4", "d5", "d6", "e3", "e4", "e5", "f4"]
    assert destinations(position(OPEN), "d4") == expected


def test_a_token_may_not_move_three_steps_or_like_a_knight() -> None:
    refused(position(OPEN), "d4-d7/a1n", "out of reach")
    refused(position(OPEN), "d4-e6/a1n", "out of reach")


def test_a_token_may_not_leave_the_board() -> None:
    state = position(["a1 e7 f7 g7", "g1 g2 g3 f1"])
    assert destinations(state, "a1") == ["a1", "a2", "a3", "b1", "b2", "c1"]


def test_a_token_may_not_end_on_an_occupied_square() -> None:
    state = position(["d4 a7 b7 c7", "d5 e4 g3 f1"])
    assert "d5" not in destinations(state, "d4") and "e4" not in destinations(state, "d4")
    refused(state, "d4-d5/a1n", "d5 is occupied")
    # Your own tokens block you just the same.
    state = position(["d4 d5 b7 c7", "g1 g2 g3 f1"])
    refused(state, "d4-d5/a1n", "d5 is occupied")


def test_a_token_may_pass_over_a_token_under_seed_rules() -> None:
    state = position(["d4 a7 b7 c7", "d5 e4 g3 f1"])
    assert {"d6", "e5", "f4"} <= set(destinations(state, "d4"))
    state, _ = play(state, "d4-d6/a1n")
    assert state["tokens"]["d6"] == 0


def test_devils_plan_forbids_passing_over_a_token() -> None:
    state = position(["d4 a7 b7 c7", "d5 e4 g3 f1"], rules_="devils_plan")
    found = destinations(state, "d4")
    assert "d6" not in found and "f4" not in found
    assert "c5" in found  # through c4, which is empty
    refused(state, "d4-d6/d6n", "may not pass over another token")


def test_l_shaped_move_uses_either_path() -> None:
    # d4 to e5 goes through d5 or e4; one open path is enough.
    state = position(OPEN, ["d4n"], to_move=0)
    assert "e5" in destinations(state, "d4")
    state = position(OPEN, ["d4n e4n"])
    assert "e5" not in destinations(state, "d4")
    refused(state, "d4-e5/a1n", "A wall blocks every way from d4 to e5.")
    # Under the Devil's Plan a token on one path is fine as long as the other path is empty.
    state = position(["d4 a7 b7 c7", "d5 g4 g3 f1"], rules_="devils_plan")
    assert "e5" in destinations(state, "d4")
    state = position(["d4 a7 b7 c7", "d5 e4 g3 f1"], rules_="devils_plan")
    assert "e5" not in destinations(state, "d4")


def test_a_token_may_not_move_through_a_wall() -> None:
    state = position(OPEN, ["d4n"])
    found = destinations(state, "d4")
    assert "d5" not in found and "d6" not in found
    refused(state, "d4-d5/a1n", "A wall blocks the way from d4 to d5.")
    refused(state, "d4-d6/a1n", "A wall blocks every way from d4 to d6.")


def test_a_wall_on_the_second_step_blocks_a_two_step_move() -> None:
    state = position(OPEN, ["d5n"])
    found = destinations(state, "d4")
    assert "d5" in found and "d6" not in found


def test_zero_step_move_needs_a_free_neighbour() -> None:
    # a1's neighbours: a2 behind a wall, b1 occupied. It could still jump over b1, but it may not stay.
    state = position(["a1 e7 f7 g7", "b1 g2 g3 f1"], ["a1n"])
    found = destinations(state, "a1")
    assert "a1" not in found and "c1" in found
    refused(state, "a1-a1/c3n", "may stay only if it could step to an empty neighbouring square")
    # With b1 empty the token may step there and back, so it may stay.
    state = position(["a1 e7 f7 g7", "c2 g2 g3 f1"], ["a1n"])
    assert "a1" in destinations(state, "a1")
    state, _ = play(state, "a1-a1/b1e")
    assert state["tokens"]["a1"] == 0 and state["walls"]["b1e"] == 0


def test_zero_step_move_is_written_from_and_to_the_same_square() -> None:
    state, _ = play(position(OPEN), "d4-d4/d4e")
    assert state["tokens"]["d4"] == 0 and state["last_move"]["text"] == "d4-d4/d4e"
    assert ENGINE.click_path(ENGINE.parse_move("b2-b2/b2e")) == ["sq-b2", "sq-b2", "wall-b2e"]


def test_a_fully_trapped_token_cannot_move_or_stay() -> None:
    state = position(["a1 e7 f7 g7", "g1 g2 g3 f1"], ["a1n a1e"])
    assert destinations(state, "a1") == []


# --- walls --------------------------------------------------------------------------------------------
def test_under_seed_rules_a_wall_may_go_on_any_empty_interior_edge() -> None:
    state = position(OPEN, ["a1n b5e"])
    assert walls_for(state, "d4", "d5") == [e for e in EDGES if e not in ("a1n", "b5e")]


def test_it_rejects_a_wall_on_the_outer_edge() -> None:
    with pytest.raises(IllegalMove) as caught:
        ENGINE.parse_move("b2-c3/c7n")
    assert str(caught.value) == "c7n is on the outer edge of the board; walls go between two squares."
    for text in ("b2-c3/a1s", "b2-c3/a4w", "b2-c3/g2e"):
        with raises("outer edge"):
            ENGINE.parse_move(text)
    with raises("outer edge"):
        ENGINE.apply(position(OPEN), 0, {"from": "d4", "to": "d5", "wall": "c7n"})
    assert not any(m["wall"] == "c7n" for m in ENGINE.legal_moves(position(OPEN), 0))


def test_walls_may_not_overlap() -> None:
    state = position(OPEN, ["", "c3n"])
    refused(state, "d4-d5/c3n", "There is already a wall at c3n")
    refused(state, "d4-d5/c4s", "There is already a wall at c3n")  # the same wall by its other name


def test_walls_are_permanent() -> None:
    state, _ = play(position(OPEN), "d4-d5/c3n", "g3-g4/g1n", "d5-d4/a1e")
    assert state["walls"] == {"c3n": 0, "g1n": 1, "a1e": 0}


def test_each_wall_spends_one_of_the_players_twenty() -> None:
    state, _ = play(position(OPEN), "d4-d5/c3n", "g3-g4/g1n", "d5-d4/a1e")
    assert state["walls_left"] == [18, 19]


def test_devils_plan_wall_must_touch_the_destination() -> None:
    state = position(OPEN, rules_="devils_plan")
    assert walls_for(state, "d4", "d5") == ["c5e", "d4n", "d5e", "d5n"]
    refused(state, "d4-d5/a1n", "the wall must be on a side of d5")
    state, _ = play(state, "d4-d5/d4n")  # the wall may go behind the token, too
    assert state["walls"] == {"d4n": 0}


def test_devils_plan_walls_stay_off_the_rim_and_off_existing_walls() -> None:
    state = position(["a2 e7 f7 g7", "g1 g2 g3 f1"], ["", "a1e"], rules_="devils_plan")
    assert walls_for(state, "a2", "a1") == ["a1n"]


def test_fully_trapping_a_token_is_allowed() -> None:
    state = position(["d4 a7 b7 c7", "a1 g2 g3 f1"], ["a1n"])
    state, events = play(state, "d4-d5/a1e")
    assert destinations(state, "a1") == []
    assert state["phase"] == "play" and state["to_move"] == 1  # seat 1 still has other tokens to move
    assert [e.kind for e in events] == ["move"]


# --- skipping -----------------------------------------------------------------------------------------
# Twenty walls that leave the board in one piece (ranks join through the g file and b2/b4 stay open).
TWENTY = "a1n b1n c1n d1n e1n f1n a3n b3n c3n d3n e3n f3n a5n b5n c5n d5n e5n f5n b2e b4e"


def test_a_player_without_walls_is_skipped() -> None:
    state = position(["d4 a7 b7 c7", "d2 e7 f7 g7"], ["", TWENTY])
    assert state["walls_left"] == [20, 0]
    state, events = play(state, "d4-d5/d6n")
    assert state["to_move"] == 0
    skip = [e for e in events if e.kind == "skip"]
    assert skip == [
        Event(
            kind="skip", text="Blue is skipped: no walls left.", data={"seat": 1, "reason": "no walls left"}
        )
    ]


def test_a_player_without_a_legal_turn_is_skipped() -> None:
    # Seat 1's two tokens are each shut in a two-square box with another player's token.
    state = position(
        ["d4 a6", "a1 a7", "a2 e4"],
        ["a5n a6e a7e", "", "a2n a1e a2e"],
    )
    state, events = play(state, "d4-d5/g1n")
    assert state["to_move"] == 2
    assert [(e.kind, e.data.get("seat"), e.data.get("reason")) for e in events] == [
        ("move", 0, None),
        ("skip", 1, "no legal move and wall"),
    ]
    assert ENGINE.legal_moves(state, 1) == []


# --- end of the game --------------------------------------------------------------------------------
# 39 walls: ranks 6-7 cut into empty single squares, ranks 1-5 left in one piece.
WALLS_39 = words(
    "a5n b5n c5n d5n e5n f5n g5n a6e b6e c6e d6e e6e f6e a7e b7e c7e d7e e7e f7e "
    "a6n b6n c6n d6n e6n f6n g6n a1e a2e a3e a4e c2e c3e c4e c5e e1e e2e e3e e4e b4n"
)


def test_game_ends_when_all_walls_are_used() -> None:
    state = position(["a1 b1 c1 d1", "a3 b3 c3 d3"], [" ".join(WALLS_39[:19]), " ".join(WALLS_39[19:])])
    assert state["walls_left"] == [1, 0]
    state, events = play(state, "d1-d2/f1e")
    assert state["phase"] == "over" and state["end_reason"] == "every player has used all their walls"
    assert ENGINE.actors(state) == frozenset() and ENGINE.legal_moves(state, 0) == []
    assert events[-1].kind == "end" and events[-1].text.startswith("Game over: every player has used all")
    assert ENGINE.outcome(state) == [0.0, 0.0]


def test_game_ends_when_nobody_can_move() -> None:
    # Every token ends up in a two-square box with an opponent: no region is owned, nobody can move.
    walls0 = "a2n a1e a2e b1e b2e c2n c1e c2e"
    walls1 = "d1e d2e e2n e1e e2e f1e f2e"
    state = position(["a1 c1 e1 g3", "a2 c2 e2 g2"], [walls0, walls1])
    state, events = play(state, "g3-g1/g2n")  # over the token on g2, then shut the box
    assert state["phase"] == "over" and state["end_reason"] == "nobody can make a legal turn"
    assert [e.kind for e in events] == ["move", "end"]
    assert ENGINE.outcome(state) == [0.0, 0.0]


def test_game_ends_when_every_region_with_tokens_is_single_owner() -> None:
    state = position(["a1 b1 c1 a2", "e1 f1 g1 e2"], ["c1e c2e c3e", "c4e c5e c6e"])
    assert ENGINE.outcome(state) is None
    state, events = play(state, "a2-a3/c7e")
    assert state["phase"] == "over"
    assert state["end_reason"] == "every region with tokens belongs to a single player"
    assert ENGINE.outcome(state) == [21.0, 28.0]
    assert events[-1] == Event(
        kind="end",
        text="Game over: every region with tokens belongs to a single player. Scores: Orange 21, Blue 28.",
        data={"reason": "every region with tokens belongs to a single player", "scores": [21, 28]},
    )


def test_equal_totals_are_reported_equal() -> None:
    # The last wall splits the board into 24 squares for each player; g7 is an empty box.
    boundary = "d3n e3n f3n c4e a4n b4n c4n"
    state = position(["a1 b1 c1 d1", "a7 b7 c7 d7"], [boundary, "f7e g6n"])
    state, _ = play(state, "d1-d2/g3n")
    assert ENGINE.outcome(state) == [24.0, 24.0]


def test_the_game_is_not_over_while_a_region_is_mixed() -> None:
    state = position(OPEN)
    assert ENGINE.outcome(state) is None and ENGINE.actors(state) == frozenset({0})


def test_no_move_is_accepted_once_the_game_is_over() -> None:
    state = position(["a1 b1 c1 a2", "e1 f1 g1 e2"], ["c1e c2e c3e", "c4e c5e c6e"])
    state, _ = play(state, "a2-a3/c7e")
    with raises("The game is over."):
        ENGINE.apply(state, 1, ENGINE.parse_move("e1-e1/e1n"))


# --- scoring ------------------------------------------------------------------------------------------
def test_a_region_with_only_opponent_free_tokens_scores_its_size() -> None:
    state = position(["a1 a2 d4 e4", "g1 g2 g3 f1"], ["a2n a1e", "a2e"])
    view = ENGINE.view(state, None)
    assert view["scores"] == [2, 0]
    assert {"squares": ["a1", "a2"], "size": 2, "seats": [0], "owner": 0, "mixed": False} in view["regions"]


def test_a_region_may_hold_several_tokens_of_one_player() -> None:
    state = position(["a1 a2 a3 e4", "g1 g2 g3 f1"], ["a3n a1e a2e a3e"])
    assert ENGINE.view(state, None)["scores"] == [3, 0]


def test_mixed_and_empty_regions_score_nothing() -> None:
    state = position(["a1 d4 e4 c7", "a2 g2 g3 f1"], ["a2n a1e a2e", "f7e g6n"])
    view = ENGINE.view(state, None)
    assert view["scores"] == [0, 0]
    kinds = {tuple(r["squares"]): (r["owner"], r["mixed"]) for r in view["regions"]}
    assert kinds[("a1", "a2")] == (None, True)
    assert kinds[("g7",)] == (None, False)


def test_enclosing_an_area_that_contains_no_opponent_scores() -> None:
    # The walls around a1 are the opponent's; what counts is whose tokens are inside.
    state = position(["a1 d4 e4 c7", "g1 g2 g3 f1"], ["", "a1n"])
    state, _ = play(state, "d4-d5/a1e")
    assert ENGINE.view(state, None)["scores"] == [1, 0]


def test_walling_an_opponent_token_out_makes_the_region_yours() -> None:
    state = position(["a1 d4 e4 c7", "a2 g2 g3 f1"], ["a3n a1e a2e a3e"])
    assert ENGINE.view(state, None)["scores"] == [0, 0]
    state, _ = play(state, "d4-d5/a1n")
    assert ENGINE.view(state, None)["scores"] == [1, 2]


# --- notation ---------------------------------------------------------------------------------------
def test_c4s_names_the_same_wall_as_c3n() -> None:
    assert (
        ENGINE.parse_move("b2-c3/c4s")
        == ENGINE.parse_move("b2-c3/c3n")
        == {
            "from": "b2",
            "to": "c3",
            "wall": "c3n",
        }
    )
    assert ENGINE.parse_move("b2-c3/d3w")["wall"] == "c3e"


def test_placement_notation_is_a_square() -> None:
    assert ENGINE.parse_move("d4") == {"place": "d4"}
    assert ENGINE.format_move({"place": "d4"}) == "d4"


def test_parse_is_tolerant_of_case_and_whitespace() -> None:
    assert ENGINE.parse_move("  B2-C3/C4S \n") == {"from": "b2", "to": "c3", "wall": "c3n"}
    assert ENGINE.parse_move("b2 - c3 / c3n") == {"from": "b2", "to": "c3", "wall": "c3n"}
    assert ENGINE.parse_move(" D4 ") == {"place": "d4"}


def test_format_move_writes_the_canonical_form() -> None:
    assert ENGINE.format_move(ENGINE.parse_move("B2-C3/C4S")) == "b2-c3/c3n"
    assert ENGINE.format_move({"from": "b2", "to": "b2", "wall": "c2w"}) == "b2-b2/b2e"


@pytest.mark.parametrize(
    "text", ["", "hello", "b2-c3", "b2c3/c3n", "b2-c3/c3", "b2-c3/c3x", "b2-c3-c3n", "d"]
)
def test_malformed_text_raises_illegal_move_with_a_sentence(text: str) -> None:
    with pytest.raises(IllegalMove) as caught:
        ENGINE.parse_move(text)
    assert "Write a" in str(caught.value) and str(caught.value).endswith(".")


@pytest.mark.parametrize("text", ["h4", "a8", "a0", "b2-b8/b2n", "b2-c3/k3n"])
def test_squares_off_the_board_are_refused(text: str) -> None:
    with raises("is not on the board; squares run from a1 to g7."):
        ENGINE.parse_move(text)


def test_a_wall_in_a_move_dict_must_be_in_canonical_form() -> None:
    with raises("Write the wall c4s as c3n."):
        ENGINE.apply(position(OPEN), 0, {"from": "d4", "to": "d5", "wall": "c4s"})


def test_round_trip_of_every_legal_move() -> None:
    for state in (fresh(), position(OPEN, ["a1n", "d5e"]), position(OPEN, rules_="devils_plan")):
        seat = state["to_move"]
        for move in ENGINE.legal_moves(state, seat):
            assert ENGINE.parse_move(ENGINE.format_move(move)) == move


def test_click_path_names_the_svg_targets() -> None:
    assert ENGINE.click_path({"place": "d4"}) == ["sq-d4"]
    assert ENGINE.click_path(ENGINE.parse_move("b2-c3/c4s")) == ["sq-b2", "sq-c3", "wall-c3n"]
    # A move from outside names its wall the canonical way, as the SVG does, and an unknown square is
    # refused, not turned into a target the board has not got.
    assert ENGINE.click_path({"from": "b2", "to": "b2", "wall": "c2w"}) == ["sq-b2", "sq-b2", "wall-b2e"]
    for move in ({"place": "z9"}, {"from": "b2", "to": "b9", "wall": "b2e"}, {"place": "d4", "to": "d5"}):
        with pytest.raises(IllegalMove):
            ENGINE.click_path(move)
        with pytest.raises(IllegalMove):
            ENGINE.format_move(move)


def test_the_moves_the_engine_lists_are_named_as_any_other_move() -> None:
    state = position(OPEN, ["a1n", "d5e"])
    for move in ENGINE.legal_moves(state, 0):
        assert ENGINE.listed_notation(move) == ENGINE.format_move(dict(move))
        assert ENGINE.listed_click_path(move) == ENGINE.click_path(dict(move))


# --- the engine contract ----------------------------------------------------------------------------
def test_legal_moves_are_sorted_and_unique() -> None:
    for state in (position(OPEN, ["a1n", "d5e"]), position(OPEN, rules_="devils_plan")):
        moves = ENGINE.legal_moves(state, 0)
        keys = [(m["from"], m["to"], m["wall"]) for m in moves]
        assert keys == sorted(set(keys))


def test_apply_does_not_mutate_its_input() -> None:
    for state in (fresh(), position(OPEN, ["a1n"])):
        before = copy.deepcopy(state)
        move = ENGINE.legal_moves(state, state["to_move"])[-1]
        ENGINE.apply(state, state["to_move"], move)
        assert state == before
    state = position(["d4 a7 b7 c7", "d5 g2 g3 f1"])
    before = copy.deepcopy(state)
    ENGINE.eliminate(state, 1)
    assert state == before


def test_the_state_is_plain_json() -> None:
    # Seat 0 places last, so seat 1 makes the first turn.
    state, _ = play(fresh(), "d4", "e4", "e5", "d5", "a1", "g7", "g6", "a2", "e4-f3/f3n")
    assert state["phase"] == "play" and state["tokens"]["f3"] == 1
    assert json.loads(json.dumps(state)) == state


def test_there_is_never_a_chance_step() -> None:
    assert ENGINE.chance_pending(fresh()) is False


def test_the_view_is_a_fresh_public_dict_for_every_seat() -> None:
    state, _ = play(position(OPEN), "d4-d5/c3n")
    view = ENGINE.view(state, 0)
    assert view == ENGINE.view(state, 1) == ENGINE.view(state, None)
    assert view == {**ENGINE.public_view(state), "private": {}}  # no secrets in Wall Go
    keys = "size tokens walls walls_left phase to_move regions scores last_move to_place eliminated seats"
    assert set(view) >= set(keys.split())
    assert view["walls"] == {"c3n": 0} and view["tokens"]["d5"] == 0
    assert view["last_move"] == {
        "seat": 0,
        "move": {"from": "d4", "to": "d5", "wall": "c3n"},
        "text": "d4-d5/c3n",
    }
    view["tokens"]["a1"] = 1
    view["walls"]["a1n"] = 1
    view["last_move"]["move"]["to"] = "a1"
    assert "a1" not in state["tokens"] and "a1n" not in state["walls"]
    assert state["last_move"]["move"]["to"] == "d5"
    assert json.loads(json.dumps(view)) == view


# --- elimination ------------------------------------------------------------------------------------
def test_eliminate_removes_tokens_and_skips_the_seat() -> None:
    state = position(["a1 a2", "d4 d5", "g6 g7"])
    state, events = ENGINE.eliminate(state, 1)
    assert "d4" not in state["tokens"] and "d5" not in state["tokens"]
    assert state["eliminated"] == [1] and state["to_move"] == 0
    assert events[0].kind == "eliminate" and events[0].data == {"seat": 1}
    state, events = play(state, "a1-b1/b1n")
    assert state["to_move"] == 2 and not [e for e in events if e.kind == "skip"]
    with raises("You are out of this game."):
        ENGINE.apply(state, 1, ENGINE.parse_move("d4-d5/d5n"))


def test_eliminating_the_seat_to_move_passes_the_turn_on() -> None:
    state, _ = ENGINE.eliminate(position(["a1 a2", "d4 d5", "g6 g7"]), 0)
    assert state["to_move"] == 1 and ENGINE.actors(state) == frozenset({1})


def test_eliminate_during_placement_drops_the_remaining_placements() -> None:
    state, _ = play(fresh(3), "a1")  # snake order 0 1 2 2 1 0
    state, _ = ENGINE.eliminate(state, 1)
    assert state["to_move"] == 2
    assert ENGINE.view(state, None)["to_place"] == [1, 0, 2]
    assert placement_order(state) == [2, 2, 0]


def test_eliminating_down_to_one_player_ends_the_game() -> None:
    state, events = ENGINE.eliminate(position(OPEN), 1)
    assert state["phase"] == "over" and state["end_reason"] == "only one player is left"
    assert ENGINE.outcome(state) == [49.0, 0.0]
    assert events[-1].kind == "end"


def test_eliminating_down_to_one_player_during_placement_ends_the_game() -> None:
    state, _ = play(fresh(2), "d4")
    state, _ = ENGINE.eliminate(state, 1)
    assert state["phase"] == "over" and ENGINE.outcome(state) == [49.0, 0.0]


def test_all_walls_used_ignores_an_eliminated_seat() -> None:
    walls = [" ".join(WALLS_39[:19]), " ".join(WALLS_39[19:]), ""]
    state = position(["a1 b1", "a3 b3", ""], walls, eliminated=(2,))
    state, _ = play(state, "b1-b2/f1e")
    assert state["end_reason"] == "every player has used all their walls"


def test_eliminating_can_end_the_game_by_leaving_only_single_owner_regions() -> None:
    state = position(["a1 b1", "e1 f1", "a7 g7"], ["c1e c2e c3e c4e", "c5e c6e c7e"])
    state, _ = ENGINE.eliminate(state, 2)
    assert ENGINE.outcome(state) == [21.0, 28.0, 0.0]


def test_a_seat_can_be_eliminated_only_once() -> None:
    state, _ = ENGINE.eliminate(position(["a1 a2", "d4 d5", "g6 g7"]), 2)
    with pytest.raises(IllegalMove):
        ENGINE.eliminate(state, 2)


# --- svg ---------------------------------------------------------------------------------------------
def board(state: dict[str, Any], *, interactive: bool) -> str:
    return ENGINE.render_svg(ENGINE.view(state, 0), 0, interactive=interactive)


def test_svg_is_a_complete_accessible_document() -> None:
    svg = board(fresh(), interactive=False)
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("role") == "img" and root.get("aria-label") == "Wall Go board"
    assert root.get("viewBox")
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert set("abcdefg") <= set(texts) and {str(r) for r in range(1, 8)} <= set(texts)


def test_interactive_svg_targets_every_square_and_every_empty_interior_edge() -> None:
    state, _ = play(position(OPEN), "d4-d5/c3n")
    svg = board(state, interactive=True)
    targets = re.findall(r'data-target="([^"]+)"', svg)
    assert sorted(t for t in targets if t.startswith("sq-")) == sorted(f"sq-{sq}" for sq in SQUARES)
    walls = sorted(t for t in targets if t.startswith("wall-"))
    assert walls == sorted(f"wall-{e}" for e in EDGES if e != "c3n")
    assert 'data-target="sq-d4" class="square target" tabindex="-1" aria-label="d4"' in svg
    assert 'aria-label="wall north of c4"' in svg
    ET.fromstring(svg)


def test_every_click_path_of_a_legal_move_is_clickable() -> None:
    state = position(OPEN, ["a1n"])
    targets = set(re.findall(r'data-target="([^"]+)"', board(state, interactive=True)))
    for move in ENGINE.legal_moves(state, 0):
        assert set(ENGINE.click_path(move)) <= targets


def test_non_interactive_svg_has_no_targets() -> None:
    assert "data-target" not in board(position(OPEN), interactive=False)


def test_tokens_are_drawn_in_seat_colours_and_shapes() -> None:
    state = position(["a1 a2", "b1 b2", "c1 c2", "d1 d2"])
    svg = board(state, interactive=False)
    root = ET.fromstring(svg)
    tokens = [el for el in root.iter() if (el.get("class") or "").startswith("token ")]
    assert len(tokens) == 8
    shapes = {int(el.get("data-seat")): (el.tag.split("}")[1], el.get("fill")) for el in tokens}
    assert shapes == {
        0: ("circle", seat_colour(0)),
        1: ("rect", seat_colour(1)),
        2: ("polygon", seat_colour(2)),
        3: ("polygon", seat_colour(3)),
    }
    assert all(el.get("stroke") == "#1B1B1B" for el in tokens)


def test_walls_are_drawn_in_their_builders_colour_and_the_last_move_is_marked() -> None:
    state, _ = play(position(OPEN, ["", "a1n"]), "d4-d6/c3n")
    svg = board(state, interactive=False)
    assert f'stroke="{seat_colour(1)}" stroke-width="6" class="wall seat-1" data-wall="a1n"' in svg
    assert f'stroke="{seat_colour(0)}" stroke-width="6" class="wall seat-0" data-wall="c3n"' in svg
    assert 'class="last-from"' in svg and 'class="last-to"' in svg and 'class="last-wall-halo"' in svg


def test_owned_regions_are_tinted_in_the_owners_colour() -> None:
    state = position(["a1 d4 e4 c7", "g1 g2 g3 f1"], ["a1n a1e"])
    root = ET.fromstring(board(state, interactive=True))
    fills = {el.get("data-target"): el.get("fill") for el in root.iter() if el.get("data-target")}
    assert fills["sq-a1"] != fills["sq-d4"]
    assert len({fills[f"sq-{sq}"] for sq in SQUARES if sq != "a1"}) == 1


def test_empty_owned_squares_show_their_owners_shape_not_only_a_tint() -> None:
    # Walls close a1 and a2 off, with seat 0's token on a1; the rest of the board is shared.
    state = position(["a1 d4 e4 c7", "g1 g2 g3 f1"], ["a2n a1e a2e"])
    root = ET.fromstring(board(state, interactive=False))
    marks = [el for el in root.iter() if (el.get("class") or "").startswith("territory-mark ")]
    assert [(el.tag.split("}")[1], el.get("data-seat"), el.get("fill")) for el in marks] == [
        ("circle", "0", seat_colour(0))
    ]
    # The mark sits on a2, the one empty square of the region (a1 holds the token itself).
    assert marks[0].get("cx") == "56" and marks[0].get("cy") == "336"


def test_svg_is_deterministic() -> None:
    state, _ = play(position(OPEN, ["a1n"]), "d4-d6/c3n")
    assert board(state, interactive=True) == board(copy.deepcopy(state), interactive=True)


# --- purity ------------------------------------------------------------------------------------------
def test_the_engine_imports_no_django_drf_or_celery() -> None:
    folder = Path(rules.__file__).parent
    for path in folder.glob("*.py"):
        source = path.read_text()
        assert not re.search(r"^\s*(from|import)\s+(django|rest_framework|celery)\b", source, re.M), path


def test_apply_accepts_exactly_the_moves_legal_moves_lists() -> None:
    for rules_ in ("seed", "devils_plan"):
        rng = random.Random(rules_)
        state = fresh(2, rules=rules_)
        for _ in range(24):  # placement and a good part of the game
            (seat,) = ENGINE.actors(state)
            state, _ = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_moves(state, seat)))
        seat = state["to_move"]
        legal = {(m["from"], m["to"], m["wall"]) for m in ENGINE.legal_moves(state, seat)}
        assert legal
        sources = sorted(state["tokens"])  # the opponent's tokens too: those must all be refused
        for src, dest, wall in itertools.product(sources, SQUARES, EDGES):
            try:
                ENGINE.apply(state, seat, {"from": src, "to": dest, "wall": wall})
                accepted = True
            except IllegalMove:
                accepted = False
            assert accepted == ((src, dest, wall) in legal), (src, dest, wall)


# --- random playouts ---------------------------------------------------------------------------------
def check_apply_matches_legal_moves(
    state: dict[str, Any], seat: int, legal: list[dict], rng: random.Random
) -> None:
    """apply must accept exactly the moves legal_moves lists: try a few random near-misses."""
    legal_keys = {tuple(sorted(m.items())) for m in legal}
    if state["phase"] == "placement":
        candidates = [{"place": rng.choice(SQUARES)} for _ in range(3)]
    else:
        mine = [sq for sq, s in state["tokens"].items() if s == seat]
        candidates = []
        for _ in range(6):
            src = rng.choice(mine)
            dest = rng.choice([d for d, _, _ in rules.ROUTES[src]])
            candidates.append({"from": src, "to": dest, "wall": rng.choice(EDGES)})
        candidates.append({"from": rng.choice(SQUARES), "to": rng.choice(SQUARES), "wall": rng.choice(EDGES)})
    for move in candidates:
        expected = tuple(sorted(move.items())) in legal_keys
        try:
            ENGINE.apply(state, seat, move)
            accepted = True
        except IllegalMove:
            accepted = False
        assert accepted == expected, (move, expected)


@pytest.mark.parametrize(
    ("seats", "rules_", "placement"),
    list(itertools.product([2, 3, 4], ["seed", "devils_plan"], ["snake", "round_robin"])),
)
def test_random_playouts_end_with_a_score_per_seat(seats: int, rules_: str, placement: str) -> None:
    for game in range(5):
        rng = random.Random(f"{seats}-{rules_}-{placement}-{game}")
        state = fresh(seats, rules=rules_, placement=placement)
        steps = 0
        while ENGINE.outcome(state) is None:
            (seat,) = ENGINE.actors(state)
            legal = ENGINE.legal_moves(state, seat)
            assert legal, "the seat to move always has a legal move"
            for other in set(range(seats)) - {seat}:
                assert ENGINE.legal_moves(state, other) == []
            if steps % 4 == 0:
                check_apply_matches_legal_moves(state, seat, legal, rng)
                assert json.loads(json.dumps(state)) == state
            move = rng.choice(legal)
            assert ENGINE.parse_move(ENGINE.format_move(move)) == move
            if game == 0 and rng.random() < 0.1 and seats > 2:
                state, _ = ENGINE.eliminate(
                    state, rng.choice([s for s in range(seats) if s != seat and s not in state["eliminated"]])
                )
                continue
            state, events = ENGINE.apply(state, seat, move)
            assert events[0].kind == "move" and events[0].text == ENGINE.format_move(move)
            steps += 1
            assert steps < 200
        result = ENGINE.outcome(state)
        assert isinstance(result, list) and len(result) == seats
        assert all(isinstance(x, float) for x in result) and sum(result) <= 49
        assert ENGINE.actors(state) == frozenset() and state["to_move"] is None
        assert result == [float(x) for x in ENGINE.view(state, None)["scores"]]


def test_a_timed_out_placement_puts_the_token_on_an_empty_square():
    engine = WallGo()
    state = engine.new_state(seats=2, options=engine.resolve_options({}), rng=random.Random(1))
    state, _ = engine.apply(state, 0, {"place": "a1"})
    new, events = engine.skip(state, 1, random.Random(2))
    placed = [sq for sq, seat in new["tokens"].items() if seat == 1]
    assert len(placed) == 1 and placed[0] != "a1"
    assert events[0].kind == "skip" and "out of time" in events[0].text
    assert new["to_move"] == 1  # snake order: seat 1 places twice


def test_a_timed_out_turn_passes_to_the_next_player_without_a_wall():
    engine = WallGo()
    rng = random.Random(3)
    state = engine.new_state(seats=2, options=engine.resolve_options({}), rng=rng)
    while state["phase"] == "placement":
        (actor,) = engine.actors(state)
        state, _ = engine.apply(state, actor, rng.choice(engine.legal_moves(state, actor)))
    (actor,) = engine.actors(state)
    new, events = engine.skip(state, actor, rng)
    assert engine.actors(new) == frozenset({1 - actor})
    assert new["walls"] == state["walls"] and new["tokens"] == state["tokens"]
    assert new["walls_left"] == state["walls_left"]
    assert "the turn passes" in events[0].text


def test_only_the_seat_to_move_can_be_skipped():
    engine = WallGo()
    state = engine.new_state(seats=2, options=engine.resolve_options({}), rng=random.Random(1))
    with pytest.raises(IllegalMove):
        engine.skip(state, 1, random.Random(1))


# --- the search bots' evaluation hook (not a rule) ----------------------------------------------------------
def mirrored(walls_left: int | None = None) -> dict[str, Any]:
    """Each seat has shut one token into a corner square; the rest of the board mirrors left to right."""
    state = position(["a1 b4 c5 c2", "g1 f4 e5 e2"], ["a1n a1e", "g1n f1e"])
    if walls_left is not None:
        state["walls_left"] = [walls_left, walls_left]
    return state


def test_the_evaluation_counts_a_closed_region_whole_and_shares_the_open_one_by_distance():
    # Corner squares are scored (1 each). Of the open region's 47 squares, the d-file is as near to one
    # seat as to the other and counts for nobody; each seat is nearest to 20 of the other 40, worth half
    # a square each while 36 of the 40 walls are left, shrinking as they run out.
    assert ENGINE.evaluate(mirrored()) == pytest.approx([1 + 20 * 0.5 * 36 / 40] * 2)


def test_the_open_region_is_worth_less_and_less_as_the_walls_run_out():
    assert ENGINE.evaluate(mirrored(walls_left=5)) == pytest.approx([1 + 20 * 0.5 * 10 / 40] * 2)
    assert ENGINE.evaluate(mirrored(walls_left=0)) == [1.0, 1.0]


def test_the_evaluation_is_the_outcome_once_the_game_is_over_and_changes_nothing():
    rng = random.Random(11)
    state = fresh()
    while not ENGINE.is_over(state):
        before = copy.deepcopy(state)
        ENGINE.evaluate(state)
        assert state == before
        seat = state["to_move"]
        state, _ = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_moves(state, seat)))
    assert ENGINE.evaluate(state) == ENGINE.outcome(state)
