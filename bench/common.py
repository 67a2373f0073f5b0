"""What the PostgreSQL benchmarks share: the database they measure (created when missing), a throw-away
Redis, free ports and the machine's CPU counters."""

from __future__ import annotations

import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
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


def statistics_refresh() -> None:
    """VACUUM ANALYZE the bench database once its rows are in, as autovacuum would on a live server.

    Where autovacuum is off (it is on some test machines), tables that a bench fills from nothing
    keep the planner's empty-table guesses: joins then scan whole tables, and the figures measure
    that instead of the site (a read match cost several times its PostgreSQL time so)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cpu_times() -> tuple[int, int]:
    """(busy, total) jiffies over all cores, from /proc/stat; zeros where it does not exist."""
    try:
        # user nice system idle iowait irq softirq steal; guest time is already counted in user.
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    except OSError:
        return 0, 0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


@dataclass(frozen=True)
class Setup:
    """What a bench gets from ``site_on_postgres``."""

    config: dict[str, Any]  # the Django database settings
    scratch: Path  # a folder of its own, removed at the end
    redis_port: int
    redis_pid: int


@contextmanager
def site_on_postgres(url: str, *, script: str) -> Iterator[Setup]:
    """The site's environment for a bench: the PostgreSQL database at ``url`` (created when missing and
    migrated), a throw-away Redis on a free loopback port, Django set up. Exits with the reason if a
    part cannot be had; stops Redis and removes the scratch folder at the end."""
    config = postgres_config(url, script=script)
    scratch = Path(tempfile.mkdtemp(prefix=f"wallsite-{Path(script).stem}-"))
    os.environ.update(
        DJANGO_SETTINGS_MODULE="wallsite.settings.base",
        DATABASE_URL=url,
        # Sessions kept between requests, as production keeps them (development keeps none).
        DATABASE_CONN_MAX_AGE="60",
        DEBUG="0",
        WALLSITE_VAR_DIR=str(scratch / "var"),
    )
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    try:
        try:
            if database_create(config):
                print(f"Created database {config['NAME']!r}.")
        except Exception as exc:
            sys.exit(f"Setup failed: cannot reach PostgreSQL to create {config['NAME']!r}: {exc}")
        from wallsite.embedded_redis import redis_start, redis_stop

        port = free_port()
        try:
            redis = redis_start(port=port, directory=scratch / "redis")
        except Exception as exc:
            sys.exit(f"Setup failed: cannot start an embedded Redis: {exc}")
        os.environ["REDIS_URL"] = f"redis://127.0.0.1:{port}/0"
        try:
            import django
            from django.core.management import call_command

            django.setup()
            call_command("migrate", verbosity=0)
            yield Setup(config=config, scratch=scratch, redis_port=port, redis_pid=redis.pid)
        finally:
            redis_stop(redis)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
