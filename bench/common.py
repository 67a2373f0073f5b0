"""What the PostgreSQL benchmarks share: the database they measure (created when missing) and free ports."""

from __future__ import annotations

import socket
import sys
from typing import Any


def postgres_config(url: str, *, script: str) -> dict[str, Any]:
    """The Django database settings for ``url``; exits with a reason unless it is PostgreSQL, since
    SQLite serialises every write on one lock and its figures would say nothing about the site."""
    import dj_database_url

    config = dj_database_url.parse(url)
    if config["ENGINE"] != "django.db.backends.postgresql":
        sys.exit(f"{script} measures PostgreSQL only; {url!r} is {config['ENGINE']}. Give a postgres:// URL.")
    return config


def database_create(config: dict[str, Any]) -> bool:
    """Create the bench database unless it exists; True if it was created."""
    import psycopg
    from psycopg import sql

    params = {
        "host": config.get("HOST") or None,
        "port": config.get("PORT") or None,
        "user": config.get("USER") or None,
        "password": config.get("PASSWORD") or None,
    }
    with psycopg.connect(dbname="postgres", autocommit=True, **params) as conn:
        found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [config["NAME"]]).fetchone()
        if found:
            return False
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(config["NAME"])))
        return True


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]
