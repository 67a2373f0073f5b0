"""Sessions kept in the database and read from the cache: Django's ``cached_db`` engine, which saves
every request the query for its session, made to carry on when the cache is away.

Django's engine already logs and goes on when it cannot store a session it just saved, but a request
would still fail on the cache when it reads a session the cache does not hold, logs out, or makes a new
session key. Here each of those falls back on the database, which holds every session in any case, so
that with Redis away a player can still log in, play and log out. And once a cache call has failed,
sessions go straight to the database for a while, as the pages' parts do (games/livekeys.py): a Redis
that hangs rather than refuses then costs one request its timeouts, not every request.
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.sessions.backends.cached_db import SessionStore as CachedDBStore
from django.contrib.sessions.backends.db import SessionStore as DBStore

from games.livekeys import cache_away, cache_failed

logger = logging.getLogger(__name__)


class SessionStore(CachedDBStore):
    def load(self) -> dict[str, Any]:
        if cache_away():
            return DBStore.load(self)
        try:
            return super().load()
        except Exception:
            cache_failed()
            logger.warning("Could not read the session from the cache; reading the database", exc_info=True)
            return DBStore.load(self)

    def exists(self, session_key: str) -> bool:
        if cache_away():
            return DBStore.exists(self, session_key)
        try:
            return super().exists(session_key)
        except Exception:
            cache_failed()
            logger.warning("Could not look for the session in the cache", exc_info=True)
            return DBStore.exists(self, session_key)

    def save(self, must_create: bool = False) -> None:
        if cache_away():
            # A copy the cache may still hold goes stale: at worst it carries an auth hash that no
            # longer matches, which logs the player out, never in.
            DBStore.save(self, must_create)
        else:
            super().save(must_create)  # logs a failure to store the copy, and goes on

    def delete(self, session_key: str | None = None) -> None:
        # Tried even while the cache is away: a copy left there would outlive the log-out.
        try:
            super().delete(session_key)
        except Exception:
            cache_failed()
            # The database's row is gone by then (Django deletes it first). A copy the cache kept
            # through the failure would still let that cookie in until the session's age runs out, as
            # with Django's own engine; a password change still ends it (the session's auth hash).
            logger.warning("Could not remove the session from the cache", exc_info=True)
