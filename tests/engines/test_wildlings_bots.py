"""Wildlings at the Wall: the estimate the search bots score positions with (``Wildlings.evaluate``)."""

from __future__ import annotations

import random

from games.bots import SearchBot
from games.engines.wildlings import rules
from tests.engines.test_wildlings import ENGINE, position
from tests.engines.test_wildlings_game import ordering


def test_a_finished_game_is_estimated_at_its_outcome() -> None:
    state = position(castles=(7, 2, 3))
    state["phase"] = "over"
    assert ENGINE.evaluate(state) == ENGINE.outcome(state) == [7.305, 2.305, 3.305]


def test_with_equal_castles_more_levies_cards_and_power_are_worth_more() -> None:
    state = position(levies=((4, 1), (2, 1), (2, 1)), hands=((4, 3, 2), (1, 1, 0), (1, 1, 0)))
    stronger, weaker, same = ENGINE.evaluate(state)
    assert stronger > weaker == same
    richer = position(power=(12, 5, 5))
    assert ENGINE.evaluate(richer)[0] > ENGINE.evaluate(richer)[1]


def test_a_castle_outweighs_a_lead_in_means() -> None:
    # One House a Castle ahead, the other with a knight and a better hand more.
    state = position(
        castles=(4, 3, 3), levies=((2, 1), (2, 2), (2, 1)), hands=((0, 1, 1), (4, 3, 2), (0, 1, 1))
    )
    ahead, armed, _ = ENGINE.evaluate(state)
    assert ahead > armed


def test_the_power_of_a_house_counts_more_as_the_wildling_threat_rises() -> None:
    calm = position(power=(10, 5, 5), threat=0)
    pressing = position(power=(10, 5, 5), threat=10)
    assert ENGINE.evaluate(pressing)[0] - ENGINE.evaluate(pressing)[1] > (
        ENGINE.evaluate(calm)[0] - ENGINE.evaluate(calm)[1]
    )


def test_means_count_less_in_the_last_round_when_little_is_left_to_use_them() -> None:
    early = position(levies=((4, 1), (2, 1), (2, 1)))
    late = position(levies=((4, 1), (2, 1), (2, 1)))
    late["round"] = rules.ROUNDS
    lead = ENGINE.evaluate(early)[0] - ENGINE.evaluate(early)[1]
    assert 0 < ENGINE.evaluate(late)[0] - ENGINE.evaluate(late)[1] < lead


def test_the_search_bot_marches_to_the_seventh_castle_that_ends_the_game() -> None:
    # Orange holds 6 Castles, two knights and two footmen against Houses with one footman each: any
    # march wins the seventh Castle at once, whatever the others hold in their hidden hands.
    state = position(
        castles=(6, 3, 3), levies=((2, 2), (1, 0), (1, 0)), hands=((4, 0, 1), (0, 1, 1), (0, 1, 1))
    )
    state = ordering(state)
    bot = SearchBot(playouts=200)
    move = bot.choose(ENGINE, state, 0, random.Random(3))
    assert move["order"] == "march"
