"""Seat colours shared by every board: the Okabe-Ito palette, told apart with colour-blind vision too,
and a marker shape per seat so that colour is never the only cue."""

from __future__ import annotations

SEAT_COLOURS: tuple[str, ...] = ("#E69F00", "#0072B2", "#009E73", "#CC79A7", "#D55E00", "#56B4E9")
SEAT_NAMES: tuple[str, ...] = ("orange", "blue", "green", "pink", "vermilion", "sky")
SEAT_SHAPES: tuple[str, ...] = ("circle", "square", "triangle", "diamond", "pentagon", "hexagon")


def seat_colour(seat: int) -> str:
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]
