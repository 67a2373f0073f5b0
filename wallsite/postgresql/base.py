"""Django's PostgreSQL backend, with a health check that needs no round trip while the session is well.

Django checks a kept connection at the start of each request (CONN_HEALTH_CHECKS) with ``SELECT 1``:
one round trip on every request that touches the database. An idle session has nothing to say, so
anything to read on its socket (a server shutting down sends a message, then closes the socket; a
dropped proxy closes it) means something happened, and only then is the ``SELECT 1`` asked.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql.base import DatabaseWrapper as PostgreSQLDatabaseWrapper
from psycopg import pq


class DatabaseWrapper(PostgreSQLDatabaseWrapper):
    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None:
            return False
        pgconn = connection.pgconn
        if (
            pgconn.status == pq.ConnStatus.OK
            and pgconn.transaction_status == pq.TransactionStatus.IDLE
            and not _has_input(pgconn)
        ):
            return True
        return super().is_usable()


def _has_input(pgconn: pq.abc.PGconn) -> bool:
    """Whether the session's socket has anything to read (or is closed or broken)."""
    try:
        poller = select.poll()
        poller.register(pgconn.socket, select.POLLIN | select.POLLPRI)
        return bool(poller.poll(0))
    except Exception:  # no socket any more: let the real check decide
        return True
