"""Computer opponents for every registered engine, built on the engine contract and nothing else.

Like ``games/engines`` this is a pure library: no Django, DRF or Celery (a test enforces it), so the
benchmark and the tests run it without a database and the site calls it from a Celery task.

Two kinds of bot share one interface, ``bot.choose(engine, state, seat, rng) -> move``:

- :class:`RandomBot` plays a uniformly random legal move.
- :class:`SearchBot` runs information-set Monte Carlo tree search (single-observer ISMCTS).

**What a bot may know.** A bot is handed the real state, because the engine contract has no other way to
ask for a determinization: ``engine.sample_hidden(state, seat, rng)`` returns a state the seat cannot tell
from the real one, with everything it may not know (other hands, sealed bids, deck order) re-dealt at
random. The search bot reads the real state in exactly two ways: to draw such a sample at the start of
every iteration, and to list its own legal moves (a seat always knows those). Every other look at a
position, whether rules, chance, opponents' moves or evaluation, happens inside the sample. So its choice
depends on the real state only through what the seat's view shows, and
``tests/bots/test_bots.py`` checks that two states differing only in hidden parts get the same move.

**Strength.** ``LEVELS`` names the kinds a match can seat ("random", "easy", "normal", "hard"): a
playout budget and a time limit, whichever runs out first. With a budget only (no time limit) a bot
is deterministic for a given ``rng``; the levels keep a time limit so a slow machine never stalls a
worker, at the price of exact repeatability there.

**Optional engine hook.** An engine may define ``evaluate(state) -> list[float]``: an estimate of the
final scores, on the ``outcome`` scale. With it the search orders candidate moves by their evaluation and
scores leaves without playing to the end; without it the search plays random moves to the end of the
game. Every game of the site has one (for example ``games/engines/wallgo/rules.py``); the contract
does not require it.
"""

from __future__ import annotations

from games.bots.base import Bot, NoLegalMove, RandomBot
from games.bots.levels import DEFAULT, LEVELS, Level, UnknownBot, bench_bot, bench_side, bot_for, kinds
from games.bots.search import SearchBot

__all__ = [
    "DEFAULT",
    "LEVELS",
    "Bot",
    "Level",
    "NoLegalMove",
    "RandomBot",
    "SearchBot",
    "UnknownBot",
    "bench_bot",
    "bench_side",
    "bot_for",
    "kinds",
]
