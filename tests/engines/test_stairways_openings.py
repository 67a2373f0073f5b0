"""Walls and Stairways starting layouts give every seat a game: no monster reaches a hero in the first
round, the presets keep their monsters in the den, and the balance hooks the benchmarks read."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games.engines.stairways import board, layouts
from games.engines.stairways.rules import Stairways, exposed_heroes, opening_losses

ENGINE = Stairways()
PRESET_CELLS = [
    (name, pieces, seats) for name in layouts.PRESETS for pieces in layouts.PIECE_SETS for seats in (2, 3, 4)
]
DEN = {"d4", "e4", "d5", "e5"}


def corridor(rats_at: str, *, giant: str | None = None) -> dict[str, Any]:
    """Heroes on d1 and e8 with nothing between them and the rats but open floor."""
    return {
        "name": "test",
        "walls": [],
        "stairways": ["a1", "h8"],
        "heroes": ["d1", "e8"],
        "giant": giant,
        "rats": [{"square": rats_at, "size": 4}, {"square": "h4", "size": 4}],
    }


@pytest.mark.parametrize(("name", "pieces", "seats"), PRESET_CELLS)
@pytest.mark.parametrize("los", ["row", "true"])
def test_no_monster_can_reach_a_hero_of_a_preset_before_every_seat_has_had_a_turn(
    name: str, pieces: str, seats: int, los: str
) -> None:
    assert exposed_heroes(layouts.preset(name, seats, pieces), seats, los=los) == []


@pytest.mark.parametrize(("name", "pieces", "seats"), PRESET_CELLS)
@pytest.mark.parametrize("boards", [2, 3])
def test_no_monster_of_an_annex_board_can_reach_a_hero_in_the_first_round_either(
    name: str, pieces: str, seats: int, boards: int
) -> None:
    assert exposed_heroes(layouts.preset(name, seats, pieces, boards=boards), seats) == []


@pytest.mark.parametrize(("name", "pieces", "seats"), PRESET_CELLS)
def test_every_preset_starts_the_giant_and_both_packs_of_four_shut_in_the_den(
    name: str, pieces: str, seats: int
) -> None:
    layout = layouts.preset(name, seats, pieces)
    walls = board.walls_mask(layout["walls"])
    assert set(board.distances("d4", walls)) == DEN
    assert layout["giant"] in DEN
    assert {r["square"] for r in layout["rats"] if r["size"] == 4} <= DEN
    assert not DEN & set(layout["heroes"])


@pytest.mark.parametrize(("name", "seats"), [(n, s) for n in layouts.PRESETS for s in (2, 3, 4)])
def test_single_rats_start_more_steps_from_every_hero_than_there_are_players(name: str, seats: int) -> None:
    layout = layouts.preset(name, seats, "recommended")
    walls = board.walls_mask(layout["walls"])
    for group in layout["rats"]:
        reach = board.distances(group["square"], walls)
        assert all(reach.get(h, 99) > seats for h in layout["heroes"]), group


def test_rats_two_steps_from_a_hero_reach_it_in_a_two_player_first_round() -> None:
    layout = corridor("d3")
    assert exposed_heroes(layout, 2) == [0]


def test_rats_three_steps_away_only_reach_a_hero_when_a_third_player_also_has_a_turn_first() -> None:
    two = corridor("d4")
    assert exposed_heroes(two, 2) == []
    three = {**two, "stairways": ["a1", "h8", "a8"]}
    assert exposed_heroes(three, 3) == [0]


def test_a_giant_that_sees_a_hero_reaches_it_and_sight_follows_the_match_option() -> None:
    # b3 shares no rank or file with d1 or e8; with no walls, true sight sees both (the giant charges
    # either: each is tried).
    layout = {**corridor("a5"), "giant": "b3"}
    assert exposed_heroes(layout, 2, los="row") == []
    assert exposed_heroes(layout, 2, los="true") == [0, 1]


def test_rats_torn_between_two_equally_near_heroes_stay_so_nobody_is_reached() -> None:
    layout = corridor("b4")
    layout["heroes"] = ["b1", "b7"]
    assert exposed_heroes(layout, 2) == []


def test_the_check_runs_on_a_started_game_of_any_variant_and_leaves_it_untouched() -> None:
    state = ENGINE.new_state(
        seats=2, options={"layout_json": json.dumps(corridor("d3")), "crowded": "yes"}, rng=random.Random(1)
    )
    before = json.dumps(state, sort_keys=True)
    assert opening_losses(state) == [0]
    assert json.dumps(state, sort_keys=True) == before


def test_the_first_position_of_a_risky_custom_layout_says_which_heroes_are_at_risk() -> None:
    state = ENGINE.new_state(
        seats=2, options={"layout_json": json.dumps(corridor("d3"))}, rng=random.Random(0)
    )
    view = ENGINE.view(state, None)
    assert view["opening_risk"] == [1]
    svg = ENGINE.render_svg(view, None, interactive=False)
    assert 'data-squares="d1"' in svg
    assert "Warning: monsters can reach hero 1 (d1) before every player has had a turn." in svg
    moved, _ = ENGINE.apply(state, 0, {"end": True})
    assert "opening_risk" not in ENGINE.view(moved, None)


def test_a_safe_custom_layout_and_the_presets_show_no_warning() -> None:
    safe = ENGINE.new_state(
        seats=2, options={"layout_json": json.dumps(corridor("d5"))}, rng=random.Random(0)
    )
    assert ENGINE.view(safe, None)["opening_risk"] == []
    assert "opening-risk" not in ENGINE.render_svg(ENGINE.view(safe, None), None, interactive=False)
    preset = ENGINE.new_state(seats=4, options={"pieces": "recommended"}, rng=random.Random(0))
    assert "opening_risk" not in ENGINE.view(preset, None)


def test_balance_stats_count_a_game_where_every_score_is_zero() -> None:
    state = ENGINE.new_state(seats=2, options={}, rng=random.Random(0))
    for hero in state["heroes"]:
        hero.update(fate="dead", square=None)
    state["phase"] = "over"
    stats = ENGINE.balance_stats(state)
    assert stats["all_zero"] == 1.0 and stats["heroes_lost"] == 2.0 and stats["heroes_escaped"] == 0.0
    state["heroes"][0].update(fate="escaped", stairway=1)
    assert ENGINE.balance_stats(state)["all_zero"] == 0.0


def test_evaluate_leans_towards_the_seat_whose_stairway_a_hero_sees() -> None:
    layout = corridor("h4")
    layout["rats"] = [{"square": "h5", "size": 4}, {"square": "h4", "size": 4}]
    layout["heroes"] = ["a4", "h7"]
    state = ENGINE.new_state(seats=2, options={"layout_json": json.dumps(layout)}, rng=random.Random(0))
    state["heroes"][1].update(fate="dead", square=None)
    orange, blue = ENGINE.evaluate(state)
    assert orange > blue  # a4 sees a1 down the file and is three steps from it
    state["heroes"][0].update(fate="escaped", square=None, stairway=1)
    state["phase"] = "over"
    assert ENGINE.evaluate(state) == [0.0, 5.0]


def test_evaluate_counts_rats_only_against_the_hero_they_will_walk_to() -> None:
    # Both heroes stand a step from their own stairways; the group on d5 is six steps from each, so it
    # waits (as the rules have it) and threatens nobody, like a dead group; the one on b4 comes for b1.
    layout = {
        "name": "test",
        "walls": [],
        "stairways": ["a1", "h8"],
        "heroes": ["b1", "g8"],
        "giant": None,
        "rats": [{"square": "e4", "size": 4}, {"square": "d5", "size": 4}],
    }
    state = ENGINE.new_state(seats=2, options={"layout_json": json.dumps(layout)}, rng=random.Random(0))
    torn = ENGINE.evaluate(state)
    for group in state["rats"]:
        group["square"] = None
    assert ENGINE.evaluate(state) == torn
    state["rats"][0]["square"] = "b4"
    orange, blue = ENGINE.evaluate(state)
    assert orange < blue
    state["heroes"][0]["swords"] = 4  # enough to beat the group: no danger left
    orange, blue = ENGINE.evaluate(state)
    assert orange > blue
