"""Seats are told apart by players who see colours differently, and by those who do not see them at all.

Every board takes its seat colours from ``games.engines.palette`` (the Great Wall adds a grey for the
Imperial general of a one- or two-player game). Each game's palette, for every table size it allows, is
checked under simulated protanopia, deuteranopia and tritanopia (Machado, Oliveira and Fernandes 2009,
full severity, applied to linear RGB) with the CIEDE2000 colour difference; the arithmetic is checked
against the published CIEDE2000 test pairs first. Then every board is drawn with every seat on it, and
each seat's pieces must differ from the others' by something that is not a colour: a shape, a letter or a
name. Pure: no database, no browser.
"""

from __future__ import annotations

import itertools
import math
import random
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest

from games.engines import registry
from games.engines.greatwall import svg as greatwall_svg
from games.engines.greatwall.cards import LOCATIONS
from games.engines.palette import SEAT_COLOURS, SEAT_NAMES, SEAT_SHAPES, seat_colour

SVG_NS = "{http://www.w3.org/2000/svg}"
GAMES = [slug for slug in registry.slugs() if not registry.ENGINES[slug].startswith("tests.")]

# --- colour science --------------------------------------------------------------------------------------
Lab = tuple[float, float, float]
Matrix = tuple[tuple[float, float, float], ...]

# Machado et al. 2009, severity 1.0 (a dichromat): linear RGB -> linear RGB as that viewer sees it.
SIMULATIONS: dict[str, Matrix] = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}
TYPICAL: Matrix = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))

# CIEDE2000 reads about 1 as just noticeable and above 10 as apart at a glance. Typical vision must see
# every pair of seats as clearly different colours (20). A dichromat loses one dimension of colour: no
# published six-colour palette made for colour-blind viewers (Okabe-Ito, which the site uses; Paul Tol's)
# keeps every pair 20 apart under all three simulations, so there every pair must stay apart at a
# glance (10), and the shape, letter or name below is what makes a seat certain.
TYPICAL_MIN = 20.0
DICHROMAT_MIN = 10.0


def linear(hex_colour: str) -> tuple[float, float, float]:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(int(hex_colour[i : i + 2], 16) / 255) for i in (1, 3, 5))
    return r, g, b


def seen(hex_colour: str, matrix: Matrix) -> tuple[float, float, float]:
    rgb = linear(hex_colour)
    r, g, b = (min(1.0, max(0.0, sum(row[j] * rgb[j] for j in range(3)))) for row in matrix)
    return r, g, b


def lab(rgb: tuple[float, float, float]) -> Lab:
    """Linear sRGB -> CIELAB, D65 white."""
    r, g, b = rgb
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def ciede2000(one: Lab, two: Lab) -> float:
    """Sharma, Wu and Dalal's formulation (Color Research and Application 30, 2005), kL = kC = kH = 1."""
    l1, a1, b1 = one
    l2, a2, b2 = two
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean**7 / (c_mean**7 + 25**7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1 = math.degrees(math.atan2(b1, a1)) % 360 if c1 else 0.0
    h2 = math.degrees(math.atan2(b2, a2)) % 360 if c2 else 0.0
    dh = 0.0
    if c1 * c2:
        dh = h2 - h1
        dh = dh - 360 if dh > 180 else dh + 360 if dh < -180 else dh
    d_l, d_c = l2 - l1, c2 - c1
    d_h = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    l_mean, c_mean = (l1 + l2) / 2, (c1 + c2) / 2
    if not c1 * c2:
        h_mean = h1 + h2
    elif abs(h1 - h2) <= 180:
        h_mean = (h1 + h2) / 2
    else:
        h_mean = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(h_mean - 30))
        + 0.24 * math.cos(math.radians(2 * h_mean))
        + 0.32 * math.cos(math.radians(3 * h_mean + 6))
        - 0.20 * math.cos(math.radians(4 * h_mean - 63))
    )
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    s_c = 1 + 0.045 * c_mean
    s_h = 1 + 0.015 * c_mean * t
    r_t = (
        -math.sin(math.radians(60 * math.exp(-(((h_mean - 275) / 25) ** 2))))
        * 2
        * math.sqrt(c_mean**7 / (c_mean**7 + 25**7))
    )
    return math.sqrt((d_l / s_l) ** 2 + (d_c / s_c) ** 2 + (d_h / s_h) ** 2 + r_t * (d_c / s_c) * (d_h / s_h))


def difference(one: str, two: str, matrix: Matrix) -> float:
    return ciede2000(lab(seen(one, matrix)), lab(seen(two, matrix)))


# --- the palettes the boards draw ------------------------------------------------------------------------
def new_game(slug: str, seats: int) -> tuple[Any, dict[str, Any]]:
    engine = registry.get_engine(slug)
    options = {name: option.default for name, option in engine.options.items()}
    return engine, engine.new_state(seats=seats, options=options, rng=random.Random(0))


def palettes() -> Iterator[tuple[str, int, list[str]]]:
    """Per game and table size, the colours its board gives the generals at that table."""
    for slug in GAMES:
        engine = registry.get_engine(slug)
        for seats in range(engine.min_players, engine.max_players + 1):
            colours = [seat_colour(seat) for seat in range(seats)]
            if slug == "greatwall":
                view = engine.view(new_game(slug, seats)[1], None)
                if view["neutral"] is not None:
                    colours.append(greatwall_svg._colour(view, view["neutral"]))
            yield slug, seats, colours


PALETTES = list(palettes())


# Sharma et al.'s test data: (L, a, b) pairs and their CIEDE2000 difference, chosen to reach each branch
# (blue hues near 275 degrees, a zero chroma, hue angles on both sides of 180 degrees).
REFERENCE_PAIRS = [
    ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
    ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
    ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
    ((50.0, 2.5, 0.0), (61.0, -5.0, 29.0), 22.8977),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
]


@pytest.mark.parametrize(("one", "two", "expected"), REFERENCE_PAIRS)
def test_the_colour_difference_matches_the_published_test_data(one: Lab, two: Lab, expected: float) -> None:
    assert ciede2000(one, two) == pytest.approx(expected, abs=1e-4)
    assert ciede2000(two, one) == pytest.approx(expected, abs=1e-4)


def test_the_colour_space_and_the_simulations_keep_white_white_and_grey_grey() -> None:
    assert lab(linear("#FFFFFF")) == pytest.approx((100.0, 0.0, 0.0), abs=1e-3)
    assert lab(linear("#000000")) == pytest.approx((0.0, 0.0, 0.0), abs=1e-6)
    for matrix in SIMULATIONS.values():
        assert seen("#FFFFFF", matrix) == pytest.approx((1.0, 1.0, 1.0), abs=1e-3)
        assert ciede2000(lab(seen("#808080", matrix)), lab(linear("#808080"))) < 1.0
    # The simulations lose what they should: red and green fall together for a protanope and a
    # deuteranope, blue and green for a tritanope, while typical vision keeps them far apart.
    assert difference("#FF0000", "#00FF00", TYPICAL) > 70
    assert difference("#CC6600", "#669900", SIMULATIONS["protanopia"]) < 10
    assert difference("#CC6600", "#669900", SIMULATIONS["deuteranopia"]) < 10
    assert difference("#0088AA", "#009966", SIMULATIONS["tritanopia"]) < 10


def test_every_game_at_every_table_size_has_a_palette_of_different_colours() -> None:
    assert {slug for slug, _, _ in PALETTES} == set(GAMES)
    for slug, seats, colours in PALETTES:
        assert len(set(colours)) == len(colours), (slug, seats, colours)
        assert set(colours) <= {*SEAT_COLOURS, greatwall_svg.NEUTRAL}, (slug, colours)


@pytest.mark.parametrize(("slug", "seats", "colours"), PALETTES, ids=[f"{s}-{n}" for s, n, _ in PALETTES])
def test_every_pair_of_seat_colours_stays_apart_for_colour_blind_eyes(
    slug: str, seats: int, colours: list[str]
) -> None:
    too_close = []
    for one, two in itertools.combinations(colours, 2):
        if (d := difference(one, two, TYPICAL)) < TYPICAL_MIN:
            too_close.append(f"{one} and {two}: {d:.1f} for typical vision")
        for vision, matrix in SIMULATIONS.items():
            if (d := difference(one, two, matrix)) < DICHROMAT_MIN:
                too_close.append(f"{one} and {two}: {d:.1f} under {vision}")
    assert not too_close, f"{slug} with {seats} seats: " + "; ".join(too_close)


# --- cues that are not colours ---------------------------------------------------------------------------
def drawn(slug: str, state: dict[str, Any]) -> ET.Element:
    engine = registry.get_engine(slug)
    return ET.fromstring(engine.render_svg(engine.view(state, None), None, interactive=False))


def shape_of(element: ET.Element) -> str:
    """What a marker looks like without its colour: its element, and a polygon's corner count."""
    tag = element.tag.removeprefix(SVG_NS)
    return tag + str(len(element.get("points", "").split())) if tag == "polygon" else tag


def markers(root: ET.Element, kind: str) -> dict[int, set[str]]:
    """Seat -> the shapes of the elements of class ``kind seat-<n>``."""
    found: dict[int, set[str]] = {}
    for element in root.iter():
        classes = (element.get("class") or "").split()
        if kind in classes:
            seat = next(int(c.removeprefix("seat-")) for c in classes if re.fullmatch(r"seat-\d+", c))
            found.setdefault(seat, set()).add(shape_of(element))
    return found


def assert_one_shape_each(found: dict[int, set[str]], seats: int) -> None:
    assert sorted(found) == list(range(seats)), found
    assert all(len(shapes) == 1 for shapes in found.values()), found
    shapes = [next(iter(found[seat])) for seat in range(seats)]
    assert len(set(shapes)) == seats, shapes


def test_wall_go_tokens_have_one_shape_per_seat() -> None:
    engine, state = new_game("wallgo", 4)
    while len({int(owner) for owner in state["tokens"].values()}) < 4:
        seat = min(engine.actors(state))
        state, _ = engine.apply(state, seat, engine.legal_moves(state, seat)[0])
    assert_one_shape_each(markers(drawn("wallgo", state), "token"), 4)


def test_wildlings_houses_have_one_marker_shape_per_seat() -> None:
    _, state = new_game("wildlings", 6)
    assert_one_shape_each(markers(drawn("wildlings", state), "marker"), 6)


def test_stairways_carry_their_owners_colour_name() -> None:
    _, state = new_game("stairways", 4)
    root = drawn("stairways", state)
    owners = [el.text for el in root.iter(f"{SVG_NS}text") if el.get("class") == "stair-owner"]
    assert owners == [name.capitalize() for name in SEAT_NAMES[:4]]


def test_the_wall_draws_each_leaders_units_with_letters_no_other_leader_uses() -> None:
    _, state = new_game("thewall", 4)
    engine = registry.get_engine("thewall")
    view = engine.view(state, None)
    root = drawn("thewall", state)
    letter_of = {
        group.get("data-unit"): group.find(f"{SVG_NS}text").text
        for group in root.iter(f"{SVG_NS}g")
        if group.get("class") == "unit"
    }
    letters: dict[int, set[str]] = {}
    for leader in view["leaders"]:
        seat = int(leader["seat"])
        for unit in leader["units"]:
            letters.setdefault(seat, set()).add(letter_of[str(unit["id"])])
    assert sorted(letters) == [0, 1, 2, 3]
    for one, two in itertools.combinations(letters, 2):
        assert not letters[one] & letters[two], (one, two, letters)


@pytest.mark.parametrize("seats", [2, 4])
def test_great_wall_pieces_have_their_seats_shape_and_the_imperial_general_its_own(seats: int) -> None:
    _, state = new_game("greatwall", seats)
    generals = state["generals"]
    # A soldier of every general on the wall, and every player's clerk at a location.
    section = state["sections"][0]
    section["firing"] = [[g, "archer"] for g in range(generals)][:2]
    state["sections"][1]["firing"] = [[g, "archer"] for g in range(generals)][2:]
    state["placed"][LOCATIONS.index("stone")] = list(range(seats))  # the Quarry
    root = drawn("greatwall", state)
    found = markers(root, "marker")
    assert_one_shape_each(found, generals)
    expected = [SEAT_SHAPES[g] for g in range(seats)] + ([greatwall_svg.NEUTRAL_SHAPE] * (generals - seats))
    shapes = {
        int(el.get("class").split("seat-")[1]): el.get("data-shape")
        for el in root.iter()
        if "marker" in (el.get("class") or "")
    }
    assert [shapes[g] for g in range(generals)] == expected
