"""Who plays whom in a division: pure functions over player ids, no Django.

Two-player games: a round robin by the circle method, every pair meeting ``meetings`` times, with the
first seat alternating (in a double round robin each pair plays once from each side).

Games for more players: ``balanced_tables`` deals rounds of tables of ``size`` so that every pair of
players shares a table about equally often (most-met pairs are avoided first), sitting-out rounds are
spread evenly when the division does not divide into full tables, and each player sits in each seat
position about equally often (first player matters in most games). It is a deterministic local search
seeded by the caller: the same division and seed give the same fixtures.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

Table = list[int]  # player ids in seat order
Round = list[Table]


def round_robin(players: list[int], *, meetings: int = 1) -> list[Round]:
    """Rounds of pairs; every pair meets ``meetings`` times. An odd count gives one player a bye a round."""
    if len(players) < 2:
        return []
    ring: list[int | None] = list(players)
    if len(ring) % 2:
        ring.append(None)
    n = len(ring)
    single: list[list[tuple[int, int]]] = []
    for _ in range(n - 1):
        single.append(
            [
                (a, b)
                for i in range(n // 2)
                if (a := ring[i]) is not None and (b := ring[n - 1 - i]) is not None
            ]
        )
        ring = [ring[0], ring[-1], *ring[1:-1]]
    # Who sits first in each pair: the direction an Euler circuit walks that edge of the complete graph
    # (with a dummy perfect matching added when every degree is odd), so each player sits first in half
    # their games, or one more or less.
    first = _orientation(list(players))
    first_leg: list[Round] = [[[a, b] if (a, b) in first else [b, a] for a, b in pairs] for pairs in single]
    # Each further meeting swaps the sides of the one before.
    return [
        [table if leg % 2 == 0 else table[::-1] for table in tables]
        for leg in range(meetings)
        for tables in first_leg
    ]


def _orientation(players: list[int]) -> set[tuple[int, int]]:
    edges = list(itertools.combinations(players, 2))
    real = len(edges)
    if len(players) % 2 == 0:
        edges += [(players[i], players[i + 1]) for i in range(0, len(players), 2)]
    links: dict[int, list[tuple[int, int]]] = {p: [] for p in players}
    for number, (a, b) in enumerate(edges):
        links[a].append((b, number))
        links[b].append((a, number))
    used = [False] * len(edges)
    walked: set[tuple[int, int]] = set()
    stack: list[tuple[int, int | None]] = [(players[0], None)]
    while stack:
        here, _ = stack[-1]
        while links[here] and used[links[here][-1][1]]:
            links[here].pop()
        if links[here]:
            there, number = links[here].pop()
            used[number] = True
            if number < real:
                walked.add((here, there))
            stack.append((there, number))
        else:
            stack.pop()
    return walked


def rounds_needed(players: int, size: int, *, meetings: int = 1) -> int:
    """Rounds for every player to meet each other player about ``meetings`` times at tables of ``size``."""
    if players < size or size < 2:
        return 0
    return math.ceil(meetings * (players - 1) / (size - 1))


def balanced_tables(players: list[int], *, size: int, rounds: int, seed: int) -> list[Round]:
    rng = random.Random(seed)
    per_round = (len(players) // size) * size
    if per_round == 0:
        return []
    # Sitting out rotates: each round, those who sat out least (ties drawn by the seed).
    byes: Counter[int] = Counter()
    schedule: list[list[int]] = []  # per round: the seated players, table after table, then those out
    for _ in range(rounds):
        order = sorted(players, key=lambda p: (-byes[p], rng.random()))
        for player in order[per_round:]:
            byes[player] += 1
        schedule.append(order)
    met: Counter[frozenset[int]] = Counter()
    for order in schedule:
        for table in _tables(order, size, per_round):
            for pair in itertools.combinations(table, 2):
                met[frozenset(pair)] += 1
    _spread(schedule, size=size, per_round=per_round, met=met, byes=byes, rng=rng)
    seat_use: Counter[tuple[int, int]] = Counter()
    result: list[Round] = []
    for order in schedule:
        seated = []
        for table in _tables(order, size, per_round):
            ordered = _seat_order(table, seat_use)
            for position, player in enumerate(ordered):
                seat_use[(player, position)] += 1
            seated.append(ordered)
        result.append(seated)
    return result


def _tables(order: list[int], size: int, per_round: int) -> list[Table]:
    return [order[i : i + size] for i in range(0, per_round, size)]


def _spread(
    schedule: list[list[int]],
    *,
    size: int,
    per_round: int,
    met: Counter[frozenset[int]],
    byes: Counter[int],
    rng: random.Random,
) -> None:
    """Swap players between tables of a round, or with someone sitting that round out (when that keeps
    the numbers of rounds sat out as they were), to make the sum of ``_weight(meetings)`` over all pairs
    small: its steep growth makes a third meeting of one pair cost more than two pairs meeting twice, so
    even meetings minimise it. Simulated annealing, so a poor first deal does not trap it; the best
    schedule seen is kept."""
    players = len(schedule[0])
    steps = min(60_000, 3000 * len(schedule) * max(1, players // size))
    score = sum(_weight(met[frozenset(pair)]) for pair in itertools.combinations(schedule[0], 2))
    best_score, best = score, [list(order) for order in schedule]
    for step in range(steps):
        heat = 8.0 * (1 - step / steps) + 0.05
        order = schedule[rng.randrange(len(schedule))]
        i, j = sorted((rng.randrange(players), rng.randrange(players)))
        if i // size == j // size or j >= per_round <= i:
            continue
        if j >= per_round and byes[order[j]] != byes[order[i]] + 1:
            continue  # i goes out in j's place: fine only if their counts of rounds out just swap
        delta = _swap_delta(order, i, j, size=size, per_round=per_round, met=met)
        if delta <= 0 or rng.random() < math.exp(-delta / heat):
            _swap(order, i, j, size=size, per_round=per_round, met=met)
            if j >= per_round:
                byes[order[j]] += 1
                byes[order[i]] -= 1
            score += delta
            if score < best_score:
                best_score, best = score, [list(o) for o in schedule]
    schedule[:] = best


def _mates(order: list[int], index: int, size: int, per_round: int) -> list[int]:
    if index >= per_round:
        return []
    start = index - index % size
    return [p for k, p in enumerate(order[start : start + size], start) if k != index]


def _swap_delta(
    order: list[int], i: int, j: int, *, size: int, per_round: int, met: Counter[frozenset[int]]
) -> int:
    x, y = order[i], order[j]
    mates_x, mates_y = _mates(order, i, size, per_round), _mates(order, j, size, per_round)
    change: Counter[frozenset[int]] = Counter()
    for q in mates_x:
        change[frozenset((x, q))] -= 1
        change[frozenset((y, q))] += 1
    for q in mates_y:
        change[frozenset((y, q))] -= 1
        change[frozenset((x, q))] += 1
    return sum(_weight(met[pair] + d) - _weight(met[pair]) for pair, d in change.items() if d)


def _weight(meetings: int) -> int:
    return 4**meetings


def _swap(
    order: list[int], i: int, j: int, *, size: int, per_round: int, met: Counter[frozenset[int]]
) -> None:
    x, y = order[i], order[j]
    for q in _mates(order, i, size, per_round):
        met[frozenset((x, q))] -= 1
        met[frozenset((y, q))] += 1
    for q in _mates(order, j, size, per_round):
        met[frozenset((y, q))] -= 1
        met[frozenset((x, q))] += 1
    order[i], order[j] = y, x


def _seat_order(table: Table, seat_use: Counter[tuple[int, int]]) -> Table:
    """The order of ``table`` that gives each player the seats they have had least (ties: as given)."""
    candidates = itertools.permutations(table) if len(table) <= 6 else [tuple(table)]
    best = min(
        candidates,
        key=lambda order: sum((seat_use[(player, pos)] + 1) ** 2 for pos, player in enumerate(order)),
    )
    return list(best)
