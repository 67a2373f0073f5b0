"""The test-only dice-and-cards engine on its own: chance steps, sealed commits, reveal and notation."""

from __future__ import annotations

import random

import pytest

from games.engines.base import IllegalMove, State
from tests.support.dicegame import DiceGame

GAME = DiceGame()


def _dealt(seats: int = 2, *, rounds: str = "3", seed: int = 1) -> State:
    state = GAME.new_state(seats=seats, options={"rounds": rounds}, rng=random.Random(seed))
    state, _ = GAME.resolve_chance(state, random.Random(seed))
    return state


def _position(*hands: list[int], die: int = 4) -> State:
    """Round one after the deal with chosen hands and die, so a test reads as the position it describes."""
    state = _dealt(len(hands))
    held = {c for hand in hands for c in hand}
    # The deck keeps every other card, so no card is ever in two places.
    deck = [c for c in state["deck"] + [c for h in state["hands"] for c in h] if c not in held]
    return {**state, "hands": [sorted(h) for h in hands], "deck": deck, "die": die}


def test_a_chance_step_is_pending_right_after_setup() -> None:
    state = GAME.new_state(seats=3, options={}, rng=random.Random(1))
    assert GAME.chance_pending(state)
    assert state["hands"] == [[], [], []]
    assert len(state["deck"]) == 12


def test_nobody_acts_while_a_chance_step_is_pending() -> None:
    state = GAME.new_state(seats=2, options={}, rng=random.Random(1))
    assert GAME.actors(state) == frozenset()
    assert GAME.legal_moves(state, 0) == []
    with pytest.raises(IllegalMove, match="Wait"):
        GAME.apply(state, 0, {"play": state["deck"][-1]})


def test_the_chance_step_deals_two_cards_each_and_rolls_the_die_publicly() -> None:
    state = GAME.new_state(seats=3, options={}, rng=random.Random(1))
    state, events = GAME.resolve_chance(state, random.Random(7))
    assert [len(h) for h in state["hands"]] == [2, 2, 2]
    assert len(state["deck"]) == 6
    assert 1 <= state["die"] <= 6
    assert GAME.actors(state) == frozenset({0, 1, 2})
    roll = [e for e in events if e.kind == "roll"]
    assert len(roll) == 1 and roll[0].visible_to is None
    private_draws = [e for e in events if e.kind == "draw" and e.visible_to is not None]
    assert sorted(next(iter(e.visible_to)) for e in private_draws) == [0, 1, 2]


def test_the_same_rng_gives_the_same_roll() -> None:
    state = GAME.new_state(seats=2, options={}, rng=random.Random(3))
    assert GAME.resolve_chance(state, random.Random(9)) == GAME.resolve_chance(state, random.Random(9))


def test_a_sealed_commit_is_hidden_from_the_other_seats() -> None:
    state = _position([3, 9], [5, 11])
    after, events = GAME.apply(state, 0, {"play": 9})
    assert GAME.actors(after) == frozenset({1})
    assert GAME.view(after, 1)["committed"] == [True, False]
    assert GAME.view(after, 1)["private"] == {"hand": [5, 11], "committed": None}
    assert GAME.view(after, 0)["private"] == {"hand": [3], "committed": 9}
    # The other seat's page cannot tell which card was committed.
    other, _ = GAME.apply(state, 0, {"play": 3})
    assert GAME.view(other, 1) == GAME.view(after, 1)
    assert [e.text for e in events if e.visible_for(1)] == ["Orange has committed a card."]
    assert [e.text for e in events if e.visible_to == frozenset({0})] == ["You committed 9."]


def test_a_seat_that_has_committed_cannot_commit_again() -> None:
    state = _position([3, 9], [5, 11])
    after, _ = GAME.apply(state, 0, {"play": 9})
    assert GAME.legal_moves(after, 0) == []
    with pytest.raises(IllegalMove, match="already committed"):
        GAME.apply(after, 0, {"play": 3})


def test_the_card_closest_to_twice_the_die_wins_the_point_at_the_reveal() -> None:
    state = _position([3, 9], [5, 11], die=5)
    state, _ = GAME.apply(state, 0, {"play": 9})
    state, events = GAME.apply(state, 1, {"play": 5})
    assert state["points"] == [1, 0]
    assert state["discard"] == [5, 9]
    assert state["last_reveal"] == {"round": 1, "die": 5, "cards": [9, 5], "winner": 0}
    assert GAME.chance_pending(state) and state["round"] == 2
    assert any(e.kind == "reveal" and e.visible_to is None and "Orange 9" in e.text for e in events)


def test_two_cards_equally_close_to_twice_the_die_score_nothing() -> None:
    state = _position([3, 9], [5, 11], [7, 12], die=3)
    state, _ = GAME.apply(state, 0, {"play": 3})
    state, _ = GAME.apply(state, 1, {"play": 5})
    state, events = GAME.apply(state, 2, {"play": 7})
    assert state["points"] == [0, 0, 0]
    assert state["last_reveal"]["winner"] is None
    assert "nobody scores" in events[-1].text


def test_the_game_ends_after_the_chosen_number_of_rounds() -> None:
    rng = random.Random(4)
    state = GAME.new_state(seats=2, options={"rounds": "3"}, rng=rng)
    rounds = 0
    while not GAME.is_over(state):
        if GAME.chance_pending(state):
            state, _ = GAME.resolve_chance(state, rng)
            rounds += 1
            continue
        for seat in sorted(GAME.actors(state)):
            state, _ = GAME.apply(state, seat, GAME.legal_moves(state, seat)[0])
    assert rounds == 3
    assert state["end_reason"] == "all 3 rounds are played"
    assert GAME.outcome(state) == [float(p) for p in state["points"]]
    assert sum(state["points"]) <= 3


def test_four_seats_end_when_the_deck_cannot_refill_every_hand() -> None:
    rng = random.Random(5)
    state = GAME.new_state(seats=4, options={"rounds": "5"}, rng=rng)
    while not GAME.is_over(state):
        if GAME.chance_pending(state):
            state, _ = GAME.resolve_chance(state, rng)
        else:
            seat = min(GAME.actors(state))
            state, _ = GAME.apply(state, seat, GAME.legal_moves(state, seat)[-1])
    # 12 cards: 8 dealt, 4 drawn after round one, none left after round two.
    assert state["round"] == 2
    assert state["end_reason"] == "the deck cannot refill every hand"


def test_an_eliminated_seat_discards_its_hand_and_acts_no_more() -> None:
    state = _position([3, 9], [5, 11], [2, 12], die=6)
    state, _ = GAME.apply(state, 0, {"play": 9})
    state, _ = GAME.apply(state, 1, {"play": 11})
    # Seat 2 was the last one awaited, so its leaving reveals the round.
    state, events = GAME.eliminate(state, 2)
    assert state["eliminated"] == [2]
    assert state["hands"][2] == []
    assert state["discard"] == [2, 9, 11, 12]
    assert state["points"] == [0, 1, 0]
    assert [e.kind for e in events] == ["eliminate", "reveal"]
    state, _ = GAME.resolve_chance(state, random.Random(1))
    assert GAME.actors(state) == frozenset({0, 1})


def test_the_game_ends_when_only_one_seat_is_left() -> None:
    state, _ = GAME.eliminate(_dealt(), 1)
    assert GAME.is_over(state)
    assert state["end_reason"] == "only one player is left"


@pytest.mark.parametrize("text", ["play 7", "PLAY 7", "  play   7 ", "Play7"])
def test_the_notation_reads_play_and_a_card_in_any_case_and_spacing(text: str) -> None:
    assert GAME.parse_move(text) == {"play": 7}


@pytest.mark.parametrize(
    ("text", "reason"),
    [("play 13", "no card 13"), ("play", "not a move"), ("draw 3", "not a move"), ("7", "not a move")],
)
def test_the_notation_refuses_other_text_with_a_sentence(text: str, reason: str) -> None:
    with pytest.raises(IllegalMove, match=reason):
        GAME.parse_move(text)


def test_a_move_is_written_play_and_clicked_on_its_card() -> None:
    assert GAME.format_move({"play": 12}) == "play 12"
    assert GAME.click_path({"play": 12}) == ["card-12"]


def test_a_boolean_is_not_mistaken_for_the_card_one() -> None:
    state = _position([1, 9], [5, 11])
    with pytest.raises(IllegalMove, match="not a move"):
        GAME.apply(state, 0, {"play": True})


def test_the_board_offers_only_the_own_hand_and_only_while_the_seat_must_act() -> None:
    state = _position([3, 9], [5, 11])
    svg = GAME.render_svg(GAME.view(state, 0), 0, interactive=True)
    assert 'data-target="card-3"' in svg and 'data-target="card-9"' in svg
    assert "card-5" not in svg and "card-11" not in svg
    after, _ = GAME.apply(state, 0, {"play": 3})
    assert "data-target" not in GAME.render_svg(GAME.view(after, 0), 0, interactive=True)
    assert "data-target" not in GAME.render_svg(GAME.view(state, 0), 0, interactive=False)


def test_a_sample_for_a_seat_keeps_its_own_hand_and_every_size() -> None:
    state = _position([3, 9], [5, 11], [2, 12])
    state, _ = GAME.apply(state, 1, {"play": 11})
    sample = GAME.sample_hidden(state, 0, random.Random(2))
    assert sample["hands"][0] == [3, 9]
    assert [len(h) for h in sample["hands"]] == [2, 1, 2]
    assert sample["committed"][1] is not None and sample["committed"][0] is None
    cards = sample["deck"] + [c for h in sample["hands"] for c in h] + [sample["committed"][1]]
    assert sorted(cards) == list(range(1, 13))
