"""Rating played moves against the search bot's choice (games/bots/review.py), pure: no Django."""

from __future__ import annotations

import json
import random

from games.bots.review import BLUNDER, MISTAKE, SCALES, Scale, mark_for, move_review
from games.engines import registry
from games.engines.base import State
from tests.bots.test_bots import Spy, hidden_twins
from tests.support.dicegame import DiceGame

WALLGO = registry.get_engine("wallgo")
SMALL = Scale("points", mistake=2.0, blunder=5.0, playouts=20)


def wallgo_after(*texts: str) -> tuple[State, int]:
    """A two-player Wall Go position after ``texts``, and the seat to move in it."""
    state = WALLGO.new_state(seats=2, options={}, rng=random.Random(0))
    for text in texts:
        state, _ = WALLGO.apply(state, min(WALLGO.actors(state)), WALLGO.parse_move(text))
    return state, min(WALLGO.actors(state))


def test_a_token_placed_in_the_corner_against_a_central_one_is_a_blunder() -> None:
    state, seat = wallgo_after("d4")
    review = move_review(WALLGO, state, seat, {"place": "a1"}, seed="corner")
    assert review.mark == BLUNDER
    assert review.loss >= SCALES["wallgo"].blunder
    assert review.best_move != {"place": "a1"}
    assert review.best == WALLGO.format_move(review.best_move)
    assert review.best_move in WALLGO.legal_moves(state, seat)


def test_the_bots_own_choice_gets_no_mark() -> None:
    state, seat = wallgo_after("d4", "c3")
    first = move_review(WALLGO, state, seat, {"place": "a1"}, seed="own")
    again = move_review(WALLGO, state, seat, first.best_move, seed="own")
    assert (again.mark, again.loss, again.best_move) == ("", 0.0, first.best_move)


def test_the_same_position_and_seed_give_the_same_rating() -> None:
    state, seat = wallgo_after("d4", "c3", "e5", "b2", "f6", "c5", "d2", "e3")
    move = random.Random(4).choice(WALLGO.legal_moves(state, seat))
    first = move_review(WALLGO, state, seat, move, seed="match:9", scale=SMALL)
    assert move_review(WALLGO, state, seat, move, seed="match:9", scale=SMALL) == first


def test_a_move_read_back_from_json_is_rated_like_the_legal_move_it_spells() -> None:
    # Seat 1 places d4 and, as seat 0 places last, takes the first turn with it.
    state, seat = wallgo_after("c3", "d4", "e5", "b2", "f6", "c5", "d2", "e3")
    move = WALLGO.parse_move("d4-d6/d6n")
    assert move_review(
        WALLGO, state, seat, json.loads(json.dumps(move)), seed="x", scale=SMALL
    ) == move_review(WALLGO, state, seat, move, seed="x", scale=SMALL)


def test_a_move_the_seat_could_not_make_is_refused() -> None:
    state, seat = wallgo_after("d4")
    try:
        move_review(WALLGO, state, seat, {"place": "d4"}, seed="taken", scale=SMALL)
    except ValueError as exc:
        assert "legal" in str(exc)
    else:
        raise AssertionError("a square already taken was rated")


def test_marks_follow_the_games_thresholds() -> None:
    scale = SCALES["wallgo"]
    assert mark_for(scale.mistake - 0.1, scale) == ""
    assert mark_for(scale.mistake, scale) == MISTAKE
    assert mark_for(scale.blunder, scale) == BLUNDER
    assert all(0 < s.mistake < s.blunder and s.playouts > 0 for s in SCALES.values())
    assert set(SCALES) <= set(registry.slugs())


def test_a_rating_is_the_same_whatever_the_mover_could_not_see() -> None:
    engine = DiceGame()
    compared = differed = 0
    for state, twin, seat in hidden_twins("review"):
        if compared == 40:
            break
        played = engine.legal_moves(state, seat)[-1]
        differed += state != twin
        seed = f"twin:{compared}"
        assert move_review(engine, twin, seat, played, seed=seed, scale=SMALL) == move_review(
            engine, state, seat, played, seed=seed, scale=SMALL
        )
        compared += 1
    assert compared == 40 and differed > 10


def test_a_rating_reads_the_real_position_only_to_sample_it_and_list_the_movers_moves() -> None:
    touched = set()
    for index, (state, _, seat) in enumerate(hidden_twins("review-spy")):
        if index == 20:
            break
        spy = Spy(DiceGame(), state)
        played = DiceGame().legal_moves(state, seat)[0]
        move_review(spy, state, seat, played, seed="spy", scale=SMALL)  # type: ignore[arg-type]
        for name, args in spy.touched:
            assert name in {"sample_hidden", "legal_moves"}, f"the rating called {name} on the real state"
            assert args[0] == seat
            touched.add(name)
    assert touched == {"sample_hidden", "legal_moves"}
