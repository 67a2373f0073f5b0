"""The match's random steps: a committed secret seed, one HMAC-SHA256 stream per numbered step, and
nothing else (not the computer players) drawing from it."""

from __future__ import annotations

import hashlib
import hmac
import pickle
import random

import pytest

from games import services
from games.engines import registry
from games.models import Match, Move
from games.records import plain
from games.rng import StepRandom, rng_dump, seed_commitment, seed_new, step_stream

SEED = "5e" * 32


def block(step: int, number: int) -> bytes:
    return hmac.new(bytes.fromhex(SEED), f"{step}:{number}".encode(), hashlib.sha256).digest()


def test_a_step_s_stream_is_the_hmac_blocks_of_the_seed_and_the_step_number():
    rng = step_stream(SEED, 7)
    assert rng.getrandbits(256) == int.from_bytes(block(7, 0), "big")
    assert rng.getrandbits(512) == int.from_bytes(block(7, 1) + block(7, 2), "big")


def test_getrandbits_keeps_the_top_bits_of_the_next_whole_bytes():
    rng = step_stream(SEED, 0)
    assert rng.getrandbits(3) == block(0, 0)[0] >> 5
    assert rng.getrandbits(8) == block(0, 0)[1]
    assert rng.getrandbits(0) == 0


def test_random_is_53_bits_of_the_stream():
    expected = (int.from_bytes(block(2, 0)[:7], "big") >> 3) / 2**53
    assert step_stream(SEED, 2).random() == expected


def test_the_same_seed_and_step_draw_the_same_and_other_steps_draw_otherwise():
    def draws(rng: random.Random) -> list:
        deck = list(range(52))
        rng.shuffle(deck)
        return [deck, rng.randrange(6), rng.choice("abcdef"), rng.sample(range(100), 5), rng.random()]

    assert draws(step_stream(SEED, 3)) == draws(step_stream(SEED, 3))
    assert draws(step_stream(SEED, 3)) != draws(step_stream(SEED, 4))
    assert draws(step_stream(SEED, 3)) != draws(step_stream("5f" * 32, 3))


def test_the_state_round_trips_and_a_copy_draws_on_from_where_it_was():
    rng = step_stream(SEED, 1)
    rng.random()
    state = rng.getstate()
    copied = pickle.loads(pickle.dumps(rng))
    ahead = [rng.random() for _ in range(5)]
    assert [copied.random() for _ in range(5)] == ahead
    rng.setstate(state)
    assert [rng.random() for _ in range(5)] == ahead
    rng.seed()
    assert rng.getrandbits(256) == int.from_bytes(block(1, 0), "big")
    rng.seed(9)
    assert rng.step == 9 and rng.getrandbits(256) == int.from_bytes(block(9, 0), "big")
    with pytest.raises(TypeError):
        rng.seed("something else")


def test_the_commitment_is_the_sha256_of_the_seed_s_bytes():
    assert seed_commitment(SEED) == hashlib.sha256(bytes.fromhex(SEED)).hexdigest()
    with pytest.raises(ValueError):
        seed_commitment("not hex")
    fresh = {seed_new() for _ in range(3)}
    assert len(fresh) == 3 and all(len(seed) == 64 for seed in fresh)


def test_every_engine_deals_the_same_opening_from_the_same_step():
    for slug in registry.slugs():
        engine = registry.get_engine(slug)
        seats = max(engine.min_players, 2)
        options = engine.resolve_options(None, seats=seats)
        first = engine.new_state(seats=seats, options=options, rng=step_stream(SEED, 0))
        again = engine.new_state(seats=seats, options=options, rng=step_stream(SEED, 0))
        assert plain(first) == plain(again), slug


# --- the match's steps -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_new_match_commits_to_a_seed_and_keeps_no_mersenne_twister(started_match):
    match = started_match(game="testdice")
    assert len(match.seed) == 64 and match.seed_commitment == seed_commitment(match.seed)
    assert match.rng_state is None and match.provable
    assert match.chance_steps == 1  # step 0 dealt the opening position
    assert match.seed_revealed == ""


@pytest.mark.django_db
def test_each_chance_step_draws_from_its_own_numbered_stream(started_match):
    match = started_match(game="testdice")
    opening = match.engine_state
    line = services.chance_resolve(match_id=match.pk, version=match.version)
    assert line.chance_step == 1
    match.refresh_from_db()
    assert match.chance_steps == 2
    expected, events = match.engine.resolve_chance(opening, step_stream(match.seed, 1))
    assert line.events == plain([event.to_dict() for event in events])
    assert match.engine_state == plain(expected)


@pytest.mark.django_db
def test_a_move_draws_no_step(started_match, alice):
    match = started_match()
    line = services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")
    match.refresh_from_db()
    assert line.chance_step is None and match.chance_steps == 1


@pytest.mark.django_db
def test_the_computer_chooses_with_a_generator_of_its_own(alice, monkeypatch):
    match = services.match_create(creator=alice, game="wallgo", seat_count=2, bots=["random"])
    services.move_play(match_id=match.pk, user=alice, expected_version=0, text="d4")
    match.refresh_from_db()
    seen = []

    def choose(self, engine, state, seat, rng):
        seen.append(rng)
        return engine.legal_moves(state, seat)[0]

    monkeypatch.setattr("games.bots.RandomBot.choose", choose)
    before = (match.seed, match.chance_steps)
    services.bot_move(match_id=match.pk, version=match.version, position=1)
    match.refresh_from_db()
    assert (match.seed, match.chance_steps) == before
    assert Move.objects.filter(match=match).last().chance_step is None
    assert not isinstance(seen[0], StepRandom)


@pytest.mark.django_db
def test_a_match_from_before_seeds_keeps_drawing_from_its_mersenne_twister(started_match):
    match = started_match(game="testdice")
    Match.objects.filter(pk=match.pk).update(
        seed="", seed_commitment="", chance_steps=0, rng_state=rng_dump(random.Random(4))
    )
    match.refresh_from_db()
    assert not match.provable
    line = services.chance_resolve(match_id=match.pk, version=match.version)
    _, events = match.engine.resolve_chance(match.engine_state, random.Random(4))
    assert line.chance_step is None and line.events == plain([event.to_dict() for event in events])
    match.refresh_from_db()
    assert match.rng_state != rng_dump(random.Random(4))  # the generator moved on
