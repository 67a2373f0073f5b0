"""Wildlings at the Wall: one scenario per step of the seed's wildling attack and per wildling card.

Pure: no database. Positions start from the engine's own ``new_state`` and then set what the scenario
needs (Power, levies, hands, the wildling deck's top card, the Westeros cards left to draw); an attack is
started by putting the rules' own "attack" task on the agenda, exactly as a Westeros card does. The rest
of the game (orders, Westeros cards, tracks, the end) is in ``test_wildlings_game.py``.
"""

from __future__ import annotations

import json
import random
import re
from contextlib import AbstractContextManager
from typing import Any

import pytest

from games.engines.base import Event, IllegalMove
from games.engines.wildlings import rules
from games.engines.wildlings.cards import WILDLINGS
from games.engines.wildlings.rules import HOUSE_DECK, Wildlings

ENGINE = Wildlings()
State = dict[str, Any]


# --- helpers -------------------------------------------------------------------------------------------
def position(
    seats: int = 3,
    *,
    power: tuple[int, ...] | None = None,
    hands: tuple[tuple[int, ...], ...] | None = None,
    levies: tuple[tuple[int, int], ...] | None = None,
    supply: tuple[int, ...] | None = None,
    castles: tuple[int, ...] | None = None,
    discards: tuple[tuple[int, ...], ...] | None = None,
    top: tuple[str, ...] = (),
    threat: int = 2,
) -> State:
    """A position between two steps: Houses as given, ``top`` the first wildling cards in order."""
    state = ENGINE.new_state(seats=seats, options={}, rng=random.Random(0))
    for seat, house in enumerate(state["houses"]):
        if power is not None:
            house["power"] = power[seat]
        if levies is not None:
            house["footmen"], house["knights"] = levies[seat]
        if supply is not None:
            house["supply"] = supply[seat]
        if castles is not None:
            house["castles"] = castles[seat]
        hand = list(hands[seat]) if hands is not None else [0, 1, 2]
        discard = list(discards[seat]) if discards is not None else []
        deck = list(HOUSE_DECK)
        for card in hand + discard:
            deck.remove(card)
        house["hand"], house["discard"], house["deck"] = sorted(hand), sorted(discard), deck
    # Scenarios set the starting places in seat order (Orange first on the Iron Throne), as they read them.
    order = list(range(seats))
    state["tracks"] = {
        "throne": order,
        "fiefdoms": order[::-1],
        "court": order[seats // 2 :] + order[: seats // 2],
    }
    state["wild_deck"] = list(top) + [c for c in state["wild_deck"] if c not in top]
    state["threat"] = threat
    state["phase"] = "run"
    state["agenda"] = [["orders"], ["end_round"]]
    assert json.loads(json.dumps(state)) == state
    return state


def attack(state: State, strength: int | None = None) -> tuple[State, list[Event]]:
    """The rules' own attack task, as a Westeros card or the threat at 12 starts it."""
    state = json.loads(json.dumps(state))
    state["agenda"].insert(0, ["attack", strength, None, False])
    events: list[Event] = []
    rules._run(state, events)
    return state, events


def bid(state: State, *values: int) -> tuple[State, list[Event]]:
    """Every awaited House bids, in seat order: ``values[seat]``."""
    events: list[Event] = []
    for seat in sorted(ENGINE.actors(state)):
        state, more = ENGINE.apply(state, seat, {"bid": values[seat]})
        events += more
    return state, events


def play(state: State, seat: int, text: str) -> tuple[State, list[Event]]:
    return ENGINE.apply(state, seat, ENGINE.parse_move(text))


def texts(events: list[Event], seat: int | None = None) -> str:
    return "\n".join(e.text for e in events if e.visible_for(seat))


def moves(state: State, seat: int) -> list[str]:
    return [ENGINE.format_move(m) for m in ENGINE.legal_moves(state, seat)]


def raises(reason: str) -> AbstractContextManager[Any]:
    return pytest.raises(IllegalMove, match=re.escape(reason))


def levies(state: State) -> list[tuple[int, int]]:
    return [(h["footmen"], h["knights"]) for h in state["houses"]]


def powers(state: State) -> list[int]:
    return [h["power"] for h in state["houses"]]


def stacked(state: State, **cards: str) -> State:
    """Leave one card in each named Westeros deck, so the chance step draws exactly that card."""
    state = json.loads(json.dumps(state))
    for deck, card in cards.items():
        state["westeros"][deck]["left"] = [card]
    state["phase"] = "westeros"
    state["agenda"] = []
    return state


def westeros(state: State, **cards: str) -> tuple[State, list[Event]]:
    return ENGINE.resolve_chance(stacked(state, **cards), random.Random(3))


# Westeros draws that do nothing at the start: Supply (Supply already equals Castles), Game of Thrones
# is avoided, Put to the Sword asks the Fiefdoms holder (answered "none" where it matters).
QUIET = {"I": "supply", "II": "thrones", "III": "sword"}


# --- the threat track ----------------------------------------------------------------------------------
def test_the_threat_starts_at_2_and_the_wildling_deck_holds_the_nine_cards() -> None:
    state = ENGINE.new_state(seats=3, options={}, rng=random.Random(5))
    assert state["threat"] == 2
    assert sorted(state["wild_deck"]) == sorted(WILDLINGS)
    assert len(WILDLINGS) == 9
    assert ENGINE.chance_pending(state)


def test_each_wildling_icon_advances_the_threat_one_space_up_to_three_in_one_phase() -> None:
    state, events = westeros(position(threat=2), I="summer", II="dark_wings", III="sea")
    assert state["threat"] == 8
    assert "3 wildling icons: the threat rises from 2 to 8." in texts(events)
    quiet, _ = westeros(position(threat=2), I="supply", II="clash", III="sword")
    assert quiet["threat"] == 2


def test_the_threat_stops_at_12_and_then_the_wildlings_attack_with_strength_12() -> None:
    state, events = westeros(position(threat=10), I="summer", II="dark_wings", III="sea")
    assert state["phase"] == "bidding"
    assert state["bidding"]["strength"] == 12
    assert "The wildlings attack with strength 12." in texts(events)
    assert ENGINE.actors(state) == {0, 1, 2}
    assert state["stats"]["attacks at 12"] == 1


def test_a_wildlings_attack_card_attacks_at_the_current_threat() -> None:
    state, _ = westeros(position(threat=4, power=(9, 9, 9)), I="supply", II="clash", III="attack")
    # Clash of Kings (deck II) comes first: its three track bids, then the attack from deck III.
    for _ in range(3):
        assert state["bidding"]["kind"] != "wildlings"
        state, _ = ENGINE.apply(state, 0, {"influence": 0})
        state, _ = ENGINE.apply(state, 1, {"influence": 1})
        state, _ = ENGINE.apply(state, 2, {"influence": 2})
    assert state["bidding"]["kind"] == "wildlings"
    assert state["bidding"]["strength"] == 4


def test_the_wildlings_can_attack_twice_in_one_westeros_phase() -> None:
    state = position(threat=10, power=(12, 12, 12), top=("silence", "skinchanger"))
    state, _ = westeros(state, I="summer", II="thrones", III="attack")
    assert state["bidding"]["strength"] == 12
    state, _ = bid(state, 1, 2, 3)  # 6 against 12: the wildlings win, the threat goes back to 8
    assert state["threat"] == 8
    # Game of Thrones, then the "Wildlings Attack" card: a second attack, at the threat as it is now.
    assert state["phase"] == "bidding"
    assert state["bidding"]["strength"] == 8
    state, _ = bid(state, 4, 3, 2)
    assert state["threat"] == 0
    assert state["stats"]["two attacks in one Westeros phase"] == 1
    assert state["phase"] == "orders"


# --- the bids ------------------------------------------------------------------------------------------
def test_every_house_bids_at_once_and_may_bid_only_the_power_it_has() -> None:
    state, _ = attack(position(power=(5, 2, 0)), 6)
    # The House without Power can only bid 0: that choice is made for it.
    assert ENGINE.actors(state) == {0, 1}
    assert moves(state, 1) == ["bid 0", "bid 1", "bid 2"]
    with raises("You have only 2 Power to bid."):
        play(state, 1, "bid 3")
    with raises("bid 3"):
        ENGINE.apply(state, 1, {"bid": True})


def test_a_bid_stays_sealed_until_the_last_house_commits() -> None:
    start, _ = attack(position(power=(5, 5, 5)), 8)
    state, events = play(start, 0, "bid 4")
    public = ENGINE.public_view(state)
    assert public["committed"] == [True, False, False]
    assert public["houses"][0]["power"] == 5  # nothing is taken before the reveal
    assert ENGINE.private_view(state, 0)["bid"] == 4
    assert ENGINE.private_view(state, 1)["bid"] is None
    for viewer in (None, 1, 2):
        view = ENGINE.view(state, viewer)
        svg = ENGINE.render_svg(view, viewer, interactive=True)
        assert "4" not in json.dumps(view["private"])
        assert "bid 4" not in svg and "you bid" not in svg
        assert "bid 4" not in texts(events, viewer)
    assert texts(events, None) == "Orange has committed."
    assert "You bid 4 Power." in texts(events, 0)
    # Another bid leaves the same public trace: the same view for the others, the same public log.
    other, other_events = play(start, 0, "bid 1")
    for viewer in (None, 1, 2):
        assert ENGINE.view(other, viewer) == ENGINE.view(state, viewer)
        assert texts(other_events, viewer) == texts(events, viewer)


def test_a_sealed_move_is_readable_in_the_log_by_its_house_alone() -> None:
    state, _ = attack(position(), 8)
    assert ENGINE.move_visible_to(state, 1, {"bid": 2}) == {1}
    state, _ = bid(state, 3, 2, 1)
    assert state["phase"] != "bidding"
    tie, _ = bid(attack(position(power=(5, 5, 5), top=("skinchanger",)), 12)[0], 4, 1, 1)
    assert ENGINE.move_visible_to(tie, 0, {"pick": 2}) is None


def test_a_house_that_committed_cannot_bid_again() -> None:
    state, _ = attack(position(), 8)
    state, _ = play(state, 0, "bid 1")
    with raises("You have already committed"):
        play(state, 0, "bid 2")


def test_the_bids_are_revealed_together_in_one_event_and_added_up() -> None:
    state, _ = attack(position(power=(5, 5, 5), top=("silence",)), 8)
    state, _ = play(state, 0, "bid 4")
    state, _ = play(state, 1, "bid 1")
    state, events = play(state, 2, "bid 3")
    reveal = [e for e in events if e.kind == "reveal"]
    assert len(reveal) == 1 and reveal[0].visible_to is None
    assert reveal[0].text.startswith(
        "Bids revealed: Orange 4, Blue 1, Green 3. The Night's Watch has 8 against 8"
    )
    assert reveal[0].data["total"] == 8
    assert ENGINE.public_view(state)["last_bids"]["bids"] == [4, 1, 3]


def test_bids_equal_to_the_strength_defeat_the_wildlings_and_reset_the_threat_to_0() -> None:
    state, _ = attack(position(power=(5, 5, 5), top=("silence",), threat=8), 8)
    state, events = bid(state, 4, 1, 3)
    assert "the Night's Watch holds" in texts(events)
    assert state["threat"] == 0


def test_a_wildling_victory_moves_the_threat_back_two_spaces_but_never_below_0() -> None:
    state, _ = attack(position(power=(5, 5, 5), top=("silence",), threat=10), 10)
    state, events = bid(state, 3, 3, 3)
    assert "the wildlings break through" in texts(events)
    assert state["threat"] == 6
    state, _ = attack(position(power=(5, 5, 5), top=("silence",), threat=2), 2)
    state, _ = bid(state, 0, 1, 0)
    assert state["threat"] == 0


def test_every_bid_is_discarded_whether_the_watch_wins_or_loses() -> None:
    won, _ = bid(attack(position(power=(5, 5, 5), top=("silence",)), 6)[0], 4, 1, 3)
    lost, _ = bid(attack(position(power=(5, 5, 5), top=("silence",)), 12)[0], 4, 1, 3)
    assert powers(won) == powers(lost) == [1, 4, 2]


def test_the_top_wildling_card_is_revealed_then_buried_at_the_bottom() -> None:
    state = position(top=("crow_killers", "silence"))
    state, events = bid(attack(state, 4)[0], 3, 2, 1)
    assert "The wildling card is Crow Killers." in texts(events)
    assert state["wild_deck"][-1] == "crow_killers"
    assert state["wild_deck"][0] == "silence"
    assert len(state["wild_deck"]) == 9
    assert ENGINE.public_view(state)["wildling_deck"] == {
        "size": 9,
        "buried": ["crow_killers"],
        "buried_names": ["Crow Killers"],
    }
    assert texts(events).index("Crow Killers is buried") > texts(events).index("The wildling card is")


def test_the_iron_throne_holder_names_the_lowest_bidder_among_a_tie() -> None:
    state, _ = attack(position(power=(5, 5, 5), top=("skinchanger",)), 12)
    state, _ = bid(state, 4, 1, 1)  # Blue and Green both bid 1
    assert state["phase"] == "decide"
    assert ENGINE.actors(state) == {0}  # Orange holds the Iron Throne
    assert moves(state, 0) == ["pick blue", "pick green"]
    assert ENGINE.public_view(state)["pending"]["options"] == [1, 2]
    state, events = play(state, 0, "pick green")
    assert "Orange (Iron Throne) names Green the lowest bidder." in texts(events)
    assert powers(state) == [0, 2, 0]  # after bids 1/4/4: Green loses all, the others 2


def test_the_iron_throne_holder_names_the_highest_bidder_among_a_tie_even_when_it_is_one_of_them() -> None:
    state, _ = attack(position(power=(5, 5, 5), top=("skinchanger",)), 6)
    state, _ = bid(state, 3, 3, 0)
    assert moves(state, 0) == ["pick orange", "pick blue"]
    state, _ = play(state, 0, "pick orange")
    assert powers(state) == [5, 2, 5]


def test_only_the_king_s_court_holder_sees_the_top_wildling_card() -> None:
    state, _ = attack(position(top=("mammoth", "horde")), 6)
    court = state["tracks"]["court"][0]
    assert ENGINE.private_view(state, court)["wildling_top"] == "mammoth"
    for seat in range(3):
        if seat != court:
            assert "wildling_top" not in ENGINE.private_view(state, seat)
    assert "mammoth" not in json.dumps(ENGINE.public_view(state))
    own = ENGINE.render_svg(ENGINE.view(state, court), court)
    assert "Mammoth Riders" in own
    for viewer in (None, *(s for s in range(3) if s != court)):
        assert "Mammoth Riders" not in ENGINE.render_svg(ENGINE.view(state, viewer), viewer)


def test_sampling_hidden_information_keeps_the_top_card_for_the_king_s_court_holder_alone() -> None:
    state, _ = attack(position(top=("mammoth",)), 6)
    court = state["tracks"]["court"][0]
    other = next(s for s in range(3) if s != court)
    tops = {ENGINE.sample_hidden(state, court, random.Random(k))["wild_deck"][0] for k in range(20)}
    assert tops == {"mammoth"}
    tops = {ENGINE.sample_hidden(state, other, random.Random(k))["wild_deck"][0] for k in range(40)}
    assert len(tops) > 3


def test_the_deck_order_never_appears_in_any_view() -> None:
    state, _ = attack(position(), 6)
    hidden = state["wild_deck"][1:]
    for viewer in (None, 0, 1, 2):
        dumped = json.dumps(ENGINE.view(state, viewer))
        assert not any(card in dumped for card in hidden)
        assert "left" not in json.dumps(ENGINE.view(state, viewer)["westeros"]["I"]["left"])


# --- the nine wildling cards -----------------------------------------------------------------------------
def resolve(card: str, *, watch: bool, **setup: Any) -> tuple[State, list[Event]]:
    """Orange bids 3, Blue 2, Green 1: Orange is the highest bidder, Green the lowest."""
    setup.setdefault("power", (5, 5, 5))
    setup.setdefault("top", (card,))
    state, _ = attack(position(**setup), 6 if watch else 12)
    return bid(state, 3, 2, 1)


def test_silence_at_the_wall_does_nothing_either_way() -> None:
    for watch in (True, False):
        state, events = resolve("silence", watch=watch)
        assert levies(state) == [(2, 1)] * 3
        assert powers(state) == [2, 3, 4]
        assert "Silence at the Wall: nothing happens." in texts(events)


def test_preemptive_raid_reward_brings_a_second_attack_of_6_without_the_highest_bidder() -> None:
    state, events = resolve("preemptive", watch=True, top=("preemptive", "silence"))
    assert state["threat"] == 0
    assert state["bidding"]["strength"] == 6
    assert state["bidding"]["excluded"] == 0
    assert ENGINE.actors(state) == {1, 2}
    assert "Orange takes no part" in texts(events)
    state, events = bid(state, 0, 3, 4)
    assert "The wildling card is Silence at the Wall." in texts(events)
    assert state["threat"] == 0  # the follow-up attack does not move the threat
    assert state["wild_deck"][-2:] == ["preemptive", "silence"]
    assert state["stats"]["follow-up attacks"] == 1


def test_preemptive_raid_lets_the_lowest_bidder_lose_two_levies_or_two_places_on_its_best_track() -> None:
    state, _ = resolve("preemptive", watch=False)
    assert ENGINE.actors(state) == {2}
    # Green is second on Iron Throne and Fiefdoms... its best place decides which tracks are offered.
    best = min(state["tracks"][t].index(2) for t in rules.TRACKS)
    offered = [t for t in ("court", "fiefdoms", "throne") if state["tracks"][t].index(2) == best]
    assert moves(state, 2) == ["choose levies", *(f"choose {t}" for t in offered)]
    lost, _ = play(state, 2, "choose levies")
    assert levies(lost) == [(2, 1), (2, 1), (0, 1)]
    track = offered[0]
    before = state["tracks"][track].index(2)
    dropped, _ = play(state, 2, f"choose {track}")
    assert dropped["tracks"][track].index(2) == min(before + 2, 2)
    assert levies(dropped) == [(2, 1)] * 3


def test_crow_killers_reward_makes_two_footmen_knights() -> None:
    state, _ = resolve("crow_killers", watch=True, levies=((3, 0), (2, 1), (2, 1)))
    assert levies(state) == [(1, 2), (2, 1), (2, 1)]


def test_crow_killers_turns_every_knight_of_the_lowest_and_two_of_the_others_into_footmen() -> None:
    state, _ = resolve("crow_killers", watch=False, levies=((1, 3), (0, 1), (0, 3)))
    assert levies(state) == [(3, 1), (1, 0), (3, 0)]


def test_rattleshirt_s_raiders_reward_raises_the_supply() -> None:
    state, _ = resolve("rattleshirt", watch=True)
    assert [h["supply"] for h in state["houses"]] == [4, 3, 3]


def test_rattleshirt_s_raiders_cut_supply_and_levies_above_the_new_cap_are_disbanded() -> None:
    state, events = resolve("rattleshirt", watch=False, levies=((2, 2), (2, 1), (2, 2)))
    assert [h["supply"] for h in state["houses"]] == [2, 2, 1]
    # Caps are Supply + 1: 3, 3, 2. Orange drops a footman, Green two footmen; Blue fits.
    assert levies(state) == [(1, 2), (2, 1), (0, 2)]
    assert "Green loses 2 footmen" in texts(events)


def test_massing_on_the_milkwater_reward_returns_every_discarded_house_card() -> None:
    state, _ = resolve("milkwater", watch=True, hands=((0,), (1, 2), (1, 2)), discards=((3, 4), (), ()))
    assert state["houses"][0]["hand"] == [0, 3, 4]
    assert state["houses"][0]["discard"] == []


def test_massing_on_the_milkwater_discards_the_lowest_s_strongest_cards_and_one_card_of_each_other() -> None:
    state, events = resolve("milkwater", watch=False, hands=((0, 4), (2,), (0, 2, 2)))
    assert state["houses"][2]["hand"] == [0]
    assert state["houses"][2]["discard"] == [2, 2]
    # Blue holds one card only: it keeps it. Orange chooses which card to discard, in private.
    assert ENGINE.actors(state) == {0}
    assert state["pending"]["kind"] == "milkwater_other"
    assert ENGINE.public_view(state)["pending"]["options"] is None
    assert moves(state, 0) == ["discard 0", "discard 4"]
    state, events = play(state, 0, "discard 0")
    assert state["houses"][0]["hand"] == [4]
    assert state["houses"][1]["hand"] == [2]
    assert "Orange discards a House card of strength 0." in texts(events)


def test_a_king_beyond_the_wall_reward_puts_the_highest_bidder_on_top_of_a_track_of_its_choice() -> None:
    state, _ = resolve("king", watch=True)
    # Orange already holds the Iron Throne: only the other two tracks are offered.
    assert moves(state, 0) == ["choose court", "choose fiefdoms"]
    state, _ = play(state, 0, "choose fiefdoms")
    assert state["tracks"]["fiefdoms"][0] == 0


def test_a_king_beyond_the_wall_sends_the_lowest_to_the_bottom_of_every_track_and_the_others_to_one() -> None:
    state, _ = resolve("king", watch=False)
    assert all(state["tracks"][t][-1] == 2 for t in rules.TRACKS)
    # The others answer in Iron Throne order: Orange, then Blue.
    assert ENGINE.actors(state) == {0}
    assert moves(state, 0) == ["choose court", "choose fiefdoms"]
    state, _ = play(state, 0, "choose court")
    assert ENGINE.actors(state) == {1}
    state, _ = play(state, 1, "choose fiefdoms")
    assert state["tracks"]["court"][-1] == 0
    assert state["tracks"]["fiefdoms"][-1] == 1
    assert state["phase"] == "orders"


def test_mammoth_riders_reward_takes_back_one_discarded_card_of_choice() -> None:
    state, _ = resolve("mammoth", watch=True, hands=((0,), (1,), (1,)), discards=((3, 4), (), ()))
    assert moves(state, 0) == ["take 3", "take 4"]
    state, _ = play(state, 0, "take 4")
    assert state["houses"][0]["hand"] == [0, 4]
    assert state["houses"][0]["discard"] == [3]


def test_mammoth_riders_cost_the_lowest_three_levies_and_the_others_two() -> None:
    state, _ = resolve("mammoth", watch=False, levies=((2, 2), (1, 2), (2, 2)))
    assert levies(state) == [(0, 2), (0, 1), (0, 1)]


def test_the_horde_descends_reward_musters_at_once() -> None:
    state, _ = resolve("horde", watch=True)
    assert moves(state, 0) == ["choose footmen", "choose knight"]
    state, _ = play(state, 0, "choose knight")
    assert levies(state)[0] == (2, 2)


def test_the_horde_descends_costs_the_lowest_two_levies_and_the_others_one() -> None:
    state, _ = resolve("horde", watch=False)
    assert levies(state) == [(1, 1), (1, 1), (0, 1)]


def test_skinchanger_scout_reward_gives_the_highest_bidder_its_bid_back() -> None:
    state, _ = resolve("skinchanger", watch=True)
    assert powers(state) == [5, 3, 4]


def test_skinchanger_scout_takes_all_power_of_the_lowest_and_two_of_each_other() -> None:
    state, _ = resolve("skinchanger", watch=False)
    assert powers(state) == [0, 1, 0]


def test_every_wildling_card_has_a_scenario_on_both_sides() -> None:
    names = {n for n in globals() if n.startswith("test_")}
    words = {
        "silence": "silence",
        "preemptive": "preemptive",
        "crow_killers": "crow_killers",
        "rattleshirt": "rattleshirt",
        "milkwater": "milkwater",
        "king": "king_beyond",
        "mammoth": "mammoth",
        "horde": "horde",
        "skinchanger": "skinchanger",
    }
    for card, word in words.items():
        assert card in WILDLINGS
        assert len([n for n in names if word in n]) >= (1 if card == "silence" else 2), card
