"""Balance of any registered game from bot-against-bot games: win rate by seat, the engine's own counts,
and optionally what happens to a House that never bids.

    python bench/balance.py --slug wildlings [--games 1000] [--players 4] [--seed S] [--bot random]
                            [--never-bids SEAT|rotate] [--bid-key bid] [--workers 1]

Run from the repository root; it needs neither Django nor an installed package (a pure library, like the
engines and the bots). Every game is seeded by its number, so two runs with the same arguments agree.

- **Win rate by seat.** A game's winners are the seats with the best ``outcome``; a sole winner scores
  1, and a draw between k seats gives each 1/k (printed apart as "draw shares").
- **Engine counts.** When the engine has ``balance_stats(state) -> dict[str, float]``, those counts are
  summed over the finished games and printed with their mean per game.
- **Never bids** (``--never-bids``): the same games are played twice with the same seeds, once with
  every seat played by the bot and once with one seat (a number, or ``rotate``: seat ``game % players``)
  wrapped in :class:`NeverBids`: whenever every legal move is a bid (a move whose only key is
  ``--bid-key`` with a whole number), it bids the least; otherwise the bot chooses. The script prints
  that seat's win rate in both runs and the bidders' mean win rate beside it.

It reports and never fails: the exit code is always 0 (2 for bad arguments).
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.bots import LEVELS, Bot, bot_for  # noqa: E402
from games.engines import registry  # noqa: E402
from games.engines.base import Engine, Move, State  # noqa: E402

STEP_CAP = 20_000


class NeverBids:
    """A seat policy: the least bid whenever the choice is only a bid, the wrapped bot otherwise.

    Generic over engines: a "bid" is a move whose only key is ``key`` with an int value, so other
    games' moves (and bids written as text) pass through to the bot untouched.
    """

    def __init__(self, bot: Bot, key: str = "bid") -> None:
        self.bot = bot
        self.key = key
        self.kind = f"never-bids({bot.kind})"

    def _is_bid(self, move: Move) -> bool:
        return isinstance(move, dict) and set(move) == {self.key} and type(move[self.key]) is int

    def choose(self, engine: Engine, state: State, seat: int, rng: random.Random) -> Move:
        moves = engine.legal_moves(state, seat)
        if moves and all(self._is_bid(m) for m in moves):
            return min(moves, key=lambda m: m[self.key])
        return self.bot.choose(engine, state, seat, rng)


@dataclass
class GameResult:
    number: int
    finished: bool
    winners: list[int] = field(default_factory=list)
    stats: dict[str, float] = field(default_factory=dict)
    steps: int = 0
    special: int | None = None  # the seat wrapped in NeverBids, if any


def _special_seat(spec: str | None, number: int, players: int) -> int | None:
    if spec is None:
        return None
    if spec == "rotate":
        return number % players
    return int(spec)


def play_one(args: tuple[str, int, str, str, int, str | None, str]) -> GameResult:
    slug, players, bot_kind, seed, number, never, bid_key = args
    engine = registry.get_engine(slug)
    bot = bot_for(bot_kind)
    special = _special_seat(never, number, players)
    policies: list[Any] = [bot] * players
    if special is not None:
        policies[special] = NeverBids(bot, bid_key)
    # One generator for setup and chance, one for the bots: the wrapper changes choices, never the deal.
    chance = random.Random(f"{seed}:{slug}:{players}:{number}:chance")
    choose = random.Random(f"{seed}:{slug}:{players}:{number}:choose")
    state = engine.new_state(seats=players, options={}, rng=chance)
    steps = 0
    while not engine.is_over(state):
        if steps >= STEP_CAP:
            return GameResult(number, False, special=special, steps=steps)
        steps += 1
        if engine.chance_pending(state):
            state, _ = engine.resolve_chance(state, chance)
            continue
        seat = min(engine.actors(state))
        move = policies[seat].choose(engine, state, seat, choose)
        state, _ = engine.apply(state, seat, move)
    outcome = engine.outcome(state) or []
    best = max(outcome)
    winners = [s for s, v in enumerate(outcome) if v == best]
    hook = getattr(engine, "balance_stats", None)
    stats = hook(state) if callable(hook) else {}
    return GameResult(number, True, winners, dict(stats), steps, special)


@dataclass
class Summary:
    games: int
    finished: int
    wins: list[float]  # sole wins
    draws: list[float]  # shares of draws
    stats: dict[str, float]
    special_score: float  # wins plus draw shares of the NeverBids seat
    special_games: int
    seconds: float


def run(
    slug: str, games: int, players: int, bot: str, seed: str, never: str | None, bid_key: str, workers: int
) -> Summary:
    jobs = [(slug, players, bot, seed, n, never, bid_key) for n in range(games)]
    start = time.perf_counter()
    if workers > 1:
        with multiprocessing.Pool(workers) as pool:
            results = pool.map(play_one, jobs, chunksize=8)
    else:
        results = [play_one(job) for job in jobs]
    wins = [0.0] * players
    draws = [0.0] * players
    stats: dict[str, float] = defaultdict(float)
    special_score = 0.0
    special_games = 0
    finished = 0
    for result in results:
        if not result.finished:
            continue
        finished += 1
        share = 1.0 / len(result.winners)
        for seat in result.winners:
            if len(result.winners) == 1:
                wins[seat] += 1.0
            else:
                draws[seat] += share
        if result.special is not None:
            special_games += 1
            if result.special in result.winners:
                special_score += share
        for key, value in result.stats.items():
            stats[key] += value
    return Summary(
        games, finished, wins, draws, dict(stats), special_score, special_games, time.perf_counter() - start
    )


def _rate(x: float, n: int) -> str:
    return f"{100 * x / n:5.1f}%" if n else "  n/a"


def print_seats(summary: Summary, title: str) -> None:
    n = summary.finished
    print(f"{title}: {n} of {summary.games} games finished in {summary.seconds:.1f} s")
    print("  seat   wins  draw shares  win rate")
    for seat, (w, d) in enumerate(zip(summary.wins, summary.draws, strict=True)):
        print(f"  {seat:>4} {w:6.0f} {d:12.1f}  {_rate(w + d, n)}")


def print_stats(summary: Summary) -> None:
    if not summary.stats:
        return
    n = summary.finished
    print("  engine counts (balance_stats): total, mean per game")
    for key in sorted(summary.stats):
        total = summary.stats[key]
        print(f"    {key:<36} {total:10.0f} {total / n if n else 0:8.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slug", required=True, choices=registry.slugs())
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--seed", default="balance")
    parser.add_argument("--bot", default="random", choices=list(LEVELS))
    parser.add_argument("--never-bids", default=None, metavar="SEAT|rotate")
    parser.add_argument("--bid-key", default="bid")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    engine = registry.get_engine(args.slug)
    players = args.players or engine.min_players
    if not engine.min_players <= players <= engine.max_players:
        print(f"{engine.title} is for {engine.min_players} to {engine.max_players} players.", file=sys.stderr)
        return 2
    if args.never_bids not in (None, "rotate") and (
        not args.never_bids.isdigit() or int(args.never_bids) >= players
    ):
        print("--never-bids takes a seat number below --players, or 'rotate'.", file=sys.stderr)
        return 2
    common = (args.slug, args.games, players, args.bot, args.seed)
    print(
        f"{engine.title} ({args.slug}), {players} players, {args.games} games, bot {args.bot}, "
        f"seed {args.seed!r}"
    )
    base = run(*common, None, args.bid_key, args.workers)
    print_seats(base, "Every seat played by the bot")
    print_stats(base)
    if args.never_bids is None:
        return 0
    tried = run(*common, args.never_bids, args.bid_key, args.workers)
    who = (
        "the rotating seat (game number mod players)"
        if args.never_bids == "rotate"
        else f"seat {args.never_bids}"
    )
    print()
    print_seats(tried, f"{who.capitalize()} never bids (key {args.bid_key!r}), the others as before")
    print_stats(tried)
    n_base, n_tried = base.finished, tried.finished
    if args.never_bids == "rotate":
        # Every seat takes the role equally often, so the same seat's baseline is the fair share.
        baseline = 1.0 / players
    else:
        seat = int(args.never_bids)
        baseline = (base.wins[seat] + base.draws[seat]) / n_base if n_base else 0.0
    never = tried.special_score / tried.special_games if tried.special_games else 0.0
    bidders = (1.0 - never) / (players - 1)
    print()
    print("Never bids against bids:")
    error = 100 * (never * (1 - never) / tried.special_games) ** 0.5 if tried.special_games else 0.0
    print(
        f"  the House that never bids wins          {100 * never:5.1f}% of {tried.special_games} games "
        f"(standard error {error:.1f} points)"
    )
    print(f"  each House that bids wins on average    {100 * bidders:5.1f}% (same games)")
    print(f"  the same seat when it bids like the rest {100 * baseline:5.1f}% (of {n_base} games)")
    # Against the same seat when it bids: that takes the seat's own advantage out of the comparison
    # (under "rotate" it is the fair share, and then "never <= baseline" also means "never <= bidders").
    verdict = "no more often" if never <= baseline else "MORE OFTEN"
    print(f"  => the House that never bids wins {verdict} than one that bids.")
    if n_tried < args.games or n_base < args.games:
        print(
            f"  ({args.games - n_tried} and {args.games - n_base} games did not finish "
            f"within {STEP_CAP} steps)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
