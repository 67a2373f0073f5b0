"""The random draws of a match: a secret seed per match, and one HMAC-SHA256 stream per chance step.

A match's seed is 32 bytes from ``secrets``, kept server-side in ``Match.seed`` until the match ends;
its SHA-256 (the commitment) is public from the start. Every draw the server makes for the game is a
numbered step (0: the setup; then each chance step and each skipped turn, in log order), and step ``n``
reads the byte stream HMAC-SHA256(seed, "n:0") || HMAC-SHA256(seed, "n:1") || ... through the
``random.Random`` interface the engines already use. A step's draws are then a function of the seed and
its number alone, so anyone holding the revealed seed can re-run them (``games/records.py``).

Matches started before that keep the Mersenne Twister state in ``Match.rng_state``: they go on drawing
from it (``rng_dump`` / ``rng_load``) and cannot be verified.

Pure: no Django, so the verifier can run anywhere.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from typing import Any

SEED_BYTES = 32
STREAM = "hmac-sha256"


def seed_new() -> str:
    """A fresh secret seed, as 64 hex digits."""
    return secrets.token_hex(SEED_BYTES)


def seed_commitment(seed: str) -> str:
    """The public commitment to ``seed``: SHA-256 of its 32 bytes, as hex."""
    return hashlib.sha256(seed_bytes(seed)).hexdigest()


def seed_bytes(seed: str) -> bytes:
    """The 32 bytes of a seed written as hex; ValueError for anything else."""
    if not isinstance(seed, str) or len(seed) != 2 * SEED_BYTES:
        raise ValueError(f"A seed is {2 * SEED_BYTES} hex digits.")
    try:
        return bytes.fromhex(seed)
    except ValueError:
        raise ValueError(f"A seed is {2 * SEED_BYTES} hex digits.") from None


class StepRandom(random.Random):
    """``random.Random`` drawing from step ``step``'s HMAC-SHA256 stream of ``seed``.

    Overriding ``random()`` and ``getrandbits()`` is the documented way to plug in another basic
    generator: ``randrange``, ``choice``, ``shuffle``, ``sample`` and the rest are built on them.
    ``getrandbits(k)`` takes the next ceil(k/8) bytes of the stream as a big-endian number and keeps its
    top ``k`` bits; ``random()`` is ``getrandbits(53) / 2**53``.
    """

    def __init__(self, *, seed: str, step: int) -> None:
        self._key = seed_bytes(seed)
        self.step = step
        self._block = 0
        self._buffer = b""
        super().__init__()

    @property
    def seed_hex(self) -> str:
        return self._key.hex()

    def seed(self, a: Any = None, version: int = 2) -> None:
        """Start a step's stream from its beginning: ``a`` is a step number (None: this step again)."""
        if a is not None:
            if type(a) is not int or a < 0:
                raise TypeError("A step stream is re-seeded with a step number only.")
            self.step = a
        self._block = 0
        self._buffer = b""
        self.gauss_next = None

    def _take(self, count: int) -> bytes:
        while len(self._buffer) < count:
            message = f"{self.step}:{self._block}".encode("ascii")
            self._buffer += hmac.new(self._key, message, hashlib.sha256).digest()
            self._block += 1
        taken, self._buffer = self._buffer[:count], self._buffer[count:]
        return taken

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        if k == 0:
            return 0
        size = (k + 7) // 8
        return int.from_bytes(self._take(size), "big") >> (8 * size - k)

    def random(self) -> float:
        return self.getrandbits(53) * (1.0 / (1 << 53))

    def getstate(self) -> tuple[Any, ...]:
        return (STREAM, self._key.hex(), self.step, self._block, self._buffer.hex(), self.gauss_next)

    def setstate(self, state: tuple[Any, ...]) -> None:
        kind, key, step, block, buffer, gauss_next = state
        if kind != STREAM:
            raise ValueError(f"Not the state of a {STREAM} stream.")
        self._key, self.step, self._block = seed_bytes(key), step, block
        self._buffer, self.gauss_next = bytes.fromhex(buffer), gauss_next

    def __reduce__(self) -> tuple[Any, ...]:
        return (_step_random_restored, (self.getstate(),))


def _step_random_restored(state: tuple[Any, ...]) -> StepRandom:
    rng = StepRandom(seed=state[1], step=state[2])
    rng.setstate(state)
    return rng


def step_stream(seed: str, step: int) -> StepRandom:
    """The generator of chance step ``step`` of the match with ``seed``, from its first draw."""
    return StepRandom(seed=seed, step=step)


def rng_new() -> random.Random:
    """The generator a new match's setup (step 0) draws from, on a fresh secret seed.

    A match started with any other generator (a test's seeded ``random.Random``) keeps that generator's
    state in ``Match.rng_state`` and draws from it, like a match from before seeds: it is not verifiable.
    """
    return step_stream(seed_new(), 0)


def rng_dump(rng: random.Random) -> list[Any]:
    """A Mersenne Twister's state as JSON (the matches that keep one in ``Match.rng_state``)."""
    version, internal, gauss_next = rng.getstate()
    return [version, list(internal), gauss_next]


def rng_load(raw: list[Any]) -> random.Random:
    rng = random.Random()
    version, internal, gauss_next = raw
    rng.setstate((version, tuple(internal), gauss_next))
    return rng
