"""The Great Wall: Black Powder, the base game and setup: scenario tests, one rule each (seeds/greatwall.md).

The Black Powder rules (towers, war machines, clan soldiers, new Hordes, destroyed walls) are in
``test_greatwall_black_powder.py``; the helpers that build small positions live here.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.engines.base import Event, IllegalMove
from games.engines.greatwall import rules
from games.engines.greatwall.cards import (
    ADVISOR_HAND,
    BASE_HORDES,
    CLAN_SPECIAL,
    HORDE_COPIES,
    NEW_HORDES,
    SPECIAL_COUNT,
    YEARS,
)
from games.engines.greatwall.rules import GreatWall

ENGINE = GreatWall()
State = dict[str, Any]


# --- helpers -------------------------------------------------------------------------------------
def started(seats: int = 2, seed: str = "t") -> State:
    """A game past setup (first options everywhere), waiting for the first Summer's Command cards."""
    state = ENGINE.new_state(seats=seats, options={"clans": "fixed"}, rng=random.Random(seed))
    chance = random.Random(0)
    while state["pending"] is None or state["pending"]["kind"] != "command":
        if ENGINE.chance_pending(state):
            state, _ = ENGINE.resolve_chance(state, chance)
        else:
            seat = min(ENGINE.actors(state))
            state, _ = ENGINE.apply(state, seat, ENGINE.legal_moves(state, seat)[0])
    return state


def cleared(seats: int = 2, **res: int) -> State:
    """``started`` with no Horde on the board, empty Towers and Rest Zones, and the given resources."""
    state = started(seats)
    for section in state["sections"]:
        section.update(rows=[None, None, None], firing=[], rest=[], machines=[], level=1)
    state["towers"] = [None] * 4
    for seat in range(seats):
        state["res"][seat] = {"wood": 0, "stone": 0, "gold": 0, "chi": 0, **res}
    return state


def card(state: State, s: int, r: int, kind: str, cover: dict[int, Any] | None = None) -> dict[str, Any]:
    new = rules._new_card(kind)
    for k, mark in (cover or {}).items():
        new["cover"][k - 1] = mark
    state["sections"][s]["rows"][r - 1] = new
    return new


def clan(state: State, seat: int, name: str) -> None:
    """Give ``seat`` the clan ``name`` with its three special soldiers in reserve."""
    state["clans"][seat] = name
    special = CLAN_SPECIAL[name]
    state["supply"][seat][special] = 0
    state["reserve"][seat][special] = SPECIAL_COUNT


def at(state: State, *tasks: dict[str, Any]) -> list[Event]:
    """Put ``tasks`` next on the agenda and run until a decision or chance (a Summer stops it at last)."""
    state["pending"] = None
    state["chance"] = None
    state["agenda"] = [*tasks, {"task": "summer"}]
    events: list[Event] = []
    rules._run(state, events)
    return events


def play(state: State, seat: int, text: str) -> tuple[State, list[Event]]:
    return ENGINE.apply(state, seat, ENGINE.parse_move(text))


def moves(state: State, seat: int) -> list[str]:
    return [ENGINE.format_move(m) for m in ENGINE.legal_moves(state, seat)]


def texts(events: list[Event]) -> str:
    return " | ".join(e.text for e in events)


# --- setup -------------------------------------------------------------------------------------------
def test_setup_builds_a_first_level_wall_in_every_section_and_no_barricades() -> None:
    state = ENGINE.new_state(seats=3, options={}, rng=random.Random(1))
    assert [s["level"] for s in state["sections"]] == [1, 1, 1]
    assert "barricades" not in ENGINE.public_view(state)
    assert state["towers"] == [None, None, None, None]


@pytest.mark.parametrize("seats", [1, 2, 3, 4])
def test_setup_draws_one_horde_card_more_than_there_are_players(seats: int) -> None:
    state = ENGINE.new_state(seats=seats, options={}, rng=random.Random(seats))
    on_board = [c for s in state["sections"] for c in s["rows"] if c is not None]
    assert len(on_board) == seats + 1
    # Front rows first: the first row of every section fills before any second row.
    firsts = [s["rows"][0] is not None for s in state["sections"]]
    assert sum(firsts) == min(3, sum(1 for c in on_board if c["type"] != "trebuchet")) or any(
        c["type"] == "trebuchet" for c in on_board
    )


def test_the_horde_deck_loses_three_base_types_and_gains_the_four_new_ones() -> None:
    state = ENGINE.new_state(seats=2, options={}, rng=random.Random(7))
    aside = state["horde_aside"]
    assert len(aside) == 9 and len(set(aside)) == 3 and set(aside) <= set(BASE_HORDES)
    everything = state["horde_deck"] + [c["type"] for s in state["sections"] for c in s["rows"] if c]
    assert len(everything) == (8 - 3 + 4) * HORDE_COPIES
    for kind in NEW_HORDES:
        assert everything.count(kind) == HORDE_COPIES
    assert not set(aside) & set(everything)


def test_every_player_is_dealt_two_advisors_that_only_that_player_sees() -> None:
    state = ENGINE.new_state(seats=3, options={}, rng=random.Random(3))
    assert [len(h) for h in state["hands"]] == [ADVISOR_HAND] * 3
    public = ENGINE.public_view(state)
    assert public["hand_sizes"] == [2, 2, 2]
    assert "hands" not in public and "advisor_deck" not in public
    assert ENGINE.view(state, 1)["private"]["hand"] == state["hands"][1]
    assert ENGINE.view(state, None)["private"] == {}
    svg = ENGINE.render_svg(ENGINE.view(state, None), None)
    for advisor in set(state["hands"][0]):
        assert f"adv-{advisor}" not in svg


def test_each_player_upgrades_three_different_overseers_to_level_one_at_setup() -> None:
    state = ENGINE.new_state(seats=2, options={}, rng=random.Random(5))
    seat = state["pending"]["seat"]
    assert state["pending"]["kind"] == "overseer"
    state, _ = play(state, seat, "overseer wood")
    assert "overseer wood" not in moves(state, seat)  # level 1 is the setup's limit
    state, _ = play(state, seat, "overseer barracks")
    state, _ = play(state, seat, "overseer chi")
    levels = state["overseers"][seat]
    assert sorted(loc for loc, lvl in levels.items() if lvl == 1) == ["barracks", "chi", "wood"]
    assert state["pending"]["seat"] != seat


def test_the_three_war_machine_types_are_placed_once_each_in_tea_order() -> None:
    state = ENGINE.new_state(seats=3, options={}, rng=random.Random(11))
    chance = random.Random(0)
    placed_by = []
    while state["pending"] is None or state["pending"]["kind"] != "command":
        seat = min(ENGINE.actors(state))
        if state["pending"]["kind"] == "place":
            placed_by.append(seat)
            assert "place ballista A" in moves(state, seat) or "place cannon A" in moves(state, seat)
        state, _ = ENGINE.apply(state, seat, ENGINE.legal_moves(state, seat)[-1])
        assert not ENGINE.chance_pending(state)
    assert placed_by == state["tea"]
    machines = sorted(m for s in state["sections"] for m in s["machines"])
    assert machines == ["ballista", "cannon", "rocket"]
    del chance


def test_in_a_two_player_game_the_imperial_general_places_its_machine_by_a_chance_step() -> None:
    state = ENGINE.new_state(seats=2, options={}, rng=random.Random(2))
    chance_steps = 0
    while state["pending"] is None or state["pending"]["kind"] != "command":
        if ENGINE.chance_pending(state):
            assert state["chance"]["kind"] == "neutral_place"
            state, events = ENGINE.resolve_chance(state, random.Random(chance_steps))
            assert "The Imperial general places" in texts(events)
            chance_steps += 1
        else:
            seat = min(ENGINE.actors(state))
            state, _ = ENGINE.apply(state, seat, ENGINE.legal_moves(state, seat)[0])
    assert chance_steps == 1
    assert sorted(m for s in state["sections"] for m in s["machines"]) == ["ballista", "cannon", "rocket"]


def test_each_clan_has_its_three_special_soldiers_in_its_supply() -> None:
    state = ENGINE.new_state(seats=4, options={"clans": "fixed"}, rng=random.Random(0))
    assert state["clans"] == ["monkey", "panda", "dragon", "snake"]
    for seat, name in enumerate(state["clans"]):
        assert state["supply"][seat][CLAN_SPECIAL[name]] == SPECIAL_COUNT
        others = [CLAN_SPECIAL[c] for c in CLAN_SPECIAL if c != name]
        assert all(state["supply"][seat][t] == 0 for t in others)


# --- the year ------------------------------------------------------------------------------------------
def test_command_cards_stay_sealed_until_the_last_one_then_set_the_tea_order() -> None:
    state = started(3)
    assert ENGINE.actors(state) == frozenset({0, 1, 2})
    state, events = play(state, 0, "command counsel")
    assert [e.text for e in events if e.visible_to is None] == ["Orange has committed a Command card."]
    assert ENGINE.public_view(state)["committed"] == [True, False, False]
    assert ENGINE.view(state, 1)["private"]["command"] is None
    assert ENGINE.view(state, 0)["private"]["command"] == "counsel"
    assert ENGINE.move_visible_to(state, 0, {"command": "counsel"}) == frozenset({0})
    state, _ = play(state, 1, "command vanguard")
    state, events = play(state, 2, "command tribute")
    assert "Command cards revealed: Orange Counsel, Blue Vanguard, Green Tribute" in texts(events)
    assert state["tea"] == [1, 2, 0]
    assert state["chance"] == {"kind": "counsel", "seats": [0]}


def test_a_played_command_card_rests_the_next_year() -> None:
    state = started(3)
    state["resting"] = ["vanguard", None, None]
    assert "command vanguard" not in moves(state, 0)
    assert "command vanguard" in moves(state, 1)


def test_tribute_and_meditation_take_effect_on_the_reveal() -> None:
    state = started(3)
    before = dict(state["res"][1])
    state, _ = play(state, 0, "command meditation")
    state, _ = play(state, 1, "command tribute")
    state, _ = play(state, 2, "command vanguard")
    assert state["res"][1]["wood"] == before["wood"] + 1 and state["res"][1]["gold"] == before["gold"] + 1
    assert state["pending"]["kind"] == "overseer" and state["pending"]["seat"] == 0
    level = state["overseers"][0]["builders"]
    state, _ = play(state, 0, "overseer builders")
    assert state["overseers"][0]["builders"] == level + 1


def test_counsel_draws_an_advisor_that_only_its_owner_reads_in_the_log() -> None:
    state = started(3)
    for seat, name in enumerate(["counsel", "vanguard", "tribute"]):
        state, _ = play(state, seat, f"command {name}")
    state, events = ENGINE.resolve_chance(state, random.Random(4))
    assert len(state["hands"][0]) == 3
    private = [e for e in events if e.visible_to is not None]
    assert private and all(e.visible_to == frozenset({0}) for e in private)
    assert "Orange draws an Advisor card (Counsel)." in [e.text for e in events if e.visible_to is None]


def test_the_imperial_general_commits_and_places_clerks_by_chance_steps() -> None:
    state = started(2)
    state, _ = play(state, 0, "command vanguard")
    state, _ = play(state, 1, "command counsel")
    assert ENGINE.chance_pending(state) and state["chance"]["kind"] == "neutral_command"
    state, events = ENGINE.resolve_chance(state, random.Random(1))
    assert "The Imperial general chooses a Command card." in texts(events)
    assert "Command cards revealed" in texts(events)
    neutral_turns = 0
    while state["season"] in ("summer", "autumn"):
        if ENGINE.chance_pending(state):
            if state["chance"]["kind"] == "neutral_clerk":
                neutral_turns += 1
                state, events = ENGINE.resolve_chance(state, random.Random(neutral_turns))
                assert "The Imperial general's clerk takes a place" in texts(events)
            else:
                state, _ = ENGINE.resolve_chance(state, random.Random(2))
            continue
        seat = min(ENGINE.actors(state))
        legal = ENGINE.legal_moves(state, seat)
        state, _ = ENGINE.apply(state, seat, {"done": True} if {"done": True} in legal else legal[0])
    assert neutral_turns == 3


def test_clerks_go_out_in_tea_order_and_gain_two_plus_the_overseer_level() -> None:
    state = cleared(3)
    state["tea"] = [2, 0, 1]
    state["overseers"][2]["stone"] = 1
    at(state, {"task": "autumn"})
    assert state["pending"] == {"kind": "clerk", "seat": 2, "advised": False}
    state, _ = play(state, 2, "clerk stone")
    assert state["res"][2]["stone"] == 3
    assert state["pending"]["seat"] == 0


def test_a_location_holds_two_clerks_with_three_generals() -> None:
    state = cleared(3)
    state["tea"] = [0, 1, 2]
    at(state, {"task": "autumn"})
    state, _ = play(state, 0, "clerk wood")
    state, _ = play(state, 1, "clerk wood")
    assert "clerk wood" not in moves(state, 2)
    with pytest.raises(IllegalMove, match="location with room"):
        play(state, 2, "clerk wood")


def test_the_barracks_recruits_and_attacks_with_orders_and_attacks_cover_vital_spots() -> None:
    state = cleared(2, wood=2, gold=0)
    state["reserve"][0] = dict.fromkeys(state["reserve"][0], 0)
    card(state, 1, 1, "scouts")  # spots 2 4 6 8; spot 2 gives wood
    at(state, {"task": "barracks", "seat": 0, "orders": 3})
    assert moves(state, 0) == ["recruit spearman", "done"]
    state, _ = play(state, 0, "recruit spearman")
    assert "attack spearman B1-2" in moves(state, 0)
    assert "attack spearman B1-5" not in moves(state, 0)  # spot 5 does not exist on Scouts
    state, _ = play(state, 0, "attack spearman B1-2")
    assert state["sections"][1]["rows"][0]["cover"][1] == ["s", 0, "spearman"]
    assert state["res"][0]["wood"] == 2  # paid 1, then the spot's reward gave 1 back
    assert state["pending"] == {"kind": "barracks", "seat": 0, "orders": 1}


def test_firing_soldiers_wound_again_in_the_winters_firing_phase() -> None:
    state = cleared(2)
    state["sections"][0]["firing"] = [[1, "archer"]]
    card(state, 0, 2, "wolves")
    at(state, {"task": "firing"})
    assert state["pending"] == {"kind": "fire", "seat": 1, "sec": 0, "type": "archer"}
    assert "wound A2-1" in moves(state, 1)
    state, _ = play(state, 1, "wound A2-1")
    assert state["sections"][0]["rows"][1]["cover"][0] == ["w"]


def test_a_fully_covered_horde_is_defeated_and_claimed_by_the_player_with_most_soldiers() -> None:
    state = cleared(3)
    state["tea"] = [2, 1, 0]
    spear = ["s", 0, "spearman"]
    card(state, 0, 1, "berserkers", {2: spear, 5: ["s", 1, "spearman"], 8: ["s", 0, "horseman"]})
    state["reserve"][0]["spearman"] = 0  # no Spearman for a Tower, so no decision follows
    events = at(state, {"task": "defeat"})
    assert "Berserkers before section A are defeated; Orange claims it." in texts(events)
    assert state["honor"][0] == 4
    assert state["sections"][0]["rows"][0] is None
    assert sorted(map(tuple, state["sections"][0]["rest"])) == [
        (0, "horseman"),
        (0, "spearman"),
        (1, "spearman"),
    ]


def test_a_tie_for_a_defeated_horde_goes_to_the_earlier_player_in_tea_order() -> None:
    state = cleared(3)
    state["tea"] = [2, 1, 0]
    card(state, 0, 1, "berserkers", {2: ["s", 0, "spearman"], 5: ["s", 1, "spearman"], 8: ["w"]})
    state["reserve"][1]["spearman"] = 0
    events = at(state, {"task": "defeat"})
    assert "Blue claims it" in texts(events)


def test_a_breach_costs_honor_and_shames_the_players_who_did_not_defend_the_section() -> None:
    state = cleared(3)
    state["honor"] = [5, 5, 5]
    card(state, 1, 1, "warband", {1: ["s", 0, "spearman"], 2: ["w"]})
    card(state, 1, 2, "berserkers")  # power 3 + 3 against Defence 2
    state["sections"][1]["firing"] = [[2, "archer"]]  # Defence 3
    events = at(state, {"task": "assault"})
    assert "Section B is breached: Offensive Power 6 against Defence 3" in texts(events)
    assert state["honor"] == [4, 4, 4]
    assert state["shame"] == [0, 1, 0]  # Orange fought on a card, Green from a Firing spot
    warband = state["sections"][1]["rows"][0]
    assert warband["cover"] == [None] * 9  # wounds discarded, soldiers off to the Rest Zone
    assert [0, "spearman"] in state["sections"][1]["rest"]


def test_only_the_first_two_rows_make_up_the_offensive_power() -> None:
    state = cleared(2)
    card(state, 2, 3, "elite")
    card(state, 2, 1, "raiders")
    events = at(state, {"task": "assault"})
    assert "Section C holds: Offensive Power 1 against Defence 2." in texts(events)


def test_a_raid_when_no_slot_is_free_shames_the_players_with_fewest_soldiers_in_the_field() -> None:
    state = cleared(2)
    for s in range(3):
        for r in (1, 2, 3):
            card(state, s, r, "scouts")
    state["sections"][0]["firing"] = [[0, "archer"]]
    state["horde_deck"] = ["raiders", "raiders", "shamans"]
    state["honor"] = [5, 5]
    state["year"] = 2
    events = at(state, {"task": "spring"})
    assert ENGINE.chance_pending(state)
    state, events = ENGINE.resolve_chance(state, random.Random(0))
    assert "raid the land" in texts(events)
    assert state["shame"] == [0, 3]  # three cards, three Raids: Orange has an Archer on the wall
    assert state["honor"] == [2, 2]
    assert sorted(state["horde_discard"]) == ["raiders", "raiders", "shamans"]


def test_spring_draws_one_card_more_than_there_are_players_for_the_time_token_plus_one_side() -> None:
    state = cleared(3)
    state["year"] = 2
    at(state, {"task": "spring"})
    state, events = ENGINE.resolve_chance(state, random.Random(3))
    arrivals = [e for e in events if e.kind == "horde"]
    assert len(arrivals) == 4
    assert [e.data["row"] for e in arrivals] == [1, 1, 1, 2] or any(
        e.data["type"] == "trebuchet" for e in arrivals
    )


def test_the_game_ends_when_time_runs_out_after_the_sixth_year() -> None:
    state = cleared(2)
    state["year"] = YEARS
    state["honor"] = [7, 3]
    state["shame"] = [1, 0]
    events = at(state, {"task": "year_end"})
    assert "time has run out" in texts(events)
    assert ENGINE.outcome(state) == [5.0, 3.0]
    assert ENGINE.balance_stats(state)["time_ran_out"] == 1.0


def test_the_game_ends_when_the_shame_pool_runs_out() -> None:
    state = cleared(2)
    state["shame_pool"] = 1
    card(state, 0, 1, "berserkers")
    card(state, 0, 2, "berserkers")
    events = at(state, {"task": "assault"})
    assert "the Shame pool has run out" in texts(events)
    assert ENGINE.is_over(state) and ENGINE.balance_stats(state)["shame_ran_out"] == 1.0


def test_the_game_ends_when_the_wall_is_complete() -> None:
    state = cleared(2, wood=1, stone=2)
    for section in state["sections"]:
        section["level"] = 4
    state["sections"][2]["level"] = 3
    at(state, {"task": "builders", "seat": 1, "bonus": 0})
    state, events = play(state, 1, "build level C")
    assert "the Great Wall is complete" in texts(events)
    assert ENGINE.balance_stats(state)["wall_completed"] == 1.0


# --- the contract's details --------------------------------------------------------------------------
def test_every_kind_of_move_round_trips_through_the_notation_and_has_a_click_path() -> None:
    for text in [
        "overseer wood",
        "place cannon B",
        "command tribute",
        "clerk barracks",
        "advisor engineer",
        "recruit crossbowman",
        "attack spearman B1-5",
        "attack archer C",
        "attack bomber A3-9",
        "attack tank A1-4",
        "build level A",
        "build rocket C",
        "tower 4",
        "shoot cannon B2",
        "wound A1-3",
        "drop B1-5",
        "save 2",
        "done",
    ]:
        move = ENGINE.parse_move(text)
        assert ENGINE.format_move(move) == text
        assert ENGINE.click_path(move)
    assert ENGINE.click_path(ENGINE.parse_move("attack tank A1-4")) == ["res-tank", "tank-0-4"]
    assert ENGINE.click_path(ENGINE.parse_move("shoot cannon B2")) == ["mach-1-cannon", "horde-1-2"]
    with pytest.raises(IllegalMove):
        ENGINE.parse_move("drop B2-5")
    with pytest.raises(IllegalMove):
        ENGINE.parse_move("fly away")


def test_moves_of_the_wrong_shape_are_refused_with_a_reason() -> None:
    state = started(2)
    for junk in ({"command": 1}, {"done": 1}, {"command": "tribute", "x": 1}, {}):
        with pytest.raises(IllegalMove, match=r"\w"):
            ENGINE.apply(state, 0, junk)


def test_sample_hidden_redeals_the_other_hands_and_sealed_cards_but_keeps_the_viewers() -> None:
    state = started(3)
    state, _ = play(state, 1, "command counsel")
    seen = ENGINE.view(state, 0)
    changed = False
    for k in range(12):
        other = ENGINE.sample_hidden(state, 0, random.Random(k))
        assert other["hands"][0] == state["hands"][0]
        assert ENGINE.view(other, 0) == seen
        changed |= other["hands"][1:] != state["hands"][1:] or other["committed"] != state["committed"]
    assert changed


def test_skip_declines_an_optional_decision_and_otherwise_picks_a_legal_move() -> None:
    state = cleared(2, wood=3)
    card(state, 0, 1, "scouts")
    at(state, {"task": "barracks", "seat": 0, "orders": 2})
    after, events = ENGINE.skip(state, 0, random.Random(0))
    assert (events[0].kind == "skip" and after["pending"] is None) or after["pending"]["kind"] != "barracks"
    with pytest.raises(IllegalMove):
        ENGINE.skip(state, 1, random.Random(0))


def test_an_eliminated_seat_no_longer_chooses_and_the_last_seat_left_ends_the_game() -> None:
    state = started(3)
    state, events = ENGINE.eliminate(state, 2)
    assert 2 not in ENGINE.actors(state)
    state, _ = play(state, 0, "command tribute")
    state, events = play(state, 1, "command vanguard")
    assert "Command cards revealed" in texts(events)
    state, events = ENGINE.eliminate(state, 1)
    assert ENGINE.is_over(state) and "only one player is left" in texts(events)
