"""The Wall: a scenario for every special move the seed names, the wandering Wildlings, and both victory
paths. Helpers and conventions as in ``test_thewall.py``."""

from __future__ import annotations

import random
from typing import Any

from games.engines.thewall.rules import RECHARGE, defence_of
from games.engines.thewall.units import KINDS, LEADERS
from tests.engines.test_thewall import (
    ENGINE,
    act,
    moves,
    moves_of,
    named,
    play,
    position,
    raises,
    roll,
    texts,
    unit_on,
)


def until(state: dict[str, Any], leader: str) -> dict[str, Any]:
    """End turns until ``leader``'s turn has begun (any chance step on the way must not roll dice)."""
    for _ in range(8):
        if LEADERS[state["leader"]] == leader and not ENGINE.chance_pending(state):
            return state
        state, _ = act(state, "end")
    raise AssertionError(f"{leader}'s turn never came")


# --- Jon Snow and the Night's Watch ---------------------------------------------------------------------
def test_seeking_reinforcements_takes_jons_whole_turn_and_two_brothers_arrive_at_his_next() -> None:
    state = position(("ranger", "1611"), ("white_walker", "0303"), ("waymar", "0505"))
    assert "recruit" in moves(state)
    state, events = act(state, "recruit")
    assert "two untrained brothers will arrive" in texts(events)
    assert LEADERS[state["leader"]] == "great"
    state, _ = act(state, "end")  # the Great Other; Mance has nobody and is passed by
    state, events = act(state, "end")  # Waymar Royce
    assert (
        "Reinforcements from the south arrive: Untrained Brother 1 on 1110, Untrained Brother 2 on 1010."
        in (texts(events))
    )
    brother = unit_on(state, "1110")
    assert (brother["att"], brother["def"], brother["mov"], KINDS[brother["kind"]].rng, brother["life"]) == (
        1,
        1,
        1,
        1,
        3,
    )
    assert "1110-1111" in moves(state), "the new brothers can be used at once"


def test_reinforcements_are_only_a_whole_turn() -> None:
    state = position(("ranger", "1611"), ("archer", "0611"), ("white_walker", "0303"))
    state, _ = act(state, "1611-1612")
    assert "recruit" not in moves(state)
    with raises("Only Jon Snow may seek reinforcements, and only as his whole turn."):
        act(state, "recruit")


def test_an_untrained_brother_trains_to_a_full_brother_in_a_castle_in_one_unit_turn() -> None:
    state = position(("brother", "0310"), ("brother", "0511"), ("white_walker", "0303"))
    assert {"0310 train ranger", "0310 train archer"} <= set(moves(state))
    assert not [m for m in moves_of(state, "0511") if "train" in m], "only in the castles"
    state, events = act(state, "0310 train archer")
    archer = unit_on(state, "0310")
    assert (archer["kind"], archer["att"], archer["def"], archer["mov"], KINDS[archer["kind"]].rng) == (
        "archer",
        3,
        2,
        2,
        3,
    )
    assert "Untrained Brother 1 on 0310 is trained and becomes Archer 1." in texts(events)


def test_the_catapult_strikes_three_adjacent_hexes_with_one_more_attack_and_range() -> None:
    state = position(
        ("archer", "0909"),
        ("wight_watch", "0905"),
        ("wight_watch", "0906"),
        ("great_other", "0101"),
        ("ranger", "1611"),
    )
    assert "0909 catapult 0805 0905 0906" in moves(state)
    # Attack 3 + 1 with a roll of 3: 7. The first Wight rolls 1 (3), the second 6 (8).
    state, events = play(state, "0909 catapult 0805 0905 0906", 3, 1, 6)
    assert "Catapult roll 3 + 4 = 7." in texts(events)
    assert unit_on(state, "0905")["life"] == 2 and unit_on(state, "0906")["life"] == 3
    assert state["catapults"]["0909"] == state["turn"]


def test_a_catapult_needs_a_trained_brother_recharges_for_a_turn_and_only_disables_true_others() -> None:
    state = position(("brother", "0909"), ("wight_watch", "0906"), ("great_other", "0101"))
    assert not [m for m in moves(state) if "catapult" in m]
    state = position(
        ("archer", "0909"),
        ("great_other", "0906"),
        ("white_walker", "0101"),
        ("ranger", "1611"),
        ("waymar", "2101"),
    )
    area = next(m for m in moves(state) if "catapult" in m)
    state, events = play(state, area, 6, 1)
    assert "Great Other is disabled" in texts(events) and unit_on(state, "0906")["life"] == 4
    state = until(until(state, "great"), "jon")
    assert not [m for m in moves(state) if "catapult" in m], "recharging"
    state = until(until(state, "great"), "jon")
    assert state["turn"] >= state["catapults"]["0909"] + RECHARGE
    assert [m for m in moves(state) if "catapult" in m]


def test_ranging_adds_a_move_forbids_attacking_weakens_defence_and_tags_wights() -> None:
    state = position(
        ("ranger", "1611"),
        ("wight_watch", "1616"),
        ("great_other", "0101"),
        ("archer", "0611"),
    )
    assert "1611-1615 range" in moves(state) and "1611-1615" not in moves(state)
    assert not [m for m in moves(state) if "range" in m and "x" in m]
    state, events = act(state, "1611-1615 range")
    assert "tagged: Wight (Night's Watch) 1 on 1616" in texts(events)
    ranger = unit_on(state, "1615")
    assert defence_of(ranger, True) == 1 and unit_on(state, "1616")["tag"] is True
    state = until(until(state, "great"), "jon")
    assert defence_of(unit_on(state, "1615"), True) == 2, "the penalty lasts until its next turn"
    assert not [m for m in moves_of(state, "1615") if "range" in m], "ranging recharges for a full turn"
    state = until(until(state, "great"), "jon")
    assert [m for m in moves_of(state, "1615") if "range" in m]


def test_a_tagged_wight_can_no_longer_sneak() -> None:
    state = position(("wight_watch", "1108", {"tag": True}), ("great_other", "0101"), leader="waymar")
    assert "1108 sneak 1109" not in moves(state)


# --- Mance Rayder's Wildlings -------------------------------------------------------------------------------
def test_scouting_redirects_the_next_spawn_on_a_roll_above_two() -> None:
    state = position(
        ("wildling", "0704"), ("white_walker", "0101"), ("ranger", "1611"), leader="mance", round_=1, supply=3
    )
    state, events = act(state, "0704 scout 0804")
    assert state["scout"] == {"unit": unit_on(state, "0704")["id"], "spawn": "0804"}
    state = until(state, "great")
    state, _ = act(state, "end")
    assert ENGINE.chance_pending(state) and state["pending"] == {"kind": "wander", "spawn": True}
    state, events = roll(state, 3)
    assert "Scout roll 3: the group appears where the scout watched (0804)." in texts(events)
    assert "Wandering Wildlings 4 on 0804 join Mance Rayder." in texts(events)  # the fourth of six
    assert unit_on(state, "0804")["leader"] == "mance"


def test_a_failed_scout_roll_leaves_the_spawn_to_the_die() -> None:
    state = position(
        ("wildling", "0704"), ("white_walker", "0101"), ("ranger", "1611"), leader="mance", round_=1, supply=3
    )
    state, _ = act(state, "0704 scout 0804")
    state = until(state, "great")
    state, _ = act(state, "end")
    state, events = roll(state, 2, 1)
    assert "Scout roll 2: no use." in texts(events) and "Spawn roll 1: spawn point 1401." in texts(events)
    assert unit_on(state, "1401")["leader"] is None


def test_a_teamup_adds_one_per_unused_wildling_around_the_foe_and_costs_two_unit_turns() -> None:
    state = position(
        ("wildling", "1612"),
        ("wildling", "1614"),
        ("wildling", "1713"),
        ("wildling", "1411"),
        ("wight_watch", "1613"),
        ("great_other", "0101"),
        leader="mance",
    )
    assert "1612x1613 teamup" in moves(state)
    state, events = play(state, "1612x1613 teamup", 1, 2)
    assert "with Wildling 3, Wildling 2" in texts(events)
    assert "1 + 4 = 5 against 2 + 2 = 4: hit." in texts(events)
    assert state["spent"] == 2 and len(state["used"]) == 3
    assert moves_of(state, "1614") == [] and moves_of(state, "1411")


def test_no_teamup_without_a_helper_or_without_two_unit_turns_left() -> None:
    state = position(("wildling", "1612"), ("wight_watch", "1613"), ("great_other", "0101"), leader="mance")
    assert "1612x1613" in moves(state) and "1612x1613 teamup" not in moves(state)
    state = position(
        ("wildling", "1612"),
        ("wildling", "1614"),
        ("wight_watch", "1613"),
        ("great_other", "0101"),
        ("wildling", "0511"),
        leader="mance",
        spent=3,
    )
    assert "1612x1613" in moves(state) and "1612x1613 teamup" not in moves(state)


def test_a_sneak_attack_costs_a_move_and_a_roll_of_defence_plus_die_above_seven_adds_one() -> None:
    state = position(("wildling", "1611"), ("wight_watch", "1614"), ("great_other", "0101"), leader="mance")
    assert "1611-1613x1614" in moves(state) and "1611-1613x1614 sneak" not in moves(state)
    state = position(
        ("wildling", "1611"),
        ("wight_watch", "1613"),
        ("great_other", "0101"),
        ("wildling", "0511"),
        leader="mance",
    )
    state, events = play(state, "1611-1612x1613 sneak", 4, 1, 1)
    assert "Sneak roll 4 + 4 = 8: unseen, +1 attack." in texts(events)
    assert "1 + 3 = 4 against 1 + 2 = 3: hit." in texts(events)


def test_a_failed_sneak_attack_costs_one_defence_until_the_next_turn() -> None:
    state = position(
        ("wildling", "1611"),
        ("wight_watch", "1613"),
        ("great_other", "0101"),
        ("wildling", "0511"),
        leader="mance",
    )
    state, events = play(state, "1611-1612x1613 sneak", 3, 1, 6)
    assert "Sneak roll 3 + 4 = 7: spotted, -1 defence until its next turn." in texts(events)
    assert defence_of(unit_on(state, "1612"), True) == 3


# --- the Others --------------------------------------------------------------------------------------------
def test_a_human_slain_by_a_true_other_leaves_a_corpse_raised_as_a_wight_a_turn_later() -> None:
    state = position(
        ("white_walker", "0604"),
        ("ranger", "0605", {"life": 1}),
        ("great_other", "0101"),
        ("waymar", "2101"),
        ("archer", "1611"),
        leader="great",
    )
    state, events = play(state, "0604x0605", 6, 1)
    assert "Ranger 1 is slain by White Walker 1; the corpse on 0605 waits to rise." in texts(events)
    assert unit_on(state, "0604")["kind"] == "white_walker", "the corpse stays: no advance"
    assert "0604 raise 0605" not in moves(state), "conversion takes a full turn"
    state = until(until(state, "jon"), "great")
    state, events = act(state, "0604 raise 0605")
    wight = unit_on(state, "0605")
    assert wight["leader"] == "waymar" and wight["name"] == "Wight (once Ranger 1)"
    assert (wight["att"], wight["def"], wight["mov"], wight["life"], wight["kind"]) == (
        3,
        2,
        3,
        3,
        "risen_brother",
    )
    assert KINDS["risen_brother"].brother, "a raised brother may still sneak"


def test_any_roll_above_one_destroys_a_corpse() -> None:
    corpse = {
        "id": 99,
        "name": "Ranger 9",
        "kind": "ranger",
        "hex": "0605",
        "att": 3,
        "def": 2,
        "mov": 3,
        "turn": 8,
    }
    state = position(("ranger", "0705"), ("archer", "1611"), ("great_other", "0101"), corpses=[corpse])
    state, events = play(state, "0705x0605", 1)
    assert "Roll 1: the corpse of Ranger 9 survives." in texts(events) and state["corpses"]
    state = position(("ranger", "0705"), ("archer", "1611"), ("great_other", "0101"), corpses=[corpse])
    state, events = play(state, "0705x0605", 2)
    assert state["corpses"] == [] and unit_on(state, "0605")["name"] == "Ranger 1"


def test_a_true_other_on_its_spawn_point_summons_another_for_the_next_turn_up_to_four() -> None:
    state = position(
        ("white_walker", "0301"),
        ("great_other", "1101"),
        ("ranger", "1611"),
        ("waymar", "2101"),
        leader="great",
    )
    state, _ = act(state, "0301 summon")
    assert state["summons"] == ["0301"]
    state = until(until(state, "jon"), "great")
    walkers = [u for u in state["units"] if u["kind"] == "white_walker"]
    assert len(walkers) == 2 and walkers[1]["hex"] != "0301"
    state = position(
        ("white_walker", "0301"),
        ("great_other", "1101"),
        ("white_walker", "0505"),
        ("white_walker", "0707"),
        ("ranger", "1611"),
        leader="great",
    )
    assert "0301 summon" not in moves(state), "four true Others at most"


def test_frozen_shriek_needs_two_humans_around_and_a_roll_above_three_disables_them() -> None:
    state = position(
        ("white_walker", "0604"),
        ("ranger", "0605"),
        ("great_other", "0101"),
        ("ranger", "1611"),
        leader="great",
    )
    assert "0604 shriek" not in moves(state)
    state = position(
        ("white_walker", "0604"),
        ("ranger", "0605"),
        ("ranger", "0705"),
        ("great_other", "0101"),
        leader="great",
    )
    _, events = play(state, "0604 shriek", 3)
    assert "Shriek roll 3: the cry fades." in texts(events)
    state, events = play(state, "0604 shriek", 4)
    assert "Shriek roll 4: Ranger 2, Ranger 1 are disabled for the next turn." in texts(events)
    state = until(state, "jon")
    assert not moves_of(state, "0605") and not moves_of(state, "0705")


def test_a_wight_combination_attack_adds_one_per_unused_wight_around_the_foe() -> None:
    state = position(
        ("wight_wildling", "1612"),
        ("wight_wildling", "1614"),
        ("wight_watch", "1713"),
        ("ranger", "1613"),
        ("great_other", "0101"),
        ("waymar", "2101"),
        leader="waymar",
    )
    state, events = play(state, "1612x1613 combo", 1, 3)
    assert "leads a combination attack on Ranger 1 on 1613 with" in texts(events)
    assert "1 + 4 = 5 against 3 + 2 = 5: held." in texts(events)
    assert state["spent"] == 2


def test_an_undamaged_wight_of_the_watch_sneaks_into_an_empty_keep_on_four_to_six() -> None:
    state = position(
        ("wight_watch", "1108"), ("great_other", "0101"), ("wight_wildling", "0505"), leader="waymar"
    )
    assert "1108 sneak 1109" in moves(state)
    state, events = play(state, "1108 sneak 1109", 4)
    assert "slips unseen into the keep 1109" in texts(events)
    assert unit_on(state, "1109")["kind"] == "wight_watch"
    state = position(
        ("wight_watch", "1108"), ("great_other", "0101"), ("wight_wildling", "0505"), leader="waymar"
    )
    state, events = play(state, "1108 sneak 1109", 3)
    assert "turned back" in texts(events) and unit_on(state, "1108")


def test_sneaking_past_a_guard_leads_into_the_castle_and_a_failure_means_a_fight_at_minus_one() -> None:
    pieces = (
        ("wight_watch", "1108"),
        ("ranger", "1109"),
        ("great_other", "0101"),
        ("wight_wildling", "0505"),
    )
    state, events = play(position(*pieces, leader="waymar"), "1108 sneak 1109", 5)
    assert "slips past Ranger 1 into 1110" in texts(events)
    assert unit_on(state, "1110")["kind"] == "wight_watch"
    _, events = play(position(*pieces, leader="waymar"), "1108 sneak 1109", 2, 6, 1)
    assert "Ranger 1 spots Wight (Night's Watch) 1; they fight (-1 attack)." in texts(events)
    assert "6 + 2 = 8 against 1 + 3 = 4: hit." in texts(events)


def test_only_undamaged_former_brothers_may_sneak() -> None:
    for piece in (
        ("wight_wildling", "1108"),
        ("wight_watch", "1108", {"life": 2}),
        ("waymar", "1108", {"life": 3}),
    ):
        state = position(piece, ("great_other", "0101"), leader="waymar")
        assert "1108 sneak 1109" not in moves(state)
    state = position(("waymar", "1108"), ("great_other", "0101"), leader="waymar")
    assert "1108 sneak 1109" in moves(state)


def test_scaling_the_wall_takes_two_turns_at_minus_one_defence() -> None:
    state = position(
        ("wight_wildling", "0808"),
        ("great_other", "0101"),
        ("wight_watch", "0505"),
        ("ranger", "1611"),
        leader="waymar",
    )
    state, events = act(state, "0808 scale 0809")
    assert "starts to scale the Wall toward 0809" in texts(events)
    assert defence_of(unit_on(state, "0808"), True) == 2
    state = until(until(state, "jon"), "waymar")
    assert [m for m in moves_of(state, "0808") if "scale" in m] == ["0808 scale 0809"], "only to finish"
    state, events = act(state, "0808 scale 0809")
    assert "Wight (Wildling) 1 reaches the top of the Wall on 0809." in texts(events)
    assert "climb" not in unit_on(state, "0809")


def test_a_wight_hit_while_scaling_falls_and_loses_another_life_point() -> None:
    state = position(
        ("archer", "0909"),
        ("wight_wildling", "0808", {"climb": {"to": "0809", "turn": 4}}),
        ("great_other", "0101"),
        ("ranger", "1611"),
    )
    state, events = play(state, "0909 shoot 0808", 6, 1)
    assert "falls off the Wall and loses another life point" in texts(events)
    wight = unit_on(state, "0808")
    assert (wight["life"], wight["att"], wight.get("climb")) == (1, 0, None)


# --- victory ---------------------------------------------------------------------------------------------
def test_the_horn_blown_after_a_full_turn_in_1110_brings_down_the_wall_and_all_on_it() -> None:
    state = position(
        ("wight_watch", "1109"),
        ("archer", "1009"),
        ("ranger", "1611"),
        ("great_other", "1108"),
        ("wight_wildling", "0505"),
        leader="waymar",
    )
    state, _ = act(state, "1109-1110")
    assert "1110 horn" not in moves(state), "it must hold the hex for a full turn first"
    state, _ = act(state, "end")
    state = until(state, "waymar")
    assert "1110 horn" in moves(state)
    state, events = act(state, "1110 horn")
    assert "the Wall comes down! Archer 1 fall with it." in texts(events)
    assert state["wall_up"] is False and named(state, "Archer 1") is None
    state = until(state, "great")
    assert "1108-1109" in moves(state) and "1108-1009" in moves(state), "true Others cross where it stood"


def test_the_others_win_when_a_true_other_holds_the_victory_zone_for_a_full_turn_after_the_fall() -> None:
    state = position(
        ("white_walker", "1114"),
        ("ranger", "0311"),
        ("waymar", "2101"),
        leader="great",
        wall_up=False,
    )
    state, events = act(state, "1114-1115")  # its only unit: the turn ends by itself
    assert "The Great Other's turn ends." in texts(events)
    assert state["zone_watch"] == [unit_on(state, "1115")["id"]]
    state, _ = act(state, "end")  # Waymar Royce (Mance has nobody)
    assert state["phase"] == "play"
    state, events = act(state, "end")  # Jon Snow; then the Great Other's turn begins
    assert state["phase"] == "over" and state["winner"] == "others"
    assert "a true Other has held the south for a full turn after the Wall fell" in texts(events)
    assert ENGINE.outcome(state) == [0.0, 1.0]


def test_the_victory_zone_counts_only_once_the_wall_has_fallen() -> None:
    state = position(("white_walker", "1115"), ("ranger", "0311"), leader="great")
    state, _ = act(state, "end")
    assert state["zone_watch"] == []


def test_the_watch_wins_when_every_true_other_is_slain() -> None:
    state = position(
        ("jon", "0605"),
        ("white_walker", "0604", {"life": 1}),
        ("waymar", "0505"),
        ("ranger", "1611"),
    )
    state, events = play(state, "0605x0604", 6, 1)
    assert state["phase"] == "over" and state["winner"] == "watch"
    assert "every true Other has been slain" in texts(events)
    assert ENGINE.outcome(state) == [1.0, 0.0]


# --- the wandering Wildlings -------------------------------------------------------------------------------
def test_every_second_round_a_group_spawns_on_the_hex_the_die_names_in_a_chance_step() -> None:
    state = position(("ranger", "1611"), ("white_walker", "0101"), leader="great", round_=1, supply=6)
    state, _ = act(state, "end")
    assert not ENGINE.chance_pending(state), "no group in round 1"
    state = until(state, "great")
    state, _ = act(state, "end")
    assert state["round"] == 2 and ENGINE.chance_pending(state)
    state, events = roll(state, 4)
    assert "Spawn roll 4: spawn point 0804." in texts(events)
    assert "Wandering Wildlings 1 appear on 0804 (5 groups left)." in texts(events)
    assert unit_on(state, "0804")["leader"] is None


def test_unacquired_groups_drift_a_hex_by_die_and_stay_when_the_way_is_barred() -> None:
    wanderer = ("untrained", "0505", {"leader": None, "name": "Wandering Wildlings 1"})
    state = position(wanderer, ("ranger", "1611"), ("white_walker", "0101"), leader="great", round_=3)
    state, _ = act(state, "end")
    state, events = roll(state, 4)
    assert "Wandering Wildlings 1 roll 4 (south) and drift from 0505 to 0506." in texts(events)
    state = position(wanderer, ("ranger", "1611"), ("white_walker", "0504"), leader="great", round_=3)
    state, _ = act(state, "end")
    state, events = roll(state, 1)
    assert "Wandering Wildlings 1 on 0505 roll 1 (north): no way there, they stay." in texts(events)


def test_no_group_spawns_once_the_supply_is_exhausted() -> None:
    state = position(("ranger", "1611"), ("white_walker", "0101"), leader="great", round_=2, supply=0)
    state, _ = act(state, "end")
    assert not ENGINE.chance_pending(state)


def test_a_brother_beside_a_group_takes_it_over_with_one_more_attack_and_defence() -> None:
    wanderer = ("untrained", "1613", {"leader": None, "name": "Wandering Wildlings 1"})
    state = position(wanderer, ("ranger", "1611"), ("archer", "0611"), ("white_walker", "0101"))
    assert not moves_of(state, "1613"), "nobody commands a wandering group"
    state, events = act(state, "1611-1612")
    assert "Wandering Wildlings 1 on 1613 follow the Night's Watch (+1 attack and defence)." in texts(events)
    card = next(
        u for u in ENGINE.view(state, 0)["leaders"][0]["units"] if u["name"] == "Wandering Wildlings 1"
    )
    assert (card["leader"], card["att"], card["def"], card["led"]) == ("jon", 2, 2, True)
    assert moves_of(state, "1613")


def test_a_group_led_by_the_watch_joins_mance_beside_a_trained_wildling_and_trains_in_one_unit_turn() -> None:
    wanderer = ("untrained", "1613", {"leader": "jon", "led": True, "name": "Wandering Wildlings 1"})
    state = position(wanderer, ("wildling", "1611"), ("white_walker", "0101"), leader="mance")
    state, events = act(state, "1611-1612")
    assert "Wandering Wildlings 1 on 1613 leave the Watch and join Mance Rayder." in texts(events)
    group = unit_on(state, "1613")
    assert (group["leader"], group.get("led", False)) == ("mance", False)
    state, events = act(state, "1613 train wildling")
    trained = unit_on(state, "1613")
    assert (trained["kind"], trained["att"], trained["def"], trained["mov"]) == ("wildling", 2, 4, 3)


def test_a_group_slain_by_a_true_other_becomes_a_corpse_for_the_others() -> None:
    wanderer = ("untrained", "0605", {"leader": None, "life": 1, "name": "Wandering Wildlings 1"})
    state = position(
        wanderer, ("white_walker", "0604"), ("great_other", "0101"), ("ranger", "1611"), leader="great"
    )
    assert "0604x0605" in moves(state), "the Others may fall on a wandering group"
    state, _ = play(state, "0604x0605", 6, 1)
    assert [c["name"] for c in state["corpses"]] == ["Wandering Wildlings 1"]
    state = position(wanderer, ("ranger", "0604"), ("great_other", "0101"))
    assert "0604x0605" not in moves(state), "the Watch does not attack them"


def test_a_group_the_watch_led_rises_with_whatever_stats_they_had_at_their_time_of_death() -> None:
    led = {"leader": "jon", "led": True, "life": 1, "name": "Wandering Wildlings 1"}
    wanderer = ("untrained", "0605", led)
    state = position(
        wanderer,
        ("white_walker", "0604"),
        ("great_other", "0101"),
        ("waymar", "2101"),
        ("ranger", "1611"),
        leader="great",
    )
    state, _ = play(state, "0604x0605", 6, 1)
    state = until(until(state, "jon"), "great")
    state, _ = act(state, "0604 raise 0605")
    wight = unit_on(state, "0605")
    assert wight["name"] == "Wight (once Wandering Wildlings 1)" and not wight.get("led")
    assert (wight["att"], wight["def"], wight["mov"], wight["life"]) == (2, 2, 1, 3), (
        "the +1 attack and +1 defence of the Watch's lead were its stats at death"
    )


def test_a_chance_step_cannot_run_twice() -> None:
    state = position(
        ("ranger", "1611"), ("wight_watch", "1612"), ("white_walker", "0303"), ("archer", "0611")
    )
    state, _ = act(state, "1611x1612")
    after, _ = roll(state, 3, 3)
    with raises("No chance step is pending."):
        ENGINE.resolve_chance(after, random.Random(0))
