"""The sentence above the board (``Engine.prompt``): what the step asks of the seat to act, and whom the
others wait for, read from each seat's own view. (Every engine's prompts also run through the random
playouts and the non-interference check of tests/test_conformance.py.)"""

from __future__ import annotations

import random
from collections.abc import Callable

from games.engines import registry
from games.engines.base import State


def reach(slug: str, seats: int, found: Callable[[State], bool], seed: int = 1) -> State:
    """The first position of a seeded random game for which ``found`` holds."""
    engine = registry.get_engine(slug)
    rng = random.Random(seed)
    state = engine.new_state(seats=seats, options={}, rng=random.Random(seed))
    for _ in range(5_000):
        if found(state):
            return state
        assert not engine.is_over(state), "the game ended before the position was found"
        if engine.chance_pending(state):
            state, _ = engine.resolve_chance(state, rng)
        else:
            seat = min(engine.actors(state))
            state, _ = engine.apply(state, seat, rng.choice(engine.legal_moves(state, seat)))
    raise AssertionError("no such position")


def prompts(slug: str, state: State) -> dict[int | None, str]:
    engine = registry.get_engine(slug)
    return {seat: engine.prompt(engine.view(state, seat), seat) for seat in [*range(state["seats"]), None]}


def test_wall_go_asks_for_a_placement_then_a_move_and_a_wall():
    engine = registry.get_engine("wallgo")
    state = engine.new_state(seats=2, options={"rules": "devils_plan"}, rng=random.Random(0))
    assert prompts("wallgo", state) == {
        0: "Place a token on any empty square (4 still to place).",
        1: "Waiting for {seat0} to place a token.",
        None: "Waiting for {seat0} to place a token.",
    }
    for square in ("a1", "g7", "a7", "g1", "c3", "e5", "c5"):
        state, _ = engine.apply(state, min(engine.actors(state)), {"place": square})
    assert prompts("wallgo", state)[0] == "Place your last token on any empty square."
    state, _ = engine.apply(state, 0, {"place": "e3"})
    # Seat 0 placed last, so seat 1 takes the first turn.
    said = prompts("wallgo", state)
    assert said[1].startswith("Choose one of your tokens and move it up to two squares")
    assert "on a side of the square where it stops (20 walls left)" in said[1]
    assert said[0] == said[None] == "Waiting for {seat1} to move a token and build a wall."


def test_a_sealed_wildling_bid_says_only_who_has_yet_to_bid():
    state = reach(
        "wildlings",
        4,
        lambda s: (
            s["phase"] == "bidding"
            and s["bidding"]["kind"] == "wildlings"
            and any(b is not None for b in s["bidding"]["bids"])
            and any(b is None for b in s["bidding"]["bids"])
        ),
    )
    bids = state["bidding"]["bids"]
    waiting = [seat for seat in state["bidding"]["bidders"] if bids[seat] is None]
    said = prompts("wildlings", state)
    for seat in waiting:
        assert said[seat].startswith("Bid Power for the wildling attack (strength ")
        assert said[seat].endswith("sealed: the others see only that you have bid.")
    done = next(seat for seat in state["bidding"]["bidders"] if bids[seat] is not None)
    assert said[done].startswith("Your bid is in; waiting for {seat")
    assert said[None].startswith("Waiting for {seat") and said[None].endswith(" to bid.")
    for text in said.values():  # no amount of any bid in any sentence
        assert not any(f" {bid} " in text or f" {bid}." in text for bid in bids if bid)


def test_the_wall_names_the_leader_whose_turn_it_is():
    state = reach("thewall", 4, lambda s: s["leader"] == 1 and s["pending"] is None and s["spent"] == 0)
    said = prompts("thewall", state)
    assert (
        said[1] == "The Great Other's turn: choose a unit to act, or end the turn (4 of 4 unit turns left)."
    )
    assert said[0] == said[None] == "Waiting for {seat1} to play the Great Other's turn."


def test_the_great_wall_asks_for_a_sealed_command_card():
    state = reach("greatwall", 3, lambda s: (s["pending"] or {}).get("kind") == "command")
    said = prompts("greatwall", state)
    assert said[0] == "Choose your Command card, sealed: the others see only that you have chosen one."
    assert said[None] == "Waiting for {seat0}, {seat1} and {seat2} to choose their Command cards."


def test_walls_and_stairways_asks_the_owner_of_a_wonder_to_block_or_yield():
    state = reach("stairways", 2, lambda s: (s["bid"] or {}).get("stage") == "response")
    bid = state["bid"]
    said = prompts("stairways", state)
    assert said[bid["owner"]].startswith(f"{{seat{bid['seat']}}} bids ")
    assert said[bid["owner"]].endswith("or yield it.")
    assert (
        said[bid["seat"]] == f"Waiting for {{seat{bid['owner']}}} to block the bid for a wonder or yield it."
    )
