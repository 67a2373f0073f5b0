"""Speed of every registered engine over random games, and whether the engines meet their targets.

    python bench/engines.py [--games N] [--slug S] [--include-test] [--seed S]

Run from the repository root; it needs neither Django nor an installed package. Everything is seeded and
runs on one core so two runs compare. It reports and never fails: the exit code is always 0.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

# The engines are a pure library: importing them from a checkout must not need Django or an install.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.engines import registry  # noqa: E402
from games.engines.base import Engine, Move, State  # noqa: E402

TEST_ENGINE = ("testdice", "tests.support.dicegame.DiceGame")
STEP_CAP = 10_000
REPEATS = 7  # timings of legal_moves per position; their median shrugs off a stray interruption


@dataclass(frozen=True)
class Target:
    """Speed targets of one engine, with default options: a limit on the median legal_moves in a
    mid-game position, on the mean full random game, or both (None: no target)."""

    slug: str
    title: str
    players: int
    legal_moves_us: float | None = None
    game_ms: float | None = None


TARGETS = (
    Target("wallgo", "Wall Go", 2, legal_moves_us=300.0, game_ms=20.0),
    Target("stairways", "Walls and Stairways", 2, game_ms=200.0),
    # The mid-game position of a random game of The Wall is a leader's unit turn with most units still
    # on the map: every unit of that leader, each with its moves, attacks and specials.
    Target("thewall", "The Wall", 2, legal_moves_us=5000.0),
)


@dataclass
class Row:
    slug: str
    players: int
    games: int
    moves: int
    game_ns: list[int]
    legal_moves_ns: list[int]  # per mid-game position, the median of its repeats
    unfinished: int

    @property
    def total_s(self) -> float:
        return sum(self.game_ns) / 1e9

    @property
    def mean_game_ms(self) -> float:
        return statistics.fmean(self.game_ns) / 1e6

    @property
    def median_game_ms(self) -> float:
        return statistics.median(self.game_ns) / 1e6

    @property
    def legal_moves_us(self) -> float | None:
        return statistics.median(self.legal_moves_ns) / 1e3 if self.legal_moves_ns else None


def _one_core() -> None:
    # Pinning keeps the numbers comparable on a busy machine; not every platform has affinity.
    if hasattr(os, "sched_setaffinity"):
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def _random_game(
    engine: Engine, players: int, options: dict[str, str], rng: random.Random
) -> tuple[int, int, list]:
    """One random game: (nanoseconds, moves, (state, seat) of every move) ; moves == -1 if it never ended."""
    positions: list[tuple[State, int]] = []
    start = time.perf_counter_ns()
    state = engine.new_state(seats=players, options=options, rng=rng)
    steps = 0
    while not engine.is_over(state):
        steps += 1
        if steps > STEP_CAP:
            return time.perf_counter_ns() - start, -1, positions
        if engine.chance_pending(state):
            state, _ = engine.resolve_chance(state, rng)
            continue
        seat = rng.choice(sorted(engine.actors(state)))
        moves: list[Move] = engine.legal_moves(state, seat)
        positions.append((state, seat))
        state, _ = engine.apply(state, seat, rng.choice(moves))
    return time.perf_counter_ns() - start, len(positions), positions


def _time_legal_moves(engine: Engine, state: State, seat: int) -> int:
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter_ns()
        engine.legal_moves(state, seat)
        samples.append(time.perf_counter_ns() - start)
    return int(statistics.median(samples))


def bench(engine: Engine, players: int, games: int, seed: str) -> Row:
    options = engine.resolve_options(None, seats=players)
    row = Row(engine.slug, players, games, 0, [], [], 0)
    gc.collect()
    for number in range(games):
        rng = random.Random(f"{seed}:{engine.slug}:{players}:{number}")
        elapsed, moves, positions = _random_game(engine, players, options, rng)
        if moves < 0:
            row.unfinished += 1
            continue
        row.game_ns.append(elapsed)
        row.moves += moves
        if positions:
            state, seat = positions[len(positions) // 2]  # mid-game: half the game's moves played
            row.legal_moves_ns.append(_time_legal_moves(engine, state, seat))
    return row


def _print_table(rows: list[Row]) -> None:
    head = (
        f"{'engine':<10} {'players':>7} {'games/s':>9} {'moves/s':>9} {'moves/game':>10} "
        f"{'mean ms':>8} {'median ms':>9} {'legal_moves µs':>14}"
    )
    print(head)
    print("-" * len(head))
    for row in rows:
        if not row.game_ns:
            print(f"{row.slug:<10} {row.players:>7}   no game finished within {STEP_CAP} steps")
            continue
        us = row.legal_moves_us
        print(
            f"{row.slug:<10} {row.players:>7} {len(row.game_ns) / row.total_s:>9.1f} "
            f"{row.moves / row.total_s:>9.0f} {row.moves / len(row.game_ns):>10.1f} "
            f"{row.mean_game_ms:>8.2f} {row.median_game_ms:>9.2f} {'-' if us is None else f'{us:.1f}':>14}"
            + (f"   ({row.unfinished} never ended)" if row.unfinished else "")
        )


def _print_targets(rows: list[Row]) -> None:
    for target in TARGETS:
        print()
        print(f"{target.title} targets ({target.players} players, default options):")
        measured = (r for r in rows if r.slug == target.slug and r.players == target.players and r.game_ns)
        row = next(measured, None)
        if row is None:
            print("  not measured in this run.")
            continue
        checks = []
        if target.legal_moves_us is not None:
            checks.append(("median legal_moves in mid-game", row.legal_moves_us, target.legal_moves_us, "µs"))
        if target.game_ms is not None:
            checks.append(("mean full random game", row.mean_game_ms, target.game_ms, "ms"))
        for label, value, limit, unit in checks:
            if value is None:
                print(f"  {label}: not measured")
                continue
            verdict = "met" if value <= limit else "NOT MET"
            print(f"  {label}: {value:.1f} {unit} (target <= {limit:.0f} {unit}) - {verdict}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="random games per engine and player count")
    parser.add_argument("--slug", help="only this engine")
    parser.add_argument("--include-test", action="store_true", help="also the test engine (dice and cards)")
    parser.add_argument("--seed", default="bench", help="seed of every random choice")
    args = parser.parse_args(argv)

    if args.include_test or args.slug == TEST_ENGINE[0]:
        registry.register(*TEST_ENGINE)
    slugs = [args.slug] if args.slug else registry.slugs()
    _one_core()
    print(f"{args.games} random games per row, seed {args.seed!r}, Python {sys.version.split()[0]}")
    print()
    rows = []
    for slug in slugs:
        try:
            engine = registry.get_engine(slug)
        except Exception as error:  # a half-written engine should not hide the others' numbers
            print(f"{slug}: cannot load ({type(error).__name__}: {error})")
            continue
        for players in range(engine.min_players, engine.max_players + 1):
            try:
                rows.append(bench(engine, players, args.games, args.seed))
            except Exception as error:
                print(f"{slug} with {players} players failed: {type(error).__name__}: {error}")
    _print_table(rows)
    _print_targets(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
