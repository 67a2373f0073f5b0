"""Balance of the registered games from bot-against-bot games: win rate by seat and by side, how games end,
how long they last, and optionally what happens to a House that never bids.

    python bench/balance.py --all [--games 100] [--workers 2] [--markdown docs/balance.md]
    python bench/balance.py --slug wildlings [--slug ...] [--players 4 ...] [--option key=value ...]
                            [--bot normal|normal@375] [--seed S] [--never-bids SEAT|rotate] [--bid-key bid]
                            [--record games.jsonl [--tables-only] [--forget SLUG ...]] [--show NUMBER]
                            [--pool KEY]

Run from the repository root; it needs neither Django nor an installed package (a pure library, like the
engines and the bots). ``make balance`` adds games to ``docs/balance.md`` (normal bots, a record that grows)
and ``make balance-random`` regenerates ``docs/balance-random.md``, each with its command in its heading.

**What is played.** ``--all`` takes every registered game (``--slug`` names some), each at every player
count it allows (``--players`` picks some). ``--option key=value`` sets an engine option for the games
that have it; ``key=a,b`` runs each value, and several keys run every combination (for example
``--option layout=classic,maze --option pieces=first_game,recommended``). The ``--bot`` level (``normal``
by default) plays every seat; ``--bot normal@375`` plays its search at a fixed 375 playouts a move with no
time limit, so the games repeat on any machine and cost the same everywhere. All the games of all
settings are spread over ``--workers`` processes. ``--pool KEY`` also reports the tables that differ
only in option KEY taken together, each after its parts: Walls and Stairways' two piece sets of a layout
make up one preset, whose every seat should win within ten points of its fair share (and with four
players the two sets are the same pieces, so their tables are two samples of one game).
Every game is seeded by its number, so two runs with the same arguments deal the same games; the search
levels also stop on a time limit, so their choices repeat exactly only on an equally fast machine.

**A record that grows** (``--record PATH``, JSON Lines). Every game is appended to the record as it ends,
and a game already in it (the same setting, bot, seed and number) is read back instead of played again.
So a run that is stopped keeps its games (after Ctrl-C it still writes the tables of those it holds), the
next run plays only the missing ones, and the tables fill up over several runs, each taking the next game
number of every setting in turn; ``--tables-only`` writes the tables of the games held, playing none. Use
it with a fixed budget (``--bot normal@375``): a timed level's games depend on the machine, so a record
of them mixes machines. One run at a time writes a record. A record cannot tell which version of a game
or of the bots played its games: when a change moves a game's balance (a rule, a layout, its ``evaluate``,
the search), ``--forget SLUG`` drops that game's games from the record, so that they are played again.

**One game, move by move** (``--show NUMBER`` with one setting): every move and everything the engine
says came of it, hidden draws included, as the bots played game NUMBER of the tables (the same seeds),
to see how a seat wins.

**How many games.** 100 a setting by default: a win rate's standard error is at most
sqrt(0.25 / 100) = 5 points, so each figure is good to about +-5 points (one standard error; +-5 points
at 95% confidence takes ``--games 400``). The tables print each figure's standard error beside it.

**What is reported** (a contract any engine can meet without this script knowing the game):

- **Seats.** A game's winners are the seats with the best ``outcome``; a sole winner scores 1 and a draw
  between k seats gives each 1/k (counted apart as draw shares). In a team game partners who win
  together each score 1; a draw is between sides. The mean ``outcome`` per seat is shown
  too (the only figure that means anything for a one-seat game).
- **Sides.** When ``engine.teams(seats)`` names two or more sides, each side's win rate (a draw shared
  as above). Their names come from ``engine.team_names(seats) -> list[str]`` when the engine has it
  (one name per side, in the order of ``teams``), else from their seats ("seats 0, 2").
- **Engine counts.** ``engine.balance_stats(state) -> dict[str, float]`` on each finished game, if the
  engine has it. A key that is 0 or 1 in every game is shown as the share of games where it is 1 (one
  key per end reason, 1.0 for the reason that ended the game; which side won); any other key as its
  mean per game with the least and the most (rounds played, attacks).
- **End reasons.** Without ``balance_stats``, the public view's ``end_reason`` text, as shares of games.
- **Length.** Moves a game (player moves; chance steps are not counted), mean, least and most.
- **Limits.** A seat or side is marked over its limit when it wins more than 60% where two sides or two
  seats play, or more than twice its fair share with more.
- **Never bids** (``--never-bids``): the same games are played twice with the same seeds, once with
  every seat played by the bot and once with one seat (a number, or ``rotate``: seat ``game % players``)
  wrapped in :class:`NeverBids`: whenever every legal move is a bid (a move whose only key is
  ``--bid-key`` with a whole number), it bids the least; otherwise the bot chooses. The script prints
  that seat's win rate in both runs and the bidders' mean win rate beside it.

It reports and never fails: the exit code is always 0 (2 for bad arguments). ``--markdown PATH`` also
writes the tables as Markdown, one per game, player count and set of options.
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import random
import signal
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import Any, TextIO

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.bots import LEVELS, Bot, bench_bot, bench_side  # noqa: E402
from games.engines import registry  # noqa: E402
from games.engines.base import Engine, Move, State  # noqa: E402
from games.engines.palette import SEAT_NAMES  # noqa: E402

STEP_CAP = 20_000
DEFAULT_GAMES = 100
TWO_SIDED_LIMIT = 0.60
FAIR_SHARE_TIMES = 2.0
_IGNORE_INT = (signal.SIGINT, signal.SIG_IGN)


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


@dataclass(frozen=True)
class Setting:
    """One table of the report: a game, its player count and the options set (the rest default)."""

    slug: str
    players: int
    options: tuple[tuple[str, str], ...] = ()

    @property
    def label(self) -> str:
        engine = registry.get_engine(self.slug)
        text = f"{engine.title}, {self.players} player{'s' if self.players != 1 else ''}"
        if self.options:
            text += " (" + ", ".join(f"{k}={v}" for k, v in self.options) + ")"
        return text


@dataclass
class GameResult:
    setting: Setting
    number: int
    finished: bool
    winners: list[int] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    stats: dict[str, float] = field(default_factory=dict)
    end_reason: str | None = None
    moves: int = 0
    seconds: float = 0.0
    special: int | None = None  # the seat wrapped in NeverBids, if any


def _record_key(setting: Setting, bot: str, seed: str, number: int) -> tuple[Any, ...]:
    return (setting.slug, setting.players, setting.options, bot, seed, number)


def to_record(result: GameResult, *, bot: str, seed: str) -> str:
    """One line of the record: the game's setting, bot, seed and number, then what it gave."""
    row = {
        "slug": result.setting.slug,
        "players": result.setting.players,
        "options": [list(pair) for pair in result.setting.options],
        "bot": bot,
        "seed": seed,
        "number": result.number,
        "finished": result.finished,
        "winners": result.winners,
        "scores": result.scores,
        "stats": result.stats,
        "end_reason": result.end_reason,
        "moves": result.moves,
        "seconds": round(result.seconds, 3),
    }
    return json.dumps(row, sort_keys=True) + "\n"


def forget(path: Path, slugs: list[str]) -> int:
    """Drop the games of ``slugs`` from the record; how many were dropped."""
    if not path.exists():
        return 0
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if json.loads(line).get("slug") not in slugs]
    path.write_text("".join(kept), encoding="utf-8")
    return len(lines) - len(kept)


def read_record(path: Path) -> dict[tuple[Any, ...], GameResult]:
    """The games a record holds, by (setting, bot, seed, number). A last line cut off by a stopped run is
    dropped from the file; any other line that is not a game is refused with its number."""
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
        path.write_text(text, encoding="utf-8")
    games: dict[tuple[Any, ...], GameResult] = {}
    for line_number, line in enumerate(text.splitlines(), 1):
        try:
            row = json.loads(line)
            setting = Setting(
                row["slug"], int(row["players"]), tuple((str(k), str(v)) for k, v in row["options"])
            )
            result = GameResult(
                setting,
                int(row["number"]),
                bool(row["finished"]),
                [int(w) for w in row["winners"]],
                [float(v) for v in row["scores"]],
                {str(k): float(v) for k, v in row["stats"].items()},
                row["end_reason"],
                int(row["moves"]),
                float(row["seconds"]),
            )
            key = _record_key(setting, str(row["bot"]), str(row["seed"]), result.number)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise BadArguments(f"{path}, line {line_number}: not a game of this script ({exc}).") from None
        games[key] = result
    return games


def _special_seat(spec: str | None, number: int, players: int) -> int | None:
    if spec is None:
        return None
    if spec == "rotate":
        return number % players
    return int(spec)


def _seed_text(seed: str, setting: Setting, number: int, stream: str) -> str:
    # Without options the text is the one earlier versions used, so published figures replay.
    options = "".join(f":{k}={v}" for k, v in setting.options)
    return f"{seed}:{setting.slug}:{setting.players}{options}:{number}:{stream}"


def play_one(args: tuple[Setting, str, str, int, str | None, str]) -> GameResult:
    return play(*args)


def play(
    setting: Setting,
    bot_kind: str,
    seed: str,
    number: int,
    never: str | None,
    bid_key: str,
    show: Callable[[str], None] | None = None,
) -> GameResult:
    """Game ``number`` of ``setting``; ``show`` is given each move and what came of it, in order."""
    start = time.perf_counter()
    engine = registry.get_engine(setting.slug)
    bot = bench_bot(bot_kind)
    players = setting.players
    special = _special_seat(never, number, players)
    policies: list[Any] = [bot] * players
    if special is not None:
        policies[special] = NeverBids(bot, bid_key)
    # One generator for setup and chance, one for the bots: the wrapper changes choices, never the deal.
    chance = random.Random(_seed_text(seed, setting, number, "chance"))
    choose = random.Random(_seed_text(seed, setting, number, "choose"))
    state = engine.new_state(seats=players, options=dict(setting.options), rng=chance)
    steps = moves = 0
    while not engine.is_over(state):
        if steps >= STEP_CAP:
            return GameResult(setting, number, False, moves=moves, special=special)
        steps += 1
        if engine.chance_pending(state):
            state, events = engine.resolve_chance(state, chance)
        else:
            seat = min(engine.actors(state))
            move = policies[seat].choose(engine, state, seat, choose)
            state, events = engine.apply(state, seat, move)
            moves += 1
            if show is not None:
                said = engine.format_move(move)
                show(f"{_seat_name(seat)}: {said}")
                events = [e for e in events if e.text != said]  # the move itself, as some logs repeat it
        if show is not None:
            for event in events:
                show(f"    {event.text}")
    outcome = list(engine.outcome(state) or [])
    best = max(outcome)
    winners = [s for s, v in enumerate(outcome) if v == best]
    hook = getattr(engine, "balance_stats", None)
    stats = {k: float(v) for k, v in hook(state).items()} if callable(hook) else {}
    reason = engine.public_view(state).get("end_reason")
    return GameResult(
        setting,
        number,
        True,
        winners,
        outcome,
        stats,
        None if reason is None else str(reason),
        moves,
        time.perf_counter() - start,
        special,
    )


@dataclass
class Side:
    name: str
    seats: list[int]
    score: float = 0.0


@dataclass
class Summary:
    setting: Setting
    games: int  # asked for
    played: int = 0  # played or read from the record
    finished: int = 0
    wins: list[float] = field(default_factory=list)  # sole wins
    draws: list[float] = field(default_factory=list)  # shares of draws
    score_sums: list[float] = field(default_factory=list)
    sides: list[Side] = field(default_factory=list)
    stats: dict[str, list[float]] = field(default_factory=dict)
    reasons: Counter[str] = field(default_factory=Counter)
    moves: list[int] = field(default_factory=list)
    special_score: float = 0.0  # wins plus draw shares of the NeverBids seat
    special_games: int = 0
    seconds: float = 0.0  # the games' own time, summed over workers
    results: list[GameResult] = field(default_factory=list, repr=False)
    pooled: str = ""  # for a table that takes others together: which ("pieces first_game and recommended")

    def rate(self, seat: int) -> float:
        return (self.wins[seat] + self.draws[seat]) / self.finished if self.finished else 0.0

    @property
    def parties(self) -> int:
        """How many sides play: the teams, or else every seat for itself."""
        return len(self.sides) or self.setting.players

    def limit(self, parties: int) -> float:
        """The win rate above which a seat or side among ``parties`` is marked."""
        return TWO_SIDED_LIMIT if parties == 2 else min(1.0, FAIR_SHARE_TIMES / parties)

    def over(self, rate: float, parties: int) -> bool:
        """Whether a seat or side among ``parties`` that wins at ``rate`` is marked."""
        return parties > 1 and rate > self.limit(parties)


def _sides(engine: Engine, players: int) -> list[Side]:
    teams = engine.teams(players)
    if not teams or len(teams) < 2:
        return []
    names_hook = getattr(engine, "team_names", None)
    names = list(names_hook(players)) if callable(names_hook) else []
    sides = []
    for index, seats in enumerate(teams):
        name = names[index] if index < len(names) else "seats " + ", ".join(map(str, seats))
        sides.append(Side(name, list(seats)))
    return sides


def summarise(setting: Setting, games: int, results: list[GameResult]) -> Summary:
    engine = registry.get_engine(setting.slug)
    n = setting.players
    summary = Summary(
        setting,
        games,
        wins=[0.0] * n,
        draws=[0.0] * n,
        score_sums=[0.0] * n,
        sides=_sides(engine, n),
        results=list(results),
    )
    party = list(range(n))
    for index, side in enumerate(summary.sides):
        for seat in side.seats:
            party[seat] = index
    stats: dict[str, list[float]] = defaultdict(list)
    keys = {k for r in results if r.finished for k in r.stats}
    for result in sorted(results, key=lambda r: r.number):
        summary.played += 1
        summary.seconds += result.seconds
        if not result.finished:
            continue
        summary.finished += 1
        # Partners who win together share nothing: a draw is between sides (seats, without teams).
        won = {party[s] for s in result.winners}
        share = 1.0 / len(won)
        for seat in result.winners:
            if len(won) == 1:
                summary.wins[seat] += 1.0
            else:
                summary.draws[seat] += share
        for index, side in enumerate(summary.sides):
            side.score += share if index in won else 0.0
        for seat, value in enumerate(result.scores[:n]):
            summary.score_sums[seat] += value
        if result.special is not None:
            summary.special_games += 1
            if result.special in result.winners:
                summary.special_score += share
        for key in keys:
            stats[key].append(result.stats.get(key, 0.0))
        if not keys and result.end_reason is not None:
            summary.reasons[result.end_reason] += 1
        summary.moves.append(result.moves)
    summary.stats = dict(stats)
    return summary


def with_pools(summaries: list[Summary], key: str) -> list[Summary]:
    """``summaries``, each group of two or more that differ only in option ``key`` followed by a table of
    its games taken together (Walls and Stairways' two piece sets of a layout make up one preset, the unit
    its balance is judged by)."""

    def group_of(setting: Setting) -> tuple[Any, ...]:
        return setting.slug, setting.players, tuple(item for item in setting.options if item[0] != key)

    groups: dict[tuple[Any, ...], list[Summary]] = defaultdict(list)
    for summary in summaries:
        if key in dict(summary.setting.options):
            groups[group_of(summary.setting)].append(summary)
    out: list[Summary] = []
    for summary in summaries:
        out.append(summary)
        group = groups.get(group_of(summary.setting), [])
        if len(group) < 2 or summary is not group[-1]:
            continue
        values = [dict(member.setting.options)[key] for member in group]
        setting = summary.setting
        options = tuple((k, " + ".join(values) if k == key else v) for k, v in setting.options)
        games = sum(member.games for member in group)
        pooled = summarise(
            Setting(setting.slug, setting.players, options),
            games,
            [result for member in group for result in member.results],
        )
        pooled.pooled = f"{key} {', '.join(values[:-1])} and {values[-1]}"
        out.append(pooled)
    return out


def run_all(
    settings: list[Setting],
    *,
    games: int,
    bot: str,
    seed: str,
    never: str | None,
    bid_key: str,
    workers: int,
    record: Path | None = None,
    play_missing: bool = True,
) -> tuple[list[Summary], float]:
    """Play ``games`` games of every setting, less those the record holds (none unless ``play_missing``);
    the summaries in the order given, and the wall time of the games played now."""
    done = read_record(record) if record is not None else {}
    by_setting: dict[Setting, list[GameResult]] = defaultdict(list)
    # Game numbers in turn across the settings, so a run stopped early leaves every table some games.
    jobs = []
    for number, setting in itertools.product(range(games), settings):
        known = done.get(_record_key(setting, bot, seed, number))
        if known is not None:
            by_setting[setting].append(known)
        else:
            jobs.append((setting, bot, seed, number, never, bid_key))
    if done:
        print(f"{sum(map(len, by_setting.values()))} games read from {record}, {len(jobs)} missing.")
    if not play_missing:
        jobs = []
    start = time.perf_counter()
    sink = record.open("a", encoding="utf-8") if record is not None else None
    try:
        if workers > 1 and len(jobs) > 1:
            # The workers leave Ctrl-C to this process, which stops them and reports what it has.
            with multiprocessing.Pool(workers, initializer=signal.signal, initargs=_IGNORE_INT) as pool:
                for result in pool.imap_unordered(play_one, jobs):
                    _collect(result, by_setting, games, sink, bot=bot, seed=seed)
        else:
            for job in jobs:
                _collect(play_one(job), by_setting, games, sink, bot=bot, seed=seed)
    except KeyboardInterrupt:
        if record is None:
            raise
        print("Stopped: the tables below hold the games played so far.", file=sys.stderr)
    finally:
        if sink is not None:
            sink.close()
    summaries = [summarise(s, games, by_setting[s]) for s in settings]
    return summaries, time.perf_counter() - start


def _collect(
    result: GameResult,
    by_setting: dict[Setting, list[GameResult]],
    games: int,
    sink: TextIO | None,
    *,
    bot: str,
    seed: str,
) -> None:
    by_setting[result.setting].append(result)
    if sink is not None:
        sink.write(to_record(result, bot=bot, seed=seed))
        sink.flush()
    _progress(by_setting, result.setting, games)


def _progress(by_setting: dict[Setting, list[GameResult]], setting: Setting, games: int) -> None:
    if len(by_setting[setting]) == games and games >= 20:
        print(f"  ... {setting.label}: {games} games played", file=sys.stderr, flush=True)


# --- text report ---------------------------------------------------------------------------------------
def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def _error(p: float, n: int) -> float:
    return 100 * (p * (1 - p) / n) ** 0.5 if n else 0.0


def _is_share(values: list[float]) -> bool:
    return all(v in (0.0, 1.0) for v in values)


def _seat_name(seat: int) -> str:
    return f"seat {seat} ({SEAT_NAMES[seat % len(SEAT_NAMES)]})"


def rows(summary: Summary) -> list[tuple[str, str, str, str, bool]]:
    """(what, win rate, standard error, mean score, over its limit) for every seat, then every side."""
    n = summary.finished
    players = summary.setting.players
    out = []
    for seat in range(players):
        rate = summary.rate(seat)
        over = summary.over(rate, summary.parties)
        mean = summary.score_sums[seat] / n if n else 0.0
        out.append((_seat_name(seat), _pct(rate), f"{_error(rate, n):.1f}", f"{mean:.2f}", over))
    for side in summary.sides:
        rate = side.score / n if n else 0.0
        over = summary.over(rate, len(summary.sides))
        out.append((f"side {side.name}", _pct(rate), f"{_error(rate, n):.1f}", "", over))
    return out


def facts(summary: Summary) -> list[tuple[str, str]]:
    """(what, figure) for the game length, the end reasons and the engine's counts."""
    n = summary.finished
    out: list[tuple[str, str]] = []
    if summary.moves:
        mean = sum(summary.moves) / len(summary.moves)
        out.append(("moves a game", f"{mean:.1f} (least {min(summary.moves)}, most {max(summary.moves)})"))
    for reason, count in summary.reasons.most_common():
        out.append((f"ended: {reason}", _pct(count / n).strip()))
    shares = {k: v for k, v in summary.stats.items() if _is_share(v)}
    for key in sorted(shares):
        out.append((key, f"{_pct(sum(shares[key]) / n).strip()} of games"))
    for key in sorted(set(summary.stats) - set(shares)):
        values = summary.stats[key]
        out.append((key, f"{sum(values) / n:.2f} a game (least {min(values):g}, most {max(values):g})"))
    return out


def print_summary(summary: Summary) -> None:
    s = summary
    print(
        f"{s.setting.label}: {s.finished} of {s.played} games finished "
        f"({s.seconds:.0f} s of play, {s.seconds / max(1, s.played):.1f} s a game)"
    )
    print(f"  {'':<22} {'win rate':>8} {'+-':>5} {'mean score':>10}")
    for what, rate, error, mean, over in rows(s):
        print(f"  {what:<22} {rate:>8} {error:>5} {mean:>10}{'  OVER THE LIMIT' if over else ''}")
    for what, figure in facts(s):
        print(f"  {what}: {figure}")
    if s.finished < s.played:
        print(f"  ({s.played - s.finished} games did not finish within {STEP_CAP} steps)")


# --- Markdown ------------------------------------------------------------------------------------------
def markdown(
    summaries: list[Summary],
    *,
    command: str,
    bot: str,
    games: int,
    seed: str,
    wall: float,
    workers: int,
    record: Path | None = None,
) -> str:
    tables = [s for s in summaries if not s.pooled]  # a pooled table's games are its parts' games
    played = sum(s.played for s in tables)
    seconds = sum(s.seconds for s in tables)
    if record is None:
        how = f"{games} per table, the **{bot}** bot in every seat, seed `{seed}`, made by the command below"
        how += f" in {_duration(wall)} of wall time on {workers} worker process{'es' if workers != 1 else ''}"
    else:
        how = (
            f"up to {games} per table, the **{bot}** bot in every seat, seed `{seed}`. The command below "
            f"keeps the games in `{record.as_posix()}` and plays only those it does not hold yet, so the "
            f"tables fill up run by run: the {played} games held took {_duration(seconds)} of play, summed "
            "over the worker processes"
        )
    lines = [
        "# Balance",
        "",
        f"Bot-against-bot games, {how} (see `bench/balance.py`).",
        "",
        f"    {command}",
        "",
        "A win shared by k seats (or sides, in a team game) counts 1/k to each. ± is one standard error "
        f"in points (at most {_error(0.5, games):.0f} at {games} games, 10 at 25). A seat or side in "
        f"**bold** wins more than {100 * TWO_SIDED_LIMIT:.0f}% where two seats or sides play, or more than "
        "twice its fair share with more. Mean score is the mean of the engine's `outcome` for the seat. "
        "Moves count the players' moves, not chance steps; the other rows are the engine's own counts "
        "(`balance_stats`): a share of games for a yes-or-no count (how the game ended, who won), otherwise "
        "the mean a game.",
        "",
        *overview(summaries),
    ]
    current = None
    for summary in summaries:
        engine = registry.get_engine(summary.setting.slug)
        if summary.setting.slug != current:
            current = summary.setting.slug
            lines += [f"## {engine.title}", ""]
        title = f"{summary.setting.players} player{'s' if summary.setting.players != 1 else ''}"
        if summary.setting.options:
            title += ", " + ", ".join(f"{k} {v}" for k, v in summary.setting.options)
        lines += [f"### {title}", ""]
        if not summary.played:
            lines += [f"No game held yet ({summary.games} asked for).", ""]
            continue
        unfinished = summary.played - summary.finished
        note = f", {unfinished} cut off unfinished" if unfinished else ""
        if summary.played < summary.games:
            note += f" (of the {summary.games} asked for: the record fills up run by run)"
        each = summary.seconds / summary.played
        count = f"{summary.finished} game{'s' if summary.finished != 1 else ''}"
        if summary.pooled:
            count += f", the tables of {summary.pooled} above taken together"
        lines += [f"{count}{note}; {each:.1f} s of play a game.", ""]
        if not summary.finished:
            continue
        lines += ["| | win rate | ± | mean score |", "|---|---:|---:|---:|"]
        for what, rate, error, mean, over in rows(summary):
            rate = rate.strip()
            if over:
                what, rate = f"**{what}**", f"**{rate}**"
            lines.append(f"| {what} | {rate} | {error} | {mean} |")
        lines += ["", "| | |", "|---|---|"]
        lines += [f"| {what} | {figure} |" for what, figure in facts(summary)]
        lines.append("")
    return "\n".join(lines)


def overview(summaries: list[Summary]) -> list[str]:
    """Markdown lines: every table's games, its most and least winning seat or side, and the fair share."""
    lines = ["| table | games | wins most | wins least | fair share |", "|---|---:|---|---|---:|"]
    for summary in summaries:
        setting, n = summary.setting, summary.finished
        name = ", ".join(
            [registry.get_engine(setting.slug).title, str(setting.players)] + [v for _, v in setting.options]
        )
        if not n:
            lines.append(f"| {name} | 0 | | | |")
            continue
        parties = [(f"side {side.name}", side.score / n) for side in summary.sides] or [
            (_seat_name(seat), summary.rate(seat)) for seat in range(setting.players)
        ]
        most = max(parties, key=itemgetter(1))
        # The least among the others: with two seats at 50% each the other one, with one seat none.
        rest = [party for party in parties if party is not most]
        least = _party_cell(min(rest, key=itemgetter(1)), n) if rest else ""
        best = _party_cell(most, n)
        if summary.over(most[1], len(parties)):
            best = f"**{best}**"
        lines.append(f"| {name} | {n} | {best} | {least} | {100 / len(parties):.0f}% |")
    return [*lines, ""]


def _party_cell(party: tuple[str, float], games: int) -> str:
    what, rate = party
    return f"{what} {_pct(rate).strip()} ± {_error(rate, games):.1f}"


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


# --- arguments -----------------------------------------------------------------------------------------
class BadArguments(ValueError):
    pass


def settings_for(slugs: list[str], players: list[int] | None, options: list[str]) -> list[Setting]:
    """Every setting the arguments ask for, in registry order; BadArguments with the reason if none."""
    wanted: dict[str, list[str]] = {}
    for item in options:
        key, sep, values = item.partition("=")
        if not sep or not key or not values:
            raise BadArguments(f"--option takes key=value (or key=a,b), not {item!r}.")
        wanted.setdefault(key, [])
        wanted[key] += [v for v in values.split(",") if v and v not in wanted[key]]
    used: set[str] = set()
    out: list[Setting] = []
    for slug in slugs:
        engine = registry.get_engine(slug)
        counts = range(engine.min_players, engine.max_players + 1)
        chosen = [p for p in counts if players is None or p in players]
        if players and not chosen:
            raise BadArguments(f"{engine.title} is for {engine.min_players} to {engine.max_players} players.")
        mine = {k: v for k, v in wanted.items() if k in engine.options}
        for key, values in mine.items():
            used.add(key)
            bad = [v for v in values if v not in engine.options[key].choices]
            if bad:
                allowed = ", ".join(engine.options[key].choices)
                raise BadArguments(f"{engine.title}: {key} is one of {allowed}, not {', '.join(bad)}.")
        combos = [tuple(zip(mine, values, strict=True)) for values in itertools.product(*mine.values())]
        out += [Setting(slug, p, combo) for p in chosen for combo in combos]
    unknown = sorted(set(wanted) - used)
    if unknown:
        raise BadArguments(f"No game chosen has the option {', '.join(unknown)}.")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--all", action="store_true", help="every registered game")
    which.add_argument("--slug", action="append", choices=registry.slugs(), help="a game (repeatable)")
    parser.add_argument("--players", type=int, action="append", help="a player count (repeatable)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE[,VALUE]")
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES, help="games a setting")
    parser.add_argument("--seed", default="balance")
    parser.add_argument("--bot", default="normal", metavar="LEVEL[@PLAYOUTS]")
    parser.add_argument("--never-bids", default=None, metavar="SEAT|rotate")
    parser.add_argument("--bid-key", default="bid")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--markdown", type=Path, default=None, metavar="PATH")
    parser.add_argument("--record", type=Path, default=None, metavar="PATH", help="games kept between runs")
    parser.add_argument("--tables-only", action="store_true", help="play nothing: the tables of the record")
    parser.add_argument("--show", type=int, default=None, metavar="NUMBER", help="one game, move by move")
    parser.add_argument(
        "--pool", default=None, metavar="KEY", help="also the tables that differ only in KEY, taken together"
    )
    parser.add_argument(
        "--forget", action="append", default=[], choices=registry.slugs(), help="drop a game's recorded games"
    )
    args = parser.parse_args(argv)
    # The tests register small engines of their own; --all means the site's games.
    slugs = (
        [s for s in registry.slugs() if registry.ENGINES[s].startswith("games.")]
        if args.all
        else list(dict.fromkeys(args.slug))
    )
    try:
        if args.games < 1 or args.workers < 1:
            raise BadArguments("--games and --workers take a whole number from 1.")
        if (args.tables_only or args.forget) and args.record is None:
            raise BadArguments("--tables-only and --forget work on the games of a --record.")
        if bench_side(args.bot) is None:
            raise BadArguments(
                f"--bot takes one of {', '.join(LEVELS)}, or a searching one with a fixed playout budget "
                f"(normal@375); not {args.bot!r}."
            )
        settings = settings_for(slugs, args.players, args.option)
        if args.pool is not None and args.pool not in {item.partition("=")[0] for item in args.option}:
            raise BadArguments(f"--pool takes an option that --option names; not {args.pool!r}.")
        if args.show is not None and len(settings) != 1:
            raise BadArguments(f"--show plays one game of one setting; the arguments name {len(settings)}.")
        if args.never_bids not in (None, "rotate") and (
            not args.never_bids.isdigit() or any(int(args.never_bids) >= s.players for s in settings)
        ):
            raise BadArguments("--never-bids takes a seat number below every player count, or 'rotate'.")
    except BadArguments as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.show is not None:
        result = play(settings[0], args.bot, args.seed, args.show, args.never_bids, args.bid_key, show=print)
        print(f"{settings[0].label}, game {args.show}: outcome {result.scores}, {result.moves} moves")
        return 0
    print(
        f"{len(settings)} setting{'s' if len(settings) != 1 else ''}, {args.games} games each, bot "
        f"{args.bot}, seed {args.seed!r}, {args.workers} worker{'s' if args.workers != 1 else ''}"
    )
    common = {"games": args.games, "bot": args.bot, "seed": args.seed, "bid_key": args.bid_key}
    try:
        if args.forget:
            read_record(args.record)  # refuses a record that is not this script's before changing it
            print(f"{forget(args.record, args.forget)} games of {', '.join(args.forget)} forgotten.")
        base, wall = run_all(
            settings,
            never=None,
            workers=args.workers,
            record=args.record,
            play_missing=not args.tables_only,
            **common,
        )
    except BadArguments as exc:
        print(exc, file=sys.stderr)
        return 2
    shown = with_pools(base, args.pool) if args.pool is not None else base
    print()
    for summary in shown:
        print_summary(summary)
        print()
    print(f"Wall time {_duration(wall)} on {args.workers} worker{'s' if args.workers != 1 else ''}.")
    if args.markdown is not None:
        # The heading shows the command that fills the tables, the one to run again for more games.
        command = "python bench/balance.py " + " ".join(_filling(argv if argv is not None else sys.argv[1:]))
        text = markdown(
            shown,
            command=command,
            bot=args.bot,
            games=args.games,
            seed=args.seed,
            wall=wall,
            workers=args.workers,
            record=args.record,
        )
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(text, encoding="utf-8")
        print(f"Wrote {args.markdown}.")
    if args.never_bids is not None:
        tried, _ = run_all(settings, never=args.never_bids, workers=args.workers, **common)
        for before, after in zip(base, tried, strict=True):
            print()
            print_never_bids(before, after, args.never_bids, args.bid_key)
    return 0


def _filling(argv: list[str]) -> list[str]:
    """The arguments without ``--tables-only`` and ``--forget SLUG``: the run that adds the missing games."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip or arg == "--tables-only":
            skip = False
            continue
        if arg == "--forget":
            skip = True
            continue
        if not arg.startswith("--forget="):
            out.append(arg)
    return out


def print_never_bids(base: Summary, tried: Summary, spec: str, bid_key: str) -> None:
    players = base.setting.players
    who = "the rotating seat (game number mod players)" if spec == "rotate" else f"seat {spec}"
    print(f"{base.setting.label}: {who} never bids (key {bid_key!r}), the others as before")
    # Under "rotate" every seat takes the role equally often, so the same seat's baseline is the fair share.
    baseline = 1.0 / players if spec == "rotate" else base.rate(int(spec))
    never = tried.special_score / tried.special_games if tried.special_games else 0.0
    bidders = (1.0 - never) / (players - 1) if players > 1 else 0.0
    error = _error(never, tried.special_games)
    print(
        f"  the House that never bids wins          {_pct(never)} of {tried.special_games} games "
        f"(standard error {error:.1f} points)"
    )
    print(f"  each House that bids wins on average    {_pct(bidders)} (same games)")
    print(f"  the same seat when it bids like the rest {_pct(baseline)} (of {base.finished} games)")
    # Against the same seat when it bids: that takes the seat's own advantage out of the comparison
    # (under "rotate" it is the fair share, and then "never <= baseline" also means "never <= bidders").
    verdict = "no more often" if never <= baseline else "MORE OFTEN"
    print(f"  => the House that never bids wins {verdict} than one that bids.")


if __name__ == "__main__":
    sys.exit(main())
