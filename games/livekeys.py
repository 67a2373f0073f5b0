"""The key of what a match's open pages show, kept in the cache (Redis) so that an unchanged poll of a
match page reads no row of the database; and the cache reads and writes of the pages' parts
(games/views.py), which share its fall-back when the cache is away.

The key itself comes from the match's row (``selectors.match_live_key``), which every change to the
page touches. The cache holds it beside a generation number of the match: every service that changes
what a match page shows calls ``match_changed`` in its transaction, and once that commits the generation
moves on, which voids the cached key. A key cached by a poll that read the row before a change committed
carries the generation it was read under, so it never outlives the change. An entry lives
``KEY_SECONDS`` at most: a change by a path that does not call ``match_changed`` still shows by then.

With the cache unreachable, polls read the row, and skip the cache for ``AWAY_SECONDS`` so that an
unreachable Redis does not cost every poll its timeout."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.db import transaction

logger = logging.getLogger(__name__)

KEY_SECONDS = 30
GENERATION_SECONDS = 24 * 3600
AWAY_SECONDS = 10.0

# Per process, a hint rather than a count: when the cache may be tried again after it failed.
_away_until = 0.0


def _names(match_id: int) -> tuple[str, str]:
    return f"live:{match_id}:generation", f"live:{match_id}:key"


def match_changed(match_id: int) -> None:
    """Call inside the transaction that changes what the match's page shows."""
    transaction.on_commit(lambda: _next_generation(match_id))


def _next_generation(match_id: int) -> None:
    generation, _ = _names(match_id)
    try:
        cache.add(generation, 0, GENERATION_SECONDS)
        cache.incr(generation)
    except Exception:
        # Redis is away: the cached keys went with it, or expire within KEY_SECONDS.
        logger.warning("Could not mark match %s changed in the cache", match_id, exc_info=True)
        _away()


def cached_key(match_id: int, read: Callable[[], str | None]) -> str | None:
    """The match's live key: from the cache while it is good, else ``read()``, which is then cached."""
    if time.monotonic() < _away_until:
        return read()
    generation_name, key_name = _names(match_id)
    try:
        found = cache.get_many([generation_name, key_name])
    except Exception:
        _away()
        return read()
    generation = str(found.get(generation_name, ""))
    stored, _, key = str(found.get(key_name, "")).partition("|")
    if key_name in found and stored == generation:
        return key
    key = read()
    if key is not None:
        try:
            cache.set(key_name, f"{generation}|{key}", KEY_SECONDS)
        except Exception:
            _away()
    return key


def cache_read(names: list[str]) -> dict[str, Any]:
    """The entries stored under ``names`` (those found); none while the cache is away."""
    if not names or time.monotonic() < _away_until:
        return {}
    try:
        return cache.get_many(names)
    except Exception:
        _away()
        return {}


def cache_write(entries: dict[str, Any], seconds: int) -> None:
    """Store ``entries`` for ``seconds``; a cache that is away stores nothing, and the callers make
    them again."""
    if not entries or time.monotonic() < _away_until:
        return
    try:
        cache.set_many(entries, seconds)
    except Exception:
        _away()


def _away() -> None:
    global _away_until
    _away_until = time.monotonic() + AWAY_SECONDS
