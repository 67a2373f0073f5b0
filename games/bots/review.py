"""Rating a played move against the search bot's own choice, from the mover's view alone.

Post-game analysis asks, for every position where a seat moved: what would the search bot have played
there, and how much worse is the move that was played? Both questions are answered the way the bot
decides in a match, so a rating never knows more than the mover did:

- **The bot's choice** comes from :class:`SearchBot` on the position before the move, for the mover's
  seat. The search reads the real state only through ``engine.sample_hidden`` and the seat's own legal
  moves (see ``games/bots/__init__.py``), so other hands, sealed orders and the deck stay unknown to it.
- **A move's value** is the mean, over a fixed number of those samples, of the engine's ``evaluate``
  after the move (chance steps it causes drawn at random), as the mover's estimated score less the best
  estimate among the seats not on its side. The same samples value both moves, so the luck of the draw
  cancels out of their difference.
- **The loss** is the value after the bot's choice less the value after the played move, in the game's
  own unit (``Scale.factor`` turns the estimate into it); never below zero, since a move the evaluation
  likes better than the bot's choice is no mistake.

Everything is deterministic for a given ``seed``: the search runs on a playout budget with no time
limit, and every random draw comes from one generator seeded with it (the site passes the match and the
log line), so a second analysis of the same match gives the same marks.

**Thresholds** (``SCALES``): a loss of at least ``mistake`` is marked "?", of at least ``blunder`` "??".
They are set on each game's own scale:

- Wall Go, in squares of the final score (the board has 49): "?" from 2 squares, "??" from 5.
- The Wall, in points of the side's chance to win, in percent: "?" from 4, "??" from 12 (one action of
  many in a round moves it little).
- The Great Wall, in Honor: "?" from 2, "??" from 5.
- Stairways, in points (a hero out is worth several): "?" from 2, "??" from 5.
- Wildlings, in Castles (Supply and Power count as tenths and thousandths): "?" from 0.3, "??" from 1.

A game not listed is rated on its ``outcome`` scale with the defaults of ``DEFAULT_SCALE``.

**Budget.** A whole match must be analysed in about a minute on two cores, so the search gets fewer
playouts than the normal level (``Scale.playouts``); bench/analysis.py measures a 48-move Wall Go match.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from games.bots.base import own_moves, side_of
from games.bots.search import SearchBot
from games.engines.base import Engine, Move, State

SAMPLES = 6  # hidden-information samples that value each move
CHANCE_CAP = 100  # chance steps in a row after a move, as in the search
STEP_CAP = 2_000  # a random game played on to value a position (no ``evaluate``) stops here


@dataclass(frozen=True)
class Scale:
    """How a game's losses are told and marked: ``factor`` turns the evaluation into ``unit``."""

    unit: str
    mistake: float
    blunder: float
    playouts: int
    factor: float = 1.0


DEFAULT_SCALE = Scale("points", mistake=2.0, blunder=5.0, playouts=300)
SCALES: dict[str, Scale] = {
    "wallgo": Scale("squares", mistake=2.0, blunder=5.0, playouts=300),
    # The evaluation is the side's chance to win; a seat's lead over the other side is twice its change.
    "thewall": Scale("% win chance", mistake=4.0, blunder=12.0, playouts=200, factor=50.0),
    "greatwall": Scale("Honor", mistake=2.0, blunder=5.0, playouts=150),
    "stairways": Scale("points", mistake=2.0, blunder=5.0, playouts=150),
    "wildlings": Scale("Castles", mistake=0.3, blunder=1.0, playouts=150),
}

MISTAKE = "?"
BLUNDER = "??"


@dataclass(frozen=True)
class Review:
    """One played move's rating: its mark ("", "?" or "??"), the loss in the game's unit, and the bot's
    choice (the same as the played move when it agrees)."""

    mark: str
    loss: float
    best: str
    best_move: Move


def scale_for(engine: Engine) -> Scale:
    return SCALES.get(engine.slug, DEFAULT_SCALE)


def mark_for(loss: float, scale: Scale) -> str:
    if loss >= scale.blunder:
        return BLUNDER
    if loss >= scale.mistake:
        return MISTAKE
    return ""


def move_review(
    engine: Engine,
    state: State,
    seat: int,
    played: Move,
    *,
    seed: str,
    scale: Scale | None = None,
) -> Review:
    """Rate ``played``, made by ``seat`` in ``state`` (the real position before it), against the search
    bot's choice there. Only what ``seat`` may know is used (see the module docstring)."""
    scale = scale or scale_for(engine)
    rng = random.Random(seed)
    moves = own_moves(engine, state, seat)
    played = _canonical(played, moves)
    bot = SearchBot(playouts=scale.playouts, seconds=None, kind="review")
    best = bot.choose(engine, state, seat, rng)
    if best == played:
        return Review(mark="", loss=0.0, best=engine.format_move(best), best_move=best)
    samples = [engine.sample_hidden(state, seat, rng) for _ in range(SAMPLES)]
    # Each sample draws its chance steps from its own generator, the same for both moves.
    seeds = [rng.getrandbits(64) for _ in samples]
    gap = _value(engine, samples, seeds, seat, best) - _value(engine, samples, seeds, seat, played)
    loss = round(max(0.0, gap * scale.factor), 1)
    return Review(mark=mark_for(loss, scale), loss=loss, best=engine.format_move(best), best_move=best)


def _canonical(move: Move, moves: list[Move]) -> Move:
    """The played move as the legal-move list spells it (a stored move went through JSON)."""
    for legal in moves:
        if legal == move:
            return legal
    raise ValueError("The played move is not one of the seat's legal moves in this position.")


def _value(engine: Engine, samples: list[State], seeds: list[int], seat: int, move: Move) -> float:
    """The mover's estimated lead after ``move``, averaged over the samples."""
    total = 0.0
    for sample, seed in zip(samples, seeds, strict=True):
        after, _ = engine.apply(sample, seat, move)
        chance = random.Random(seed)
        scores = _scores(engine, _settled(engine, after, chance), chance)
        total += _lead(scores, seat, engine.teams(len(scores)))
    return total / len(samples)


def _settled(engine: Engine, state: State, rng: random.Random) -> State:
    for _ in range(CHANCE_CAP):
        if not engine.chance_pending(state):
            break
        state, _ = engine.resolve_chance(state, rng)
    return state


def _scores(engine: Engine, state: State, rng: random.Random) -> list[float]:
    """The estimated final scores: the engine's ``evaluate``, or without one the outcome of a game
    played on with random moves (as the search itself does)."""
    hook = getattr(engine, "evaluate", None)
    if callable(hook) and not engine.is_over(state):
        return list(hook(state))
    for _ in range(STEP_CAP):
        outcome = engine.outcome(state)
        if outcome is not None:
            return list(outcome)
        state = _settled(engine, state, rng)
        actors = sorted(engine.actors(state))
        if not actors:
            break
        actor = rng.choice(actors)
        state, _ = engine.apply_listed(state, actor, rng.choice(engine.legal_moves(state, actor)))
    return list(engine.outcome(state) or [])


def _lead(scores: list[float], seat: int, teams: list[list[int]] | None) -> float:
    """``seat``'s estimate less the best estimate among the seats not on its side."""
    if seat >= len(scores):  # a random game cut off unfinished: no estimate either way
        return 0.0
    side = side_of(seat, teams)
    others = [score for s, score in enumerate(scores) if s not in side]
    return scores[seat] - max(others) if others else scores[seat]
