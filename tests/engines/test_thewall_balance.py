"""The Wall: the reckoning at the round cap, the balance counts and the search bots' estimate.

The round cap is ours (the seed has none), and so is what it decides: the Wall has held, and the Watch's
side wins, only if it still stands and no Wight has ever kept a place on or behind it through
``BREACH_ROUNDS`` whole rounds (a breach).
Positions come from ``position`` in ``test_thewall.py``.
"""

from __future__ import annotations

import random
from typing import Any

from django.template.loader import render_to_string

from games.engines.thewall.rules import BREACH_ROUNDS
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


def inside(state: dict[str, Any], hex_: str) -> int:
    """How many ends of Waymar's turns in a row the unit on ``hex_`` has stood on or behind the Wall."""
    (unit,) = (u for u in state["units"] if u["hex"] == hex_)
    return int(unit.get("inside", 0))


def test_a_wight_that_holds_a_place_behind_the_wall_for_breach_rounds_whole_rounds_breaches_it() -> None:
    state = position(
        ("ranger", "1212"), ("white_walker", "0303"), ("wight_wildling", "0511"), leader="waymar", round_=5
    )
    state, _ = act(state, "end")
    assert inside(state, "0511") == 1 and state["breached"] is None  # seen there once: not yet
    for held in range(1, BREACH_ROUNDS):
        state = play_round_of_ends(state)
        assert inside(state, "0511") == held + 1 and state["breached"] is None  # not long enough yet
        assert not any(e.kind == "breach" for e in state.pop("_events"))
    state = play_round_of_ends(state)
    assert state["breached"] == 5 + BREACH_ROUNDS
    text = f"for {BREACH_ROUNDS} full rounds: the Wall is breached"
    assert any(text in e.text for e in state.pop("_events"))
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
    wight = ("wight_wildling", "0709", {"inside": BREACH_ROUNDS})
    state = position(("white_walker", "0303"), wight, leader="waymar")
    state, _ = act(state, "end")
    assert state["breached"] == 3


def test_a_wight_seen_behind_the_wall_only_once_is_no_breach() -> None:
    state = position(
        ("ranger", "1212"), ("white_walker", "0303"), ("wight_wildling", "0511"), leader="waymar", round_=20
    )
    state, events = act(state, "end")
    assert state["winner"] == "watch"
    assert "the Wall has held for 20 rounds" in events[-1].text


def test_a_foothold_held_one_round_short_is_no_breach() -> None:
    wight = ("wight_wildling", "0511", {"inside": BREACH_ROUNDS - 1})
    state = position(("ranger", "1212"), ("white_walker", "0303"), wight, leader="waymar", round_=20)
    state, events = act(state, "end")
    assert state["winner"] == "watch" and state["breached"] is None
    assert "the Wall has held for 20 rounds" in events[-1].text


def test_a_wight_that_steps_back_north_of_the_wall_starts_its_count_again() -> None:
    wight = ("wight_wildling", "0508", {"inside": BREACH_ROUNDS})
    state = position(("white_walker", "0303"), wight, leader="waymar")
    state, _ = act(state, "end")
    assert state["breached"] is None and inside(state, "0508") == 0


def test_the_public_view_lists_each_foothold_with_the_rounds_held_until_the_wall_is_breached() -> None:
    wight = ("wight_wildling", "0511", {"inside": 2})
    state = position(("white_walker", "0303"), wight, ("wight_wildling", "0508"), leader="waymar")
    view = ENGINE.public_view(state)
    assert view["footholds"] == [{"id": 2, "name": "Wight (Wildling) 1", "hex": "0511", "held": 1}]
    assert view["breach_rounds"] == BREACH_ROUNDS
    assert ENGINE.public_view({**state, "breached": 3})["footholds"] == []


def test_the_side_panel_says_how_long_a_wight_has_held_and_when_the_wall_was_breached() -> None:
    wight = ("wight_wildling", "0511", {"inside": 2})
    state = position(("white_walker", "0303"), wight, leader="waymar")
    html = render_to_string("thewall/_panel.html", {"view": ENGINE.public_view(state), "seats": []})
    assert f"has held a place on or behind the Wall for 1 of the {BREACH_ROUNDS} whole rounds" in html
    breached = render_to_string("thewall/_panel.html", {"view": ENGINE.public_view({**state, "breached": 4})})
    assert "The Wall was breached in round 4" in breached and "has held a place" not in breached


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
    held = position(*base, ("wight_watch", "0511", {"inside": 1}), round_=10)
    assert ENGINE.evaluate(held)[0] < ENGINE.evaluate(behind)[0] < ENGINE.evaluate(before)[0]
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
