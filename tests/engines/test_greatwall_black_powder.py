"""The Great Wall: every rule of the Black Powder expansion (seed 004) as a scenario: towers and their
Spearmen, the three War Machines, the Rocket deck and wasted wounds, the five clans' special soldiers,
the four new Hordes, destroyed wall levels and total defeat."""

from __future__ import annotations

import random

from games.engines.greatwall.cards import MACHINE_BUILD_HONOR, ROCKET_CARDS
from tests.engines.test_greatwall import ENGINE, at, card, clan, cleared, moves, play, texts

SPEAR0 = ["s", 0, "spearman"]


# --- towers ----------------------------------------------------------------------------------------------
def test_building_a_wall_level_offers_a_spearman_for_a_tower_beside_that_section() -> None:
    state = cleared(2, wood=1, stone=2)
    at(state, {"task": "builders", "seat": 0, "bonus": 1})
    state, _ = play(state, 0, "build level B")
    assert state["sections"][1]["level"] == 2
    assert state["honor"][0] == 3  # 2 for the level, 1 for the Builders' Overseer
    assert moves(state, 0) == ["tower 2", "tower 3", "done"]  # the towers beside section B
    state, _ = play(state, 0, "tower 3")
    assert state["towers"] == [None, None, 0, None]
    assert state["reserve"][0]["spearman"] == 0


def test_a_spearman_placed_in_an_occupied_tower_sends_the_other_back_to_its_pool() -> None:
    state = cleared(2, wood=1, stone=2)
    state["towers"] = [1, 0, None, None]
    at(state, {"task": "builders", "seat": 0, "bonus": 0})
    state, _ = play(state, 0, "build level A")
    assert moves(state, 0) == ["tower 1", "done"]  # its own Spearman already holds Tower 2
    reserve = state["reserve"][1]["spearman"]
    state, events = play(state, 0, "tower 1")
    assert state["towers"][0] == 0
    assert state["reserve"][1]["spearman"] == reserve + 1
    assert "sending Blue's Spearman back" in texts(events)


def test_a_spearman_in_a_tower_may_shoot_one_war_machine_beside_that_tower() -> None:
    state = cleared(2, wood=1, stone=2)
    state["sections"][0]["machines"] = ["ballista"]
    state["sections"][2]["machines"] = ["ballista"]
    card(state, 0, 1, "wolves")
    card(state, 2, 1, "wolves")
    at(state, {"task": "tower", "seat": 0, "towers": [0, 1], "must": False})
    state, _ = play(state, 0, "tower 2")  # beside sections A and B
    assert moves(state, 0) == ["shoot ballista A1", "done"]


def test_a_player_who_claims_a_defeated_horde_may_put_a_spearman_in_a_tower_beside_it() -> None:
    state = cleared(2)
    card(state, 2, 1, "berserkers", {2: SPEAR0, 5: ["w"], 8: ["w"]})
    at(state, {"task": "defeat"})
    assert state["pending"]["kind"] == "tower" and state["pending"]["seat"] == 0
    assert moves(state, 0) == ["tower 3", "tower 4", "done"]


def test_tower_spearmen_earn_two_honor_per_unbreached_section_and_shame_per_breached_one() -> None:
    state = cleared(2)
    state["towers"] = [None, 0, 1, None]  # Tower 2 beside A and B, Tower 3 beside B and C
    card(state, 0, 1, "berserkers")
    card(state, 0, 2, "berserkers")  # section A falls: 6 against 2
    state["sections"][0]["firing"] = [[0, "archer"], [1, "archer"]]  # nobody is shamed for defending
    events = at(state, {"task": "assault"})
    assert "Section A is breached" in texts(events)
    assert state["honor"] == [2, 4]  # Orange: -1 breach, +2 for B; Blue: -1 breach, +2 for B, +2 for C
    assert state["shame"] == [1, 0]  # Orange's Tower stood beside the breach
    # The breach removed Orange's Spearman at once; Blue's Tower is not beside section A.
    assert state["towers"] == [None, None, 1, None]


# --- war machines --------------------------------------------------------------------------------------
def test_building_a_war_machine_costs_its_price_gives_four_honor_and_offers_an_immediate_shot() -> None:
    state = cleared(2, wood=0, stone=2, gold=4)
    card(state, 1, 2, "shields")
    at(state, {"task": "builders", "seat": 1, "bonus": 0})
    assert "build cannon B" in moves(state, 1) and "build ballista B" not in moves(state, 1)
    state, _ = play(state, 1, "build cannon B")
    assert state["res"][1] == {"wood": 0, "stone": 0, "gold": 2, "chi": 0}
    assert state["honor"][1] == MACHINE_BUILD_HONOR
    assert moves(state, 1) == ["shoot cannon B2", "done"]


def test_a_wall_section_holds_at_most_two_war_machines() -> None:
    state = cleared(2, wood=4)
    state["sections"][0]["machines"] = ["ballista", "cannon"]
    at(state, {"task": "builders", "seat": 0, "bonus": 0})
    assert "build ballista A" not in moves(state, 0)
    assert "build ballista B" in moves(state, 0)


def test_only_two_models_of_each_war_machine_exist() -> None:
    state = cleared(2, wood=8)
    state["sections"][0]["machines"] = ["ballista"]
    state["sections"][1]["machines"] = ["ballista"]
    at(state, {"task": "builders", "seat": 0, "bonus": 0})
    assert not any(m.startswith("build ballista") for m in moves(state, 0))


def test_the_ballista_shoots_for_free_with_the_first_two_wounds_of_the_cannon_shot_card() -> None:
    state = cleared(2)
    state["sections"][1]["machines"] = ["ballista"]
    card(state, 1, 3, "warband")  # spots 1 2 4 5 6 8
    at(state, {"task": "shoot", "seat": 0, "secs": [1], "only": None, "free": False, "must": False})
    state, _ = play(state, 0, "shoot ballista B3")
    cover = state["sections"][1]["rows"][2]["cover"]
    assert [k for k in range(1, 10) if cover[k - 1] == ["w"]] == [2, 5]
    assert state["honor"][0] == 0


def test_the_cannon_costs_two_gold_gives_one_honor_and_deals_the_whole_cannon_shot_card() -> None:
    state = cleared(2, gold=2)
    state["sections"][2]["machines"] = ["cannon"]
    card(state, 2, 1, "warband")
    at(state, {"task": "shoot", "seat": 0, "secs": [2], "only": None, "free": False, "must": False})
    state, _ = play(state, 0, "shoot cannon C1")
    cover = state["sections"][2]["rows"][0]["cover"]
    assert [k for k in range(1, 10) if cover[k - 1] == ["w"]] == [2, 4, 5, 6]
    assert state["res"][0]["gold"] == 0 and state["honor"][0] == 1


def test_a_shot_the_player_cannot_pay_for_is_not_offered() -> None:
    state = cleared(2, gold=1)
    state["sections"][2]["machines"] = ["cannon"]
    card(state, 2, 1, "warband")
    at(state, {"task": "shoot", "seat": 0, "secs": [2], "only": None, "free": False, "must": False})
    assert state["pending"] is None or state["pending"]["kind"] != "shoot"


def test_the_rocket_launcher_costs_one_chi_gives_two_honor_and_draws_from_the_rocket_deck() -> None:
    state = cleared(2, chi=1)
    state["sections"][0]["machines"] = ["rocket"]
    card(state, 0, 1, "elite")
    at(state, {"task": "shoot", "seat": 1, "secs": [0], "only": None, "free": False, "must": False})
    state, events = play(state, 1, "shoot rocket A1")
    assert state["honor"][1] == 2 and state["res"][1]["chi"] == 0
    assert ENGINE.chance_pending(state) and state["chance"]["kind"] == "rocket"
    view = ENGINE.public_view(state)
    assert view["rocket_deck_size"] == 12 and "rocket_deck" not in view
    state, events = ENGINE.resolve_chance(state, random.Random(8))
    drawn = state["rocket_discard"][0]
    assert len(state["rocket_deck"]) == 11
    elite_spots = {1, 2, 3, 4, 5, 6}
    wounded = {k for k in range(1, 10) if state["sections"][0]["rows"][0]["cover"][k - 1] == ["w"]}
    assert wounded == set(ROCKET_CARDS[drawn]) & elite_spots
    assert f"Rocket card {drawn!r}" in texts(events)


def test_war_machine_wounds_on_wounded_or_missing_spots_are_wasted() -> None:
    state = cleared(2, gold=2)
    state["sections"][0]["machines"] = ["cannon"]
    card(state, 0, 1, "berserkers", {5: ["w"]})  # spots 2 5 8: the Cannon hits 5 2 4 6
    at(state, {"task": "shoot", "seat": 0, "secs": [0], "only": None, "free": False, "must": False})
    state, events = play(state, 0, "shoot cannon A1")
    assert "wounds on 2, 3 wasted" in texts(events)


def test_a_soldier_under_a_machine_wound_is_killed_can_be_saved_and_shames_the_shooter_once() -> None:
    state = cleared(3, gold=2, chi=1)
    state["tea"] = [0, 1, 2]
    state["sections"][1]["machines"] = ["cannon"]
    card(state, 1, 1, "warband", {2: ["s", 1, "spearman"], 4: ["s", 1, "horseman"], 6: ["s", 2, "spearman"]})
    at(state, {"task": "shoot", "seat": 0, "secs": [1], "only": None, "free": False, "must": False})
    state, _ = play(state, 0, "shoot cannon B1")
    assert state["shame"] == [1, 0, 0]  # one Shame, however many soldiers died
    assert state["pending"] == {"kind": "save", "seat": 1, "killed": ["spearman", "horseman"]}
    assert moves(state, 1) == ["save 0", "save 1"]
    state, _ = play(state, 1, "save 1")  # the costliest is saved first
    assert state["reserve"][1]["horseman"] == 1
    assert state["pending"]["seat"] == 2 and state["pending"]["killed"] == ["spearman"]


def test_killing_only_ones_own_soldier_with_a_machine_brings_no_shame() -> None:
    state = cleared(2)
    state["sections"][1]["machines"] = ["ballista"]
    card(state, 1, 1, "warband", {2: SPEAR0})
    at(state, {"task": "shoot", "seat": 0, "secs": [1], "only": None, "free": False, "must": False})
    state, _ = play(state, 0, "shoot ballista B1")
    assert state["shame"] == [0, 0]
    assert state["supply"][0]["spearman"] == 6  # no chi to save it: back to the supply


def test_the_tank_is_immune_to_war_machines() -> None:
    state = cleared(2)
    state["sections"][0]["machines"] = ["ballista"]
    tank = ["t", 1, 1]
    card(state, 0, 1, "warband", {1: tank, 2: tank, 4: tank, 5: tank})
    at(state, {"task": "shoot", "seat": 0, "secs": [0], "only": None, "free": False, "must": False})
    state, events = play(state, 0, "shoot ballista A1")
    assert "2 wasted" in texts(events)
    assert state["sections"][0]["rows"][0]["cover"][4] == tank and state["shame"] == [0, 0]


# --- the five clans' special soldiers --------------------------------------------------------------------
def test_a_warrior_monk_covers_one_vital_spot_on_any_row() -> None:
    state = cleared(2)
    clan(state, 0, "monkey")
    card(state, 2, 3, "scouts")
    at(state, {"task": "barracks", "seat": 0, "orders": 1})
    assert "attack monk C3-4" in moves(state, 0)
    assert "attack horseman C3-4" not in moves(state, 0)  # Horsemen reach rows 1 and 2 only
    state, _ = play(state, 0, "attack monk C3-4")
    assert state["sections"][2]["rows"][2]["cover"][3] == ["s", 0, "monk"]


def test_a_bomber_wounds_from_a_firing_spot_then_may_drop_onto_the_first_row_like_a_spearman() -> None:
    state = cleared(2)
    clan(state, 1, "panda")
    card(state, 0, 1, "shamans")  # spots 2 4 5 6; 5 gives chi
    card(state, 0, 3, "wolves")
    at(state, {"task": "barracks", "seat": 1, "orders": 2})
    state, _ = play(state, 1, "attack bomber A3-1")
    assert state["sections"][0]["rows"][2]["cover"][0] == ["w"]
    assert state["pending"]["kind"] == "bomber"
    assert moves(state, 1) == ["drop A1-2", "drop A1-4", "drop A1-5", "drop A1-6", "done"]
    state, _ = play(state, 1, "drop A1-5")
    assert state["sections"][0]["firing"] == []
    assert state["sections"][0]["rows"][0]["cover"][4] == ["s", 1, "bomber"]
    assert state["res"][1]["chi"] == 1  # the spot's reward, as for a Spearman
    assert state["pending"] == {"kind": "barracks", "seat": 1, "orders": 1}


def test_a_bomber_left_on_the_wall_fires_in_winter_and_may_still_drop() -> None:
    state = cleared(2)
    clan(state, 1, "panda")
    state["sections"][2]["firing"] = [[1, "bomber"]]
    card(state, 2, 1, "raiders")
    at(state, {"task": "firing"})
    state, _ = play(state, 1, "wound C1-1")
    assert state["pending"]["kind"] == "bomber"
    state, events = play(state, 1, "done")
    assert "The Bomber stays on its Firing spot." in texts(events)
    assert state["sections"][2]["firing"] == [[1, "bomber"]]


def test_a_flamethrower_attacks_only_the_first_row_and_wounds_the_spots_beside_it() -> None:
    state = cleared(2)
    clan(state, 0, "dragon")
    card(state, 1, 1, "warband", {4: ["s", 1, "spearman"]})  # spots 1 2 4 5 6 8
    card(state, 1, 2, "warband")
    at(state, {"task": "barracks", "seat": 0, "orders": 1})
    assert not any(m.startswith("attack flamethrower B2") for m in moves(state, 0))
    state, _ = play(state, 0, "attack flamethrower B1-5")
    cover = state["sections"][1]["rows"][0]["cover"]
    assert cover[4] == ["s", 0, "flamethrower"]
    assert [cover[k - 1] for k in (2, 6, 8)] == [["w"], ["w"], ["w"]]  # not diagonally: 1 stays free
    assert cover[0] is None and cover[3] == ["s", 1, "spearman"]  # a soldier beside it is unharmed


def test_a_crossbowman_wounds_with_snake_tokens_that_count_as_soldiers_when_defeated() -> None:
    state = cleared(2)
    clan(state, 0, "snake")
    card(state, 2, 1, "berserkers", {2: ["s", 1, "spearman"], 8: ["w"]})
    at(state, {"task": "barracks", "seat": 0, "orders": 1})
    state, _ = play(state, 0, "attack crossbowman C1-5")
    assert state["sections"][2]["rows"][0]["cover"][4] == ["k", 0]
    assert state["snakes"] == 5
    assert state["sections"][2]["firing"] == [[0, "crossbowman"]]
    state["tea"] = [0, 1, 2]
    state["reserve"][0]["spearman"] = 0
    events = at(state, {"task": "defeat"})
    assert "Orange claims it" in texts(events)  # the token counts as a soldier; the tie goes by Tea order
    assert state["snakes"] == 6


def test_crossbowmen_fire_in_winter_and_snake_tokens_run_out_after_six() -> None:
    state = cleared(2)
    clan(state, 0, "snake")
    state["snakes"] = 0
    state["sections"][0]["firing"] = [[0, "crossbowman"]]
    card(state, 0, 2, "wolves")
    at(state, {"task": "firing"})
    state, _ = play(state, 0, "wound A2-2")
    assert state["sections"][0]["rows"][1]["cover"][1] == ["w"]


def test_snake_tokens_spare_their_owner_the_breach_shame_and_survive_the_breach() -> None:
    state = cleared(2)
    clan(state, 0, "snake")
    card(state, 1, 1, "berserkers", {2: ["k", 0], 5: ["w"]})
    card(state, 1, 2, "warband")
    at(state, {"task": "assault"})
    assert state["shame"] == [0, 1]
    cover = state["sections"][1]["rows"][0]["cover"]
    assert cover[1] == ["k", 0] and cover[4] is None


def test_a_tank_covers_a_two_by_two_block_over_wounds_but_not_soldiers_and_rewards_only_fresh_spots() -> None:
    state = cleared(2)
    clan(state, 1, "turtle")
    # Warband spots 1 2 4 5 6 8, rewards 2 wood and 5 honor; spot 5 already wounded.
    card(state, 0, 1, "warband", {5: ["w"], 6: SPEAR0})
    card(state, 0, 2, "warband")
    at(state, {"task": "barracks", "seat": 1, "orders": 1})
    tank_moves = [m for m in moves(state, 1) if m.startswith("attack tank")]
    # Blocks from 1 (1 2 4 5) and 4 (4 5 7 8) are free of soldiers; 2 and 5 would cover spot 6.
    assert tank_moves == ["attack tank A1-1", "attack tank A1-4"]
    state, _ = play(state, 1, "attack tank A1-1")
    cover = state["sections"][0]["rows"][0]["cover"]
    assert [cover[k - 1] for k in (1, 2, 4, 5)] == [["t", 1, 1]] * 4
    assert state["res"][1]["wood"] == 1 and state["honor"][1] == 0  # spot 5's Honor was under a wound


def test_a_tank_in_a_corner_block_covers_only_the_spots_that_exist() -> None:
    state = cleared(2)
    clan(state, 1, "turtle")
    card(state, 2, 1, "berserkers")  # spots 2 5 8
    at(state, {"task": "barracks", "seat": 1, "orders": 1})
    state, _ = play(state, 1, "attack tank C1-4")  # block 4 5 7 8: only 5 and 8 exist
    cover = state["sections"][2]["rows"][0]["cover"]
    assert [k for k in range(1, 10) if cover[k - 1] is not None] == [5, 8]


def test_archers_on_the_wall_earn_two_honor_for_a_defeat_but_bombers_and_crossbowmen_do_not() -> None:
    state = cleared(3)
    state["sections"][0]["firing"] = [[0, "archer"], [1, "bomber"]]
    state["sections"][1]["firing"] = [[2, "crossbowman"]]
    card(state, 0, 1, "berserkers", {2: ["w"], 5: ["w"], 8: ["w"]})
    card(state, 1, 1, "berserkers", {2: ["w"], 5: ["w"], 8: ["w"]})
    at(state, {"task": "defeat"})
    assert state["honor"] == [2, 0, 0]


# --- the new Hordes --------------------------------------------------------------------------------------
def test_a_battering_ram_swaps_up_a_row_and_destroys_a_level_when_it_reaches_the_first_row() -> None:
    state = cleared(2)
    state["sections"][1]["level"] = 3
    card(state, 1, 1, "scouts")
    card(state, 1, 2, "ram")
    events = at(state, {"task": "siege"})
    rows = state["sections"][1]["rows"]
    assert rows[0]["type"] == "ram" and rows[1]["type"] == "scouts"
    assert state["sections"][1]["level"] == 2
    assert "The Battering Ram destroys a wall level of section B" in texts(events)


def test_a_battering_ram_in_the_third_row_only_moves_up() -> None:
    state = cleared(2)
    card(state, 0, 3, "ram")
    at(state, {"task": "siege"})
    assert state["sections"][0]["rows"][1]["type"] == "ram" and state["sections"][0]["level"] == 1


def test_a_siege_trebuchet_takes_only_a_third_row_and_never_closes_up() -> None:
    state = cleared(2)
    state["year"] = 2
    state["horde_deck"] = ["trebuchet", "trebuchet", "trebuchet"]
    card(state, 0, 3, "scouts")
    at(state, {"task": "spring"})
    state, events = ENGINE.resolve_chance(state, random.Random(0))
    assert [s["rows"][2]["type"] for s in state["sections"]] == ["scouts", "trebuchet", "trebuchet"]
    assert "raid the land" in texts(events)  # the third had no third row left
    at(state, {"task": "advance"})
    assert state["sections"][1]["rows"][2]["type"] == "trebuchet"
    assert state["sections"][0]["rows"][0]["type"] == "scouts"


def test_a_siege_trebuchet_destroys_a_wall_level_after_the_assault() -> None:
    state = cleared(2)
    state["sections"][2]["level"] = 2
    card(state, 2, 3, "trebuchet")
    events = at(state, {"task": "siege"})
    assert state["sections"][2]["level"] == 1
    assert "The Siege Trebuchet destroys a wall level of section C" in texts(events)


def test_siege_ladders_in_the_first_row_bring_the_defence_to_zero() -> None:
    state = cleared(2)
    state["sections"][0]["level"] = 4
    state["sections"][0]["firing"] = [[0, "archer"], [1, "archer"]]
    card(state, 0, 2, "ladders")
    assert ENGINE.public_view(state)["sections"][0]["defence"] == 10
    card(state, 0, 1, "ladders")
    assert ENGINE.public_view(state)["sections"][0]["defence"] == 0
    events = at(state, {"task": "assault"})
    assert "Section A is breached: Offensive Power 2 against Defence 0 (Siege Ladders" in texts(events)


def test_a_breach_with_siege_ladders_kills_every_soldier_there_and_destroys_its_war_machines() -> None:
    state = cleared(2, chi=1)
    section = state["sections"][1]
    section["machines"] = ["cannon", "rocket"]
    section["firing"] = [[0, "archer"]]
    section["rest"] = [[1, "horseman"]]
    card(state, 1, 1, "ladders", {1: ["s", 1, "spearman"]})
    state["towers"] = [None, 0, None, None]
    state["tea"] = [0, 1, 2]
    events = at(state, {"task": "assault"})
    section = state["sections"][1]
    assert section["machines"] == [] and section["firing"] == [] and section["rest"] == []
    assert "destroy the War Machines on section B" in texts(events)
    assert state["towers"][1] is None  # Tower Spearmen are removed, not Killed
    assert state["pending"] == {"kind": "save", "seat": 0, "killed": ["archer"]}
    state, _ = play(state, 0, "save 1")
    assert state["pending"] == {"kind": "save", "seat": 1, "killed": ["spearman", "horseman"]}
    assert ENGINE.public_view(state)["machines_left"] == {"ballista": 2, "cannon": 2, "rocket": 2}


def test_the_elite_has_no_special_ability() -> None:
    state = cleared(2)
    card(state, 0, 1, "elite")
    events = at(state, {"task": "siege"}, {"task": "advance"})
    assert [e.kind for e in events] == ["season"]  # only the next Summer begins
    assert state["sections"][0]["level"] == 1 and state["sections"][0]["rows"][0]["type"] == "elite"


# --- destroyed wall levels and total defeat --------------------------------------------------------
def test_a_destroyed_wall_level_sends_every_soldier_on_its_firing_spots_to_the_rest_zone() -> None:
    state = cleared(2)
    state["sections"][2]["level"] = 2
    state["sections"][2]["firing"] = [[0, "archer"], [1, "crossbowman"]]
    card(state, 2, 3, "trebuchet")
    at(state, {"task": "siege"})
    assert state["sections"][2]["firing"] == []
    assert state["sections"][2]["rest"] == [[0, "archer"], [1, "crossbowman"]]


def test_a_section_without_wall_levels_has_no_firing_spots() -> None:
    state = cleared(2)
    state["sections"][0]["level"] = 0
    card(state, 0, 1, "scouts")
    at(state, {"task": "barracks", "seat": 0, "orders": 1})
    assert not any(m.startswith("attack archer A") for m in moves(state, 0))


def test_when_every_wall_level_is_destroyed_every_player_loses_at_once() -> None:
    state = cleared(2)
    state["honor"] = [9, 2]
    state["sections"][0]["level"] = 0
    state["sections"][1]["level"] = 0
    card(state, 2, 3, "trebuchet")
    events = at(state, {"task": "siege"}, {"task": "advance"})
    assert ENGINE.is_over(state)
    assert "every wall level is destroyed" in texts(events)
    assert ENGINE.outcome(state) == [-1.0, -1.0]
    assert ENGINE.balance_stats(state)["wall_fell"] == 1.0


# --- the Black Powder Advisors ---------------------------------------------------------------------------
def test_the_engineer_shoots_any_war_machine_without_its_shot_cost() -> None:
    state = cleared(2)
    state["hands"][0] = ["engineer"]
    state["sections"][2]["machines"] = ["cannon"]
    card(state, 2, 2, "shields")
    at(state, {"task": "clerk", "seat": 0, "advised": False})
    state, events = play(state, 0, "advisor engineer")
    assert "plays the Advisor Engineer" in texts(events)
    # Once played the shot is not optional, and with one target it resolves by itself.
    assert "Orange: shoot cannon C2 (the only choice)." in texts(events)
    assert state["res"][0]["gold"] == 0 and state["honor"][0] == 1
    assert state["pending"] == {"kind": "clerk", "seat": 0, "advised": True}
    assert not any(m.startswith("advisor") for m in moves(state, 0))


def test_the_tower_warden_puts_a_spearman_in_any_tower_and_the_fortifier_builds_for_free() -> None:
    state = cleared(2)
    state["hands"][1] = ["fortifier", "warden"]
    state["reserve"][1]["spearman"] = 2
    at(state, {"task": "clerk", "seat": 1, "advised": False})
    state, _ = play(state, 1, "advisor warden")
    assert moves(state, 1) == ["tower 1", "tower 2", "tower 3", "tower 4"]
    state, _ = play(state, 1, "tower 4")
    assert state["towers"][3] == 1
    at(state, {"task": "clerk", "seat": 1, "advised": False})
    state, _ = play(state, 1, "advisor fortifier")
    state, _ = play(state, 1, "build level C")
    assert state["sections"][2]["level"] == 2 and state["honor"][1] == 2
    assert state["pending"]["kind"] == "tower"  # a built level offers a Tower as usual
