"""The keys of what a match's open pages and a user's My matches show, kept in the cache (Redis) so that
an unchanged poll reads no row of the database; and the cache reads and writes of the pages' parts
(games/views.py) and the sessions (wallsite/sessions.py), which share its fall-back when the cache is
away.

A match's key comes from its row (``selectors.match_live_key``), which every change to the page
touches; a user's from one aggregate over the rows of the matches they sit at
(``selectors.matches_live_key``). The cache holds each key beside a generation of its match or user:
every service that changes what a match page shows calls ``match_changed`` in its transaction, and
once that commits the generations of the match and of everyone seated at it move on, which voids
their cached keys; a service that gives a user a seat or takes one away calls ``user_changed`` for
them. A key cached by a poll that read the rows before a change committed carries the generation it
was read under, so it never outlives the change. An entry lives ``KEY_SECONDS`` at most: a change by a
path that does not say so still shows by then.

With the cache unreachable, polls read the rows, and skip the cache for ``AWAY_SECONDS`` so that an
unreachable Redis does not cost every poll its timeout."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache import cache
from django.db import transaction

from games.models import Seat

logger = logging.getLogger(__name__)

# A user's key is always there; a match's is None when there is no such match.
Key = TypeVar("Key", bound=str | None)

KEY_SECONDS = 30
GENERATION_SECONDS = 24 * 3600
AWAY_SECONDS = 10.0

# Per process, a hint rather than a count: when the cache may be tried again after it failed.
_away_until = 0.0


def _names(scope: str) -> tuple[str, str]:
    return f"live:{scope}:generation", f"live:{scope}:key"


def user_scope(user_id: Any) -> str:
    """The name a user's key and generation go by (a match's is its number)."""
    return f"u{user_id}"


def match_changed(match_id: int) -> None:
    """Call inside the transaction that changes what the match's page shows: My matches of everyone
    seated at it when it commits changes too."""
    transaction.on_commit(lambda: _match_moved_on(match_id))


def user_changed(user_id: Any) -> None:
    """Call inside the transaction that gives the user a seat no ``match_changed`` will find them at
    (a match they create) or takes one away (a seat left or handed over)."""
    transaction.on_commit(lambda: _next_generations([user_scope(user_id)]))


def _match_moved_on(match_id: int) -> None:
    seated = Seat.objects.filter(match_id=match_id, user__isnull=False).values_list("user_id", flat=True)
    _next_generations([str(match_id), *(user_scope(user_id) for user_id in seated)])


def _next_generations(scopes: list[str]) -> None:
    # A fresh value, not a count: one write moves on every scope, and differs from any a key was read under.
    generation = uuid.uuid4().hex
    try:
        cache.set_many({_names(scope)[0]: generation for scope in scopes}, GENERATION_SECONDS)
    except Exception:
        # Redis is away: the cached keys went with it, or expire within KEY_SECONDS.
        logger.warning("Could not mark %s changed in the cache", ", ".join(scopes), exc_info=True)
        cache_failed()


def cached_key(scope: int | str, read: Callable[[], Key]) -> Key:
    """The live key of a match (its number) or a user (``user_scope``): from the cache while it is good,
    else ``read()``, which is then cached."""
    if cache_away():
        return read()
    generation_name, key_name = _names(str(scope))
    try:
        found = cache.get_many([generation_name, key_name])
    except Exception:
        cache_failed()
        return read()
    generation = str(found.get(generation_name, ""))
    stored, _, key = str(found.get(key_name, "")).partition("|")
    if key_name in found and stored == generation:
        return key  # type: ignore[return-value]  # what read() gave when it was cached
    fresh = read()
    if fresh is not None:
        try:
            cache.set(key_name, f"{generation}|{fresh}", KEY_SECONDS)
        except Exception:
            cache_failed()
    return fresh


def cache_read(names: list[str]) -> dict[str, Any]:
    """The entries stored under ``names`` (those found); none while the cache is away."""
    if not names or cache_away():
        return {}
    try:
        return cache.get_many(names)
    except Exception:
        cache_failed()
        return {}


def cache_write(entries: dict[str, Any], seconds: int) -> None:
    """Store ``entries`` for ``seconds``; a cache that is away stores nothing, and the callers make
    them again."""
    if not entries or cache_away():
        return
    try:
        cache.set_many(entries, seconds)
    except Exception:
        cache_failed()


def cache_away() -> bool:
    """Whether a cache call failed within the last ``AWAY_SECONDS``: every caller then goes without the
    cache (the pages' parts and keys here, the sessions of wallsite/sessions.py)."""
    return time.monotonic() < _away_until


def cache_failed() -> None:
    """Say that a cache call just failed (see ``cache_away``)."""
    global _away_until
    _away_until = time.monotonic() + AWAY_SECONDS
