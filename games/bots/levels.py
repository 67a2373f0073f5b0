"""Named strengths: the kinds a match can seat, each a playout budget, a time limit and a search width."""

from __future__ import annotations

from dataclasses import dataclass

from games.bots.base import Bot, RandomBot
from games.bots.search import NODE_WIDTH, ROOT_WIDTH, SearchBot


@dataclass(frozen=True)
class Level:
    label: str
    # None for the random bot; otherwise the search stops at whichever of the two runs out first.
    playouts: int | None = None
    seconds: float | None = None
    # How many of a node's moves the search ranks when it widens below the root (SearchBot.node_width);
    # wider than NODE_WIDTH, that many more once it has come back to the node WIDE_VISITS times.
    node_width: int = NODE_WIDTH
    # How many of its own moves, drawn at random, the search ranks at the root; it looks at others only
    # once it has tried all of those.
    root_width: int = ROOT_WIDTH


# The time limits stay well under the round figures (0.2 s, 1 s, 3 s): the last playout, the final
# choice and a busy machine's pauses come on top. Normal wins about 98 of 100 Wall Go games against
# random moves (bench/bots.py).
LEVELS: dict[str, Level] = {
    "random": Level("Random moves"),
    # Easy ranks two dozen of its own moves, drawn at random, so it misses good moves a player can find.
    # Ranking all of them, it played the best move by the engine's estimate about as normal does: two
    # players, 40 games each (bench/bots.py, the same deals), normal won 63.7% in Walls and Stairways and
    # 62.5% in Wall Go against that easy (ranking only 6 of the opponents' replies, which did not help),
    # and 85.0% and 78.8% against this one.
    "easy": Level("Easy", playouts=60, seconds=0.18, root_width=24),
    "normal": Level("Normal", playouts=1500, seconds=0.75),
    # Hard also ranks four times as many moves at a node below the root, once the search has come back
    # to it a few times. With Wall Go's 2,000 moves a turn, a search that weighs only the best of 24
    # random replies misjudges the opponent however long it runs: at normal's width hard won 37.5% of 20
    # games against normal, at 96 it won 80%. In The Wall (100-300 moves) the width about halved hard's
    # playouts; older searches won 35-55% of 20 there, and today's (a teammate is no rival, moves are
    # applied faster) won 80% of 20 in one run.
    # In Walls and Stairways (two players, the first game's pieces), at fixed budgets, more playouts at
    # normal's width bought nothing (1,500 against 375 won 40% of 20 games) and the width did (736
    # each, 96 against 24, won 77.5% of 20). Ranking 96 at every node the search reached made a playout
    # cost 2.6 times one at 24, so timed, hard searched only twice as far as normal and won 60% of 20
    # (37.5% on a slower machine). Ranked only where the search comes back, a playout costs about what
    # normal's does: on the same deals hard won 72.5% of 20 (2,272 playouts a move against 791), in
    # Wall Go 85.0% of 20 (72.5% before), and in The Wall and The Great Wall 80% and 85% of 10.
    # In The Great Wall, where dice decide much, more search buys less than in the other games. Fixed
    # budgets, two players (bench/bots.py): 200 playouts against 15 won 79% of 12 games, 2,000 against
    # 600 72.5% of 20, and 2,300 at width 96 against 200 58% of 12. The width seldom matters there: in
    # five random games one decision in 14 offered more than 24 moves. Timed, hard won 75% of 12, 57.5%
    # of 20 and 70% of 20 against normal: 66% of the 52 games. Tried on a branch, rewards rescaled to the
    # range of each node's children made hard follow its best few moves: it won 5-0-3 in The Wall
    # (hard@1700 against normal@950) but 2-0-5 in The Great Wall (hard@2300 against normal@700), whose
    # estimates already saturate once one side leads. A level's settings hold for every game, so it was
    # left out.
    "hard": Level("Hard", playouts=6000, seconds=2.8, node_width=96),
}
DEFAULT = "normal"


class UnknownBot(LookupError):
    pass


def kinds() -> list[tuple[str, str]]:
    """(kind, label) for every level, weakest first: form choices come from here."""
    return [(kind, level.label) for kind, level in LEVELS.items()]


def bot_for(kind: str) -> Bot:
    try:
        level = LEVELS[kind]
    except KeyError:
        known = ", ".join(LEVELS)
        raise UnknownBot(f"There is no computer opponent called {kind!r}; choose one of {known}.") from None
    if level.playouts is None and level.seconds is None:
        return RandomBot()
    return _search(level, kind=kind, playouts=level.playouts, seconds=level.seconds)


def _search(level: Level, *, kind: str, playouts: int | None, seconds: float | None) -> SearchBot:
    """The level's search with these limits: every other setting comes from the level, in one place."""
    return SearchBot(
        playouts=playouts,
        seconds=seconds,
        node_width=level.node_width,
        root_width=level.root_width,
        kind=kind,
    )


def bench_side(name: str) -> tuple[str, int | None] | None:
    """(level, fixed playout budget or None) for a level or ``<level>@<playouts>``; None if neither, or if
    the budget is not positive or names a level that does not search."""
    kind, at, budget = name.partition("@")
    if kind not in LEVELS:
        return None
    if not at:
        return kind, None
    if LEVELS[kind].seconds is None or not budget.isdigit() or int(budget) < 1:
        return None
    return kind, int(budget)


def bench_bot(name: str) -> Bot:
    """The bot a benchmark names: a level, or ``<level>@<playouts>``, that level's search with a fixed
    budget and no time limit, whose choices are the same on any machine. It keeps its level's width and
    its full name as its kind, so its moves never count among the timed level's."""
    side = bench_side(name)
    if side is None:
        raise ValueError(f"No level or fixed budget is called {name!r}.")
    kind, budget = side
    if budget is None:
        return bot_for(kind)
    return _search(LEVELS[kind], kind=name, playouts=budget, seconds=None)
