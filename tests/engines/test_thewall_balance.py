"""The Wall: the reckoning at the round cap, the balance counts and the search bots' estimate.

The round cap is ours (the seed has none), and so is what it decides: the Wall has held, and the Watch's
side wins, only if it still stands and no Wight has ever kept a place on or behind it through a whole
round (a breach).
Positions come from ``position`` in ``test_thewall.py``.
"""

from __future__ import annotations

import random
from typing import Any

from tests.engines.test_thewall import ENGINE, act, position, roll


def play_round_of_ends(state: dict[str, Any]) -> dict[str, Any]:
    """From Jon's turn, every leader ends the turn at once until Waymar's turn has ended (dice rolled as
    they come); the events are kept under ``_events``."""
    rng = random.Random(0)
    events: list[Any] = []
    start = state["turn"]
    while state["turn"] < start + 4:
        if ENGINE.chance_pending(state):
            state, more = ENGINE.resolve_chance(state, rng)
        else:
            state, more = act(state, "end")
        events += more
    state["_events"] = events
    return state


def test_a_wight_that_holds_a_place_behind_the_wall_for_a_round_breaches_it() -> None:
    state = position(
        ("ranger", "1212"), ("white_walker", "0303"), ("wight_wildling", "0511"), leader="waymar", round_=5
    )
    state, _ = act(state, "end")
    assert state["breach_watch"] == [3] and state["breached"] is None  # seen there once: not yet
    state = play_round_of_ends(state)
    assert state["breached"] == 6
    assert any("the Wall is breached" in e.text for e in state.pop("_events"))
    assert state["phase"] == "play"  # the game goes on: the Watch may still slay every true Other


def test_a_breached_wall_gives_the_others_the_game_at_the_round_cap() -> None:
    # The Wight that made the breach is gone: the Wall was breached all the same.
    state = position(("ranger", "1212"), ("white_walker", "0303"), leader="waymar", round_=20, breached=6)
    state, _ = act(state, "end")
    assert state["winner"] == "others" and state["round"] == 20
    assert state["end_reason"] == "the Wall was breached in round 6 and has not held 20 rounds"
    assert ENGINE.outcome(state) == [0.0, 1.0]
    assert ENGINE.balance_stats(state)["end_cap_breach"] == 1.0


def test_a_breached_wall_still_loses_to_the_slaying_of_every_true_other() -> None:
    state = position(("jon", "1210"), ("white_walker", "1211", {"life": 1}), breached=6)
    state, _ = act(state, "1210x1211")
    state, _ = roll(state, 6, 1)
    assert state["winner"] == "watch" and "slain" in state["end_reason"]


def test_a_wight_on_the_wall_itself_counts_as_a_foothold() -> None:
    state = position(("white_walker", "0303"), ("wight_wildling", "0709"), leader="waymar", breach_watch=[2])
    state, _ = act(state, "end")
    assert state["breached"] == 3


def test_a_wight_seen_behind_the_wall_only_once_is_no_breach() -> None:
    state = position(
        ("ranger", "1212"), ("white_walker", "0303"), ("wight_wildling", "0511"), leader="waymar", round_=20
    )
    state, events = act(state, "end")
    assert state["winner"] == "watch"
    assert "the Wall has held for 20 rounds" in events[-1].text


def test_a_foothold_lost_within_the_round_is_no_breach() -> None:
    # The Wight seen behind the Wall a round ago (id 9) was slain since; another only now arrived.
    state = position(("white_walker", "0303"), ("wight_wildling", "0511"), leader="waymar", breach_watch=[9])
    state, _ = act(state, "end")
    assert state["breached"] is None and state["breach_watch"] == [2]


def test_a_wight_north_of_the_wall_is_no_foothold() -> None:
    state = position(("white_walker", "0303"), ("wight_wildling", "0508"), leader="waymar", breach_watch=[2])
    state, _ = act(state, "end")
    assert state["breached"] is None and state["breach_watch"] == []


def test_the_others_win_at_the_cap_when_the_wall_is_down() -> None:
    state = position(("white_walker", "0303"), leader="waymar", round_=20, wall_up=False)
    state, events = act(state, "end")
    assert state["winner"] == "others"
    assert "the Wall is down after 20 rounds" in events[-1].text


def test_balance_stats_name_the_winning_side_the_reason_and_the_length() -> None:
    state = position(("ranger", "1212"), ("white_walker", "0303"), leader="waymar", round_=20)
    state, _ = act(state, "end")
    stats = ENGINE.balance_stats(state)
    assert stats["watch_win"] == 1.0 and stats["others_win"] == 0.0
    assert stats["end_wall_held"] == 1.0 and stats["rounds"] == 20.0
    reasons = [k for k in stats if k.startswith("end_")]
    assert sum(stats[k] for k in reasons) == 1.0
    assert stats["wall_fell"] == 0.0


def test_the_estimate_fears_a_wight_behind_the_wall_more_than_one_before_it() -> None:
    base = (("jon", "1210"), ("white_walker", "0303"))
    before = position(*base, ("wight_watch", "0505"), round_=10)
    behind = position(*base, ("wight_watch", "0511"), round_=10)
    assert ENGINE.evaluate(behind)[0] < ENGINE.evaluate(before)[0]
    assert abs(sum(ENGINE.evaluate(behind)) - 1.0) < 1e-9  # two seats, one side each


def test_time_is_on_the_watch_side_until_the_wall_is_breached() -> None:
    pieces = (("jon", "1210"), ("white_walker", "0303"))
    quiet_early, quiet_late = position(*pieces, round_=3), position(*pieces, round_=20)
    assert ENGINE.evaluate(quiet_late)[0] > ENGINE.evaluate(quiet_early)[0]
    breached_early = position(*pieces, round_=3, breached=2)
    breached_late = position(*pieces, round_=20, breached=2)
    assert ENGINE.evaluate(breached_late)[0] < ENGINE.evaluate(breached_early)[0]
    assert ENGINE.evaluate(breached_early)[0] < ENGINE.evaluate(quiet_early)[0]


def test_the_estimate_counts_a_slain_true_other_for_the_watch() -> None:
    two = position(("jon", "1210"), ("white_walker", "0303"), ("white_walker", "1803"))
    one = position(("jon", "1210"), ("white_walker", "0303"))
    assert ENGINE.evaluate(one)[0] > ENGINE.evaluate(two)[0]
