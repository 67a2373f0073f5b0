"""The engine contract, checked over every engine in the registry (OpenSpiel's ``random_sim_test``).

Random playouts, dict round-trips, log replay and non-interference run on every registered game plus the
small test engine with dice, hidden hands and simultaneous moves, so a new engine gets all of this for
free and a rule of the contract that the site relies on cannot quietly break. Every game is seeded by
its slug and number, so a failure message names a game that replays the same way.
"""

from __future__ import annotations

import ast
import copy
import json
import random
import re
import subprocess
import sys
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from games.engines import registry
from games.engines.base import Engine, Event, IllegalMove, Move, State
from games.rng import rng_dump, rng_load

# conftest registers it too; doing it here as well keeps this module runnable on its own.
if "testdice" not in registry.ENGINES:
    registry.register("testdice", "tests.support.dicegame.DiceGame")

ROOT = Path(__file__).resolve().parents[1]
# Pure code: the engines, the computer opponents built on them, and the test engine.
PURE_SOURCES = [ROOT / "games" / "engines", ROOT / "games" / "bots", ROOT / "tests" / "support"]
FORBIDDEN_IMPORTS = frozenset({"django", "rest_framework", "celery"})
SLUGS = registry.slugs()

PLAYOUTS = 200
STEP_CAP = 2_000  # far above any real game's length; reaching it means the game does not end
OTHER_MOVES_PER_STEP = 5
# Checks that cost a pass over the whole move list (Wall Go lists thousands of moves a turn) run on this
# share of positions only, and on every position of the first games of each engine.
DEEP_SHARE = 0.1
DEEP_GAMES = 8


# --- playing ------------------------------------------------------------------------------------------
@dataclass
class Step:
    """One step of a game: a chance step (``seat`` None) or a move, with the position before and after."""

    number: int
    state: State
    seat: int | None
    move: Move | None
    listed: list[Move]  # legal_moves(state, seat) as the playout saw them
    after: State
    events: list[Event]
    rng_before: list[Any] | None = None  # the chance rng as stored before a chance step


@dataclass
class Game:
    engine: Engine
    seats: int
    options: dict[str, str]
    seed: str
    start: State
    steps: list[Step] = field(default_factory=list)

    @property
    def final(self) -> State:
        return self.steps[-1].after if self.steps else self.start

    def where(self, step: int | None = None) -> str:
        at = "" if step is None else f", step {step}"
        return f"{self.engine.slug} game {self.seed!r} ({self.seats} seats, options {self.options}{at})"


def _dump(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, allow_nan=False)


def _assert_json(obj: Any, where: str) -> None:
    """Stored in a JSON column and sent to browsers: only JSON types, string keys, no NaN."""
    assert json.loads(json.dumps(obj, allow_nan=False)) == obj, f"{where}: does not survive a JSON round trip"


def _configs(engine: Engine) -> list[tuple[int, dict[str, str]]]:
    """Every seat count and every option value: the full product while small, else each value once."""
    counts = list(range(engine.min_players, engine.max_players + 1))
    names = sorted(engine.options)
    combos = [
        dict(zip(names, values, strict=True))
        for values in product(*(engine.options[n].choices for n in names))
    ]
    if len(combos) * len(counts) <= 48:
        return [(n, combo) for combo in combos for n in counts]
    defaults = {name: option.default for name, option in engine.options.items()}
    configs = [(n, dict(defaults)) for n in counts]
    for name in names:
        for value in engine.options[name].choices:
            if value != defaults[name]:
                configs.append((counts[len(configs) % len(counts)], {**defaults, name: value}))
    return configs


def _new_game(engine: Engine, seats: int, options: dict[str, str], seed: str) -> Game:
    start = engine.new_state(seats=seats, options=options, rng=random.Random(f"{seed}:setup"))
    return Game(engine=engine, seats=seats, options=options, seed=seed, start=start)


def _play(
    game: Game, *, stop_after: int | None = None, before_step: Callable[[State], None] | None = None
) -> Game:
    """Random legal moves (and chance steps) until the game ends; fails if it does not end in time.

    Separate generators for setup, chance and choices, so a replay can drive chance alone.
    """
    engine = game.engine
    choose = random.Random(f"{game.seed}:choose:{len(game.steps)}")
    chance = random.Random(f"{game.seed}:chance:{len(game.steps)}")
    state = game.final
    while not engine.is_over(state):
        number = len(game.steps)
        if stop_after is not None and number >= stop_after:
            return game
        if number >= STEP_CAP:
            pytest.fail(f"{game.where()}: not over after {STEP_CAP} steps")
        if before_step is not None:
            before_step(state)
        snapshot = _dump(state)
        if engine.chance_pending(state):
            rng_before = rng_dump(chance)
            after, events = engine.resolve_chance(state, chance)
            step = Step(number, state, None, None, [], after, events, rng_before)
        else:
            actors = engine.actors(state)
            assert actors, (
                f"{game.where(number)}: nobody may act, no chance step is pending, yet it is not over"
            )
            seat = choose.choice(sorted(actors))
            listed = engine.legal_moves(state, seat)
            assert listed, f"{game.where(number)}: seat {seat} is asked to act but has no legal move"
            move = choose.choice(listed)
            after, events = engine.apply(state, seat, move)
            step = Step(number, state, seat, move, listed, after, events)
        assert _dump(state) == snapshot, f"{game.where(number)}: the step changed its input state"
        game.steps.append(step)
        state = after
    return game


def _played(engine: Engine, number: int) -> Game:
    seats, options = _configs(engine)[number % len(_configs(engine))]
    return _play(_new_game(engine, seats, options, f"{engine.slug}-{number}"))


def _assert_events(events: list[Event], seats: int, where: str) -> None:
    for event in events:
        assert isinstance(event, Event), f"{where}: {event!r} is not an Event"
        assert event.visible_to is None or event.visible_to <= set(range(seats)), (
            f"{where}: {event} has bad seats"
        )
        raw = event.to_dict()
        _assert_json(raw, f"{where}: event {event.kind}")
        assert Event.from_dict(json.loads(json.dumps(raw))) == event, f"{where}: {event} does not round-trip"


def _assert_over(game: Game) -> None:
    engine, final = game.engine, game.final
    where = game.where(len(game.steps))
    _assert_json(final, where)
    outcome = engine.outcome(final)
    assert isinstance(outcome, list), f"{where}: over, yet outcome is {outcome!r}"
    assert len(outcome) == game.seats and all(type(x) is float for x in outcome), (
        f"{where}: outcome {outcome}"
    )
    assert engine.actors(final) == frozenset(), f"{where}: seats are still asked to act after the end"
    assert not engine.chance_pending(final), f"{where}: a chance step is pending after the end"
    for seat in range(game.seats):
        assert engine.legal_moves(final, seat) == [], f"{where}: seat {seat} has moves after the end"


def _rekeyed(obj: Any) -> Any:
    """The same value with every dict's keys in another order, like PostgreSQL jsonb returns them."""
    if isinstance(obj, dict):
        return {k: _rekeyed(obj[k]) for k in sorted(obj, key=lambda k: (len(str(k)), str(k)), reverse=True)}
    if isinstance(obj, list):
        return [_rekeyed(x) for x in obj]
    return obj


def _refused(engine: Engine, state: State, seat: int, move: Any, why: str, where: str) -> None:
    # The caller checks once per position that nothing changed the state; a dump per call costs too much.
    try:
        engine.apply(state, seat, move)
    except IllegalMove as refused:
        assert str(refused).strip(), f"{where}: {why} was refused without a reason"
    else:
        pytest.fail(f"{where}: {why} was accepted (apply must refuse what legal_moves does not list)")


def _key(move: Move) -> Any:
    """A hashable stand-in for a move, to find duplicates without a JSON dump per move."""
    try:
        return frozenset(move.items())
    except TypeError:  # a move with list or dict values
        return _dump(move)


# --- the tests ----------------------------------------------------------------------------------------
@pytest.fixture(params=SLUGS, ids=SLUGS)
def engine(request: pytest.FixtureRequest) -> Engine:
    return registry.get_engine(request.param)


def test_random_playouts_follow_the_contract(engine: Engine) -> None:
    assert len(_configs(engine)) <= PLAYOUTS, "more configurations than playouts: some would never run"
    for number in range(PLAYOUTS):
        game = _played(engine, number)
        sampler = random.Random(f"{game.seed}:check")
        seen: dict[int, list[Move]] = {}  # moves once listed for a seat, to try again when no longer legal
        for step in game.steps:
            where = game.where(step.number)
            state = step.state
            snapshot = _dump(state)
            _assert_json(state, where)
            _assert_events(step.events, game.seats, where)
            _check_position(engine, game, step, sampler, seen, deep=number < DEEP_GAMES, where=where)
            assert _dump(state) == snapshot, f"{where}: a call on this position changed the state"
        _assert_over(game)
        snapshot = _dump(game.final)
        for seat, pool in seen.items():
            _refused(engine, game.final, seat, pool[-1], "a move after the end", game.where())
        assert _dump(game.final) == snapshot, f"{game.where()}: a refused move changed the final state"


def _check_position(
    engine: Engine,
    game: Game,
    step: Step,
    sampler: random.Random,
    seen: dict[int, list[Move]],
    *,
    deep: bool,
    where: str,
) -> None:
    state = step.state
    assert engine.outcome(state) is None, f"{where}: an outcome before the end"
    actors = engine.actors(state)
    if step.seat is None:
        assert actors == frozenset(), f"{where}: seats {sorted(actors)} act while chance is pending"
        for seat in range(game.seats):
            assert engine.legal_moves(state, seat) == [], f"{where}: moves while chance is pending"
        if seen:
            seat = sampler.choice(sorted(seen))
            _refused(engine, state, seat, sampler.choice(seen[seat]), "a move before chance", where)
        return
    with pytest.raises(IllegalMove):  # a worker running a stale chance task must not change the game
        engine.resolve_chance(state, random.Random(0))
    seat, move, listed = step.seat, step.move, step.listed
    assert move is not None
    assert actors <= set(range(game.seats)), f"{where}: actors {sorted(actors)} are not seats"
    assert engine.legal_moves(state, seat) == listed, f"{where}: legal_moves differs between two calls"
    for other in range(game.seats):
        if other not in actors:
            assert engine.legal_moves(state, other) == [], f"{where}: seat {other} is not an actor"
            _refused(engine, state, other, move, f"a move by seat {other}, who is not to act", where)

    deep = deep or sampler.random() < DEEP_SHARE
    if deep:
        assert len({_key(m) for m in listed}) == len(listed), f"{where}: legal_moves lists a move twice"
        again = _rekeyed(state)
        assert engine.legal_moves(again, seat) == listed, (
            f"{where}: the order depends on the dicts' key order"
        )
        assert engine.apply(again, seat, move) == (step.after, step.events), (
            f"{where}: apply is not a function"
        )

    for candidate in [move, *sampler.sample(listed, min(OTHER_MOVES_PER_STEP, len(listed)))]:
        after, events = engine.apply(state, seat, candidate)
        # The search bots apply listed moves past the look-up: the same position and events.
        assert engine.apply_listed(state, seat, candidate) == (after, events), f"{where}: apply_listed"
        if deep:  # the chosen move's result is checked as the next position anyway
            _assert_json(after, where)
            _assert_events(events, game.seats, where)
        text = engine.format_move(candidate)
        assert isinstance(text, str) and text, f"{where}: format_move({candidate}) gave {text!r}"
        assert engine.parse_move(text) == candidate, f"{where}: {text!r} does not parse back to {candidate}"
        clicks = engine.click_path(candidate)
        assert isinstance(clicks, list) and clicks, f"{where}: click_path({candidate}) is {clicks!r}"
        assert all(isinstance(c, str) and c for c in clicks), f"{where}: click_path({candidate}) {clicks}"
        # The page names listed moves past the door's check: the same names as through it.
        assert engine.listed_notation(candidate) == text, f"{where}: listed_notation({candidate})"
        assert engine.listed_click_path(candidate) == clicks, f"{where}: listed_click_path({candidate})"

    pool = seen.setdefault(seat, [])
    stale = [m for m in sampler.sample(pool, min(4, len(pool))) if m not in listed]
    for old in stale[:2]:
        _refused(engine, state, seat, old, f"{old}, legal earlier but not now", where)
    for junk in ({"nonsense": 1}, {}, {**move, "nonsense": 1}, dict.fromkeys(move)):
        _refused(engine, state, seat, junk, f"the malformed move {junk}", where)
    pool.extend(sampler.sample(listed, min(3, len(listed))))
    del pool[:-40]


def test_replaying_the_log_rebuilds_the_same_state(engine: Engine) -> None:
    configs = _configs(engine)
    for number in range(max(12, len(configs))):
        game = _played(engine, number)
        # The log as the site keeps it: JSON, with notation for moves and the stored rng for chance.
        log = json.loads(
            json.dumps(
                [
                    {"chance": s.rng_before}
                    if s.seat is None
                    else {"seat": s.seat, "move": game.engine.format_move(s.move or {})}
                    for s in game.steps
                ]
            )
        )
        state = engine.new_state(
            seats=game.seats, options=game.options, rng=random.Random(f"{game.seed}:setup")
        )
        assert state == game.start, f"{game.where()}: the same setup seed gave another start"
        for step, entry in zip(game.steps, log, strict=True):
            if "chance" in entry:
                state, events = engine.resolve_chance(state, rng_load(entry["chance"]))
            else:
                state, events = engine.apply(state, entry["seat"], engine.parse_move(entry["move"]))
            where = game.where(step.number)
            assert state == step.after, f"{where}: the replay reached another position"
            assert [e.to_dict() for e in events] == [e.to_dict() for e in step.events], (
                f"{where}: other events"
            )
        assert engine.outcome(state) == engine.outcome(game.final)


def test_view_and_svg_depend_only_on_what_the_viewer_may_know(engine: Engine) -> None:
    counts = {"samples that differ": 0, "move events compared": 0, "chance events compared": 0}
    configs = _configs(engine)
    for number in range(max(12, len(configs))):
        game = _played(engine, number)
        sampler = random.Random(f"{game.seed}:views")
        viewers: list[int | None] = [*range(game.seats), None]
        stride = max(1, len(game.steps) // 16)  # about 16 positions per game, whatever its length
        for step in game.steps:
            where = game.where(step.number)
            if step.number % stride == 0 or engine.chance_pending(step.state):
                _check_views(engine, step.state, viewers, sampler, counts, where)
            _check_event_visibility(engine, step, viewers, sampler, counts, where)
        _check_views(engine, game.final, viewers, sampler, counts, game.where(len(game.steps)))
    if engine.slug == "testdice":
        # The dice game has secrets at almost every position: a check that never saw one proves nothing.
        assert all(counts.values()), f"vacuous non-interference checks: {counts}"


def _check_views(
    engine: Engine,
    state: State,
    viewers: list[int | None],
    sampler: random.Random,
    counts: dict[str, int],
    where: str,
) -> None:
    actors = engine.actors(state)
    for viewer in viewers:
        at = f"{where}, viewer {viewer}"
        view = engine.view(state, viewer)
        _assert_json(view, at)
        private = {} if viewer is None else engine.private_view(state, viewer)
        assert view == {**engine.public_view(state), "private": private}, (
            f"{at}: view is not public + private"
        )
        svgs = [engine.render_svg(view, viewer, interactive=flag) for flag in (False, True)]
        assert all(isinstance(s, str) and s.startswith("<svg") for s in svgs), f"{at}: render_svg gave no SVG"
        prompt = engine.prompt(view, viewer)
        _check_prompt(prompt, viewer in actors, _seat_count(view, state), at)
        # The buttons a big board has beside it instead of in its picture, from the view like the SVG.
        beside = engine.board_actions(view, viewer)
        if viewer is not None and viewer in actors:
            moves = engine.legal_moves(state, viewer)
            for move in sampler.sample(moves, min(30, len(moves))):
                for target in engine.click_path(move):
                    assert f'data-target="{target}"' in svgs[1] or target in dict(beside), (
                        f"{at}: nothing to click for {target} of {move}"
                    )
        for k in range(3):
            snapshot = _dump(state)
            other = engine.sample_hidden(state, viewer, random.Random(f"{at}:{k}"))
            assert _dump(state) == snapshot, f"{at}: sample_hidden changed its input"
            _assert_json(other, at)
            if other != state:
                counts["samples that differ"] += 1
            assert engine.view(other, viewer) == view, (
                f"{at}: the view shows something this viewer may not know"
            )
            for flag, svg in zip((False, True), svgs, strict=True):
                assert engine.render_svg(engine.view(other, viewer), viewer, interactive=flag) == svg, (
                    f"{at}: the SVG (interactive={flag}) differs between states this viewer cannot tell apart"
                )
            assert engine.prompt(engine.view(other, viewer), viewer) == prompt, (
                f"{at}: the prompt differs between states this viewer cannot tell apart"
            )
            assert engine.board_actions(engine.view(other, viewer), viewer) == beside, (
                f"{at}: the buttons beside the board differ between states this viewer cannot tell apart"
            )
            assert engine.actors(other) == actors, f"{at}: who acts depends on hidden information"
            assert engine.chance_pending(other) == engine.chance_pending(state), at
            assert engine.is_over(other) == engine.is_over(state), at
            if viewer is not None:
                assert engine.legal_moves(other, viewer) == engine.legal_moves(state, viewer), (
                    f"{at}: the viewer's own moves depend on what it may not know"
                )
            if engine.slug == "testdice":
                _check_dice_secrets(state, other, view, viewer, at)


def _seat_count(view: dict[str, Any], state: State) -> int:
    seats = view.get("seats", state.get("seats"))
    return seats if isinstance(seats, int) else len(seats)


def _check_prompt(prompt: Any, acting: bool, seats: int, at: str) -> None:
    """The sentence above the board: text, names only seats of the game (the site fills those in), and
    asks the seat to act when it is to act rather than telling it to wait."""
    assert isinstance(prompt, str) and prompt.strip(), f"{at}: prompt gave {prompt!r}"
    for name in re.findall(r"\{([^{}]*)\}", prompt):
        assert re.fullmatch(r"seat\d+", name) and int(name[4:]) < seats, f"{at}: the prompt names {name!r}"
    assert "{" not in re.sub(r"\{seat\d+\}", "", prompt), f"{at}: a stray brace in the prompt {prompt!r}"
    if acting:
        assert not prompt.startswith("Waiting"), f"{at}: the seat to act is told to wait: {prompt!r}"


def _check_dice_secrets(
    state: State, other: State, view: dict[str, Any], viewer: int | None, at: str
) -> None:
    assert "deck" not in view and "hands" not in view, f"{at}: the dice view carries raw state"
    if viewer is None:
        assert view["private"] == {}, at
        return
    private = view["private"]
    assert private == {"hand": state["hands"][viewer], "committed": state["committed"][viewer]}, at
    assert other["hands"][viewer] == state["hands"][viewer], (
        f"{at}: the sample re-dealt the viewer's own hand"
    )
    shown = {*view["discard"], *private["hand"], private["committed"]}
    for seat in range(state["seats"]):
        if seat != viewer and other["hands"][seat] != state["hands"][seat]:
            # A hand the view cannot pin down: none of its cards may appear anywhere a card is shown.
            assert not shown & set(state["hands"][seat]), f"{at}: seat {seat}'s cards are in the view"


def _check_event_visibility(
    engine: Engine,
    step: Step,
    viewers: list[int | None],
    sampler: random.Random,
    counts: dict[str, int],
    where: str,
) -> None:
    for event in step.events:
        if event.visible_to is not None:
            for viewer in viewers:
                assert event.visible_for(viewer) == (viewer in event.visible_to), f"{where}: {event}"

    def seen_by(events: list[Event], viewer: int | None) -> list[dict[str, Any]]:
        return [e.to_dict() for e in events if e.visible_for(viewer)]

    # When a viewer cannot tell two outcomes apart from its view, its part of the log must not tell either.
    if step.seat is None:
        assert step.rng_before is not None
        for viewer in viewers:
            other = engine.sample_hidden(step.state, viewer, random.Random(f"{where}:{viewer}"))
            after, events = engine.resolve_chance(other, rng_load(step.rng_before))
            if engine.view(after, viewer) == engine.view(step.after, viewer):
                counts["chance events compared"] += 1
                assert seen_by(events, viewer) == seen_by(step.events, viewer), (
                    f"{where}: the log shows viewer {viewer} hidden details of a chance step"
                )
        return
    alternatives = [m for m in step.listed if m != step.move]
    if not alternatives:
        return
    after, events = engine.apply(step.state, step.seat, sampler.choice(alternatives))
    for viewer in viewers:
        if viewer != step.seat and engine.view(after, viewer) == engine.view(step.after, viewer):
            counts["move events compared"] += 1
            assert seen_by(events, viewer) == seen_by(step.events, viewer), (
                f"{where}: the log tells viewer {viewer} which sealed move seat {step.seat} made"
            )


def test_engines_and_bots_import_nothing_from_django() -> None:
    sources = sorted(p for base in PURE_SOURCES for p in base.rglob("*.py"))
    assert sources, "no engine sources found"
    offenders = []
    for path in sources:
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            offenders += [
                f"{path.relative_to(ROOT)}:{node.lineno} imports {name}"
                for name in names
                if name.split(".")[0] in FORBIDDEN_IMPORTS
            ]
    assert offenders == []


def test_loading_every_engine_and_the_bots_pulls_in_no_django_module() -> None:
    # The static check misses an import through another module (say games/__init__.py); a fresh
    # interpreter that loads every engine catches that too.
    script = (
        "import json, sys\n"
        "import games.bots\n"
        "from games.engines import registry\n"
        f"registry.ENGINES.update({dict(registry.ENGINES)!r})\n"
        "for slug in registry.slugs():\n"
        "    registry.get_engine(slug)\n"
        f"forbidden = {sorted(FORBIDDEN_IMPORTS)!r}\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in forbidden)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_options_are_validated(engine: Engine) -> None:
    defaults = {name: option.default for name, option in engine.options.items()}
    assert engine.resolve_options(None) == defaults
    assert engine.resolve_options({}, seats=engine.min_players) == defaults
    for name, option in engine.options.items():
        for value in option.choices:
            assert engine.resolve_options({name: value})[name] == value
        with pytest.raises(ValueError, match=r"\w"):
            engine.resolve_options({name: "no-such-value"})
    with pytest.raises(ValueError, match=r"\w"):
        engine.resolve_options({"no_such_option": "1"})
    for seats in range(engine.min_players, engine.max_players + 1):
        engine.resolve_options({}, seats=seats)
    for seats in (engine.min_players - 1, engine.max_players + 1):
        with pytest.raises(ValueError, match=r"\w"):
            engine.resolve_options({}, seats=seats)


def test_eliminating_a_seat_keeps_the_game_consistent(engine: Engine) -> None:
    seats = max(engine.min_players, min(3, engine.max_players))
    defaults = engine.resolve_options(None)
    results: list[str] = []
    for number in range(24):
        seed = f"{engine.slug}-eliminate-{number}"
        length = len(_play(_new_game(engine, seats, defaults, seed)).steps)
        game = _play(
            _new_game(engine, seats, defaults, seed), stop_after=max(1, length * (number % 8 + 1) // 9)
        )
        state = game.final
        where = game.where(len(game.steps))
        if engine.is_over(state):
            continue
        picker = random.Random(where)
        actors = sorted(engine.actors(state))
        # Alternate between a seat that must act now and any seat, so both paths are exercised.
        victim = picker.choice(actors) if actors and number % 2 == 0 else picker.randrange(seats)
        earlier = engine.legal_moves(state, victim)
        snapshot = _dump(state)
        try:
            state, events = engine.eliminate(state, victim)
        except NotImplementedError:
            # Allowed: the site then ends the match. It must say so at once and leave the state alone.
            assert _dump(game.final) == snapshot, f"{where}: a refused eliminate changed the state"
            results.append("not implemented")
            continue
        results.append("eliminated")
        assert _dump(game.final) == snapshot, f"{where}: eliminate changed its input"
        _assert_json(state, where)
        _assert_events(events, seats, where)
        if earlier and not engine.is_over(state):
            _refused(engine, state, victim, earlier[0], "a move by an eliminated seat", where)

        def never_acts(position: State, victim: int = victim, where: str = where) -> None:
            assert victim not in engine.actors(position), f"{where}: eliminated seat {victim} is asked to act"
            assert engine.legal_moves(position, victim) == [], f"{where}: eliminated seat {victim} has moves"

        rest = Game(engine=engine, seats=seats, options=defaults, seed=f"{seed}:after", start=state)
        _play(rest, before_step=never_acts)
        _assert_over(rest)
    assert results, "no game was still going at the cut points: nothing was checked"
    assert len(set(results)) == 1, f"eliminate works only sometimes: {results}"


def test_skipping_a_timed_out_seat_keeps_the_game_consistent(engine: Engine) -> None:
    """The site's ``skip`` timeout policy: where an engine implements it, every awaited seat can be
    skipped at any point, the result is a valid state, and a game of skips still ends."""
    defaults = engine.resolve_options(None)
    seats = engine.min_players
    outcomes: list[str] = []
    for number in range(24):
        seed = f"{engine.slug}-skip-{number}"
        length = len(_play(_new_game(engine, seats, defaults, seed)).steps)
        game = _play(_new_game(engine, seats, defaults, seed), stop_after=max(1, length * (number % 8) // 9))
        state = game.final
        where = game.where(len(game.steps))
        if engine.is_over(state) or engine.chance_pending(state):
            continue
        victim = random.Random(where).choice(sorted(engine.actors(state)))
        snapshot = _dump(state)
        try:
            after, events = engine.skip(state, victim, random.Random(f"{where}:skip"))
        except NotImplementedError:
            assert _dump(state) == snapshot, f"{where}: a refused skip changed the state"
            outcomes.append("not implemented")
            continue
        outcomes.append("skipped")
        assert _dump(state) == snapshot, f"{where}: skip changed its input"
        _assert_json(after, where)
        _assert_events(events, seats, where)
        assert after != state, f"{where}: skipping seat {victim} changed nothing"
        other = next((s for s in range(seats) if s not in engine.actors(state)), None)
        if other is not None:
            with pytest.raises(IllegalMove):
                engine.skip(state, other, random.Random(0))
        # Skipping whoever is awaited, over and over, must still bring the game to an end.
        position, steps = after, 0
        rng = random.Random(f"{where}:more")
        while not engine.is_over(position):
            steps += 1
            assert steps < STEP_CAP, f"{where}: a game of skips does not end"
            if engine.chance_pending(position):
                position, _ = engine.resolve_chance(position, rng)
                continue
            seat = rng.choice(sorted(engine.actors(position)))
            if rng.random() < 0.5:
                position, _ = engine.skip(position, seat, rng)
            else:
                position, _ = engine.apply(position, seat, rng.choice(engine.legal_moves(position, seat)))
    assert outcomes, "no game was still going at the cut points: nothing was checked"
    assert len(set(outcomes)) == 1, f"skip works only sometimes: {outcomes}"


# --- malformed input ----------------------------------------------------------------------------------
# Moves reach ``apply`` from browsers and the API, and notation reaches ``parse_move`` from forms and
# e-mail: whatever arrives, an engine refuses it with IllegalMove and a reason fit to show a person, never
# with another exception, and never by echoing text a page or a log cannot hold.
JUNK_GAMES = 8  # random games per engine whose positions are probed
JUNK_POSITIONS = 24  # at most, per engine: the first position of each kind of move, then a spread
REASON_LIMIT = 1_000  # characters; a reason must not carry a megabyte of input back to the page


def _nested(depth: int, wrap: Callable[[Any], Any]) -> Any:
    value: Any = None
    for _ in range(depth):
        value = wrap(value)
    return value


JUNK_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1,
    2**70,
    -(2**70),
    1.5,
    float("nan"),
    float("inf"),
    "NaN",
    "Infinity",
    "-0",
    "",
    " ",
    "x" * 10_000,
    "\x00",
    "\ud800",
    "a\udfffb",
    "\ufffe",
    "\u202e",
    [],
    [[]],
    {},
    {"a": 1},
    ["x"],
    [0],
    _nested(50, lambda inner: [inner]),
    _nested(50, lambda inner: {"a": inner}),
]
JUNK_KEYS: list[Any] = ["nonsense", "", "\x00", "\ud800", "x" * 10_000, 0, None, True]


def _canonical(move: Any) -> str | None:
    """A move as JSON with sorted keys, so True never passes for 1 nor 1.0 for 1; None if not JSON."""
    try:
        return json.dumps(move, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        return None


def _near_misses(value: Any) -> list[Any]:
    """A legal value in another JSON type, or spoilt a little."""
    out: list[Any] = [[value], {"value": value}]
    if isinstance(value, bool):
        out += [int(value), str(value).lower()]
    elif isinstance(value, int):
        out += [float(value), str(value), value + 2**64]
    elif isinstance(value, str):
        out += [value.upper(), f"{value}\x00", f" {value}", value * 1_000, value.encode()]
    elif isinstance(value, list):
        out += [value[:-1], [*value, *value[:1]], [[item] for item in value], tuple(value)]
    return out


def _junk_moves(engine: Engine, listed: list[Move]) -> list[tuple[str, Any]]:
    """Every key of the listed moves given junk of every JSON type; keys dropped, renamed and added; and
    moves that are not dicts at all. Described with ``ascii`` so a failure message is readable."""
    first: dict[str, Move] = {}
    for move in listed:
        for key in move:
            first.setdefault(key, move)
    out: list[tuple[str, Any]] = []
    for key, move in first.items():
        for value in [*JUNK_VALUES, *_near_misses(move[key])]:
            out.append((f"{key}={ascii(value)[:40]}", {**move, key: value}))
        out.append((f"without {key}", {k: v for k, v in move.items() if k != key}))
        out.append((f"{key} renamed", {(k.upper() if k == key else k): v for k, v in move.items()}))
    some = listed[0]
    for key in JUNK_KEYS:
        out.append((f"with the key {ascii(key)[:40]}", {**some, key: 1}))
    for other in (None, True, 0, 1.5, "", engine.format_move(some), [], [some], list(some.items()), {}):
        out.append((f"not a dict: {ascii(other)[:40]}", other))
    return out


def _junk_positions(engine: Engine) -> list[tuple[Game, Step]]:
    """Positions of random games: the first that offers each kind of move (its key set), then the middle
    of each game and every 40th step."""
    picked: list[tuple[Game, Step]] = []
    spread: list[tuple[Game, Step]] = []
    seen: set[frozenset[str]] = set()
    for number in range(JUNK_GAMES):
        game = _played(engine, number)
        moves = [step for step in game.steps if step.seat is not None]
        for step in moves:
            shapes = {frozenset(m) for m in step.listed}
            if shapes - seen:
                seen |= shapes
                picked.append((game, step))
            elif step is moves[len(moves) // 2] or step.number % 40 == 0:
                spread.append((game, step))
    return [*picked, *spread][:JUNK_POSITIONS]


def _reason_problem(refused: IllegalMove) -> str | None:
    """What is wrong with the reason an IllegalMove gives, if anything."""
    if len(refused.args) != 1 or not isinstance(refused.args[0], str):
        return f"the reason is not one str but {refused.args!r:.80}"
    text = refused.args[0]
    if not text.strip():
        return "the reason is empty"
    if len(text) > REASON_LIMIT:
        return f"the reason is {len(text)} characters long"
    for char in text:
        # NUL and other controls, lone surrogates (no UTF-8, so no page, database row or e-mail holds
        # them) and non-characters.
        if unicodedata.category(char) in ("Cc", "Cs", "Cn") and char not in "\n\t":
            return f"the reason holds the character {char!a}"
    return None


def _kind(what: str, problem: str) -> str:
    """What a failure is about, without the numbers that differ from one example to the next."""
    return re.sub(r"\b\d+\b", "N", f"{what}: {problem.split(':')[0]}")


def _attempt(call: Callable[..., Any], *args: Any) -> tuple[Any, str | None]:
    """(result, None) if ``call(*args)`` returned; (None, problem) if it raised anything but a proper
    refusal."""
    try:
        return call(*args), None
    except IllegalMove as refused:
        return None, _reason_problem(refused)
    except Exception as other:  # the very thing under test: anything but IllegalMove is a failure
        return None, f"raised {type(other).__name__}: {ascii(str(other))[:120]}"


def test_apply_refuses_junk_of_every_shape_with_a_reason(engine: Engine) -> None:
    problems: dict[str, str] = {}  # one example per kind of failure, so the report shows them all
    tried = 0
    for game, step in _junk_positions(engine):
        state, seat = step.state, step.seat
        assert seat is not None
        before = copy.deepcopy(state)
        listed = {_canonical(m) for m in step.listed}
        others = [s for s in range(game.seats) if s not in engine.actors(state)]
        for what, junk in _junk_moves(engine, step.listed):
            if _canonical(junk) in listed:
                continue  # junk that happens to be legal here
            for mover in [seat, *others[:1]]:
                tried += 1
                where = f"{game.where(step.number)}, seat {mover}"
                accepted, problem = _attempt(engine.apply, state, mover, junk)
                if accepted is not None:
                    problem = "accepted"
                if state != before:
                    problem = f"changed the state ({problem or 'refused'})"
                    state = copy.deepcopy(before)
                if problem is not None:
                    problems.setdefault(_kind(what.split("=")[0], problem), f"{where}: {problem}")
    assert tried
    assert not problems, (
        f"{engine.slug}: {len(problems)} kinds of junk move not refused properly:\n"
        + "\n".join(f"  {kind} -- {example}" for kind, example in sorted(problems.items()))
    )


JUNK_TEXTS: list[str] = [
    "",
    " ",
    "\t\n",
    "\x00",
    "\ud800",
    "\udfff",
    "\ufffe",
    "\u202e",
    "x" * 100_000,
    "(" * 10_000 + ")" * 10_000,
    "[" * 1_000 + "]" * 1_000,
    "{" * 1_000,
    "9" * 5_000,
    "-" * 10_000,
    "\n".join(["x"] * 10_000),
]


def _spoilt_texts(text: str) -> list[tuple[str, bool]]:
    """Notation of a legal move, spoilt; True where the result must be refused (the rest may parse)."""
    return [
        (f"{text}\x00", True),
        (f"\x00{text}", True),
        (f"{text[:1]}\ud800{text[1:]}", True),
        (f"{text}\udfff", True),
        (f"{text}\ufffe", True),
        (text * 5_000, True),
        ("(" * 500 + text + ")" * 500, True),
        ("[" * 500 + text + "]" * 500, True),
        (re.sub(r"\d", "\u0663", text), False),  # Arabic-Indic digits: refused or read as digits
        (text.upper(), False),
        *([(re.sub(r"\d+", "9" * 5_000, text), True)] if re.search(r"\d", text) else []),
    ]


def test_parse_move_refuses_any_junk_text_with_a_reason(engine: Engine) -> None:
    samples: list[str] = []
    for _, step in _junk_positions(engine)[:6]:
        firsts = {frozenset(m): m for m in reversed(step.listed)}
        samples += [engine.format_move(m) for m in firsts.values()]
    cases = [(t, True) for t in JUNK_TEXTS] + [case for s in samples for case in _spoilt_texts(s)]
    problems: dict[str, str] = {}
    for text, must_refuse in cases:
        parsed, problem = _attempt(engine.parse_move, text)
        if parsed is not None and must_refuse:
            problem = f"read as {ascii(parsed)[:80]}"
        elif parsed is not None and not isinstance(parsed, dict):
            problem = f"returned {ascii(parsed)[:80]}"
        if problem is not None:
            problems.setdefault(_kind("text", problem), f"{ascii(text)[:60]} ({len(text)} chars): {problem}")
    for other in (None, 5, 1.5, b"end", ["end"], {"text": "end"}):
        parsed, problem = _attempt(engine.parse_move, other)
        if parsed is not None:
            problem = f"read as {ascii(parsed)[:80]}"
        if problem is not None:
            problems.setdefault(_kind("not text", problem), f"{other!a}: {problem}")
    assert samples
    assert not problems, (
        f"{engine.slug}: {len(problems)} kinds of junk text not refused properly:\n"
        + "\n".join(f"  {kind} -- {example}" for kind, example in sorted(problems.items()))
    )
