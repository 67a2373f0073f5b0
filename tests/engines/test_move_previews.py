"""What the board shows of a move chosen but not yet sent (``Engine.move_preview``), checked on the engines.

Every shape names places the interactive board really has (a click target or a ``data-place``), a ghost's
pieces carry ``data-on`` with their place, and a preview is built from the mover's view alone, so it is
the same in every position the mover cannot tell apart. Then one scenario per game: the moved Wall Go
stone is left to the browser, the wall a Stairways card moves pushes a hero, The Wall's unit attacks after
a step, a Wildlings order and bid are written on the House's own row, a Great Wall soldier stands on its
vital spot. Pure: no database, no browser.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from games.engines import registry
from games.engines.base import Engine, Move, State

GAMES = [slug for slug in registry.slugs() if not registry.ENGINES[slug].startswith("tests.")]
DRAWN = {"ghost", "wall", "unwall", "arrow", "ring", "label", "piece"}
PLACE_KEYS = ("at", "from", "to")
MOVES_PER_POSITION = 20
POSITIONS = 60


def places(svg: str) -> set[str]:
    return set(re.findall(r'data-(?:target|place)="([^"]+)"', svg))


def standing(svg: str) -> set[str]:
    return set(re.findall(r'data-on="([^"]+)"', svg))


def positions(engine: Engine, *, seats: int, seed: int, options: dict[str, str] | None = None):
    """(state, seat) for the seats to act along a random game, chance steps run as the worker would."""
    rng = random.Random(seed)
    state = engine.new_state(seats=seats, options=engine.resolve_options(options or {}), rng=rng)
    for _ in range(POSITIONS):
        if engine.is_over(state):
            return
        if engine.chance_pending(state):
            state, _ = engine.resolve_chance(state, rng)
            continue
        actors = sorted(engine.actors(state))
        for seat in actors:
            yield state, seat
        seat = actors[0]
        state, _ = engine.apply(state, seat, rng.choice(engine.legal_moves(state, seat)))


def preview_of(engine: Engine, state: State, seat: int, move: Move) -> list[dict[str, Any]]:
    return engine.move_preview(engine.view(state, seat), seat, move)


@pytest.mark.parametrize("slug", GAMES)
def test_every_preview_draws_on_places_the_board_has_and_only_from_the_movers_view(slug):
    engine = registry.get_engine(slug)
    seats = max(engine.min_players, 3 if slug == "wildlings" else 2)
    sampler = random.Random(slug)
    drawn = 0
    for state, seat in positions(engine, seats=seats, seed=11):
        view = engine.view(state, seat)
        svg = engine.render_svg(view, seat, interactive=True)
        on_board, pieces = places(svg), standing(svg)
        hidden = engine.view(engine.sample_hidden(state, seat, random.Random(f"{slug}:{seat}")), seat)
        moves = engine.legal_moves(state, seat)
        for move in sampler.sample(moves, min(MOVES_PER_POSITION, len(moves))):
            preview = engine.move_preview(view, seat, move)
            assert engine.move_preview(hidden, seat, move) == preview, f"{move}: depends on hidden state"
            for shape in preview:
                assert shape["draw"] in DRAWN, shape
                assert all(isinstance(v, str) and v for v in shape.values()), shape
                for key in PLACE_KEYS:
                    if key in shape:
                        assert shape[key] in on_board, f"{move}: {shape} names {shape[key]}, not on the board"
                if shape["draw"] == "ghost":
                    assert shape["from"] in pieces, f"{move}: nothing stands on {shape['from']} to show moved"
                drawn += 1
    if slug != "wallgo":
        assert drawn, f"{slug}: no move drew anything"


def test_wall_go_leaves_its_moves_to_the_browser_and_names_where_each_token_stands():
    engine = registry.get_engine("wallgo")
    state, seat = next(positions(engine, seats=2, seed=3))
    state, _ = engine.apply(state, seat, engine.parse_move("d4"))
    (seat,) = engine.actors(state)
    view = engine.view(state, seat)
    assert all(engine.move_preview(view, seat, m) == [] for m in engine.legal_moves(state, seat))
    svg = engine.render_svg(view, seat, interactive=True)
    assert 'data-on="sq-d4"' in svg
    # The template of the mover's own token for a token being placed: drawn nowhere, not a token.
    template = re.search(r'<defs><g data-preview-piece="own">(.*?)</g></defs>', svg)
    assert template and f"preview-token seat-{seat}" in template.group(1)
    assert "data-preview-piece" not in engine.render_svg(view, seat, interactive=False)


def test_a_stairways_wall_that_sweeps_a_hero_shows_the_hero_pushed_where_it_lands():
    engine = registry.get_engine("stairways")
    rats = [{"square": "g2", "size": 4}, {"square": "b1", "size": 4}]  # the seed's rats for 2 heroes
    layout = {"walls": ["c3e"], "stairways": ["a8", "h8"], "heroes": ["d3", "a5"], "rats": rats}
    state = engine.new_state(seats=2, options={"layout_json": json.dumps(layout)}, rng=random.Random(0))
    state["hands"][0] = ["H1"]
    state["wonders"] = {"H": 0, "C": 0, "D": 0, "S": 0}  # seat 0 may play hearts: it moves a north-south wall
    state["turns"], state["current"] = [2, 2], 0
    seat = 0
    move = {"play": "H1", "wall": "c3e", "to": "d2n"}  # pivots about its south end, sweeping d3 to d2
    assert move in engine.legal_moves(state, seat)
    assert preview_of(engine, state, seat, move) == [
        {"draw": "unwall", "at": "wall-c3e"},
        {"draw": "wall", "at": "edge-d2n"},
        {"draw": "ghost", "from": "sq-d3", "to": "sq-d2"},
    ]
    # The same wall move with nobody where it sweeps pushes nothing.
    state["heroes"][0]["square"] = "b7"
    assert preview_of(engine, state, seat, move) == [
        {"draw": "unwall", "at": "wall-c3e"},
        {"draw": "wall", "at": "edge-d2n"},
    ]


def test_the_walls_attack_after_a_step_shows_the_unit_on_its_new_hex_and_an_arrow_at_the_target():
    engine = registry.get_engine("thewall")
    move = {"unit": "1210", "act": "combo", "via": "1211", "to": "1311"}
    assert engine.move_preview({}, 0, move) == [
        {"draw": "ghost", "from": "h1210", "to": "h1211"},
        {"draw": "arrow", "from": "h1211", "to": "h1311"},
        {"draw": "ring", "at": "h1311"},
        {"draw": "label", "at": "h1311", "text": "Combination"},
    ]
    assert engine.move_preview({}, 0, {"unit": "1210", "act": "move", "to": "1311"}) == [
        {"draw": "ghost", "from": "h1210", "to": "h1311"}
    ]
    assert engine.move_preview({}, 0, {"unit": "1210", "act": "defend"}) == [
        {"draw": "label", "at": "h1210", "text": "Defend"}
    ]


def test_a_wildlings_order_and_bid_are_written_on_the_houses_own_row():
    engine = registry.get_engine("wildlings")
    march = {"order": "march", "target": 1, "card": 3}
    assert engine.move_preview({}, 2, march) == [
        {"draw": "label", "at": "round-2", "text": "Order: march on Blue with 3"},
        {"draw": "ring", "at": "house-1"},
    ]
    assert engine.move_preview({}, 0, {"bid": 4}) == [
        {"draw": "label", "at": "round-0", "text": "Bid 4 Power"}
    ]


def test_a_great_wall_soldier_is_labelled_on_its_vital_spot_and_an_archer_aims_from_the_firing_spot():
    engine = registry.get_engine("greatwall")
    cover = {"attack": "spearman", "sec": 1, "row": 1, "spot": 5}
    assert engine.move_preview({}, 0, cover) == [{"draw": "label", "at": "spot-1-1-5", "text": "Spearman"}]
    fire = {"attack": "archer", "sec": 1, "row": 2, "spot": 4}
    assert engine.move_preview({}, 0, fire) == [
        {"draw": "label", "at": "fire-1", "text": "Archer"},
        {"draw": "arrow", "from": "fire-1", "to": "spot-1-2-4"},
        {"draw": "ring", "at": "spot-1-2-4"},
    ]
    assert engine.move_preview({}, 0, {"clerk": "barracks"}) == [
        {"draw": "label", "at": "loc-barracks", "text": "Clerk"}
    ]
