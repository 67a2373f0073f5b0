"""Wildlings at the Wall: the game around the attack. Westeros cards, sealed orders and their resolution,
Clash of Kings, House cards, the end and the score, notation, leaving and timing out, the picture.

Positions come from the helpers of ``test_wildlings.py`` (the engine's own ``new_state`` with Houses set
as a scenario needs).
"""

from __future__ import annotations

import json
import random
import xml.etree.ElementTree as ET

import pytest

from games.engines.base import IllegalMove
from games.engines.wildlings import rules
from games.engines.wildlings.cards import DECKS, WESTEROS
from tests.engines.test_wildlings import (
    ENGINE,
    State,
    attack,
    bid,
    levies,
    moves,
    play,
    position,
    powers,
    raises,
    texts,
    westeros,
)


def ordering(state: State) -> State:
    """The position at the orders step of a round (the Westeros phase already done)."""
    state = json.loads(json.dumps(state))
    events: list = []
    rules._run(state, events)
    assert state["phase"] == "orders"
    return state


def orders(state: State, *given: str) -> tuple[State, list]:
    events: list = []
    for seat, text in enumerate(given):
        if seat in ENGINE.actors(state):
            state, more = play(state, seat, text)
            events += more
    return state, events


# --- the engine and the decks ----------------------------------------------------------------------------
def test_the_engine_describes_the_game() -> None:
    assert (ENGINE.slug, ENGINE.title, ENGINE.min_players, ENGINE.max_players) == (
        "wildlings",
        "Wildlings at the Wall",
        3,
        6,
    )
    for text in ENGINE.notation_example.split(", "):
        ENGINE.parse_move(text)


def test_the_westeros_decks_hold_ten_cards_with_3_3_and_5_icons_and_three_attacks() -> None:
    assert [len(DECKS[d]) for d in ("I", "II", "III")] == [10, 10, 10]
    assert [sum(WESTEROS[c].icon for c in DECKS[d]) for d in ("I", "II", "III")] == [3, 3, 5]
    assert DECKS["III"].count("attack") == 3


def test_each_house_starts_with_5_power_3_castles_supply_3_and_three_levies() -> None:
    state = ENGINE.new_state(seats=4, options={}, rng=random.Random(1))
    for house in state["houses"]:
        assert (house["power"], house["castles"], house["supply"]) == (5, 3, 3)
        assert (house["footmen"], house["knights"]) == (2, 1)
        assert house["hand"] == [] and sorted(house["deck"]) == list(rules.HOUSE_DECK)
    throne = state["tracks"]["throne"]
    assert sorted(throne) == [0, 1, 2, 3]
    # Fiefdoms the Iron Throne reversed, King's Court turned by half the table: no House leads twice.
    assert state["tracks"] == {"throne": throne, "fiefdoms": throne[::-1], "court": throne[2:] + throne[:2]}


@pytest.mark.parametrize("seats", [3, 6])
def test_the_starting_places_on_the_tracks_are_dealt_so_every_seat_may_lead_each_track(seats: int) -> None:
    leaders = {track: set() for track in rules.TRACKS}
    for seed in range(60):
        tracks = ENGINE.new_state(seats=seats, options={}, rng=random.Random(seed))["tracks"]
        for track in rules.TRACKS:
            leaders[track].add(tracks[track][0])
    assert all(found == set(range(seats)) for found in leaders.values())


def test_dealing_the_starting_places_keeps_the_wildling_deck_of_the_seed() -> None:
    state = ENGINE.new_state(seats=4, options={}, rng=random.Random(1))
    deck = sorted(rules.WILDLINGS)
    random.Random(1).shuffle(deck)
    assert state["wild_deck"] == deck


def test_the_westeros_chance_step_draws_one_card_of_each_deck_and_fills_every_hand_to_three() -> None:
    state = ENGINE.new_state(seats=3, options={}, rng=random.Random(1))
    after, events = ENGINE.resolve_chance(state, random.Random(7))
    assert all(after["drawn"][d] in DECKS[d] for d in ("I", "II", "III"))
    assert [len(h["hand"]) for h in after["houses"]] == [3, 3, 3]
    assert "Orange draws 3 House cards." in texts(events, None)
    assert "You draw House cards" not in texts(events, None)
    assert "You draw House cards" in texts(events, 0)
    assert not ENGINE.chance_pending(after)
    with pytest.raises(IllegalMove):
        ENGINE.resolve_chance(after, random.Random(7))


def test_hands_are_hidden_but_their_sizes_and_the_discards_are_public() -> None:
    state = position(hands=((0, 3, 4), (1, 1, 2), (2,)), discards=((), (), (4,)))
    public = ENGINE.public_view(state)
    assert [h["hand_size"] for h in public["houses"]] == [3, 3, 1]
    assert public["houses"][2]["discard"] == [4]
    assert ENGINE.private_view(state, 0)["hand"] == [0, 3, 4]
    assert "hand" not in json.dumps(public["houses"]).replace("hand_size", "")
    sample = ENGINE.sample_hidden(state, 0, random.Random(3))
    assert sample["houses"][0]["hand"] == [0, 3, 4]
    assert sorted(sample["houses"][1]["hand"] + sample["houses"][1]["deck"]) == list(rules.HOUSE_DECK)


def test_a_house_short_of_cards_shuffles_its_discards_back_into_its_deck() -> None:
    state = position(hands=((0,), (1, 2, 3), (1, 2, 3)), discards=((1, 1, 2, 2, 3, 4), (), ()))
    after, events = westeros(state, I="supply", II="clash", III="sword")
    assert "Orange shuffles its discarded House cards back into its deck." in texts(events)
    assert len(after["houses"][0]["hand"]) == 3 and after["houses"][0]["discard"] == []


def test_winter_is_coming_reshuffles_its_deck_and_draws_again() -> None:
    state = position()
    state["westeros"]["I"]["left"] = ["winter"]
    state["westeros"]["I"]["used"] = [c for c in DECKS["I"] if c != "winter"]
    after, events = westeros(state, II="clash", III="sword")
    assert "Winter Is Coming. The deck is reshuffled and drawn again." in texts(events)
    assert after["drawn"]["I"] != "winter"
    assert len(after["westeros"]["I"]["left"]) == 9


def test_supply_sets_every_supply_to_the_castles_held() -> None:
    state = position(castles=(5, 3, 1), levies=((2, 1), (2, 1), (2, 1)))
    after, _ = westeros(state, I="supply", II="clash", III="storm")
    assert [h["supply"] for h in after["houses"]] == [5, 3, 1]
    assert levies(after)[2] == (1, 1)  # Supply 1 holds two levies


def test_muster_gives_every_house_with_room_a_footman() -> None:
    state = position(levies=((2, 1), (3, 1), (2, 1)))
    after, _ = westeros(state, I="muster", II="clash", III="storm")
    assert levies(after) == [(3, 1), (3, 1), (3, 1)]


def test_a_throne_of_blades_lets_the_iron_throne_choose_supply_muster_or_nothing() -> None:
    after, _ = westeros(position(), I="blades", II="clash", III="storm")
    assert ENGINE.actors(after) == {0}
    assert moves(after, 0) == ["choose muster", "choose none", "choose supply"]
    after, events = play(after, 0, "choose muster")
    assert "A Throne of Blades: Orange (Iron Throne) chooses muster." in texts(events)
    assert levies(after) == [(3, 1)] * 3


def test_game_of_thrones_gives_one_power_per_two_castles_rounded_up() -> None:
    after, _ = westeros(position(castles=(1, 3, 6)), I="supply", II="thrones", III="storm")
    assert powers(after) == [6, 7, 8]


def test_dark_wings_dark_words_lets_the_king_s_court_choose() -> None:
    state = position()
    court = state["tracks"]["court"][0]
    after, _ = westeros(state, I="supply", II="dark_wings", III="storm")
    assert ENGINE.actors(after) == {court}
    assert moves(after, court) == ["choose clash", "choose none", "choose thrones"]
    after, _ = play(after, court, "choose thrones")
    assert powers(after) == [7, 7, 7]


@pytest.mark.parametrize(("card", "banned"), sorted(rules.RESTRICTIONS.items()))
def test_a_restriction_card_forbids_one_kind_of_order_for_the_round(card: str, banned: str) -> None:
    after, _ = westeros(position(), I="supply", II="clash", III=card)
    while after["phase"] == "bidding":  # Clash of Kings: everyone bids 0 ... ties go to the Iron Throne
        after, _ = ENGINE.apply(after, min(ENGINE.actors(after)), {"influence": 0})
        while after["phase"] == "decide":
            after, _ = ENGINE.apply(after, 0, ENGINE.legal_moves(after, 0)[0])
    assert after["phase"] == "orders"
    assert not any(m["order"] == banned for m in ENGINE.legal_moves(after, 1))
    assert any(m["order"] == banned for m in ENGINE.legal_moves(ordering(position()), 1))
    if banned in ("consolidate", "defend"):
        word = "consolidate" if banned == "consolidate" else "defend 0"
        with raises(f"No {banned} orders may be given this round."):
            play(after, 1, word)


def test_put_to_the_sword_lets_the_fiefdoms_holder_forbid_defence_or_marches() -> None:
    state = position()
    holder = state["tracks"]["fiefdoms"][0]
    after, _ = westeros(state, I="supply", II="thrones", III="sword")
    assert ENGINE.actors(after) == {holder}
    after, _ = play(after, holder, "choose defend")
    assert after["restriction"] == "defend"
    assert not any(m["order"] == "defend" for m in ENGINE.legal_moves(after, 0))


# --- Clash of Kings -------------------------------------------------------------------------------------
def test_clash_of_kings_reorders_each_track_by_sealed_bids_with_ties_ordered_by_the_iron_throne() -> None:
    after, _ = westeros(position(power=(5, 5, 5)), I="supply", II="clash", III="storm")
    assert after["bidding"]["kind"] == "throne"
    assert moves(after, 0)[:2] == ["influence 0", "influence 1"]
    after, _ = play(after, 0, "influence 1")
    after, _ = play(after, 1, "influence 3")
    after, events = play(after, 2, "influence 1")
    assert "Bids for the Iron Throne track revealed: Orange 1, Blue 3, Green 1." in texts(events)
    # Orange (still on the Iron Throne) orders the tie between itself and Green.
    assert ENGINE.actors(after) == {0}
    assert moves(after, 0) == ["pick orange", "pick green"]
    after, events = play(after, 0, "pick green")
    assert after["tracks"]["throne"] == [1, 2, 0]
    assert powers(after) == [4, 2, 4]
    assert after["bidding"]["kind"] == "fiefdoms"
    # Blue, the new Iron Throne, orders the ties from now on.
    after, _ = play(after, 0, "influence 0")
    after, _ = play(after, 1, "influence 0")
    after, _ = play(after, 2, "influence 0")
    assert ENGINE.actors(after) == {1}
    after, _ = play(after, 1, "pick blue")
    after, _ = play(after, 1, "pick orange")
    assert after["tracks"]["fiefdoms"] == [1, 0, 2]


# --- orders ---------------------------------------------------------------------------------------------
def test_orders_are_sealed_and_revealed_together_after_the_last_commit() -> None:
    state = ordering(position(hands=((0, 1, 2), (1, 2, 3), (1, 2, 4))))
    assert ENGINE.actors(state) == {0, 1, 2}
    state, events = play(state, 0, "march blue 2")
    assert texts(events, None) == "Orange has committed."
    assert ENGINE.public_view(state)["committed"] == [True, False, False]
    assert ENGINE.private_view(state, 0)["order"] == {"order": "march", "target": 1, "card": 2}
    assert "march" not in json.dumps(ENGINE.view(state, 1))
    board = ENGINE.render_svg(ENGINE.view(state, 1), 1)
    assert "committed" in board and "march on Blue" not in board
    assert "your order is sealed" in ENGINE.render_svg(ENGINE.view(state, 0), 0)
    with raises("You have already committed"):
        play(state, 0, "consolidate")
    assert ENGINE.move_visible_to(state, 1, {"order": "consolidate"}) == {1}
    state, _ = play(state, 1, "consolidate")
    state, events = play(state, 2, "defend 4")
    reveal = next(e for e in events if e.kind == "reveal")
    assert reveal.text == "Orders revealed: Orange: march blue 2; Blue: consolidate; Green: defend 4."


def test_the_orders_a_house_may_give() -> None:
    state = ordering(position(hands=((2, 2, 4), (1, 1, 2), (0, 1, 2)), castles=(3, 0, 6)))
    assert moves(state, 0) == [
        "consolidate",
        "defend 2",
        "defend 4",
        "march green 2",  # Blue has no Castle to take
        "march green 4",
        "muster footmen",
        "muster knight",
        "raid blue",
        "raid green",
    ]


def test_a_raid_spoils_a_consolidation_and_takes_one_power() -> None:
    state = ordering(position(power=(5, 5, 5)))
    state, events = orders(state, "raid blue", "consolidate", "consolidate")
    assert "Orange raids Blue and spoils its consolidate order, taking 1 Power." in texts(events)
    assert powers(state) == [6, 4, 7]


def test_raids_resolve_in_iron_throne_order_so_the_first_raid_spoils_a_later_one() -> None:
    state = ordering(position(power=(5, 5, 5)))
    state, events = orders(state, "raid blue", "raid orange", "consolidate")
    assert "Orange raids Blue and spoils its raid order." in texts(events)
    assert powers(state) == [5, 5, 7]


def test_a_raid_on_a_muster_cancels_it_and_a_raid_on_a_defence_finds_nothing() -> None:
    state = ordering(position())
    state, events = orders(state, "raid blue", "muster knight", "raid orange")
    assert levies(state)[1] == (2, 1)
    state = ordering(position())
    state, events = orders(state, "defend 0", "raid orange", "consolidate")
    assert "Blue raids Orange, who has nothing to spoil." in texts(events)


def test_a_march_with_the_stronger_side_takes_a_castle_and_the_loser_loses_a_footman() -> None:
    state = ordering(position(hands=((0, 1, 2), (0, 1, 2), (0, 1, 2))))
    state, events = orders(state, "march blue 2", "consolidate", "consolidate")
    # Orange: levies 4 + card 2 = 6 against Blue's levies 4 (no defend order).
    assert "Orange marches on Blue with 6 against 4: Orange takes a Castle." in texts(events)
    assert [h["castles"] for h in state["houses"]] == [4, 2, 3]
    assert levies(state)[1] == (1, 1)
    assert state["houses"][0]["discard"] == [2]


def test_a_defend_order_adds_its_card_and_one_and_the_card_is_spent_only_if_attacked() -> None:
    state = ordering(position(hands=((0, 1, 2), (0, 1, 2), (0, 1, 2))))
    state, events = orders(state, "march blue 2", "defend 2", "defend 1")
    assert "with 6 against 7: Blue holds" in texts(events)
    assert levies(state)[0] == (1, 1)
    assert state["houses"][1]["discard"] == [2]
    assert state["houses"][2]["discard"] == []


def test_a_tied_battle_goes_to_the_house_higher_on_fiefdoms() -> None:
    state = position(hands=((0, 1, 2), (0, 1, 2), (0, 1, 2)))
    state["tracks"]["fiefdoms"] = [0, 1, 2]
    state, events = orders(ordering(state), "march blue 0", "consolidate", "march orange 0")
    assert (
        "Orange marches on Blue with 4 against 4, the tie going to the better place on Fiefdoms: "
        in texts(events)
    )
    assert "Green marches on Orange with 4 against 4" in texts(events)
    assert "Fiefdoms: Orange holds." in texts(events)
    assert [h["castles"] for h in state["houses"]] == [4, 2, 3]


def test_a_muster_order_recruits_within_the_supply_cap() -> None:
    state = ordering(position(levies=((2, 1), (3, 0), (1, 1)), supply=(3, 3, 3)))
    state, _ = orders(state, "muster footmen", "muster knight", "muster footmen")
    assert levies(state) == [(3, 1), (3, 1), (3, 1)]
    full = ordering(position(levies=((3, 1), (2, 1), (2, 1))))
    assert not any(m["order"] == "muster" for m in ENGINE.legal_moves(full, 0))


def test_consolidation_gives_one_power_plus_one_per_two_castles_up_to_20() -> None:
    state = ordering(position(power=(5, 19, 5), castles=(2, 3, 5)))
    state, _ = orders(state, "consolidate", "consolidate", "consolidate")
    assert powers(state) == [7, 20, 8]


def test_seven_castles_win_at_once() -> None:
    state = ordering(position(castles=(6, 2, 1), hands=((4, 1, 2), (0, 1, 2), (0, 1, 2))))
    state, events = orders(state, "march blue 4", "consolidate", "consolidate")
    assert state["phase"] == "over"
    assert "Game over: Orange holds 7 Castles." in texts(events)
    outcome = ENGINE.outcome(state)
    assert outcome[0] == max(outcome) and outcome[0] >= 7
    assert state["stats"]["ended by 7 Castles"] == 1


def test_the_game_ends_after_round_10_ranked_by_castles_then_supply_then_power() -> None:
    state = position(castles=(4, 4, 1), supply=(3, 4, 6), power=(20, 0, 9))
    state["round"] = 10
    state, events = orders(ordering(state), "defend 0", "defend 0", "defend 0")
    assert state["phase"] == "over"
    assert "Game over: all 10 rounds are played." in texts(events)
    assert ENGINE.outcome(state) == [4.32, 4.4, 1.609]
    assert ENGINE.legal_moves(state, 0) == [] and not ENGINE.chance_pending(state)


def test_a_round_ends_with_the_next_westeros_phase() -> None:
    state, _ = orders(ordering(position()), "consolidate", "consolidate", "consolidate")
    assert state["round"] == 2 and ENGINE.chance_pending(state)


# --- notation, leaving, timing out ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "bid 0",
        "bid 12",
        "influence 3",
        "consolidate",
        "raid blue",
        "march sky 4",
        "defend 0",
        "muster knight",
        "muster footmen",
        "pick green",
        "choose fiefdoms",
        "discard 2",
        "take 4",
    ],
)
def test_every_move_reads_back_from_its_notation(text: str) -> None:
    move = ENGINE.parse_move(f"  {text.upper()} ")
    assert ENGINE.format_move(move) == text
    assert ENGINE.click_path(move)


def test_nonsense_is_refused_with_a_hint() -> None:
    with raises("is not a move"):
        ENGINE.parse_move("march the wall")


def test_a_timed_out_house_bids_0_or_consolidates() -> None:
    state, _ = attack(position(), 8)
    after, events = ENGINE.skip(state, 1, random.Random(0))
    assert after["bidding"]["bids"][1] == 0
    assert events[0].text == "Blue is out of time."
    state = ordering(position())
    after, _ = ENGINE.skip(state, 2, random.Random(0))
    assert after["orders"][2] == {"order": "consolidate"}


def test_a_house_that_leaves_during_a_bid_is_no_longer_awaited_and_the_bid_goes_on() -> None:
    state, _ = attack(position(top=("silence",)), 4)
    state, _ = play(state, 0, "bid 2")
    state, _ = play(state, 1, "bid 2")
    state, events = ENGINE.eliminate(state, 2)
    assert "Green leaves the game" in texts(events)
    assert state["phase"] == "decide"  # the two 2s tie for highest: Orange decides
    state, _ = play(state, 0, "pick blue")
    assert ENGINE.actors(state) == {0, 1}  # the orders of the two Houses left


def test_a_leaving_iron_throne_hands_its_decision_to_the_next_on_the_track() -> None:
    state, _ = bid(attack(position(power=(5, 5, 5), top=("skinchanger",)), 12)[0], 4, 1, 1)
    assert ENGINE.actors(state) == {0}
    state, _ = ENGINE.eliminate(state, 0)
    assert ENGINE.actors(state) == {1}
    assert moves(state, 1) == ["pick blue", "pick green"]


# --- the picture ----------------------------------------------------------------------------------------
def test_the_board_offers_the_targets_of_every_legal_move_and_is_well_formed() -> None:
    state = ordering(position())
    view = ENGINE.view(state, 1)
    svg = ENGINE.render_svg(view, 1, interactive=True)
    ET.fromstring(svg)
    for move in ENGINE.legal_moves(state, 1):
        for target in ENGINE.click_path(move):
            assert f'data-target="{target}"' in svg
    assert "data-target" not in ENGINE.render_svg(view, 1, interactive=False)
    assert "<title" in svg


def test_the_board_shows_bids_only_after_the_reveal() -> None:
    state, _ = attack(position(top=("silence",)), 8)
    state, _ = play(state, 0, "bid 3")
    state, _ = play(state, 1, "bid 2")
    before = ENGINE.render_svg(ENGINE.view(state, 2), 2)
    assert "committed" in before and "Orange 3" not in before
    state, _ = play(state, 2, "bid 1")
    after = ENGINE.render_svg(ENGINE.view(state, 2), 2)
    assert "Orange 3, Blue 2, Green 1" in after
