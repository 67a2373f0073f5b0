"""How long post-game analysis takes: every move of a 48-move Wall Go match rated as the site rates it.

    python bench/analysis.py [--moves 48] [--slug wallgo] [--players 2] [--seed S] [--repeat 1]

Run from the repository root; it needs neither Django nor an installed package. A match is played by
two easy computer opponents (seeded), cut at ``--moves`` moves, and each of those moves is rated with
``games.bots.review.move_review`` in order, on one core, exactly as the analysis task does
(games/services/analysing.py: the same seeds, the same budget); the task's few database writes are left
out. Target: the whole match in under a minute on this project's machines (2 cores; the task runs on
one). It prints the total, the median and slowest position, and the marks given; it reports and never
fails: the exit code is always 0 (2 for bad arguments).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

# The bots and engines are a pure library: importing them from a checkout needs no Django or install.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.bots import LEVELS, SearchBot  # noqa: E402
from games.bots.review import move_review, scale_for  # noqa: E402
from games.engines import registry  # noqa: E402
from games.engines.base import Engine, Move, State  # noqa: E402

TARGET_SECONDS = 60.0
MATCH_ID = 1  # the seeds name a match, as the task's do
GAMES_TRIED = 50  # games played to find one long enough


def match_positions(engine: Engine, players: int, moves: int, seed: str) -> list[tuple[State, int, Move]]:
    """(position, mover, move played) for the first ``moves`` moves of the first seeded game between easy
    bots that lasts that long (chance steps resolved in between, as the site's worker does)."""
    # The easy level's playouts without its time limit: the same match however busy the machine is.
    bot = SearchBot(playouts=LEVELS["easy"].playouts)
    longest: list[tuple[State, int, Move]] = []
    for game in range(GAMES_TRIED):
        rng = random.Random(f"{seed}:{game}")
        state = engine.new_state(seats=players, options={}, rng=rng)
        played: list[tuple[State, int, Move]] = []
        while len(played) < moves and not engine.is_over(state):
            if engine.chance_pending(state):
                state, _ = engine.resolve_chance(state, rng)
                continue
            seat = min(engine.actors(state))
            move = bot.choose(engine, state, seat, rng)
            played.append((state, seat, move))
            state, _ = engine.apply(state, seat, move)
        if len(played) == moves:
            return played
        longest = max(longest, played, key=len)
    return longest


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--moves", type=int, default=48)
    parser.add_argument("--slug", default="wallgo")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", default="analysis")
    parser.add_argument("--repeat", type=int, default=1, help="analyse the match this many times")
    args = parser.parse_args()
    if args.slug not in registry.slugs():
        parser.error(f"unknown game {args.slug!r}; choose one of {', '.join(registry.slugs())}")
    engine = registry.get_engine(args.slug)
    scale = scale_for(engine)
    print(f"{engine.title}, {args.players} players: playing a match of {args.moves} moves (easy bots)...")
    positions = match_positions(engine, args.players, args.moves, args.seed)
    print(
        f"Rating {len(positions)} moves: {scale.playouts} playouts a position, marks from "
        f"{scale.mistake:g} (?) and {scale.blunder:g} (??) {scale.unit}; load average "
        f"{os.getloadavg()[0]:.2f}"
    )
    totals = []
    for run in range(args.repeat):
        times = []
        marks: list[str] = []
        started = time.perf_counter()
        for seq, (state, seat, move) in enumerate(positions, start=1):
            tick = time.perf_counter()
            review = move_review(engine, state, seat, move, seed=f"analysis:{MATCH_ID}:{seq}")
            times.append(time.perf_counter() - tick)
            marks.append(review.mark)
        total = time.perf_counter() - started
        totals.append(total)
        median, slowest = statistics.median(times), max(times)
        given = f"{marks.count('?')} '?', {marks.count('??')} '??'"
        print(f"run {run + 1}: {total:.1f} s for the match; a position: median {median:.2f} s, ", end="")
        print(f"slowest {slowest:.2f} s; marks: {given}")
    best = min(totals)
    verdict = "meets" if best < TARGET_SECONDS else "MISSES"
    print(f"best of {len(totals)}: {best:.1f} s, {verdict} the target of under {TARGET_SECONDS:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
