"""The computer opponents' strength and speed in every registered game, each figure against its target.

    python bench/bots.py [--games 20] [--workers 2] [--slug wallgo ...] [--players N] [--seed S]
                         [--matchups normal-random,hard-normal,normal-easy] [--playouts SECONDS]
    python bench/bots.py --slug greatwall --matchups normal@1600-normal@400

Run from the repository root; it needs neither Django nor an installed package.

For every game (``--slug`` picks some), in one run:

- **normal against random**: the normal bot in one seat, the random bot in the others, at two players
  where the game allows it, else at its smallest table (``--players`` sets another). Target: at least
  90% of two-player games; with more seats, at least twice the fair share.
- **hard against normal** and **normal against easy**, two players. Target: the stronger level wins at
  least 65%. A game without a two-player table plays one stronger seat against weaker ones at its
  smallest table, and the target is the same edge over the fair share (1.3 times it).
- **normal's seconds a move**, median and max over its moves in all of the above (its moves with a
  single legal choice, which cost nothing, left out). Target: at most 2 s.

A side of a matchup may also be ``<level>@<playouts>``: that level's search with a fixed playout budget
and no time limit. Budget against budget (``normal@1600-normal@400``) measures what more search buys a
game whatever the machine's speed, apart from what the levels' time limits give each side here.

A win shared by k seats counts 1/k; the stronger bot takes each seat in turn (game number mod players).
Every game is seeded by its number; the games of every matchup run together over ``--workers``
processes, the longest first. The levels stop on a time limit (``games/bots/levels.py``), so a busy
machine plays weaker bots: the load average is printed, and the final figures want a quiet machine.
The cost is about 20 games x 3 matchups x 5 games x a minute or two a game (hard thinks 3 s a move):
``--games 20`` takes two to four hours on two cores. ``--playouts SECONDS`` adds how many random
games from the start one core plays a second, per engine.

It reports and never fails: the exit code is always 0 (2 for bad arguments).
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

# The bots and engines are a pure library: importing them from a checkout needs no Django or install.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.bots import LEVELS, SearchBot, bench_bot, bench_side  # noqa: E402
from games.bots.search import NODE_WIDTH, WIDE_VISITS  # noqa: E402
from games.engines import registry  # noqa: E402
from games.engines.base import Engine  # noqa: E402

TEST_ENGINE = ("testdice", "tests.support.dicegame.DiceGame")
STEP_CAP = 20_000
DEFAULT_GAMES = 20
MATCHUPS = ("normal-random", "hard-normal", "normal-easy")
TARGET_AGAINST_RANDOM = 0.90  # two players
TARGET_FAIR_TIMES = 2.0  # more seats: the share against the fair share
TARGET_LEVELS = 0.65  # the stronger level, two players
TARGET_SECONDS = 2.0  # normal, the slowest move
TIMED = "normal"


# --- playouts per second --------------------------------------------------------------------------------
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
    """(playouts, elapsed seconds, unfinished) for random games from the start at the smallest table."""
    engine = registry.get_engine(slug)
    players = max(2, engine.min_players)
    rng = random.Random(f"{seed}:{slug}")
    done = unfinished = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        if not _playout(engine, players, rng):
            unfinished += 1
        done += 1
    return done, time.perf_counter() - start, unfinished


# --- matchups -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Matchup:
    slug: str
    strong: str
    weak: str
    players: int

    @property
    def name(self) -> str:
        return f"{self.strong} against {self.weak}"

    @property
    def fair(self) -> float:
        return 1.0 / self.players

    @property
    def target(self) -> float:
        """The share of wins the stronger bot is to reach."""
        if self.weak == "random":
            return TARGET_AGAINST_RANDOM if self.players == 2 else min(1.0, TARGET_FAIR_TIMES * self.fair)
        return TARGET_LEVELS if self.players == 2 else min(1.0, TARGET_LEVELS * 2 * self.fair)

    @property
    def target_text(self) -> str:
        if self.players == 2:
            return f">= {100 * self.target:.0f}%"
        times = TARGET_FAIR_TIMES if self.weak == "random" else TARGET_LEVELS * 2
        return f">= {times:g} x fair {100 * self.fair:.0f}% = {100 * self.target:.0f}%"


@dataclass
class Result:
    matchup: Matchup
    number: int
    strong_seat: int
    finished: bool = True
    share: float = 0.0  # the stronger bot's share of the win: 1, 1/k in a k-way draw, or 0
    seconds: dict[str, list[float]] = field(default_factory=dict)  # per level, its moves' wall time
    cpu: dict[str, list[float]] = field(default_factory=dict)
    playouts: dict[str, list[int]] = field(default_factory=dict)


def play_game(job: tuple[Matchup, int, str]) -> Result:
    matchup, number, seed = job
    engine = registry.get_engine(matchup.slug)
    text = f"{seed}:{matchup.slug}:{matchup.players}:{matchup.strong}-{matchup.weak}:{number}"
    chance = random.Random(f"{text}:chance")
    choose = random.Random(f"{text}:choose")
    strong_seat = number % matchup.players
    bots = [bench_bot(matchup.strong if s == strong_seat else matchup.weak) for s in range(matchup.players)]
    result = Result(matchup, number, strong_seat)
    seconds: dict[str, list[float]] = defaultdict(list)
    cpu: dict[str, list[float]] = defaultdict(list)
    playouts: dict[str, list[int]] = defaultdict(list)
    state = engine.new_state(seats=matchup.players, options={}, rng=chance)
    steps = 0
    while not engine.is_over(state):
        steps += 1
        if steps > STEP_CAP:
            result.finished = False
            break
        if engine.chance_pending(state):
            state, _ = engine.resolve_chance(state, chance)
            continue
        seat = min(engine.actors(state))
        bot = bots[seat]
        forced = len(engine.legal_moves(state, seat)) == 1
        start, clock = time.perf_counter(), time.process_time()
        move = bot.choose(engine, state, seat, choose)
        if isinstance(bot, SearchBot) and not forced:
            seconds[bot.kind].append(time.perf_counter() - start)
            cpu[bot.kind].append(time.process_time() - clock)
            playouts[bot.kind].append(bot.last_playouts)
        state, _ = engine.apply(state, seat, move)
    if result.finished:
        outcome = list(engine.outcome(state) or [])
        best = max(outcome)
        winners = [s for s, v in enumerate(outcome) if v == best]
        result.share = 1.0 / len(winners) if strong_seat in winners else 0.0
    result.seconds, result.cpu, result.playouts = dict(seconds), dict(cpu), dict(playouts)
    return result


def matchups_for(slug: str, players: int | None, names: list[str]) -> list[Matchup]:
    engine = registry.get_engine(slug)
    allowed = range(engine.min_players, engine.max_players + 1)
    smallest = 2 if 2 in allowed else engine.min_players
    out = []
    for name in names:
        strong, weak = name.split("-")
        seats = players if weak == "random" and players in allowed else smallest
        out.append(Matchup(slug, strong, weak, seats))
    return out


def run(matchups: list[Matchup], games: int, workers: int, seed: str) -> tuple[list[Result], float]:
    # The hard games last longest: started first, they do not leave one worker busy at the end.
    order = sorted(
        matchups, key=lambda m: (not m.strong.startswith("hard"), m.strong == "normal" and m.weak == "random")
    )
    jobs = [(m, number, seed) for m in order for number in range(games)]
    results: list[Result] = []
    done: dict[Matchup, int] = defaultdict(int)
    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        if workers > 1:
            played = stack.enter_context(multiprocessing.Pool(workers)).imap_unordered(play_game, jobs)
        else:  # one worker plays here, with no process to start
            played = map(play_game, jobs)
        for result in played:
            results.append(result)
            done[result.matchup] += 1
            if done[result.matchup] == games:
                m = result.matchup
                mine = [r for r in results if r.matchup == m]
                share = _share(mine)
                print(
                    f"  {m.slug:<10} {m.name:<20} {m.players} players: {100 * share:5.1f}% "
                    f"({time.perf_counter() - start:.0f} s)",
                    flush=True,
                )
    return results, time.perf_counter() - start


# --- the report -----------------------------------------------------------------------------------------
def _verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def _share(results: list[Result]) -> float:
    """The stronger bot's mean share of the win over ``results`` (0 for none)."""
    return sum(r.share for r in results) / len(results) if results else 0.0


def report(slugs: list[str], matchups: list[Matchup], results: list[Result]) -> bool:
    """Print every figure against its target; True when all pass."""
    all_ok = True
    print()
    print(f"{'game':<10} {'figure':<34} {'result (won-drawn-lost)':>24}  {'target':<28} verdict")
    for slug in slugs:
        mine = [r for r in results if r.matchup.slug == slug]
        for m in (m for m in matchups if m.slug == slug):
            games = [r for r in mine if r.matchup == m]
            finished = [r for r in games if r.finished]
            share = _share(finished)
            won = sum(r.share == 1.0 for r in finished)
            lost = sum(r.share == 0.0 for r in finished)
            ok = bool(finished) and share >= m.target
            all_ok &= ok
            cut = f", {len(games) - len(finished)} cut off" if len(finished) < len(games) else ""
            # Won, drawn (a share of the win), lost: a draw-heavy game keeps a stronger bot's share down.
            result = f"{100 * share:5.1f}% ({won}-{len(finished) - won - lost}-{lost}{cut})"
            label = f"{m.name}, {m.players} players"
            print(f"{slug:<10} {label:<34} {result:>24}  {m.target_text:<28} {_verdict(ok)}")
            # Seat by seat, since a game whose seats are not equal (The Wall's Watch and Others) caps what
            # a stronger bot can win from the weaker seat.
            seats = []
            for seat in range(m.players):
                there = [r for r in finished if r.strong_seat == seat]
                if there:
                    seats.append(f"seat {seat} {100 * _share(there):.1f}% of {len(there)}")
            if seats:
                print(f"{'':<10} ({m.strong} by its seat: {', '.join(seats)})")
        seconds = [s for r in mine for s in r.seconds.get(TIMED, [])]
        cpu = [s for r in mine for s in r.cpu.get(TIMED, [])]
        if seconds:
            ok = max(seconds) <= TARGET_SECONDS
            all_ok &= ok
            result = f"median {statistics.median(seconds):.2f}, max {max(seconds):.2f}"
            print(
                f"{slug:<10} {'normal, seconds a move':<34} {result:>24}  {'max <= 2 s':<28} {_verdict(ok)}"
            )
            print(
                f"{'':<10} ({len(seconds)} moves; CPU median {statistics.median(cpu):.2f} s, "
                f"max {max(cpu):.2f} s)"
            )
        # Every searching side's playouts: what its time limit (or budget) buys in this game, since a
        # level's edge over another is about the ratio of the two, not the seconds.
        kinds = sorted({kind for r in mine for kind in r.playouts})
        if kinds:
            medians = ", ".join(
                f"{kind} {statistics.median(p for r in mine for p in r.playouts.get(kind, [])):.0f}"
                for kind in kinds
            )
            print(f"{'':<10} (playouts a move, median: {medians})")
    return all_ok


def _load() -> str:
    if not hasattr(os, "getloadavg"):
        return "load average unknown"
    return "load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()) + f" on {os.cpu_count()} cores"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES, help="games a matchup and game")
    parser.add_argument("--workers", type=int, default=2, help="processes playing games at once")
    parser.add_argument("--slug", action="append", default=None, help="a game (repeatable); all by default")
    parser.add_argument("--players", type=int, default=None, help="seats for normal against random")
    parser.add_argument(
        "--matchups", default=",".join(MATCHUPS), help="strong-weak level pairs, comma-separated"
    )
    parser.add_argument("--include-test", action="store_true", help="also the test engine (dice and cards)")
    parser.add_argument("--playouts", type=float, default=0.0, metavar="SECONDS", help="time an engine")
    parser.add_argument("--seed", default="bench", help="seed of every random choice")
    args = parser.parse_args(argv)

    if args.include_test:
        registry.register(*TEST_ENGINE)
    known = registry.slugs()
    slugs = list(dict.fromkeys(args.slug)) if args.slug else [s for s in known if s != TEST_ENGINE[0]]
    if args.include_test and TEST_ENGINE[0] not in slugs:
        slugs.append(TEST_ENGINE[0])
    names = [n.strip() for n in args.matchups.split(",") if n.strip()]
    problems = [s for s in slugs if s not in known]
    problems += [n for n in names if n.count("-") != 1 or any(bench_side(p) is None for p in n.split("-"))]
    if problems or args.games < 1 or args.workers < 1:
        print(
            f"Unknown games or matchups: {', '.join(problems) or 'none'}; games: {', '.join(known)}; "
            f"matchups are strong-weak pairs of {', '.join(LEVELS)}, a searching one also as "
            "<level>@<playouts>; --games and --workers from 1.",
            file=sys.stderr,
        )
        return 2
    print(f"Python {sys.version.split()[0]}, seed {args.seed!r}, {args.games} games a matchup, {_load()}")
    for kind, level in LEVELS.items():
        if level.seconds:
            ranked = f"{level.node_width} moves ranked when a node below the root widens"
            if level.node_width > NODE_WIDTH:
                ranked = (
                    f"{NODE_WIDTH} moves ranked when a node below the root widens, "
                    f"{level.node_width} more once it has been visited {WIDE_VISITS} times"
                )
            print(
                f"  {kind}: {level.playouts} playouts or {level.seconds:g} s a move, whichever comes first; "
                f"{ranked}; at the root, {level.root_width} of its own"
            )
    if args.playouts:
        print()
        print(f"Random playouts from the start, smallest table, one core, {args.playouts:g} s per engine:")
        for slug in slugs:
            done, elapsed, unfinished = playouts_per_second(slug, args.playouts, args.seed)
            note = f"  ({unfinished} cut off at {STEP_CAP} steps)" if unfinished else ""
            print(f"  {slug:<10} {done / elapsed:>8.1f} playouts/s  ({done} in {elapsed:.1f} s){note}")
    matchups = [m for slug in slugs for m in matchups_for(slug, args.players, names)]
    print()
    print(f"{len(matchups)} matchups x {args.games} games on {args.workers} workers:")
    results, elapsed = run(matchups, args.games, args.workers, args.seed)
    ok = report(slugs, matchups, results)
    print()
    print(
        f"Wall time {elapsed / 60:.1f} min; {_load()}; {'every target met' if ok else 'some target missed'}."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
