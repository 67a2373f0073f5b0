from __future__ import annotations

import itertools
from collections import Counter

import pytest

from leagues import pairing


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, 7, 8, 9, 10])
def test_a_round_robin_pairs_everyone_once_and_shares_the_first_seat_fairly(players):
    ids = list(range(100, 100 + players))
    rounds = pairing.round_robin(ids)
    pairs = [tuple(table) for tables in rounds for table in tables]
    assert Counter(frozenset(pair) for pair in pairs) == Counter(
        frozenset(pair) for pair in itertools.combinations(ids, 2)
    )
    for tables in rounds:  # nobody plays twice in a round
        seated = [p for table in tables for p in table]
        assert len(seated) == len(set(seated))
    firsts = Counter(pair[0] for pair in pairs)
    seconds = Counter(pair[1] for pair in pairs)
    assert all(abs(firsts[p] - seconds[p]) <= 1 for p in ids)


def test_a_double_round_robin_swaps_the_sides_of_every_pair():
    rounds = pairing.round_robin([1, 2, 3, 4, 5, 6], meetings=2)
    pairs = Counter(tuple(table) for tables in rounds for table in tables)
    assert set(pairs.values()) == {1} and len(pairs) == 30


@pytest.mark.parametrize(("players", "size"), [(8, 4), (6, 3), (9, 3), (7, 3), (12, 4), (10, 4)])
def test_tables_for_more_players_spread_meetings_byes_and_seats_evenly(players, size):
    ids = list(range(players))
    rounds_count = pairing.rounds_needed(players, size)
    rounds = pairing.balanced_tables(ids, size=size, rounds=rounds_count, seed=7)
    assert rounds == pairing.balanced_tables(ids, size=size, rounds=rounds_count, seed=7)
    assert len(rounds) == rounds_count
    met: Counter[frozenset[int]] = Counter()
    played: Counter[int] = Counter()
    for tables in rounds:
        seated = [p for table in tables for p in table]
        assert len(seated) == len(set(seated)) == (players // size) * size
        assert all(len(table) == size for table in tables)
        played.update(seated)
        for table in tables:
            met.update(frozenset(pair) for pair in itertools.combinations(table, 2))
    counts = [met[frozenset(pair)] for pair in itertools.combinations(ids, 2)]
    assert max(counts) - min(counts) <= 2
    assert max(counts) <= 2
    assert max(played.values()) - min(played[p] for p in ids) <= 1


def test_too_few_players_for_a_table_get_no_rounds():
    assert pairing.rounds_needed(3, 4) == 0
    assert pairing.balanced_tables([1, 2, 3], size=4, rounds=2, seed=1) == []
    assert pairing.round_robin([1]) == []
