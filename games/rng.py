"""The match's server-side random generator, kept as JSON in ``Match.rng_state`` (never sent out)."""

from __future__ import annotations

import random
import secrets
from typing import Any


def rng_new() -> random.Random:
    return random.Random(secrets.randbits(128))


def rng_dump(rng: random.Random) -> list[Any]:
    version, internal, gauss_next = rng.getstate()
    return [version, list(internal), gauss_next]


def rng_load(raw: list[Any]) -> random.Random:
    rng = random.Random()
    version, internal, gauss_next = raw
    rng.setstate((version, tuple(internal), gauss_next))
    return rng
