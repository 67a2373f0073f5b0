"""The Great Wall: the search bots' estimate (``evaluate``) and the balance counts of a game that ends
because a player left. Positions come from the helpers in ``test_greatwall.py``."""

from __future__ import annotations

import pytest

from tests.engines.test_greatwall import ENGINE, card, cleared


def test_the_estimate_starts_from_honor_less_the_shame_penalty() -> None:
    state = cleared()
    state["honor"] = [5, 5]
    state["shame"] = [0, 2]
    mine, theirs = ENGINE.evaluate(state)
    assert mine - theirs == pytest.approx(4.0, rel=0.05)  # a sound wall barely discounts the lead


def test_the_estimate_credits_the_seat_leading_on_a_nearly_covered_horde() -> None:
    state = cleared()
    card(state, 0, 1, "scouts", {2: ["s", 0, "spearman"], 4: ["s", 0, "spearman"], 6: ["w"]})
    mine, theirs = ENGINE.evaluate(state)
    assert mine > theirs + 2.0  # two soldiers out, and most of the Scouts' Honor on its way


def test_the_estimate_counts_ready_soldiers_and_resources() -> None:
    state = cleared(wood=2)
    state["reserve"][1] = {k: 0 for k in state["reserve"][1]}
    mine, theirs = ENGINE.evaluate(state)
    assert mine > theirs


def test_the_estimate_fears_a_breach_where_a_seat_has_nobody() -> None:
    state = cleared()
    card(state, 0, 1, "warband")  # power 3 against a level-1 wall's Defence 2: a breach is coming
    card(state, 0, 2, "berserkers", {2: ["s", 0, "spearman"]})
    without = cleared()
    mine, theirs = ENGINE.evaluate(state)
    base_mine, base_theirs = ENGINE.evaluate(without)
    assert theirs < base_theirs - 2.0  # Shame ahead for the seat with no soldier there
    assert mine - theirs > base_mine - base_theirs


def test_a_wall_about_to_fall_makes_a_lead_worth_less() -> None:
    safe = cleared()
    safe["honor"] = [10, 0]
    doomed = cleared()
    doomed["honor"] = [10, 0]
    for section in doomed["sections"][1:]:
        section["level"] = 0
    card(doomed, 0, 1, "ram")  # the last level left, with a Battering Ram at it
    safe_lead = ENGINE.evaluate(safe)[0] - ENGINE.evaluate(safe)[1]
    doomed_lead = ENGINE.evaluate(doomed)[0] - ENGINE.evaluate(doomed)[1]
    assert doomed_lead < safe_lead / 2  # a total defeat would leave everybody level


def test_balance_stats_name_a_game_ended_by_a_player_leaving() -> None:
    state = cleared()
    state, _ = ENGINE.eliminate(state, 1)
    stats = ENGINE.balance_stats(state)
    assert ENGINE.is_over(state) and stats["player_left"] == 1.0
    assert stats["time_ran_out"] == stats["shame_ran_out"] == stats["wall_fell"] == 0.0
