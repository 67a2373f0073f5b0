"""Sessions kept in the database and read from the cache: Django's ``cached_db`` engine, which saves
every request the query for its session, made to carry on when the cache is away.

Django's engine already logs and goes on when it cannot store a session in the cache it just saved, but
a request would still fail on the cache when it reads a session the cache does not hold, logs out, or
makes a new session key. Here each of those falls back on the database, which holds every session in
any case, so that with Redis away a player can still log in, play and log out (as the pages are still
drawn: games/livekeys.py).
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.sessions.backends.cached_db import SessionStore as CachedDBStore
from django.contrib.sessions.backends.db import SessionStore as DBStore

logger = logging.getLogger(__name__)


class SessionStore(CachedDBStore):
    def load(self) -> dict[str, Any]:
        try:
            return super().load()
        except Exception:
            logger.warning("Could not read the session from the cache; reading the database", exc_info=True)
            return DBStore.load(self)

    def exists(self, session_key: str) -> bool:
        try:
            return super().exists(session_key)
        except Exception:
            logger.warning("Could not look for the session in the cache", exc_info=True)
            return DBStore.exists(self, session_key)

    def delete(self, session_key: str | None = None) -> None:
        try:
            super().delete(session_key)
        except Exception:
            # The database's row is gone by then (Django deletes it first). A copy the cache kept
            # through the failure would still let that cookie in until the session's age runs out, as
            # with Django's own engine; a password change still ends it (the session's auth hash).
            logger.warning("Could not remove the session from the cache", exc_info=True)
