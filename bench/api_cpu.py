"""CPU cost of the REST API's requests in one process, without HTTP: steadier than bench/api.py.

    python bench/api_cpu.py [--requests 2000]
                            [--database-url postgres://postgres@127.0.0.1:5432/wallsite_apibench]

Run from the repository root with the project's Python (.venv/bin/python). With the same set-up as
bench/api.py (its database, users with tokens, started Wall Go matches, a throw-away Redis), it calls
Django's WSGI handler directly, one request after another, for the trivial view, "read match" and
"submit move" (replaying a game played in advance, finishing moves included at their natural rate).
For each kind it prints the CPU time per request of this process (Django, DRF, the services, the
database driver) and of its PostgreSQL backend, and the wall time. No HTTP server, no client and no
second request compete for the cores, so the figures move little with the machine's other load: they
show what a change to the request path costs or saves, where bench/api.py shows throughput.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.api import DEFAULT_DATABASE_URL, _prepare  # noqa: E402  (needs the path above)
from bench.common import site_on_postgres, statistics_refresh  # noqa: E402

WARMUP = 100


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000, help="measured requests per kind")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    args = parser.parse_args()
    if args.requests < 1:
        parser.error("--requests must be positive")
    return args


def _backend_cpu(pid: int) -> float:
    """CPU seconds so far of the PostgreSQL backend ``pid`` (it runs on this machine)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    args = _arguments()
    with site_on_postgres(args.database_url, script="bench/api_cpu.py"):
        from django.core.handlers.wsgi import WSGIHandler
        from django.db import connection

        handler = WSGIHandler()
        client = _prepare(clients=1, moves_each=args.requests + WARMUP + 100)[0]
        statistics_refresh()

        def call(method: str, path: str, *, token: str | None = None, body: bytes = b"") -> tuple[str, bytes]:
            environ = {
                "REQUEST_METHOD": method,
                "PATH_INFO": path,
                "QUERY_STRING": "",
                "SERVER_NAME": "127.0.0.1",
                "SERVER_PORT": "80",
                "HTTP_HOST": "127.0.0.1",
                "wsgi.url_scheme": "http",
                "wsgi.input": io.BytesIO(body),
                "wsgi.errors": sys.stderr,
                "CONTENT_TYPE": "application/json",
                "CONTENT_LENGTH": str(len(body)),
            }
            if token:
                environ["HTTP_AUTHORIZATION"] = f"Token {token}"
            status: list[str] = []
            answer = b"".join(handler(environ, lambda line, headers, info=None: status.append(line)))
            return status[0], answer

        def ping() -> None:
            status, answer = call("GET", "/api/ping/")
            assert status.startswith("200"), (status, answer)

        def read() -> None:
            client.reading = (client.reading + 1) % len(client.matches)
            match_id = client.matches[client.reading]
            status, answer = call("GET", f"/api/matches/{match_id}/", token=client.tokens[0])
            assert status.startswith("200"), (status, answer)

        def move() -> None:
            if client.step < 0 or client.step >= len(client.game):
                client.current += 1
                client.step, client.version = 0, 0
            seat, notation = client.game[client.step]
            body = json.dumps({"move": notation, "version": client.version}).encode()
            path = f"/api/matches/{client.matches[client.current]}/moves/"
            status, answer = call("POST", path, token=client.tokens[seat], body=body)
            assert status.startswith("201"), (status, answer)
            client.step += 1
            client.version = json.loads(answer)["version"]

        def measure(step: Callable[[], None]) -> tuple[float, float, float]:
            for _ in range(WARMUP):
                step()
            connection.ensure_connection()
            backend = connection.connection.info.backend_pid
            cpu, wall, database = time.process_time(), time.perf_counter(), _backend_cpu(backend)
            for _ in range(args.requests):
                step()
            if connection.connection.info.backend_pid != backend:
                sys.exit("The database connection changed during the run; its CPU time cannot be read.")
            per = 1000 / args.requests
            return (
                (time.process_time() - cpu) * per,
                (_backend_cpu(backend) - database) * per,
                (time.perf_counter() - wall) * per,
            )

        print(f"{args.requests} requests per kind, one at a time, through Django's WSGI handler:")
        print(f"{'kind':<44} {'Python CPU':>11} {'PostgreSQL':>11} {'wall':>9}")
        rows = [
            ("trivial view    GET  /api/ping/", ping),
            ("read match      GET  /api/matches/{id}/", read),
            ("submit move     POST /api/matches/{id}/moves/", move),
        ]
        for label, step in rows:
            python, database, wall = measure(step)
            print(f"{label:<44} {python:>8.3f} ms {database:>8.3f} ms {wall:>6.3f} ms")
        print("(Python CPU: this process; PostgreSQL: its backend; wall: the whole request, waits included.)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
