"""Speed of random playouts per engine, and the search bot against the random bot at Wall Go.

    python bench/bots.py [--games 100] [--level normal] [--workers 2] [--include-test] [--seed S]

Run from the repository root; it needs neither Django nor an installed package.

(a) Random playouts from the opening position, per registered engine (two players, default options):
    how many whole games a second one core plays. The search bot's playouts are shorter (they stop at an
    evaluation) but cost about as much per move, so this bounds what a level's time limit buys.
(b) The search bot at ``--level`` against the random bot over ``--games`` two-player Wall Go games, the
    search bot taking seat 0 and seat 1 in turn. Target: at least 95 wins in 100 within one second per
    search move. The games run in ``--workers`` processes; every game is seeded by its number.

It reports and never fails: the exit code is always 0.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

# The bots and engines are a pure library: importing them from a checkout needs no Django or install.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.bots import LEVELS, RandomBot, SearchBot, bot_for  # noqa: E402
from games.engines import registry  # noqa: E402
from games.engines.base import Engine  # noqa: E402

TEST_ENGINE = ("testdice", "tests.support.dicegame.DiceGame")
STEP_CAP = 10_000
TARGET_SLUG = "wallgo"
TARGET_WINS = 95
TARGET_GAMES = 100
TARGET_SECONDS = 1.0


# --- (a) playouts per second ---------------------------------------------------------------------------
def _playout(engine: Engine, players: int, rng: random.Random) -> bool:
    state = engine.new_state(seats=players, options={}, rng=rng)
    for _ in range(STEP_CAP):
        if engine.is_over(state):
            return True
        if engine.chance_pending(state):
            state, _ = engine.resolve_chance(state, rng)
            continue
        seat = rng.choice(sorted(engine.actors(state)))
        state, _ = engine.apply(state, seat, rng.choice(engine.legal_moves(state, seat)))
    return False


def playouts_per_second(slug: str, seconds: float, seed: str) -> tuple[int, float, int]:
    """(playouts, elapsed seconds, unfinished) for random two-player games from the start."""
    engine = registry.get_engine(slug)
    rng = random.Random(f"{seed}:{slug}")
    done = unfinished = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        if not _playout(engine, 2, rng):
            unfinished += 1
        done += 1
    return done, time.perf_counter() - start, unfinished


# --- (b) search bot against random bot ------------------------------------------------------------------
@dataclass
class Result:
    number: int
    search_seat: int
    scores: list[float]
    move_seconds: list[float] = field(default_factory=list)
    move_cpu_seconds: list[float] = field(default_factory=list)
    playouts: list[int] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        mine = self.scores[self.search_seat]
        theirs = self.scores[1 - self.search_seat]
        return "win" if mine > theirs else "draw" if mine == theirs else "loss"


def play_game(job: tuple[int, str, str]) -> Result:
    number, level, seed = job
    engine = registry.get_engine(TARGET_SLUG)
    rng = random.Random(f"{seed}:{number}")
    search = bot_for(level)
    if not isinstance(search, SearchBot):
        raise SystemExit(f"--level {level} is not a search level")
    opponent = RandomBot()
    result = Result(number=number, search_seat=number % 2, scores=[])
    state = engine.new_state(seats=2, options={}, rng=rng)
    while not engine.is_over(state):
        seat = min(engine.actors(state))
        if seat == result.search_seat:
            start, cpu = time.perf_counter(), time.process_time()
            move = search.choose(engine, state, seat, rng)
            result.move_seconds.append(time.perf_counter() - start)
            result.move_cpu_seconds.append(time.process_time() - cpu)
            result.playouts.append(search.last_playouts)
        else:
            move = opponent.choose(engine, state, seat, rng)
        state, _ = engine.apply(state, seat, move)
    result.scores = engine.outcome(state) or [0.0, 0.0]
    return result


def match_up(games: int, level: str, workers: int, seed: str) -> list[Result]:
    jobs = [(number, level, seed) for number in range(games)]
    results: list[Result] = []
    start = time.perf_counter()
    with multiprocessing.Pool(workers) as pool:
        for result in pool.imap_unordered(play_game, jobs):
            results.append(result)
            wins = sum(r.verdict == "win" for r in results)
            mine = result.scores[result.search_seat]
            theirs = result.scores[1 - result.search_seat]
            print(
                f"  [{len(results):>3}/{games}] game {result.number:>3}: "
                f"search bot (seat {result.search_seat}) {mine:g}-{theirs:g} {result.verdict:<4}  "
                f"max {max(result.move_seconds):.2f} s/move  "
                f"wins so far {wins}  ({time.perf_counter() - start:.0f} s)",
                flush=True,
            )
    return sorted(results, key=lambda r: r.number)


def report(results: list[Result], level: str, elapsed: float) -> None:
    seconds = [s for r in results for s in r.move_seconds]
    cpu = [s for r in results for s in r.move_cpu_seconds]
    playouts = [p for r in results for p in r.playouts]
    wins = sum(r.verdict == "win" for r in results)
    draws = sum(r.verdict == "draw" for r in results)
    losses = sum(r.verdict == "loss" for r in results)
    margins = [r.scores[r.search_seat] - r.scores[1 - r.search_seat] for r in results]
    print()
    print(f"search bot ({level}) against random bot, {len(results)} two-player Wall Go games:")
    print(
        f"  wins {wins}, draws {draws}, losses {losses}; mean margin {statistics.fmean(margins):+.1f} squares"
    )
    for seat in (0, 1):
        mine = [r for r in results if r.search_seat == seat]
        if mine:
            print(f"  as seat {seat}: {sum(r.verdict == 'win' for r in mine)} wins of {len(mine)}")
    print(
        f"  seconds per search move: mean {statistics.fmean(seconds):.3f}, "
        f"median {statistics.median(seconds):.3f}, max {max(seconds):.3f} ({len(seconds)} moves)"
    )
    # CPU time is what the bot itself spent; wall time exceeds it only when the machine is busy.
    print(f"  CPU seconds per search move: mean {statistics.fmean(cpu):.3f}, max {max(cpu):.3f}")
    print(
        f"  playouts per search move: mean {statistics.fmean(playouts):.0f}, "
        f"median {statistics.median(playouts):.0f}"
    )
    print(f"  wall time {elapsed:.0f} s; {_load()}")
    scaled = wins * TARGET_GAMES / len(results)
    fast = max(seconds) <= TARGET_SECONDS
    ok = scaled >= TARGET_WINS and fast
    print(
        f"  target: >= {TARGET_WINS}/{TARGET_GAMES} wins within {TARGET_SECONDS:g} s per move -> "
        f"{'PASS' if ok else 'FAIL'} ({wins}/{len(results)} wins, "
        f"{'every move within' if fast else 'some move over'} {TARGET_SECONDS:g} s)"
    )


def _load() -> str:
    if not hasattr(os, "getloadavg"):
        return "load average unknown"
    return "load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()) + f" on {os.cpu_count()} cores"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games", type=int, default=TARGET_GAMES, help="Wall Go games, search against random"
    )
    parser.add_argument("--level", default="normal", choices=[k for k, v in LEVELS.items() if v.seconds])
    parser.add_argument("--workers", type=int, default=2, help="processes playing games at once")
    parser.add_argument("--include-test", action="store_true", help="also the test engine (dice and cards)")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per engine for the playout count")
    parser.add_argument("--seed", default="bench", help="seed of every random choice")
    args = parser.parse_args(argv)

    if args.include_test:
        registry.register(*TEST_ENGINE)
    level = LEVELS[args.level]
    print(f"Python {sys.version.split()[0]}, seed {args.seed!r}, {_load()}")
    print()
    print(f"(a) random playouts from the start, two players, one core, {args.seconds:g} s per engine:")
    for slug in registry.slugs():
        done, elapsed, unfinished = playouts_per_second(slug, args.seconds, args.seed)
        note = f"  ({unfinished} cut off at {STEP_CAP} steps)" if unfinished else ""
        print(f"  {slug:<10} {done / elapsed:>8.1f} playouts/s  ({done} in {elapsed:.1f} s){note}")
    print()
    print(
        f"(b) search bot '{args.level}' ({level.playouts} playouts or {level.seconds:g} s per move) against "
        f"the random bot, {args.games} games, {args.workers} workers:"
    )
    start = time.perf_counter()
    results = match_up(args.games, args.level, args.workers, args.seed)
    report(results, args.level, time.perf_counter() - start)
    return 0


if __name__ == "__main__":
    sys.exit(main())
