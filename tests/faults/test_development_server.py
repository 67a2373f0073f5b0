"""`make run`'s development server on PostgreSQL keeps no database session once a request is answered:
it serves each HTTP connection on a thread of its own, and a session kept by a thread that has ended
would sit idle on the server until a burst of page loads ran it out of connections."""

from __future__ import annotations

import httpx

from tests.faults.conftest import wait_until

SESSIONS = (
    "SELECT count(*) AS n FROM pg_stat_activity "
    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
)


def test_twenty_page_loads_on_new_connections_leave_no_idle_session(stack, pg):
    server = stack.dev_server(redis=stack.redis())
    for _ in range(20):
        # A client of its own each time: a new HTTP connection, so a new thread of the server.
        assert httpx.get(f"{server.base}/", timeout=10).status_code == 200
    wait_until(lambda: pg.rows(SESSIONS)[0]["n"] == 0, "the sessions to close", timeout=5)
