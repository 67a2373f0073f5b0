"""The Wall: the map, setup, turns, movement, terrain, combat, notation and views.

Pure: no database. ``position`` starts the engine's own ``new_state`` and then replaces the units with the
ones a scenario needs, so every position has the engine's state format; dice come from ``Dice``, which
hands out the rolls a test names. The special moves and the victory paths are in
``test_thewall_specials.py``.
"""

from __future__ import annotations

import json
import random
import re
import xml.etree.ElementTree as ET
from contextlib import AbstractContextManager
from typing import Any

import pytest

from games.engines.base import Event, IllegalMove
from games.engines.thewall import board
from games.engines.thewall.rules import TheWall, _new_unit, defence_of
from games.engines.thewall.units import KINDS, LEADERS

ENGINE = TheWall()


# --- helpers -------------------------------------------------------------------------------------------
class Dice(random.Random):
    """A random source that rolls the dice it is given, in order, and refuses to roll any more."""

    def __init__(self, *rolls: int) -> None:
        super().__init__(0)
        self.rolls = list(rolls)

    def randint(self, a: int, b: int) -> int:
        assert self.rolls, "the engine rolled more dice than the test expected"
        return self.rolls.pop(0)


def position(
    *pieces: tuple[Any, ...],
    leader: str = "jon",
    seats: int = 2,
    round_: int = 3,
    **fields: Any,
) -> dict[str, Any]:
    """A position in ``leader``'s turn with only ``pieces``: (kind, hex) or (kind, hex, {unit fields}).
    No wandering group is left in the supply unless ``supply`` says so."""
    state = ENGINE.new_state(seats=seats, options={}, rng=random.Random(0))
    state["units"] = []
    state["next_id"] = 1
    state["counters"] = {}
    state["supply"] = 0
    for piece in pieces:
        kind, hex_, *rest = piece
        extra = dict(rest[0]) if rest else {}
        lead = extra.pop("leader", "default")
        unit = _new_unit(state, kind, hex_, leader=None if lead == "default" else lead)
        unit.update(extra)
    index = LEADERS.index(leader)
    state["leader"] = index
    state["round"] = round_
    state["turn"] = (round_ - 1) * len(LEADERS) + index + 1
    state.update(fields)
    assert json.loads(json.dumps(state)) == state
    return state


def actor(state: dict[str, Any]) -> int:
    (seat,) = ENGINE.actors(state)
    return seat


def act(state: dict[str, Any], text: str) -> tuple[dict[str, Any], list[Event]]:
    return ENGINE.apply(state, actor(state), ENGINE.parse_move(text))


def roll(state: dict[str, Any], *dice: int) -> tuple[dict[str, Any], list[Event]]:
    rng = Dice(*dice)
    state, events = ENGINE.resolve_chance(state, rng)
    assert rng.rolls == [], f"dice left over: {rng.rolls}"
    return state, events


def play(state: dict[str, Any], text: str, *dice: int) -> tuple[dict[str, Any], list[Event]]:
    """A move, then its chance step with exactly ``dice`` when it needs one."""
    state, events = act(state, text)
    if dice:
        assert ENGINE.chance_pending(state)
        state, more = roll(state, *dice)
        events += more
    else:
        assert not ENGINE.chance_pending(state) or state["pending"]["kind"] == "wander"
    return state, events


def texts(events: list[Event]) -> str:
    return "\n".join(e.text for e in events)


def moves(state: dict[str, Any]) -> list[str]:
    return [ENGINE.format_move(m) for m in ENGINE.legal_moves(state, actor(state))]


def moves_of(state: dict[str, Any], hex_: str) -> list[str]:
    return [m for m in moves(state) if m.startswith(hex_)]


def unit_on(state: dict[str, Any], hex_: str) -> dict[str, Any]:
    found = [u for u in state["units"] if u["hex"] == hex_]
    assert found, f"nobody on {hex_}"
    return found[0]


def named(state: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((u for u in state["units"] if u["name"] == name), None)


def raises(reason: str) -> AbstractContextManager[Any]:
    return pytest.raises(IllegalMove, match=re.escape(reason))


# --- the map -------------------------------------------------------------------------------------------
def test_the_engine_describes_the_game() -> None:
    assert (ENGINE.slug, ENGINE.title, ENGINE.min_players, ENGINE.max_players) == (
        "thewall",
        "The Wall",
        2,
        4,
    )
    assert {k: (o.default, list(o.choices)) for k, o in ENGINE.options.items()} == {
        "rounds": ("20", ["20", "12"])
    }
    for text in ("1210-1311", "1210-1211x1311", "0909 shoot 0712", "end"):
        ENGINE.parse_move(text)


def test_hexes_are_numbered_column_then_row_and_1110_is_the_horn_in_the_heart_of_castle_black() -> None:
    assert len(board.HEXES) == 21 * 16
    assert board.HEXES[0] == "0101" and board.HEXES[-1] == "2116"
    assert board.HORN == "1110"
    assert board.TERRAIN["1110"] == board.CASTLE
    assert board.CASTLE_OF["1110"] == "Castle Black"
    assert board.TERRAIN["1109"] == board.KEEP  # the keep of Castle Black, the door in the Wall
    assert set(board.NEIGHBOURS["1109"]) & {"1110"}


def test_neighbours_and_distances_agree_and_even_columns_sit_lower() -> None:
    assert set(board.NEIGHBOURS["1110"]) == {"1109", "1111", "1009", "1010", "1209", "1210"}
    assert set(board.NEIGHBOURS["1010"]) == {"1009", "1011", "0910", "0911", "1110", "1111"}
    for h in board.HEXES:
        for n in board.NEIGHBOURS[h]:
            assert board.distance(h, n) == 1 and h in board.NEIGHBOURS[n]
    assert board.distance("0101", "2101") == 20


def test_the_wall_runs_right_across_the_map_with_three_castles_and_their_keeps() -> None:
    row = [board.hex_name(c, 9) for c in range(1, 22)]
    assert all(board.TERRAIN[h] in (board.WALL, board.KEEP) for h in row)
    assert sorted(board.KEEPS) == ["0309", "1109", "1909"]
    assert [c["name"] for c in board.CASTLES] == ["Shadow Tower", "Castle Black", "Eastwatch-by-the-Sea"]
    for castle in board.CASTLES:
        heart = castle["keep"][:2] + "10"
        assert heart in castle["hexes"] and heart in board.NEIGHBOURS[castle["keep"]]
    # No ground step crosses the Wall row: the only ways through are the keeps (and the cranes up top).
    north = {h for h in board.HEXES if int(h[2:]) < 9}
    south = {h for h in board.HEXES if int(h[2:]) > 9}
    for h in north:
        assert not set(board.NEIGHBOURS[h]) & south


def test_cranes_stand_beside_each_castle_and_four_catapults_sit_on_the_wall() -> None:
    assert len(board.CRANES) == 6
    for crane in board.CRANES:
        assert any(board.TERRAIN[n] == board.WALL for n in board.NEIGHBOURS[crane])
    for castle in board.CASTLES:
        near = [c for c in board.CRANES if board.distance(c, castle["keep"]) <= 2]
        assert len(near) == 2, castle["name"]
        assert {int(c[2:]) < 9 for c in near} == {True, False}, "one crane on each side of the Wall"
    assert len(board.CATAPULTS) == 4
    assert all(board.TERRAIN[h] == board.WALL for h in board.CATAPULTS)


def test_six_numbered_spawn_hexes_end_in_the_die_numbers_and_the_others_spawn_in_the_far_north() -> None:
    assert [int(h[-1]) for h in board.WANDER_SPAWNS] == [1, 2, 3, 4, 5, 6]
    assert all(int(h[2:]) < 9 and board.TERRAIN[h] == board.FIELD for h in board.WANDER_SPAWNS)
    assert len(board.OTHER_SPAWNS) == 3
    assert all(int(h[2:]) <= 2 and board.TERRAIN[h] == board.SPAWN for h in board.OTHER_SPAWNS)


def test_the_victory_zone_is_the_southern_edge_and_forest_and_water_lie_on_both_sides() -> None:
    assert {h for h in board.HEXES if int(h[2:]) >= 15} == board.ZONE
    for terrain in (board.FOREST, board.WATER):
        rows = {int(h[2:]) for h in board.HEXES if board.TERRAIN[h] == terrain}
        assert min(rows) < 9 < max(rows)


# --- setup ---------------------------------------------------------------------------------------------
def test_a_new_game_puts_every_unit_of_the_seed_on_the_map_with_its_stat_line() -> None:
    state = ENGINE.new_state(seats=2, options={}, rng=random.Random(0))
    kinds = [u["kind"] for u in state["units"]]
    for kind in (
        "jon",
        "sam",
        "ranger",
        "archer",
        "brother",
        "mance",
        "wildling",
        "great_other",
        "white_walker",
        "waymar",
        "wight_watch",
        "wight_wildling",
    ):
        assert kind in kinds
    jon = named(state, "Jon Snow")
    assert jon is not None
    assert (jon["att"], jon["def"], jon["mov"], KINDS["jon"].rng, jon["life"]) == (4, 4, 3, 3, 4)
    assert (KINDS["great_other"].att, KINDS["great_other"].dfn, KINDS["great_other"].mov) == (5, 4, 2)
    assert (KINDS["wight_watch"].att, KINDS["wight_watch"].dfn, KINDS["wight_watch"].mov) == (3, 2, 2)
    assert (KINDS["untrained"].att, KINDS["untrained"].dfn, KINDS["untrained"].life) == (1, 1, 3)
    assert sum(1 for k in kinds if k in ("great_other", "white_walker")) == 3
    assert state["supply"] == 6
    for unit in state["units"]:
        if KINDS[unit["kind"]].category == board.OTHER:
            assert int(unit["hex"][2:]) < 9, "true Others start beyond the Wall"


@pytest.mark.parametrize(
    ("seats", "control"),
    [
        (2, {"jon": 0, "great": 1, "mance": 0, "waymar": 1}),
        (3, {"jon": 0, "great": 1, "mance": 2, "waymar": 1}),
        (4, {"jon": 0, "great": 1, "mance": 2, "waymar": 3}),
    ],
)
def test_two_players_take_a_side_each_and_four_a_leader_each(seats: int, control: dict[str, int]) -> None:
    state = ENGINE.new_state(seats=seats, options={}, rng=random.Random(0))
    assert state["control"] == control
    assert ENGINE.actors(state) == {0}  # Jon Snow opens


def test_leaders_take_turns_alternating_sides() -> None:
    assert LEADERS == ("jon", "great", "mance", "waymar")
    state = ENGINE.new_state(seats=4, options={}, rng=random.Random(0))
    order = []
    for _ in range(4):
        order.append((state["round"], LEADERS[state["leader"]], actor(state)))
        state, _ = act(state, "end")
        while ENGINE.chance_pending(state):
            state, _ = ENGINE.resolve_chance(state, random.Random(2))
    assert order == [(1, "jon", 0), (1, "great", 1), (1, "mance", 2), (1, "waymar", 3)]
    assert (state["round"], LEADERS[state["leader"]]) == (2, "jon")


# --- turns ---------------------------------------------------------------------------------------------
def five_brothers() -> dict[str, Any]:
    return position(
        ("ranger", "1611"),
        ("ranger", "1711"),
        ("ranger", "1811"),
        ("archer", "0611"),
        ("archer", "0811"),
        ("white_walker", "0303"),
    )


def test_a_leader_turn_is_four_unit_turns_then_it_passes() -> None:
    state = five_brothers()
    for text in ("1611-1612", "1711-1712", "1811-1812", "0611-0711"):
        assert LEADERS[state["leader"]] == "jon"
        state, events = act(state, text)
    assert LEADERS[state["leader"]] == "great"
    assert "Jon Snow's turn ends." in texts(events)


def test_each_unit_acts_at_most_once_a_turn() -> None:
    state = five_brothers()
    state, _ = act(state, "1611-1612")
    assert not moves_of(state, "1612")
    with raises("Ranger 1 has already been used this turn."):
        act(state, "1612-1613")


def test_end_lets_a_leader_stop_early() -> None:
    state = five_brothers()
    state, _ = act(state, "1611-1612")
    state, events = act(state, "end")
    assert "Jon Snow ends the turn early." in texts(events)
    assert LEADERS[state["leader"]] == "great"


def test_a_seat_only_moves_for_its_own_leaders() -> None:
    state = five_brothers()
    with raises("It is not your turn."):
        ENGINE.apply(state, 1, {"end": True})
    with raises("Jon Snow has no unit on 0303."):
        act(state, "0303 defend")
    assert ENGINE.legal_moves(state, 1) == []


def test_a_short_game_ends_after_twelve_rounds() -> None:
    state = ENGINE.new_state(seats=2, options={"rounds": "12"}, rng=random.Random(0))
    state.update(leader=3, round=12, turn=48)
    state, events = act(state, "end")
    assert "the Wall has held for 12 rounds" in texts(events)
    assert ENGINE.view(state, None)["rounds"] == 12


def test_the_night_watch_holds_when_the_others_have_not_won_by_the_last_round() -> None:
    state = position(("ranger", "1212"), ("white_walker", "0303"), leader="waymar", round_=19)
    state, _ = act(state, "end")
    assert state["phase"] == "play" and state["round"] == 20
    state = position(("ranger", "1212"), ("white_walker", "0303"), leader="waymar", round_=20)
    state, events = act(state, "end")
    assert state["phase"] == "over" and state["winner"] == "watch"
    assert "the Wall has held for 20 rounds" in texts(events)
    assert ENGINE.outcome(state) == [1.0, 0.0]
    assert ENGINE.actors(state) == frozenset() and ENGINE.legal_moves(state, 0) == []


def test_skipping_a_seat_ends_its_leader_turn() -> None:
    state = five_brothers()
    state, events = ENGINE.skip(state, 0, random.Random(0))
    assert "Jon Snow is out of time." in texts(events)
    assert LEADERS[state["leader"]] == "great"
    with raises("It is not that seat's turn."):
        ENGINE.skip(state, 0, random.Random(0))


def test_a_leader_whose_units_cannot_act_is_passed_by() -> None:
    state = position(("ranger", "1212"), ("white_walker", "0303", {"disabled": 1}), ("waymar", "0505"))
    state, events = act(state, "end")
    assert "the Great Other's turn" in texts(events) and "The Great Other's turn ends." in texts(events)
    assert LEADERS[state["leader"]] == "waymar"  # Mance has no unit either
    assert "disabled" not in unit_on(state, "0303"), "the White Walker sat out its turn and recovers"


# --- movement and terrain -----------------------------------------------------------------------------------
def test_forest_costs_two_movement_points_and_water_stops_humans() -> None:
    state = position(("archer", "0511"), ("white_walker", "0303"))
    targets = [m.split("-")[1] for m in moves_of(state, "0511") if re.fullmatch(r"0511-\d{4}", m)]
    assert board.TERRAIN["0512"] == board.FOREST
    assert "0512" in targets and "0513" not in targets  # 2 points into the forest, none left
    state = position(("ranger", "1012"), ("white_walker", "0303"))
    targets = [m.split("-")[1] for m in moves_of(state, "1012") if re.fullmatch(r"1012-\d{4}", m)]
    assert "1113" not in targets and board.TERRAIN["1113"] == board.WATER


def test_true_others_cross_water_at_one_extra_point() -> None:
    state = position(("white_walker", "0702"), ("ranger", "1212"), leader="great")
    targets = [m.split("-")[1] for m in moves_of(state, "0702") if re.fullmatch(r"0702-\d{4}", m)]
    assert "0802" in targets  # water, two points
    state = position(("ranger", "0702"), ("white_walker", "0303"))
    assert "0702-0802" not in moves(state)


def test_the_top_of_the_wall_is_reached_only_by_crane_at_one_extra_point() -> None:
    # An archer in Castle Black: the crane 0910 is one step, the Wall behind it two more.
    state = position(("archer", "1010"), ("white_walker", "0303"))
    targets = [m.split("-")[1] for m in moves_of(state, "1010") if re.fullmatch(r"1010-\d{4}", m)]
    assert "0910" in targets and "1009" not in targets
    state = position(("ranger", "0910"), ("white_walker", "0303"))
    targets = [m.split("-")[1] for m in moves_of(state, "0910") if re.fullmatch(r"0910-\d{4}", m)]
    assert {"0909", "1009", "0809", "0709"} <= set(targets)  # 2 points up, 1 more along the Wall
    assert board.step_cost("human", "1010", "1009", True) is None, "no climbing the Wall from a castle"
    assert board.step_cost("human", "0910", "1009", True) == (2, False)


def test_from_the_wall_a_unit_comes_down_only_by_a_crane() -> None:
    state = position(("brother", "1009"), ("white_walker", "0303"))
    targets = {m.split("-")[1] for m in moves_of(state, "1009") if re.fullmatch(r"1009-\d{4}", m)}
    assert targets == {"0910", "0909"}  # the crane, or along the Wall; never a plain drop


def test_the_walkway_runs_over_each_keep_for_two_points() -> None:
    state = position(("ranger", "1009"), ("white_walker", "0303"))
    assert "1009-1209" in moves(state)  # over Castle Black's gate
    assert "1009-1208" in moves(state)  # and down the crane on the far side


def test_humans_pass_the_keeps_but_true_others_never_pass_the_wall() -> None:
    state = position(("ranger", "1108"), ("white_walker", "0303"))
    assert "1108-1110" in moves(state)
    state = position(("white_walker", "1108"), ("ranger", "1212"), leader="great")
    targets = {m.split("-")[1] for m in moves_of(state, "1108") if re.fullmatch(r"1108-\d{4}", m)}
    assert not targets & {"1109", "1009", "1209", "1110"}


def test_wights_cannot_walk_into_a_keep_from_the_north_unless_a_wight_holds_it() -> None:
    state = position(("wight_wildling", "1108"), ("ranger", "1212"), leader="waymar")
    assert "1108-1109" not in moves(state)
    state = position(
        ("wight_wildling", "1108"),
        ("wight_watch", "1109"),
        ("ranger", "1212"),
        ("white_walker", "0303"),
        leader="waymar",
    )
    assert "1108-1110" in moves(state), "through the keep its fellow holds, into Castle Black"


def test_units_pass_friends_but_not_foes_and_never_stop_on_them() -> None:
    # The top of the Wall is a corridor one hex wide.
    state = position(("ranger", "0709"), ("archer", "0809"), ("white_walker", "0303"))
    assert "0709-0909" in moves(state) and "0709-0809" not in moves(state)
    state = position(("ranger", "0709"), ("wight_watch", "0809"), ("white_walker", "0303"))
    assert "0709-0909" not in moves(state)


def test_terrain_adds_defence_as_the_seed_lists() -> None:
    state = position(
        ("ranger", "1010"),
        ("ranger", "1009"),
        ("ranger", "0512"),
        ("ranger", "1212"),
        ("white_walker", "0301"),
        ("wight_watch", "1101"),
        ("wight_watch", "1301"),
    )
    up = state["wall_up"]
    assert defence_of(unit_on(state, "1010"), up) == 3  # castle
    assert defence_of(unit_on(state, "1009"), up) == 3  # the Wall
    assert defence_of(unit_on(state, "0512"), up) == 3  # forest
    assert defence_of(unit_on(state, "1212"), up) == 2  # field
    assert defence_of(unit_on(state, "0301"), up) == 5  # an Other on its spawn point
    assert defence_of(unit_on(state, "1101"), up) == 3  # a Wight on an Other spawn point
    assert defence_of(unit_on(state, "1301"), up) == 2


# --- combat --------------------------------------------------------------------------------------------
def test_an_attacker_keeps_one_movement_point_to_enter_the_defenders_hex() -> None:
    state = position(("ranger", "1612"), ("wight_watch", "1615"), ("white_walker", "0303"))
    listed = moves(state)
    assert "1612-1614x1615" in listed  # two points of three spent, one left
    assert "1612-1613x1615" not in listed  # not adjacent
    state = position(("ranger", "1612"), ("wight_watch", "1616"), ("white_walker", "0303"))
    assert not [m for m in moves(state) if "x1616" in m], "three steps away: no point left to strike"


def test_an_attack_is_settled_by_dice_in_a_chance_step_shown_in_the_log() -> None:
    state = position(
        ("ranger", "1612"), ("wight_watch", "1613"), ("white_walker", "0303"), ("archer", "0612")
    )
    state, events = act(state, "1612x1613")
    assert ENGINE.chance_pending(state) and ENGINE.actors(state) == frozenset()
    assert ENGINE.legal_moves(state, 0) == []
    state, events = roll(state, 4, 2)
    assert "Ranger 1 attacks Wight (Night's Watch) 1: 4 + 3 = 7 against 2 + 2 = 4: hit." in texts(events)
    assert [e.data["dice"] for e in events if e.data.get("dice")] == [[4, 2]]
    assert state["last"]["text"].startswith("Ranger 1 attacks")


def test_a_tie_goes_to_the_defender() -> None:
    state = position(
        ("ranger", "1612"), ("wight_watch", "1613"), ("white_walker", "0303"), ("archer", "0612")
    )
    state, events = play(state, "1612x1613", 1, 2)  # 1 + 3 against 2 + 2
    assert "held" in texts(events)
    assert unit_on(state, "1613")["life"] == 3


def test_a_wight_loses_one_of_every_stat_with_each_life_point() -> None:
    state = position(
        ("ranger", "1612"), ("wight_watch", "1613"), ("white_walker", "0303"), ("archer", "0612")
    )
    state, _ = play(state, "1612x1613", 6, 1)
    wight = unit_on(state, "1613")
    assert (wight["life"], wight["att"], wight["def"], wight["mov"]) == (2, 2, 1, 1)


def test_a_kill_moves_the_attacker_into_the_defenders_hex() -> None:
    state = position(
        ("ranger", "1612"),
        ("wight_watch", "1614", {"life": 1}),
        ("white_walker", "0303"),
        ("archer", "0612"),
    )
    state, events = play(state, "1612-1613x1614", 6, 1)
    assert "Wight (Night's Watch) 1 is slain on 1614." in texts(events)
    assert unit_on(state, "1614")["name"] == "Ranger 1"


def test_defending_adds_one_and_a_five_brings_a_counterattack() -> None:
    state = position(
        ("wight_watch", "1613"),
        ("ranger", "1612", {"defend": True}),
        ("waymar", "0505"),
        ("archer", "0612"),
        ("great_other", "0101"),
        leader="waymar",
    )
    assert defence_of(unit_on(state, "1612"), True) == 3
    # 3 + 3 = 6 against 3 + 3 = 6: held; counter roll 5: attack 3 + 4 against the Wight's 2 + 1.
    state, events = play(state, "1613x1612", 3, 3, 5, 4, 1)
    assert "a counterattack." in texts(events)
    assert unit_on(state, "1613")["life"] == 2
    assert unit_on(state, "1612")["name"] == "Ranger 1", "a counterattack does not move"


def test_a_six_counterattacks_with_the_raised_defence() -> None:
    state = position(
        ("wight_watch", "1613"),
        ("ranger", "1612", {"defend": True}),
        ("waymar", "0505"),
        ("archer", "0612"),
        ("great_other", "0101"),
        leader="waymar",
    )
    state, events = play(state, "1613x1612", 1, 1, 6, 1, 4)  # defence 3 + 1 = 4 against 4 + 2 = 6: held
    assert "with its raised defence" in texts(events)
    assert "Ranger 1 counterattacks Wight (Night's Watch) 1: 1 + 3 = 4 against 4 + 2 = 6: held." in texts(
        events
    )


def test_a_defender_rolling_one_to_four_does_not_counterattack_and_defence_lasts_until_its_next_turn() -> (
    None
):
    state = position(
        ("wight_watch", "1613"),
        ("ranger", "1612", {"defend": True}),
        ("waymar", "0505"),
        ("archer", "0612"),
        ("great_other", "0101"),
        leader="waymar",
    )
    state, events = play(state, "1613x1612", 1, 1, 4)
    assert "a counterattack: none" in texts(events)
    state, _ = act(state, "end")
    assert LEADERS[state["leader"]] == "jon"
    assert "defend" not in unit_on(state, "1612")


def test_without_defending_there_is_no_counterattack() -> None:
    state = position(
        ("wight_watch", "1613"),
        ("ranger", "1612"),
        ("waymar", "0505"),
        ("great_other", "0101"),
        leader="waymar",
    )
    state, events = play(state, "1613x1612", 1, 6)
    assert "counter" not in texts(events)


def test_only_jon_sam_and_mance_can_kill_a_true_other_the_rest_disable_it() -> None:
    state = position(
        ("ranger", "1612"),
        ("white_walker", "1613", {"life": 1}),
        ("jon", "1812"),
        ("great_other", "0303"),
    )
    state, events = play(state, "1612x1613", 6, 1)
    assert "White Walker 1 is disabled for its next turn." in texts(events)
    assert unit_on(state, "1613")["life"] == 1
    state, events = play(state, "1812-1713x1613", 6, 1)
    assert "White Walker 1 is slain on 1613." in texts(events)
    state = position(("mance", "1612"), ("white_walker", "1613"), ("great_other", "0303"), leader="mance")
    state, _ = play(state, "1612x1613", 6, 1)
    assert unit_on(state, "1613")["life"] == 3


def test_a_disabled_unit_sits_out_its_leaders_next_turn_then_recovers() -> None:
    state = position(
        ("ranger", "1612"),
        ("white_walker", "1613"),
        ("great_other", "0303"),
        ("archer", "0612"),
    )
    state, _ = play(state, "1612x1613", 6, 1)
    state, _ = act(state, "end")
    assert LEADERS[state["leader"]] == "great"
    assert not moves_of(state, "1613")
    with raises("White Walker 1 is disabled this turn."):
        act(state, "1613 defend")
    state, _ = act(state, "end")
    assert "disabled" not in unit_on(state, "1613")


def test_archery_is_shot_from_atop_the_wall_with_one_more_range() -> None:
    state = position(
        ("archer", "1009"), ("wight_watch", "1005"), ("wight_watch", "1004"), ("great_other", "0303")
    )
    listed = moves(state)
    assert "1009 shoot 1005" in listed  # range 3 + 1
    assert "1009 shoot 1004" not in listed
    state = position(("archer", "1012"), ("wight_watch", "1011"), ("great_other", "0303"))
    assert not [m for m in moves(state) if "shoot" in m], "no bows off the Wall"


def test_arrows_disable_a_true_other_and_never_kill_it() -> None:
    state = position(
        ("mance", "1009"), ("great_other", "1007", {"life": 1}), ("white_walker", "0303"), leader="mance"
    )
    state, events = play(state, "1009 shoot 1007", 6, 1)
    assert "Great Other is disabled" in texts(events)
    assert unit_on(state, "1007")["life"] == 1


def test_arrows_wound_wights() -> None:
    state = position(
        ("archer", "1009"), ("wight_wildling", "1006"), ("great_other", "0303"), ("ranger", "1212")
    )
    state, _ = play(state, "1009 shoot 1006", 6, 1)
    assert unit_on(state, "1006")["life"] == 2


# --- notation, views, the site's needs -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("end", {"end": True}),
        ("recruit", {"recruit": True}),
        ("1210-1311", {"unit": "1210", "act": "move", "to": "1311"}),
        ("1210-1312 range", {"unit": "1210", "act": "range", "to": "1312"}),
        ("1210x1311", {"unit": "1210", "act": "attack", "via": "1210", "to": "1311"}),
        ("1210-1211x1311", {"unit": "1210", "act": "attack", "via": "1211", "to": "1311"}),
        ("1210-1211x1311 sneak", {"unit": "1210", "act": "sneak_attack", "via": "1211", "to": "1311"}),
        ("1210x1311 teamup", {"unit": "1210", "act": "teamup", "via": "1210", "to": "1311"}),
        ("1210x1311 combo", {"unit": "1210", "act": "combo", "via": "1210", "to": "1311"}),
        ("0909 shoot 0712", {"unit": "0909", "act": "shoot", "to": "0712"}),
        (
            "0909 catapult 0711 0712 0811",
            {"unit": "0909", "act": "catapult", "area": ["0711", "0712", "0811"]},
        ),
        ("1210 defend", {"unit": "1210", "act": "defend"}),
        ("0310 train ranger", {"unit": "0310", "act": "train", "as": "ranger"}),
        ("0806 scout 0804", {"unit": "0806", "act": "scout", "to": "0804"}),
        ("1108 sneak 1109", {"unit": "1108", "act": "sneak", "to": "1109"}),
        ("0808 scale 0809", {"unit": "0808", "act": "scale", "to": "0809"}),
        ("0405 raise 0406", {"unit": "0405", "act": "raise", "to": "0406"}),
        ("0301 summon", {"unit": "0301", "act": "summon"}),
        ("0403 shriek", {"unit": "0403", "act": "shriek"}),
        ("1110 horn", {"unit": "1110", "act": "horn"}),
    ],
)
def test_the_notation_reads_and_writes_every_move(text: str, move: dict[str, Any]) -> None:
    assert ENGINE.parse_move(text) == move
    assert ENGINE.format_move(move) == text
    assert ENGINE.parse_move(f"  {text.upper()} ") == move


def test_bad_notation_is_refused_with_a_hint() -> None:
    with raises("is not a move"):
        ENGINE.parse_move("fly to 1110")
    with raises("There is no hex 2217 on the map"):
        ENGINE.parse_move("2217-1110")
    with raises("That is not a move of The Wall."):
        ENGINE.format_move({"unit": "1210", "act": "fly"})


def test_click_paths_go_unit_then_hex_then_action() -> None:
    assert ENGINE.click_path(ENGINE.parse_move("1210-1311")) == ["h1210", "h1311"]
    assert ENGINE.click_path(ENGINE.parse_move("1210-1211x1311")) == ["h1210", "h1211", "h1311"]
    assert ENGINE.click_path(ENGINE.parse_move("1210x1311 sneak")) == ["h1210", "h1311", "opt-sneak-attack"]
    assert ENGINE.click_path(ENGINE.parse_move("1210-1312 range")) == ["h1210", "h1312", "opt-range"]
    assert ENGINE.click_path(ENGINE.parse_move("1210 defend")) == ["h1210", "opt-defend"]
    assert ENGINE.click_path(ENGINE.parse_move("0909 catapult 0711 0712 0811")) == [
        "h0909",
        "opt-catapult",
        "h0711",
        "h0712",
        "h0811",
    ]
    assert ENGINE.click_path({"end": True}) == ["end"]


def test_every_legal_move_can_be_clicked_on_the_board_or_its_buttons_beside_it() -> None:
    state = ENGINE.new_state(seats=2, options={}, rng=random.Random(0))
    svg = ENGINE.render_svg(ENGINE.view(state, 0), 0, interactive=True)
    ET.fromstring(svg)
    beside = dict(ENGINE.board_actions(ENGINE.view(state, 0), 0))
    listed = ENGINE.legal_moves(state, 0)
    assert len(listed) > 20
    for move in listed:
        for target in ENGINE.click_path(move):
            assert f'data-target="{target}"' in svg or target in beside, target


def test_the_board_marks_disabled_and_tagged_units_and_shows_the_last_dice() -> None:
    state = position(
        ("ranger", "1612"),
        ("white_walker", "1613", {"disabled": 2}),
        ("wight_watch", "0505", {"tag": True}),
        last={"turn": 1, "text": "Ranger 1 attacks White Walker 1: 6 + 3 = 9 against 1 + 4 = 5: hit."},
    )
    view = ENGINE.view(state, None)
    svg = ENGINE.render_svg(view, None, interactive=False)
    ET.fromstring(svg)
    assert svg.count('class="disabled-mark"') == 1 and svg.count('class="tag-mark"') == 1
    assert "Dice: Ranger 1 attacks White Walker 1" in svg
    assert "data-target" not in svg
    cards = {u["name"]: u for leader in view["leaders"] for u in leader["units"]}
    assert cards["White Walker 1"]["disabled"] and cards["Wight (Night's Watch) 1"]["tagged"]
    assert cards["Ranger 1"]["def"] == 2 and cards["Ranger 1"]["life"] == 3


def test_the_view_is_the_whole_position_there_is_nothing_hidden() -> None:
    state = ENGINE.new_state(seats=4, options={}, rng=random.Random(0))
    assert ENGINE.view(state, 2)["private"] == {}
    assert ENGINE.view(state, 2) == {**ENGINE.view(state, None), "private": {}}
    assert ENGINE.sample_hidden(state, 1, random.Random(3)) == state


def test_a_seat_that_leaves_hands_its_leaders_to_its_partner() -> None:
    state = ENGINE.new_state(seats=4, options={}, rng=random.Random(0))
    state, events = ENGINE.eliminate(state, 0)
    assert state["control"]["jon"] == 2 and ENGINE.actors(state) == {2}
    assert "seat 3 takes over its leaders" in texts(events)
    state, events = ENGINE.eliminate(state, 2)
    assert state["phase"] == "over" and state["winner"] == "others"
    assert ENGINE.outcome(state) == [0.0, 1.0, 0.0, 1.0]


def test_in_two_player_games_a_seat_that_leaves_loses() -> None:
    state = ENGINE.new_state(seats=2, options={}, rng=random.Random(0))
    state, _ = ENGINE.eliminate(state, 1)
    assert ENGINE.outcome(state) == [1.0, 0.0]


def test_the_search_bots_estimate_favours_the_side_that_is_ahead() -> None:
    start = ENGINE.new_state(seats=4, options={}, rng=random.Random(0))
    watch, others, *_ = ENGINE.evaluate(start)
    assert 0.0 < watch < 1.0 and abs(watch + others - 1.0) < 1e-9
    fallen = {**start, "wall_up": False}
    assert ENGINE.evaluate(fallen)[0] < watch
    lost = {**start, "units": [u for u in start["units"] if u["kind"] != "white_walker"]}
    assert ENGINE.evaluate(lost)[0] > watch
