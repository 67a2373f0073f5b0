"""The computer opponents, pure: no Django, no database.

Every registered engine (plus the dice test engine, with chance steps, hidden hands and sealed
simultaneous commits) gets legal moves from both bots at many points of random games; the search bot is
repeatable from its seed, plays the same move whatever the hidden cards are, and beats the random bot.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from games.bots import (
    DEFAULT,
    LEVELS,
    NoLegalMove,
    RandomBot,
    SearchBot,
    UnknownBot,
    bench_bot,
    bot_for,
    kinds,
)
from games.bots.search import CHANCE_REPEATS, _Node, _reward, _Search
from games.engines import registry
from games.engines.base import Engine, Event, Move, State
from tests.support.dicegame import DiceGame

# conftest registers it too; doing it here keeps this module runnable on its own.
if "testdice" not in registry.ENGINES:
    registry.register("testdice", "tests.support.dicegame.DiceGame")

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN_IMPORTS = frozenset({"django", "rest_framework", "celery"})
SLUGS = registry.slugs()


def small_search(**kwargs: Any) -> SearchBot:
    """A search bot cheap enough to ask hundreds of times; playouts only, so it is repeatable."""
    return SearchBot(playouts=kwargs.pop("playouts", 12), root_width=kwargs.pop("root_width", 60), **kwargs)


def positions(engine: Engine, seats: int, seed: str, *, every: int = 1) -> Iterator[tuple[State, int]]:
    """(state, acting seat) at every ``every``-th decision of one random game, chance steps resolved."""
    rng = random.Random(seed)
    state = engine.new_state(seats=seats, options={}, rng=rng)
    number = 0
    while not engine.is_over(state):
        if engine.chance_pending(state):
            state, _ = engine.resolve_chance(state, rng)
            continue
        seat = rng.choice(sorted(engine.actors(state)))
        if number % every == 0:
            yield state, seat
        number += 1
        state, _ = engine.apply(state, seat, rng.choice(engine.legal_moves(state, seat)))


def seat_counts(engine: Engine) -> list[int]:
    return sorted({engine.min_players, engine.max_players})


# --- legality -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("slug", SLUGS)
def test_the_random_bot_plays_only_legal_moves(slug: str) -> None:
    engine = registry.get_engine(slug)
    bot = RandomBot()
    for seats in seat_counts(engine):
        for state, seat in positions(engine, seats, f"random:{slug}:{seats}"):
            assert bot.choose(engine, state, seat, random.Random(1)) in engine.legal_moves(state, seat)


@pytest.mark.parametrize("slug", SLUGS)
def test_the_search_bot_plays_only_legal_moves_at_every_stage_of_the_game(slug: str) -> None:
    engine = registry.get_engine(slug)
    bot = small_search()
    checked = 0
    for seats in seat_counts(engine):
        for game in range(3):
            for state, seat in positions(engine, seats, f"search:{slug}:{seats}:{game}", every=3):
                before = json.dumps(state, sort_keys=True)
                move = bot.choose(engine, state, seat, random.Random(checked))
                assert move in engine.legal_moves(state, seat), f"{slug}, {seats} seats: {move}"
                assert json.dumps(state, sort_keys=True) == before, "the bot changed the real state"
                checked += 1
    assert checked >= 10


def test_the_search_bot_commits_a_sealed_card_while_the_other_seat_has_committed() -> None:
    engine = registry.get_engine("testdice")
    found = 0
    for game in range(10):
        for state, seat in positions(engine, 3, f"sealed:{game}"):
            if any(c is not None for c in state["committed"]):
                move = small_search(playouts=30).choose(engine, state, seat, random.Random(game))
                assert move in engine.legal_moves(state, seat)
                found += 1
    assert found > 0


@pytest.mark.parametrize("kind", list(LEVELS))
def test_every_level_plays_a_legal_move(kind: str) -> None:
    engine = registry.get_engine("wallgo")
    state, seat = next(s for i, s in enumerate(positions(engine, 2, "levels")) if i == 12)
    assert bot_for(kind).choose(engine, state, seat, random.Random(3)) in engine.legal_moves(state, seat)


def test_a_bot_refuses_a_seat_that_has_nothing_to_play() -> None:
    engine = registry.get_engine("wallgo")
    state = engine.new_state(seats=2, options={}, rng=random.Random(0))
    for bot in (RandomBot(), small_search()):
        with pytest.raises(NoLegalMove):
            bot.choose(engine, state, 1, random.Random(0))  # seat 0 places first


# --- the rng --------------------------------------------------------------------------------------------
def test_the_search_bot_is_repeatable_from_its_seed() -> None:
    engine = registry.get_engine("wallgo")
    for state, seat in positions(engine, 2, "repeat", every=9):
        first = small_search(playouts=20).choose(engine, state, seat, random.Random(42))
        again = small_search(playouts=20).choose(engine, state, seat, random.Random(42))
        assert first == again


def test_the_caller_rng_advances_the_same_whatever_the_search_does() -> None:
    # The match's RNG is stored after every bot move; a long or short search must not change what it
    # draws next, or replays of later chance steps would depend on search budgets.
    engine = registry.get_engine("wallgo")
    state, seat = next(positions(engine, 2, "advance"))
    short, long = random.Random(5), random.Random(5)
    small_search(playouts=2).choose(engine, state, seat, short)
    small_search(playouts=40).choose(engine, state, seat, long)
    assert short.random() == long.random()


# --- hidden information ------------------------------------------------------------------------------------
class Spy:
    """An engine that notes every method given the real state object, and passes the call on."""

    def __init__(self, engine: Engine, real: State) -> None:
        self._engine = engine
        self._real = real
        self.touched: list[tuple[str, tuple[Any, ...]]] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._engine, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            if any(arg is self._real for arg in (*args, *kwargs.values())):
                self.touched.append((name, tuple(a for a in args if a is not self._real)))
            return attr(*args, **kwargs)

        return call


def hidden_twins(seed: str) -> Iterator[tuple[State, State, int]]:
    """Dice positions and a twin re-dealt by the stock sampler: the same to the acting seat only."""
    engine = DiceGame()
    shuffle = random.Random(f"{seed}:twin")
    for game in range(12):
        for state, seat in positions(engine, 2 + game % 3, f"{seed}:{game}"):
            twin = engine.sample_hidden(state, seat, shuffle)
            assert engine.view(twin, seat) == engine.view(state, seat)
            yield state, twin, seat


def test_the_search_bot_plays_the_same_move_whatever_it_cannot_see() -> None:
    engine = DiceGame()
    compared = differed = 0
    for state, twin, seat in hidden_twins("blind"):
        differed += state != twin
        bot = SearchBot(playouts=40)
        chosen = bot.choose(engine, state, seat, random.Random(compared))
        assert bot.choose(engine, twin, seat, random.Random(compared)) == chosen
        compared += 1
    assert compared > 50 and differed > 25  # the twins really hide different cards


def test_the_search_bot_reads_the_real_state_only_to_sample_it_and_list_its_own_moves() -> None:
    touched = set()
    for state, _, seat in hidden_twins("spy"):
        spy = Spy(DiceGame(), state)
        SearchBot(playouts=20).choose(spy, state, seat, random.Random(0))  # type: ignore[arg-type]
        for name, args in spy.touched:
            assert name in {"sample_hidden", "legal_moves"}, f"the bot called {name} on the real state"
            assert args[0] == seat, f"the bot asked {name} about seat {args[0]}, not its own"
            touched.add(name)
    assert touched == {"sample_hidden", "legal_moves"}


# --- strength -------------------------------------------------------------------------------------------
def test_the_search_bot_beats_the_random_bot_at_wall_go() -> None:
    engine = registry.get_engine("wallgo")
    wins = 0
    for game in range(10):
        rng = random.Random(f"strength:{game}")
        searcher = game % 2  # it takes each seat in turn
        bot = SearchBot(playouts=30, root_width=300, node_width=8)
        state = engine.new_state(seats=2, options={}, rng=rng)
        while not engine.is_over(state):
            seat = min(engine.actors(state))
            chooser = bot if seat == searcher else RandomBot()
            state, _ = engine.apply(state, seat, chooser.choose(engine, state, seat, rng))
        scores = engine.outcome(state)
        assert scores is not None
        wins += scores[searcher] > scores[1 - searcher]
    assert wins >= 8


class CoinCall(Engine):
    """Seat 0 takes a lottery won three times in four, or has a coin tossed and then calls it; seat 1
    only keeps score. The toss is told to both seats, or, with ``private_toss``, to seat 0 alone."""

    slug = "coincall"
    title = "Coin call (test game)"
    min_players = max_players = 2

    def __init__(self, *, private_toss: bool = False) -> None:
        self.private_toss = private_toss

    def new_state(self, *, seats: int, options: dict[str, str], rng: random.Random) -> State:
        return {"phase": "pick", "coin": None, "won": None}

    def actors(self, state: State) -> frozenset[int]:
        return frozenset({0}) if state["phase"] in ("pick", "call") else frozenset()

    def chance_pending(self, state: State) -> bool:
        return state["phase"] in ("lottery", "toss")

    def resolve_chance(self, state: State, rng: random.Random) -> tuple[State, list[Event]]:
        if state["phase"] == "lottery":
            won = rng.random() < 0.75
            return {**state, "phase": "over", "won": won}, [Event("lottery", "The lottery is drawn.")]
        coin = rng.choice(["heads", "tails"])
        told = frozenset({0}) if self.private_toss else None
        return {**state, "phase": "call", "coin": coin}, [
            Event("toss", f"The coin shows {coin}.", visible_to=told)
        ]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        if seat != 0:
            return []
        if state["phase"] == "pick":
            return [{"take": "lottery"}, {"take": "toss"}]
        return [{"call": "heads"}, {"call": "tails"}] if state["phase"] == "call" else []

    def apply(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        if "take" in move:
            return {**state, "phase": move["take"]}, []
        return {**state, "phase": "over", "won": move["call"] == state["coin"]}, []

    def outcome(self, state: State) -> list[float] | None:
        return None if state["won"] is None else [float(state["won"]), float(not state["won"])]


@pytest.mark.parametrize(("private_toss", "chosen"), [(False, "toss"), (True, "lottery")])
def test_the_search_plans_for_each_outcome_every_seat_is_told_of_but_not_for_a_private_one(
    private_toss: bool, chosen: str
) -> None:
    # The seat sees the toss before it calls, so a toss told to everyone is a sure win. A private outcome
    # (one's own draw) shares one node for all its values, as it must: splitting on it thinned the tree
    # too much in Walls and Stairways. Averaged over the coin's two sides, either call wins half the time.
    engine = CoinCall(private_toss=private_toss)
    state = engine.new_state(seats=2, options={}, rng=random.Random(0))
    # Wider exploration than the levels' 0.4, so that two unlucky first visits do not bury the toss.
    bot = SearchBot(playouts=300, exploration=1.0)
    picks = [bot.choose(engine, state, 0, random.Random(n))["take"] for n in range(5)]
    assert picks == [chosen] * 5


class PenaltyKick(Engine):
    """A shot against a keeper, both chosen sealed at once: a shot to the side the keeper dives to is
    saved, any other scores; a pass back is a draw whatever the keeper does."""

    slug = "penaltykick"
    title = "Penalty kick (test game)"
    min_players = max_players = 2
    CHOICES = (
        [{"shoot": "left"}, {"shoot": "right"}, {"shoot": "pass"}],
        [{"dive": "left"}, {"dive": "right"}, {"dive": "stay"}],
    )

    def new_state(self, *, seats: int, options: dict[str, str], rng: random.Random) -> State:
        return {"chosen": [None, None]}

    def actors(self, state: State) -> frozenset[int]:
        return frozenset(seat for seat in (0, 1) if state["chosen"][seat] is None)

    def chance_pending(self, state: State) -> bool:
        return False

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        return list(self.CHOICES[seat]) if state["chosen"][seat] is None else []

    def apply(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        chosen = list(state["chosen"])
        chosen[seat] = move
        return {"chosen": chosen}, []

    def move_visible_to(self, state: State, seat: int, move: Move) -> frozenset[int] | None:
        return frozenset({seat})

    def sample_hidden(self, state: State, seat: int | None, rng: random.Random) -> State:
        chosen = [
            rng.choice(self.CHOICES[other]) if other != seat and made is not None else made
            for other, made in enumerate(state["chosen"])
        ]
        return {"chosen": chosen}

    def outcome(self, state: State) -> list[float] | None:
        shot, keeper = state["chosen"]
        if shot is None or keeper is None:
            return None
        if shot["shoot"] == "pass":
            return [1.0, 1.0]
        return [0.0, 1.0] if shot["shoot"] == keeper["dive"] else [1.0, 0.0]


@pytest.mark.parametrize("keeper_first", [False, True])
def test_a_sealed_choice_is_planned_as_unseen_whether_the_others_chose_before_it_or_not(
    keeper_first: bool,
) -> None:
    # Against a keeper who cannot see the shot, a shot scores two times in three and beats the sure draw
    # of a pass. A keeper still to choose in the search's tree must not see the shot either: else the
    # seat that commits first (seat order, in a real game) plans against a keeper who always dives the
    # right way and passes, while a seat committing after the others plans against blind choices.
    engine = PenaltyKick()
    state = engine.new_state(seats=2, options={}, rng=random.Random(0))
    if keeper_first:
        state, _ = engine.apply(state, 1, {"dive": "left"})
    bot = SearchBot(playouts=300, exploration=1.0)
    shots = [bot.choose(engine, state, 0, random.Random(n)) for n in range(5)]
    assert {"shoot": "pass"} not in shots, shots


def test_an_outcome_gets_a_branch_of_its_own_once_it_has_come_up_a_few_times() -> None:
    # A die's faces soon do; most of the many ways to draw a deck never do, and share one branch.
    search = _Search(SearchBot(playouts=1), CoinCall(), 0, random.Random(0))
    node = _Node()
    shared = [search._chance_branch(node, "a six") for _ in range(CHANCE_REPEATS - 1)]
    own = search._chance_branch(node, "a six")
    assert shared[0].key == "" and all(b is shared[0] for b in shared) and own.key == "a six"
    assert search._chance_branch(node, "a six") is own
    assert search._chance_branch(node, "a one") is shared[0]


def test_rewards_favour_the_leader_and_split_ties() -> None:
    assert _reward([10.0, 3.0], soft=False)[0] > 0.9
    assert _reward([10.0, 3.0], soft=False)[1] < 0.1
    assert _reward([4.0, 4.0], soft=False) == [0.5, 0.5]
    soft = _reward([21.0, 20.0], soft=True)
    assert 0.5 < soft[0] < 0.75 and soft[0] + soft[1] == pytest.approx(1.0)


def test_a_teammate_is_no_rival_so_both_sides_of_a_two_against_one_game_play_for_the_same_stakes() -> None:
    # The Wall for three: Jon and Mance (seats 0 and 2) against the Others (seat 1).
    watch_win, others_win = [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]
    assert _reward(watch_win, soft=False)[0] < 0.8  # told no sides, Jon counts Mance as a rival he ties
    search = _Search(SearchBot(playouts=1), registry.get_engine("thewall"), 0, random.Random(0))
    assert search._reward(watch_win, soft=False) == [1.0, 0.0, 1.0]
    assert search._reward(others_win, soft=False) == [0.0, 1.0, 0.0]
    estimate = search._reward([0.7, 0.3, 0.7], soft=True)
    assert estimate[0] == estimate[2] and estimate[0] + estimate[1] == pytest.approx(1.0)


class OneInAHundred(Engine):
    """Seat 0 names a number from 0 to 99 and wins if it is 99; the estimate shows which one wins."""

    slug = "oneinahundred"
    title = "One in a hundred (test game)"
    min_players = max_players = 2

    def new_state(self, *, seats: int, options: dict[str, str], rng: random.Random) -> State:
        return {"named": None}

    def actors(self, state: State) -> frozenset[int]:
        return frozenset({0}) if state["named"] is None else frozenset()

    def chance_pending(self, state: State) -> bool:
        return False

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        return [{"name": n} for n in range(100)] if seat == 0 and state["named"] is None else []

    def apply(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        return {"named": move["name"]}, []

    def outcome(self, state: State) -> list[float] | None:
        return None if state["named"] is None else [float(state["named"] == 99), 0.5]

    def evaluate(self, state: State) -> list[float]:
        return self.outcome(state) or [0.5, 0.5]


def test_easy_ranks_only_two_dozen_of_its_own_moves_so_it_misses_what_normal_finds() -> None:
    # With the same budget, the level's root width alone decides whether the winning move is ever tried.
    engine = OneInAHundred()
    state = engine.new_state(seats=2, options={}, rng=random.Random(0))
    found = {
        kind: sum(
            bench_bot(f"{kind}@60").choose(engine, state, 0, random.Random(n)) == {"name": 99}
            for n in range(20)
        )
        for kind in ("easy", "normal")
    }
    assert found["normal"] == 20
    assert 0 < found["easy"] < 12, found  # about a quarter: 24 of the 100 moves


class HiddenRefutation(Engine):
    """Seat 0 settles for a draw or goes for a win; seat 1 then has 100 replies, and only the last one
    beats the attempt. Finding it takes ranking more than two dozen of seat 1's replies."""

    slug = "hiddenrefutation"
    title = "Hidden refutation (test game)"
    min_players = max_players = 2

    def new_state(self, *, seats: int, options: dict[str, str], rng: random.Random) -> State:
        return {"plan": None, "reply": None}

    def actors(self, state: State) -> frozenset[int]:
        if state["plan"] is None:
            return frozenset({0})
        return frozenset({1}) if state["plan"] == "win" and state["reply"] is None else frozenset()

    def chance_pending(self, state: State) -> bool:
        return False

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        if seat not in self.actors(state):
            return []
        return [{"plan": "draw"}, {"plan": "win"}] if seat == 0 else [{"reply": n} for n in range(100)]

    def apply(self, state: State, seat: int, move: Move) -> tuple[State, list[Event]]:
        return {**state, **move}, []

    def outcome(self, state: State) -> list[float] | None:
        if state["plan"] == "draw":
            return [1.0, 1.0]
        if state["reply"] is None:
            return None
        return [0.0, 1.0] if state["reply"] == 99 else [1.0, 0.0]

    def evaluate(self, state: State) -> list[float]:
        return self.outcome(state) or [0.5, 0.5]


def test_hard_ranks_more_replies_where_the_search_comes_back_so_it_finds_a_hidden_refutation() -> None:
    # The same budget: normal ranks two dozen of seat 1's replies and mostly goes for the refuted win;
    # hard ranks its wide sample once the search has come back to that node a few times, and draws.
    engine = HiddenRefutation()
    state = engine.new_state(seats=2, options={}, rng=random.Random(0))
    drawn = {
        kind: sum(
            bench_bot(f"{kind}@300").choose(engine, state, 0, random.Random(n)) == {"plan": "draw"}
            for n in range(20)
        )
        for kind in ("normal", "hard")
    }
    assert drawn["hard"] >= 19, drawn
    assert drawn["normal"] <= 10, drawn  # about a quarter: the refutation among 24 of the 100


class CountingEvaluations:
    """An engine whose ``evaluate`` calls are counted; everything else is the wrapped engine's."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def evaluate(self, state: State) -> list[float]:
        self.calls += 1
        return self.engine.evaluate(state)  # type: ignore[attr-defined]


def test_hard_ranks_its_wide_sample_only_where_the_search_comes_back_so_it_costs_about_normals() -> None:
    # Ranking 96 replies at every node the search reached took twice normal's evaluations here.
    engine = registry.get_engine("wallgo")
    calls = {}
    for kind in ("normal", "hard"):
        counting = CountingEvaluations(engine)
        for state, seat in itertools.islice(positions(engine, 2, "wide", every=6), 5):
            bench_bot(f"{kind}@200").choose(counting, state, seat, random.Random(0))  # type: ignore[arg-type]
        calls[kind] = counting.calls
    assert calls["normal"] < calls["hard"] < 1.5 * calls["normal"], calls


# --- levels ---------------------------------------------------------------------------------------------
def test_levels_name_a_random_bot_and_search_bots_of_growing_strength() -> None:
    assert list(LEVELS) == ["random", "easy", "normal", "hard"] and DEFAULT == "normal"
    assert isinstance(bot_for("random"), RandomBot)
    budgets = [(LEVELS[k].playouts, LEVELS[k].seconds) for k in ("easy", "normal", "hard")]
    assert budgets == sorted(budgets)
    # Compared apart from the budgets, which a tuple's order would let decide alone.
    widths = [LEVELS[k].node_width for k in ("easy", "normal", "hard")]
    assert widths == sorted(widths) and widths[-1] > widths[1]
    roots = [LEVELS[k].root_width for k in ("easy", "normal", "hard")]
    assert roots == sorted(roots) and roots[0] < roots[1]
    for kind in ("easy", "normal", "hard"):
        bot = bot_for(kind)
        assert isinstance(bot, SearchBot) and bot.kind == kind
        assert (bot.node_width, bot.root_width) == (LEVELS[kind].node_width, LEVELS[kind].root_width)
        assert bot.seconds is not None and bot.seconds < 3  # a worker never waits long on one move
    assert [kind for kind, _ in kinds()] == list(LEVELS)


def test_an_unknown_level_is_refused_with_the_known_ones() -> None:
    with pytest.raises(UnknownBot, match="choose one of random, easy, normal, hard"):
        bot_for("grandmaster")
