"""The search bot: single-observer information-set Monte Carlo tree search (SO-ISMCTS).

One tree is grown for the bot's seat (the observer). Every iteration:

1. **Determinize.** Draw ``engine.sample_hidden(real, seat, rng)``: a state the seat cannot tell from the
   real one. The iteration sees only this sample; the real state is never read again (see the package
   docstring for why that keeps the bot honest).
2. **Select.** Walk down the tree, applying moves to the sample. Chance steps are resolved with the
   search's own rng. What a chance step tells every seat (a roll, a card drawn face up) picks a branch of
   its own once it has come up a few times there, so a decision after it is planned for that outcome;
   what it tells only some seats (one's own draw) does not, since a branch per hand split the tree too
   thin to plan in. Every seat's decisions are tree nodes; each seat picks by UCT on its own share of
   the reward, so the opponents are modelled as trying to win too. When several seats act at once with
   sealed choices (orders, bids), the observer moves first, so its choice never depends on a sealed move
   made in the sample, and the others then choose at random, as ``sample_hidden`` redraws the sealed
   choices made before it: whether a seat commits first or last, it plans against choices made blind.
   (Letting them search instead had them answer a sealed move they cannot see: a seat committing first
   then played as if found out, and between normal bots the later seats won most Wildlings games.)
   A child whose move is not legal in this sample (another hand was dealt) is skipped, and UCT uses
   availability counts, as ISMCTS does.
3. **Widen.** Wall Go offers about 2,000 moves a turn, far more than a second of playouts can try, so a
   node considers only its first ``k = widen_base + widen_scale * visits ** widen_power`` candidates
   (progressive widening). Candidates come in order of promise: with an engine ``evaluate`` hook, each is
   applied and its evaluation ranks it (the root's moves, up to ``root_width`` of them drawn at random; a
   random sample of ``NODE_WIDTH`` moves deeper down, sampled again when the node wants more); without
   the hook, in random order. A level with a wider ``node_width`` ranks that many more at a node once the
   node has been visited ``WIDE_VISITS`` times: the search comes back to such a node, so a better
   candidate there pays, while ranking that many at every node it reaches would cost most of its time.
4. **Evaluate.** With ``evaluate``: a few random moves (``rollout_depth``, 0 by default), then the hook's
   estimated scores. Without: random moves to the end of the game and its ``outcome``.
5. **Back up** the reward of every seat through the path.

The move played is the root child visited most; the search stops early once no other child could
catch up with it in the budget left. Rewards lie in [0, 1]: mostly how many opponents a seat beats (half
for a tie; a teammate is no opponent), plus a little for its score's place in the range, so a sure win is
not traded for a bigger one and a lost game is still played for points. Estimated scores compare softly
(a logistic curve of the difference), because a one-square lead in an estimate is not a sure win.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from games.bots.base import own_moves, side_of
from games.engines.base import Engine, Move, State

STEP_CAP = 2_000  # a random playout longer than this is cut off and scored as a draw
CHANCE_CAP = 100  # chance steps in a row, as a guard against an engine that never stops rolling
CHANCE = -1  # the "actor" of a tree edge that is a chance outcome, not a move
# A die's roll soon comes up this often at a node and gets a branch; one of the many ways to draw a deck
# seldom does, so the tree is not split too thin to plan in. At 375 playouts against the same search
# without branches: The Great Wall 50% of 22 games (33% of 15 with a branch for every outcome: its
# spring draws have some 66), The Wall 60% of 20, Wildlings at the Wall 44% of 48 at 3 players.
CHANCE_REPEATS = 3
MARGIN_WEIGHT = 0.1  # share of the reward that is the score's place in the range rather than wins
NODE_WIDTH = 24  # moves ranked when a node below the root first widens
# Visits after which a node ranks a wider level's sample of ``node_width`` more moves. In Walls and
# Stairways ranking 96 at every node made a playout cost 2.6 times one at 24.
WIDE_VISITS = 16
ROOT_WIDTH = 3_000  # of the observer's own moves, how many the root ranks, unless a level asks for fewer

Candidate = tuple[float, int, str, Move]  # a move ranked at a node: its value, actor, key and the move


def _reward(scores: list[float], *, soft: bool, teams: list[list[int]] | None = None) -> list[float]:
    """Per seat, in [0, 1]: the share of its rivals it beats (ties half) plus a little for its score.

    A teammate (``Engine.teams``) is no rival: counted as a tie, it would squeeze a team's win and loss
    closer together than a lone opponent's, and UCT would weigh that team's own results less."""
    n = len(scores)
    if n <= 1:
        return [1.0] * n
    low, high = min(scores), max(scores)
    span = high - low
    # Estimates are compared on a logistic curve whose width grows with the scores' size, so "one more
    # square of 40" is a small edge while "one more point of 3" is a big one.
    width = max(1.0, 0.05 * sum(abs(s) for s in scores))
    out = []
    for i, mine in enumerate(scores):
        mates = side_of(i, teams)
        rivals = [other for j, other in enumerate(scores) if j not in mates]
        beaten = 0.0
        for other in rivals:
            if soft:
                beaten += 1.0 / (1.0 + math.exp(max(-60.0, min(60.0, (other - mine) / width))))
            else:
                beaten += 1.0 if mine > other else 0.5 if mine == other else 0.0
        share = beaten / len(rivals) if rivals else 0.5
        place = (mine - low) / span if span else 0.5
        out.append((1.0 - MARGIN_WEIGHT) * share + MARGIN_WEIGHT * place)
    return out


class _OutOfTime(Exception):
    pass


class _Node:
    """A node of the observer's tree: the statistics of the edge into it and the choices out of it."""

    __slots__ = (
        "actor",
        "avail",
        "candidates",
        "children",
        "fingerprint",
        "key",
        "legal",
        "legal_keys",
        "move",
        "offered",
        "seen",
        "totals",
        "uniform",
        "visits",
        "widened",
    )

    def __init__(self, actor: int | None = None, key: str = "", move: Move | None = None) -> None:
        self.actor = actor  # who made the move into this node
        self.key = key
        self.move = move
        self.visits = 0
        self.avail = 0
        # Reward sums per seat; grown on the first backup, since the contract does not say how many
        # seats a state has.
        self.totals: list[float] = []
        self.children: dict[tuple[int, str], _Node] = {}
        # Candidates best first, and the keys already in that list.
        self.candidates: list[Candidate] = []
        self.offered: set[tuple[int, str]] = set()
        # How often each chance outcome told to every seat has come up here without a branch of its own.
        self.seen: dict[str, int] = {}
        # The position of the last visit (its repr) and its legal moves: in a game without secrets or
        # chance every visit sees the same position, so the list is computed once.
        self.fingerprint: str | None = None
        self.legal: list[Move] = []
        self.legal_keys: set[str] | None = None
        # False once two visits saw different positions; then each visit checks its children's legality.
        self.uniform = True
        self.widened = False  # whether a wide sample (SearchBot.node_width) has been ranked here

    def mean(self, seat: int) -> float:
        if not self.visits or seat >= len(self.totals):
            return 0.5
        return self.totals[seat] / self.visits


class SearchBot:
    """Information-set MCTS within a playout budget and/or a time limit (see the module docstring)."""

    def __init__(
        self,
        *,
        playouts: int | None = 400,
        seconds: float | None = None,
        kind: str = "search",
        exploration: float = 0.4,
        rollout_depth: int = 0,
        widen_base: float = 3.0,
        widen_scale: float = 1.0,
        widen_power: float = 0.5,
        root_width: int = ROOT_WIDTH,
        node_width: int = NODE_WIDTH,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if playouts is None and seconds is None:
            raise ValueError("A search bot needs a playout budget, a time limit or both.")
        self.kind = kind
        self.playouts = playouts
        self.seconds = seconds
        self.exploration = exploration
        self.rollout_depth = rollout_depth
        self.widen_base = widen_base
        self.widen_scale = widen_scale
        self.widen_power = widen_power
        self.root_width = root_width
        self.node_width = node_width
        self.clock = clock
        self.last_playouts = 0  # how many iterations the last choice ran, for the benchmark

    def choose(self, engine: Engine, state: State, seat: int, rng: random.Random) -> Move:
        moves = own_moves(engine, state, seat)
        # The search draws from its own generator, seeded once from ``rng``: the caller's generator
        # advances by the same amount whatever the search does, and the choice is repeatable from it.
        search = _Search(self, engine, seat, random.Random(rng.getrandbits(64)))
        if len(moves) == 1:
            self.last_playouts = 0
            return moves[0]
        move = search.run(state, moves)
        self.last_playouts = search.iterations
        return move


class _Search:
    def __init__(self, bot: SearchBot, engine: Engine, seat: int, rng: random.Random) -> None:
        self.bot = bot
        self.engine = engine
        self.seat = seat
        self.rng = rng
        hook = getattr(engine, "evaluate", None)
        self.evaluate: Callable[[State], list[float]] | None = hook if callable(hook) else None
        self.iterations = 0
        self.deadline: float | None = None
        self.teams: dict[int, list[list[int]] | None] = {}  # by seat count: Engine.teams, asked once

    # --- the loop -----------------------------------------------------------------------------------
    def run(self, real: State, moves: list[Move]) -> Move:
        bot = self.bot
        start = bot.clock()
        if bot.seconds is not None:
            self.deadline = start + bot.seconds
        first = self.engine.sample_hidden(real, self.seat, self.rng)
        root = _Node()
        # The observer's own moves are the same in every sample; the root never needs to check them.
        root.legal = moves
        root.candidates = self._rank(first, self.seat, moves, bot.root_width, root=True)
        root.offered = {(self.seat, key) for _, _, key, _ in root.candidates}
        sample = first
        searching = bot.clock()
        while not self._spent():
            try:
                self._iterate(root, sample)
            except _OutOfTime:
                break  # the unfinished playout is dropped: nothing was backed up yet
            self.iterations += 1
            if self.iterations % 16 == 0 and self._settled(root, searching):
                break
            sample = self.engine.sample_hidden(real, self.seat, self.rng)
        if not root.children:
            return root.candidates[0][3]
        best = max(root.children.values(), key=lambda c: (c.visits, c.mean(self.seat)))
        return best.move  # type: ignore[return-value]

    def _settled(self, root: _Node, searching: float) -> bool:
        """Whether the most visited move is so far ahead that the rest of the budget cannot change it."""
        if len(root.children) < 2:
            return False
        bot = self.bot
        left = math.inf
        if bot.playouts is not None:
            left = bot.playouts - self.iterations
        if self.deadline is not None:
            now = bot.clock()
            rate = self.iterations / max(now - searching, 1e-9)
            left = min(left, rate * (self.deadline - now))
        first, second = sorted((c.visits for c in root.children.values()), reverse=True)[:2]
        return first - second > left

    def _spent(self) -> bool:
        bot = self.bot
        if bot.playouts is not None and self.iterations >= bot.playouts:
            return True
        return self.deadline is not None and bot.clock() >= self.deadline

    def _iterate(self, root: _Node, state: State) -> None:
        engine = self.engine
        node = root
        path = [root]
        # Seats still to make a sealed choice in the step where a tree move was sealed: they cannot see
        # it, so they choose at random, as ``sample_hidden`` redraws the sealed choices made before it.
        blind: set[int] = set()
        while True:
            told: list[str] = []
            state = self._settle_chance(state, told)
            if told:
                node = self._chance_branch(node, "\n".join(told))
                path.append(node)
            if engine.is_over(state):
                rewards = self._reward(engine.outcome(state) or [], soft=False)
                break
            actors = engine.actors(state)
            actor = self._actor(actors)
            if actor is None:
                rewards = self._estimate(state)
                break
            if actor in blind and (moves := engine.legal_moves(state, actor)):
                blind.discard(actor)
                state, _ = engine.apply_listed(state, actor, self.rng.choice(moves))
                continue
            blind.clear()
            if node is not root:
                self._refresh(node, state, actor)
            if not node.legal:
                rewards = self._estimate(state)
                break
            child = self._select_or_expand(node, state, actor)
            if len(actors) > 1 and engine.move_visible_to(state, actor, child.move) is not None:
                blind = set(actors) - {actor}
            state, _ = engine.apply_listed(state, actor, child.move)  # type: ignore[arg-type]
            path.append(child)
            if child.visits == 0:
                rewards = self._leaf(state)
                break
            node = child
        if not rewards:  # nothing to learn from this sample; count the visit as an even result
            rewards = [0.5] * (max([self.seat, *(n.actor or 0 for n in path)]) + 1)
        for visited in path:
            visited.visits += 1
            totals = visited.totals
            if len(totals) < len(rewards):
                totals.extend([0.0] * (len(rewards) - len(totals)))
            for i, r in enumerate(rewards):
                totals[i] += r

    # --- one node -----------------------------------------------------------------------------------
    def _chance_branch(self, node: _Node, told: str) -> _Node:
        """The child for a chance outcome every seat was told of: the decisions after it are planned for
        that outcome, not averaged over ones the observer will know before it chooses. An outcome gets a
        branch once it has come up ``CHANCE_REPEATS`` times here; until then it shares one with the rest."""
        if (CHANCE, told) not in node.children:
            node.seen[told] = node.seen.get(told, 0) + 1
            if node.seen[told] < CHANCE_REPEATS:
                told = ""
        branch = node.children.get((CHANCE, told))
        if branch is None:
            branch = node.children[(CHANCE, told)] = _Node(CHANCE, told)
        return branch

    def _actor(self, actors: frozenset[int]) -> int | None:
        if not actors:
            return None
        # The observer commits first among simultaneous actors, so it never plans on a sealed move.
        return self.seat if self.seat in actors else min(actors)

    def _refresh(self, node: _Node, state: State, actor: int) -> None:
        fingerprint = f"{actor}:{state!r}"
        if fingerprint == node.fingerprint:
            return
        if node.fingerprint is not None:
            node.uniform = False
        node.fingerprint = fingerprint
        node.legal = self.engine.legal_moves(state, actor)
        node.legal_keys = None if node.uniform else {repr(m) for m in node.legal}

    def _available(self, node: _Node, actor: int, key: str) -> bool:
        if node.legal_keys is None:  # every visit saw this very position: all its children are legal
            return True
        return key in node.legal_keys

    def _select_or_expand(self, node: _Node, state: State, actor: int) -> _Node:
        bot = self.bot
        available = [
            child
            for (who, key), child in node.children.items()
            if who == actor and self._available(node, actor, key)
        ]
        allowed = bot.widen_base + bot.widen_scale * node.visits**bot.widen_power
        if len(available) < allowed:
            fresh = self._next_candidate(node, state, actor)
            if fresh is not None:
                key, move = fresh
                child = _Node(actor, key, move)
                node.children[(actor, key)] = child
                for other in available:
                    other.avail += 1
                child.avail = 1
                return child
        if not available:  # nothing expanded fits this sample and nothing is left to add
            key, move = self._any_move(node)
            child = node.children.get((actor, key))
            if child is None:
                child = node.children[(actor, key)] = _Node(actor, key, move)
            child.avail += 1
            return child
        c = bot.exploration
        best: _Node | None = None
        best_score = -math.inf
        for child in available:
            child.avail += 1
            if child.visits:
                score = child.mean(actor) + c * math.sqrt(math.log(child.avail) / child.visits)
            else:
                score = math.inf
            if score > best_score:
                best, best_score = child, score
        return best  # type: ignore[return-value]

    def _next_candidate(self, node: _Node, state: State, actor: int) -> tuple[str, Move] | None:
        """The most promising candidate not yet a child and legal here; more are drawn when needed."""
        wide = self.bot.node_width
        if wide > NODE_WIDTH and not node.widened and node.visits >= WIDE_VISITS:
            node.widened = True
            self._offer(node, state, actor, wide)
        for _ in range(3):
            for _, who, key, move in node.candidates:
                if who == actor and (actor, key) not in node.children and self._available(node, actor, key):
                    return key, move
            left = len(node.legal) - len(node.offered)
            if left <= 0 and node.uniform:
                return None
            self._offer(node, state, actor, wide if node.widened else min(wide, NODE_WIDTH))
        return None

    def _offer(self, node: _Node, state: State, actor: int, width: int) -> None:
        """Rank up to ``width`` moves not yet offered here, drawn at random, among the node's candidates."""
        if len(node.legal) - len(node.offered) > 2 * width:
            # Plenty left: draw a few and drop the ones already offered, rather than naming all of Wall
            # Go's 2,000 moves to find the unoffered ones.
            drawn = self.rng.sample(node.legal, width)
            fresh = [m for m in drawn if (actor, repr(m)) not in node.offered]
        else:
            fresh = [m for m in node.legal if (actor, repr(m)) not in node.offered]
        if not fresh:
            return
        ranked = self._rank(state, actor, fresh, width, root=False)
        node.offered.update((actor, key) for _, _, key, _ in ranked)
        # A stable sort: the new ones go among the old by value, ties after the old.
        node.candidates = sorted(node.candidates + ranked, key=lambda item: -item[0])

    def _any_move(self, node: _Node) -> tuple[str, Move]:
        move = self.rng.choice(node.legal)
        return repr(move), move

    def _rank(
        self, state: State, actor: int, moves: list[Move], width: int, *, root: bool
    ) -> list[Candidate]:
        """``moves`` (at most ``width`` of them, drawn at random) best first for ``actor``."""
        pool = list(moves)
        self.rng.shuffle(pool)  # random order among equals, and a random subset when cut below
        pool = pool[:width]
        if self.evaluate is None:
            return [(0.0, actor, repr(m), m) for m in pool]
        scored: list[Candidate] = []
        # At the root the ranking may use up to a third of the time limit; the rest keep random order.
        limit = None
        if root and self.deadline is not None:
            limit = self.bot.clock() + (self.deadline - self.bot.clock()) / 3
        for index, move in enumerate(pool):
            if limit is not None and index % 32 == 0 and self.bot.clock() > limit:
                scored += [(-1.0, actor, repr(m), m) for m in pool[index:]]
                break
            after, _ = self.engine.apply_listed(state, actor, move)
            value = self._estimate(self._settle_chance(after))[actor]
            scored.append((value, actor, repr(move), move))
        # A stable sort keeps the shuffled order among moves of equal value.
        scored.sort(key=lambda item: -item[0])
        return scored

    # --- leaves -------------------------------------------------------------------------------------
    def _settle_chance(self, state: State, told: list[str] | None = None) -> State:
        """Resolve the chance steps pending. ``told`` collects what the outcomes told every seat; one that
        only some seats see, such as one's own draw, adds nothing, so the tree does not split on it."""
        engine = self.engine
        for _ in range(CHANCE_CAP):
            if not engine.chance_pending(state):
                break
            state, events = engine.resolve_chance(state, self.rng)
            if told is not None:
                told.extend(repr((e.kind, e.text, e.data)) for e in events if e.visible_to is None)
        return state

    def _random_step(self, state: State) -> State | None:
        """One random move of the next actor (the observer first among several); None at the end."""
        engine = self.engine
        state = self._settle_chance(state)
        if engine.is_over(state):
            return None
        actors = sorted(engine.actors(state), key=lambda s: (s != self.seat, s))
        for actor in actors:
            moves = engine.legal_moves(state, actor)
            if moves:
                return engine.apply_listed(state, actor, self.rng.choice(moves))[0]
        return None

    def _leaf(self, state: State) -> list[float]:
        engine = self.engine
        if self.evaluate is not None:
            for _ in range(self.bot.rollout_depth):
                nxt = self._random_step(state)
                if nxt is None:
                    break
                state = nxt
            return self._estimate(self._settle_chance(state))
        for step in range(STEP_CAP):
            if step % 16 == 15 and self.deadline is not None and self.bot.clock() >= self.deadline:
                raise _OutOfTime  # a long game's playout must not run the clock over
            nxt = self._random_step(state)
            if nxt is None:
                break
            state = nxt
        outcome = engine.outcome(state)
        return self._reward(outcome, soft=False) if outcome is not None else []

    def _reward(self, scores: list[float], *, soft: bool) -> list[float]:
        n = len(scores)
        if n not in self.teams:
            self.teams[n] = self.engine.teams(n)
        return _reward(scores, soft=soft, teams=self.teams[n])

    def _estimate(self, state: State) -> list[float]:
        outcome = self.engine.outcome(state)
        if outcome is not None:
            return self._reward(outcome, soft=False)
        if self.evaluate is None:
            return self._leaf(state)
        return self._reward(self.evaluate(state), soft=True)
