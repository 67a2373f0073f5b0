"""The key of what a match's open pages show, kept in the cache (Redis) so that an unchanged poll of a
match page reads no row of the database.

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

import redis
from django.conf import settings
from django.core.cache import cache
from django.db import transaction

logger = logging.getLogger(__name__)

KEY_SECONDS = 30
GENERATION_SECONDS = 24 * 3600
AWAY_SECONDS = 10.0
REDIS_CACHE = "django.core.cache.backends.redis.RedisCache"

# Per process, hints rather than counts: when the cache may be tried again after it failed, and the
# client of the cache's Redis.
_away_until = 0.0
_client: redis.Redis | None = None
_client_for: object = None


def _redis() -> redis.Redis | None:
    """A client of the cache's own Redis, made once per process; None when the cache is not Redis (the
    test suite's in-memory cache), whose Django API is used instead. Django's Redis cache makes a client
    per call, a tenth of a millisecond that the server's commonest request cannot spare."""
    global _client, _client_for
    config = settings.CACHES.get("default", {})
    if _client_for is not config:
        _client, _client_for = None, config
        if config.get("BACKEND") == REDIS_CACHE:
            location = config["LOCATION"]
            options = config.get("OPTIONS", {})
            _client = redis.Redis.from_url(
                location if isinstance(location, str) else location[0],
                socket_timeout=options.get("socket_timeout"),
                socket_connect_timeout=options.get("socket_connect_timeout"),
            )
    return _client


def _names(match_id: int) -> tuple[str, str]:
    return f"wallsite:live:{match_id}:generation", f"wallsite:live:{match_id}:key"


def match_changed(match_id: int) -> None:
    """Call inside the transaction that changes what the match's page shows."""
    transaction.on_commit(lambda: _next_generation(match_id))


def _next_generation(match_id: int) -> None:
    generation, _ = _names(match_id)
    try:
        client = _redis()
        if client is not None:
            client.pipeline().incr(generation).expire(generation, GENERATION_SECONDS).execute()
        else:
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
    client = _redis()
    try:
        if client is not None:
            raw_generation, raw_entry = client.mget([generation_name, key_name])
            generation = raw_generation.decode() if raw_generation is not None else ""
            stored, _, key = (raw_entry or b"").decode().partition("|")
            if raw_entry is not None and stored == generation:
                return key
        else:
            found = cache.get_many([generation_name, key_name])
            generation = str(found.get(generation_name, ""))
            stored, _, key = str(found.get(key_name, "")).partition("|")
            if key_name in found and stored == generation:
                return key
    except Exception:
        _away()
        return read()
    key = read()
    if key is not None:
        entry = f"{generation}|{key}"
        try:
            if client is not None:
                client.set(key_name, entry, ex=KEY_SECONDS)
            else:
                cache.set(key_name, entry, KEY_SECONDS)
        except Exception:
            _away()
    return key


def _away() -> None:
    global _away_until
    _away_until = time.monotonic() + AWAY_SECONDS
