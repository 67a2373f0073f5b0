"""A realistic mix of players against the whole site on loopback, at increasing concurrency.

    python bench/load.py [--levels 4,8,16,32,64] [--seconds 8] [--workers 4] [--threads 1]
                         [--celery-workers 1] [--reminders-per-second 5] [--live-pages 0] [--live-every 4.8]
                         [--database-url postgres://postgres@127.0.0.1:5432/wallsite_loadbench]

Run from the repository root with the project's Python (.venv/bin/python). It creates the database if
needed and migrates it, then adds one pair of players per simulated user (the largest level's number):
for each pair a long Wall Go match (``--history`` moves already played), two idle matches with a
three-day clock whose deadline reminders the bench makes fall due during the run, the matches the
simulated user plays, two at a time, one after the other (their moves planned for longer than the
run lasts), and an open table. It starts a throw-away Redis, gunicorn, Celery workers
(e-mails written to files) and one beat sweeping every two seconds, all on loopback.

Each simulated user is logged in as the first player of its pair and, as soon as its last request is
answered (a closed loop without think time: the concurrency is the number of requests in flight),
sends the next one, chosen at random by the ``--mix`` weights:

- dashboard: ``GET /me/matches/`` (My matches), with the session;
- match page: ``GET /matches/{id}/`` of the long match, an idle one or one of the two it plays, with
  the session;

  each page as a browser asks for it again: with the ETag of the copy it holds (If-None-Match), so
  a page that did not change is a 304 and the copy is shown; ``--no-browser-cache`` sends every load
  without, as a browser with an empty cache would. The share of 304s is reported per kind;
- move: ``POST /api/matches/{id}/moves/`` with the right player's token and the version it expects,
  the next move of a random game planned beforehand with the engine (Wall Go has no chance and no
  secrets, so the planned position is the server's), so choosing costs the client nothing.

With ``--live-pages``, that many open match pages (of the simulated users' matches, with their
sessions) follow their match meanwhile as static/js/live.js does: a poll every ``--live-every`` seconds
with the ETag of the last answer, a 304 while nothing changed. Their polls are reported apart from the
mix. Meanwhile the bench makes ``--reminders-per-second`` reminders fall due; beat's sweep claims them and
the workers send them, along with the "your turn" e-mails the moves cause. For each concurrency it
prints throughput and p50/p99 latency per kind of request, and at the end the concurrency at which
p99 passes 200 ms; and, per level, the CPU the server spent per request (gunicorn's processes, Redis
and this database's PostgreSQL backends, read from /proc), which other work on a shared machine slows
but does not add to. It reports and asserts nothing: the exit code is 0 unless the setup failed. Each
run adds its own players and matches; the database is left in place.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import aiohttp

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.api import Server, _cpu_spent  # noqa: E402  (needs the path above)
from bench.common import Setup, cpu_times, free_port, site_on_postgres, statistics_refresh  # noqa: E402  (needs the path above)

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/wallsite_loadbench"
P99_LIMIT_MS = 200.0
KINDS = ("dashboard", "match page", "move")
LIVE_MATCHES = 2  # matches each simulated user plays at a time (and reads the pages of)
IDLE_MATCHES = 2  # matches whose reminders fall due during the run
# Planned moves prepared per simulated user and second of the run, over its matches: more than a user
# makes at this mix (about 8 a second at concurrency 4 on two cores), so nobody runs out and the mix holds.
MOVES_PER_SECOND = 12
WARM_UP_SECONDS = 4.0
SEED = 17


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="4,8,16,32,64", help="concurrencies to measure, in order")
    parser.add_argument("--seconds", type=float, default=8.0, help="measuring time per level")
    parser.add_argument("--warmup", type=float, default=1.5, help="unmeasured seconds before each level")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument("--threads", type=int, default=1, help="threads per gunicorn worker (1: sync)")
    parser.add_argument("--celery-workers", type=int, default=1, help="Celery worker processes (-c 2 each)")
    parser.add_argument("--history", type=int, default=24, help="moves already played in each long match")
    parser.add_argument("--reminders-per-second", type=float, default=5.0)
    parser.add_argument("--mix", default="dashboard=45,match page=40,move=15", help="weights per kind")
    parser.add_argument(
        "--live-pages", type=int, default=0, help="open match pages following their match meanwhile"
    )
    parser.add_argument("--live-every", type=float, default=4.8, help="seconds between an open page's polls")
    parser.add_argument(
        "--no-browser-cache",
        dest="browser_cache",
        action="store_false",
        help="load every page afresh, never with the ETag of the copy held (If-None-Match)",
    )
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    args = parser.parse_args()
    try:
        args.levels = sorted({int(level) for level in args.levels.split(",") if level.strip()})
        weights = dict(part.split("=") for part in args.mix.split(","))
        args.weights = [float(weights.get(kind, 0)) for kind in KINDS]
    except ValueError:
        parser.error(
            "--levels takes numbers like 4,8,16 and --mix weights like dashboard=45,match page=40,move=15"
        )
    if not args.levels or min(args.levels) < 1 or sum(args.weights) <= 0:
        parser.error("--levels must be positive and --mix must give some kind a weight")
    if args.seconds <= 0 or args.workers < 1 or args.threads < 1 or args.celery_workers < 1:
        parser.error("--seconds, --workers, --threads and --celery-workers must be positive")
    if args.live_pages < 0 or args.live_every <= 0:
        parser.error("--live-pages must be at least 0 and --live-every positive")
    return args


# --- the players and their matches ---------------------------------------------------------------------


@dataclass
class Live:
    """A match the simulated user plays, with its moves planned: (seat, move) in order."""

    match_id: int
    plan: list[tuple[int, dict[str, Any]]]
    version: int = 0
    broken: bool = False  # a move was refused: the plan no longer matches the server


@dataclass
class User:
    session: str
    tokens: tuple[str, str]
    pages: list[int]  # matches whose page it reads besides those it plays
    live: list[Live]  # played in order, LIVE_MATCHES at a time
    rng: random.Random
    # The browser's copies: address -> the ETag of the page it holds.
    copies: dict[str, str] = field(default_factory=dict)

    def playing(self) -> list[Live]:
        """The matches in play: the first LIVE_MATCHES not yet played out (the last ones once all are)."""
        going = [live for live in self.live if not live.broken and live.version < len(live.plan)]
        return going[:LIVE_MATCHES] or self.live[-LIVE_MATCHES:]

    def reading(self) -> list[int]:
        """The matches whose page it reads: the long one, the idle ones and those in play."""
        return [*self.pages, *(live.match_id for live in self.playing())]

    def next_move(self) -> tuple[Live, int, dict[str, Any]] | None:
        live = self.playing()[0]
        if live.broken or live.version >= len(live.plan):
            return None
        seat, move = live.plan[live.version]
        return live, seat, move


def _plan(engine, rng: random.Random) -> list[tuple[int, dict[str, Any]]]:
    state = engine.new_state(seats=2, options=engine.resolve_options(None, seats=2), rng=rng)
    plan = []
    while engine.actors(state):
        seat = min(engine.actors(state))
        move = rng.choice(engine.legal_moves(state, seat))
        plan.append((seat, move))
        state, _ = engine.apply(state, seat, move)
    return plan


def _prepare(*, users: int, history: int, moves: int) -> tuple[list[User], list[int]]:
    """Players, sessions, tokens and matches, through the site's own services, with at least ``moves``
    planned moves for each user; the idle matches' ids."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.sessions.backends.db import SessionStore
    from rest_framework.authtoken.models import Token

    from games import services
    from games.engines import registry
    from games.models import Match, Notification
    from games.playouts import play_random_moves

    engine = registry.get_engine("wallgo")
    user_model = get_user_model()
    run = f"l{int(time.time())}"
    prepared: list[User] = []
    idle: list[int] = []
    three_days = timedelta(days=3)
    for index in range(users):
        rng = random.Random(f"{SEED}-{index}")
        pair = [
            user_model.objects.create_user(
                username=f"{run}-{index}-{side}", email=f"{run}-{index}-{side}@bench.invalid"
            )
            for side in "ab"
        ]
        a, b = pair
        tokens = (Token.objects.create(user=a).key, Token.objects.create(user=b).key)
        session = SessionStore()
        session[SESSION_KEY] = str(a.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = a.get_session_auth_hash()
        session.create()

        def duel(first, second, **options) -> Match:
            match = services.match_create(creator=first, game="wallgo", seat_count=2, **options)
            services.seat_join(match_id=match.pk, user=second)
            return match

        long = duel(a, b)
        play_random_moves(match_id=long.pk, rng=rng, moves=history)
        # Idle: b is to move and never reads a page, so b's reminders are e-mailed, not held back.
        waiting = [duel(b, a, move_time_limit=three_days).pk for _ in range(IDLE_MATCHES)]
        idle += waiting
        live: list[Live] = []
        while len(live) < LIVE_MATCHES or sum(len(game.plan) for game in live) < moves:
            live.append(Live(match_id=duel(a, b).pk, plan=_plan(engine, rng)))
        services.match_create(creator=a, game="wallgo", seat_count=2)  # an open table on the dashboard
        pages = [long.pk, *waiting]
        prepared.append(User(session=session.session_key, tokens=tokens, pages=pages, live=live, rng=rng))
    # The set-up moves' e-mails are not part of the load.
    Notification.objects.filter(user__username__startswith=f"{run}-", status="pending").update(
        status="skipped", skip_reason="bench set-up"
    )
    return prepared, idle


# --- the processes --------------------------------------------------------------------------------------


def _spawn(command: list[str], *, env: dict[str, str], log: Path) -> subprocess.Popen:
    with log.open("wb") as out:
        # A session of its own, so that stopping it reaches its children (gunicorn's, Celery's workers).
        return subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _wait_for(condition, what: str, process: subprocess.Popen, log: Path, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}; see {log}")
        if condition():
            return
        time.sleep(0.2)
    raise RuntimeError(f"{what} did not come up within {timeout:.0f} s; see {log}")


def _gunicorn_up(base: str) -> bool:
    import httpx

    try:
        return httpx.get(f"{base}/api/ping/", timeout=1.0).status_code == 200
    except httpx.HTTPError:
        return False


# --- measuring ------------------------------------------------------------------------------------------


@dataclass
class Level:
    concurrency: int
    seconds: float = 0.0
    latencies: dict[str, list[float]] = field(default_factory=lambda: {kind: [] for kind in KINDS})
    errors: dict[str, int] = field(default_factory=dict)
    mails: int = 0
    client_cpu: float = 0.0
    machine_cpu: float = math.nan
    # CPU seconds of gunicorn's processes, Redis and this database's PostgreSQL backends (the Celery
    # worker's queries included), and PostgreSQL's part of them: on a shared machine, what the site
    # costs per request, whatever else the cores are busy with.
    server_cpu: float = math.nan
    database_cpu: float = math.nan
    # The open pages' polls (--live-pages), apart from the mix: their latencies and answers by status.
    polls: list[float] = field(default_factory=list)
    poll_answers: dict[int, int] = field(default_factory=dict)
    no_moves_left: int = 0
    # Page loads answered 304 (the browser's copy shown), by kind.
    not_modified: dict[str, int] = field(default_factory=dict)

    def percentile(self, kind: str | None, q: float) -> float:
        values = sorted(self.latencies[kind] if kind else [v for vs in self.latencies.values() for v in vs])
        if not values:
            return math.nan
        return values[min(len(values) - 1, math.ceil(q * len(values)) - 1)] * 1000

    def count(self, kind: str | None) -> int:
        return len(self.latencies[kind]) if kind else sum(len(v) for v in self.latencies.values())


async def _load_page(http, user: User, address: str, *, browser_cache: bool) -> tuple[int, bool]:
    """GET a page as a browser does, with the ETag of the copy it holds: (status, the copy shown)."""
    held = user.copies.get(address) if browser_cache else None
    async with http.get(address, headers={"If-None-Match": held} if held else None) as response:
        await response.read()
    if response.status == 200:
        if "ETag" in response.headers:
            user.copies[address] = response.headers["ETag"]
        else:
            user.copies.pop(address, None)  # drawn without one (a flash message): not kept
    return response.status, bool(held) and response.status == 304


async def _user_loop(
    user: User, base: str, args: argparse.Namespace, *, record_from: float, until: float, level: Level
) -> None:
    import aiohttp

    async with _client(base, user) as http:
        while time.perf_counter() < until:
            kind = user.rng.choices(KINDS, args.weights)[0]
            planned = user.next_move() if kind == "move" else None
            if kind == "move" and planned is None:
                level.no_moves_left += 1
                kind = "match page"
            began = time.perf_counter()
            cached = False
            try:
                if kind != "move":
                    page = (
                        "me/matches" if kind == "dashboard" else f"matches/{user.rng.choice(user.reading())}"
                    )
                    code, cached = await _load_page(http, user, f"/{page}/", browser_cache=args.browser_cache)
                    ok, status = code == 200 or cached, str(code)
                else:
                    live, seat, move = planned
                    async with http.post(
                        f"/api/matches/{live.match_id}/moves/",
                        json={"move": move, "version": live.version},
                        headers={"Authorization": f"Token {user.tokens[seat]}"},
                    ) as response:
                        await response.read()
                    ok = response.status == 201
                    status = str(response.status)
                    if ok:
                        live.version += 1
                    else:
                        live.broken = True
                error = None if ok else f"{kind} {status}"
            except (aiohttp.ClientError, TimeoutError) as exc:
                error = f"{kind} {type(exc).__name__}"
            ended = time.perf_counter()
            if began < record_from or ended > until:
                continue  # warm-up, or cut off by the end of the level
            if error is None:
                level.latencies[kind].append(ended - began)
                level.not_modified[kind] = level.not_modified.get(kind, 0) + cached
            else:
                level.errors[error] = level.errors.get(error, 0) + 1


def _client(base: str, user: User) -> aiohttp.ClientSession:
    """A browser's connection to the site for ``user``: aiohttp's client, which costs this one process
    about two fifths of the CPU per request that httpx's asynchronous client does, CPU the server's
    processes would otherwise lose on a shared machine. The cookie jar keeps what the site sets (the
    CSRF cookie) though the host is an IP address, as a browser does."""
    import aiohttp

    return aiohttp.ClientSession(
        base_url=base,
        timeout=aiohttp.ClientTimeout(total=30.0),
        cookies={"sessionid": user.session},
        cookie_jar=aiohttp.CookieJar(unsafe=True),
        connector=aiohttp.TCPConnector(limit=0),
    )


def _count_mails(directory: Path) -> int:
    if not directory.exists():
        return 0
    separator = b"\n" + b"-" * 79 + b"\n"
    return sum(path.read_bytes().count(separator) for path in directory.iterdir())


def _measure(
    level: int,
    users: list[User],
    base: str,
    args: argparse.Namespace,
    mail_dir: Path,
    server: Server,
    known: dict[tuple[int, str], dict[str, str]],
) -> Level:
    result = Level(concurrency=level)
    start = time.perf_counter()
    record_from = start + args.warmup
    until = record_from + args.seconds
    mails_before = _count_mails(mail_dir)
    marks: dict[str, Any] = {}

    def readings() -> tuple[float, float, tuple[int, int], dict[int, tuple[float, bool]]]:
        return time.perf_counter(), time.process_time(), cpu_times(), server.cpu()

    async def run() -> None:
        # The CPU of the measured seconds only: after them the open pages' loops may still sleep up
        # to a poll's interval before they stop, and that idle tail would read as a machine not busy.
        await asyncio.sleep(max(0.0, record_from - time.perf_counter()))
        marks["start"] = readings()
        await asyncio.sleep(max(0.0, until - time.perf_counter()))
        marks["end"] = readings()

    async def main() -> None:
        loops = [
            _user_loop(user, base, args, record_from=record_from, until=until, level=result)
            for user in users[:level]
        ]
        pages = _open_pages(users, base, args, known, record_from, until, result)
        await asyncio.gather(run(), *loops, pages)

    asyncio.run(main())
    began, cpu_began, machine_began, server_began = marks["start"]
    ended, cpu_ended, machine_ended, server_ended = marks["end"]
    result.seconds = args.seconds
    result.client_cpu = (cpu_ended - cpu_began) / (ended - began)
    result.server_cpu, result.database_cpu = _cpu_spent(server_began, server_ended)
    spent = machine_ended[1] - machine_began[1]
    result.machine_cpu = (machine_ended[0] - machine_began[0]) / spent if spent else math.nan
    result.mails = _count_mails(mail_dir) - mails_before
    return result


def _page_url(users: list[User], number: int) -> tuple[int, str]:
    """The simulated user and the poll address of open page ``number``."""
    user_index = number % len(users)
    user = users[user_index]
    # An open page stays on its match: the long one, an idle one or one of the first two played.
    pages = [*user.pages, *(live.match_id for live in user.live[:LIVE_MATCHES])]
    return user_index, f"/matches/{pages[number // len(users) % len(pages)]}/live/"


def _poll_headers(headers: Mapping[str, str], body: dict[str, Any]) -> dict[str, str]:
    """What live.js sends after an answer with the page's parts: its ETag and the keys of what it shows."""
    return {
        "If-None-Match": headers.get("ETag", ""),
        "X-Live-Board": body["keys"]["board"],
        "X-Live-Log": body["keys"]["log"],
    }


def _first_answers(users: list[User], base: str, args: argparse.Namespace) -> dict[tuple[int, str], dict]:
    """Each distinct open page's first answer, before anything is measured: a page starts polling with
    the keys its HTML embeds, so its first poll is a 304 when nothing changed."""
    import httpx

    known: dict[tuple[int, str], dict[str, str]] = {}
    for number in range(args.live_pages):
        user_index, url = _page_url(users, number)
        if (user_index, url) in known:
            continue
        cookies = {"sessionid": users[user_index].session}
        response = httpx.get(f"{base}{url}", cookies=cookies, timeout=30.0)
        if response.status_code == 200:
            known[(user_index, url)] = _poll_headers(response.headers, response.json())
    return known


async def _open_pages(
    users: list[User],
    base: str,
    args: argparse.Namespace,
    known: dict[tuple[int, str], dict[str, str]],
    record_from: float,
    until: float,
    level: Level,
) -> None:
    """``--live-pages`` open match pages of the simulated users' matches, each polling its match every
    ``--live-every`` seconds as static/js/live.js does: with the ETag of its last answer and the keys of
    the board and the log it shows, so that an unchanged match is a 304."""
    import aiohttp

    if not args.live_pages:
        return
    clients = [_client(base, user) for user in users]

    async def page(number: int) -> None:
        user_index, url = _page_url(users, number)
        http = clients[user_index]
        headers = dict(known.get((user_index, url), {}))
        # Spread over the interval, as pages opened at different times are.
        await asyncio.sleep(args.live_every * number / args.live_pages)
        while time.perf_counter() < until:
            began = time.perf_counter()
            try:
                async with http.get(url, headers=headers) as response:
                    status = response.status
                    if status == 200:
                        # The next level's pages of this match start from what this one learnt.
                        body = await response.json()
                        headers = known[(user_index, url)] = _poll_headers(response.headers, body)
                    else:
                        await response.read()
            except (aiohttp.ClientError, TimeoutError):
                status = 0
            ended = time.perf_counter()
            if began >= record_from and ended <= until:
                level.polls.append(ended - began)
                level.poll_answers[status] = level.poll_answers.get(status, 0) + 1
            await asyncio.sleep(max(0.0, args.live_every - (ended - began)))

    try:
        await asyncio.gather(*(page(number) for number in range(args.live_pages)))
    finally:
        for http in clients:
            await http.close()


def _warm_up(
    users: list[User], base: str, args: argparse.Namespace, seconds: float = WARM_UP_SECONDS
) -> None:
    """Unmeasured requests until every gunicorn worker has loaded its code and its templates."""

    async def main() -> None:
        until = time.perf_counter() + seconds
        await asyncio.gather(
            *(
                _user_loop(user, base, args, record_from=until, until=until, level=Level(concurrency=0))
                for user in users[: min(len(users), 2 * args.workers)]
            )
        )

    asyncio.run(main())


def _background_load(seconds: float = 2.0) -> float:
    """Fraction of all cores busy while the bench does nothing: other work on the machine skews it all."""
    before = cpu_times()
    time.sleep(seconds)
    after = cpu_times()
    total = after[1] - before[1]
    return (after[0] - before[0]) / total if total else math.nan


class ReminderFeeder(threading.Thread):
    """Makes reminders of the idle matches fall due, ``rate`` a second, for beat's sweep to claim."""

    def __init__(self, database_url: str, idle: list[int], rate: float) -> None:
        super().__init__(daemon=True)
        self.url = "postgresql://" + database_url.split("://", 1)[1]
        self.idle = idle
        self.rate = rate
        self.running = threading.Event()
        self.stopped = threading.Event()
        self.made_due = 0

    def run(self) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            owed = 0.0
            while not self.stopped.wait(0.5):
                if not self.running.is_set():
                    continue
                owed += self.rate * 0.5
                batch = int(owed)
                if batch:
                    owed -= batch
                    self.made_due += conn.execute(
                        "UPDATE games_turn SET remind_at = now() WHERE id IN (SELECT id FROM games_turn "
                        "WHERE closed_at IS NULL AND remind_at > now() AND match_id = ANY(%s) "
                        "ORDER BY remind_at LIMIT %s)",
                        [self.idle, batch],
                    ).rowcount


# --- the report -----------------------------------------------------------------------------------------


def _report(
    levels: list[Level], *, args: argparse.Namespace, database: str, feeder: ReminderFeeder, load: float
) -> None:
    worker = "sync" if args.threads == 1 else f"gthread x{args.threads}"
    mix = ", ".join(
        f"{kind} {weight / sum(args.weights):.0%}" for kind, weight in zip(KINDS, args.weights, strict=True)
    )
    print()
    print(
        f"gunicorn ({args.workers} {worker} workers) + PostgreSQL ({database}) + Redis, "
        f"{args.celery_workers} Celery worker(s) and beat, all on loopback; {args.seconds:g} s per level "
        f"after {args.warmup:g} s of warm-up."
    )
    print(f"Mix: {mix}; a closed loop without think time, so concurrency = requests in flight.")
    if args.browser_cache:
        print("Pages are asked for again with the ETag of the copy held, as a browser does (304: the copy).")
    else:
        print("Every page is loaded afresh (--no-browser-cache): no If-None-Match.")
    if args.live_pages:
        print(
            f"Meanwhile {args.live_pages} open match pages poll their match every {args.live_every:g} s "
            "(not counted in the mix)."
        )
    print(
        f"This machine has {os.cpu_count()} CPU cores, shared by the simulated users (one Python process), "
        "gunicorn, PostgreSQL, Redis and the workers: a separate client and server would do better."
    )
    print(f"Before the run, other processes kept {load:.0%} of the CPU busy.", end=" ")
    print("The figures are skewed by that load; run again on a quiet machine." if load > 0.15 else "")
    print()
    header = (
        f"{'concurrency':>11}  {'kind':<11} {'requests':>9} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} "
        f"{'errors':>7} {'304s':>6}"
    )
    print(header)
    print("-" * len(header))
    for level in levels:
        for kind in (*KINDS, None):
            errors = sum(v for k, v in level.errors.items() if kind is None or k.startswith(kind))
            copies = level.not_modified.get(kind, 0) if kind else sum(level.not_modified.values())
            share = f"{copies / level.count(kind):.0%}" if level.count(kind) else "-"
            print(
                f"{level.concurrency if kind == KINDS[0] else '':>11}  {kind or 'all':<11} "
                f"{level.count(kind):>9} {level.count(kind) / level.seconds:>8.1f} "
                f"{level.percentile(kind, 0.50):>8.1f} {level.percentile(kind, 0.99):>8.1f} {errors:>7} "
                f"{share:>6}"
            )
        print(
            f"{'':>11}  e-mails sent by the workers: {level.mails}; CPU: machine {level.machine_cpu:.0%}, "
            f"the simulated users {level.client_cpu:.2f} cores"
        )
        if level.polls:
            polls = sorted(level.polls)
            p99 = polls[min(len(polls) - 1, math.ceil(0.99 * len(polls)) - 1)] * 1000
            answers = ", ".join(
                f"{status or 'failed'}: {n}" for status, n in sorted(level.poll_answers.items())
            )
            rate = len(polls) / level.seconds
            print(f"{'':>11}  open pages' polls: {rate:.1f}/s, p99 {p99:.1f} ms ({answers})")
        answered = level.count(None) + len(level.polls)
        if answered:
            print(
                f"{'':>11}  server CPU per request (polls included): "
                f"{level.server_cpu / answered * 1000:.1f} ms "
                f"(PostgreSQL {level.database_cpu / answered * 1000:.1f} ms of it)"
            )
    print()
    print(f"Reminders made due during the run: {feeder.made_due}.")
    errors: dict[str, int] = {}
    for level in levels:
        for key, count in level.errors.items():
            errors[key] = errors.get(key, 0) + count
    if errors:
        print(
            "Refused or failed requests (not in the timings): "
            + ", ".join(f"{k}: {v}" for k, v in sorted(errors.items()))
        )
    if any(level.no_moves_left for level in levels):
        print("Some simulated users ran out of planned moves and read a match page instead.")
    print()
    for kind in (*KINDS, None):
        passed = next((lv.concurrency for lv in levels if lv.percentile(kind, 0.99) > P99_LIMIT_MS), None)
        name = kind or "all requests together"
        if passed is None:
            print(f"p99 of {name}: under {P99_LIMIT_MS:g} ms up to concurrency {levels[-1].concurrency}.")
        elif passed == levels[0].concurrency:
            print(
                f"p99 of {name}: already over {P99_LIMIT_MS:g} ms at the lowest concurrency measured, "
                f"{passed} (try lower --levels)."
            )
        else:
            print(f"p99 of {name}: passes {P99_LIMIT_MS:g} ms at concurrency {passed}.")


# --- main -----------------------------------------------------------------------------------------------


def main() -> int:
    args = _arguments()
    with site_on_postgres(args.database_url, script="bench/load.py") as setup:
        return _run(args, setup)


def _run(args: argparse.Namespace, setup: Setup) -> int:
    scratch, redis_port, config = setup.scratch, setup.redis_port, setup.config
    processes: list[subprocess.Popen] = []
    feeder = None
    try:
        began = time.perf_counter()
        run_seconds = WARM_UP_SECONDS + len(args.levels) * (args.warmup + args.seconds)
        users, idle = _prepare(
            users=max(args.levels), history=args.history, moves=math.ceil(MOVES_PER_SECOND * run_seconds)
        )
        statistics_refresh()
        print(
            f"Prepared {2 * len(users)} players and "
            f"{sum(len(user.live) + IDLE_MATCHES + 2 for user in users)} Wall Go "
            f"matches in {time.perf_counter() - began:.1f} s."
        )
        from django.db import connections

        connections.close_all()
        import redis as redis_client

        redis_client.Redis(port=redis_port).flushdb()  # nothing queued by the set-up counts
        # Before the site's own processes start: what they cost while starting is not another's load.
        load = _background_load()

        mail_dir = scratch / "mail"
        env = {
            **os.environ,
            "ALLOWED_HOSTS": "127.0.0.1",
            "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
            "EMAIL_FILE_PATH": str(mail_dir),
            "SWEEP_SECONDS": "2",
            "REQUEUE_AFTER_SECONDS": "10",
        }
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        command = [
            sys.executable, "-m", "gunicorn", "wallsite.wsgi:application", "-b", f"127.0.0.1:{port}",
            "-w", str(args.workers), "--threads", str(args.threads),
        ]  # fmt: skip
        log = scratch / "gunicorn.log"
        processes.append(_spawn(command, env=env, log=log))
        _wait_for(lambda: _gunicorn_up(base), "gunicorn", processes[-1], log)
        for number in range(args.celery_workers):
            log = scratch / f"worker{number}.log"
            # Both queues: the default one (e-mails, chance steps, the sweep) and computer opponents'.
            celery = [sys.executable, "-m", "celery", "-A", "wallsite", "worker", "-c", "2", "-l", "info",
                      "-Q", "celery,bots", "--without-mingle", "--without-gossip",
                      "-n", f"load{number}@%h"]  # fmt: skip
            processes.append(_spawn(celery, env=env, log=log))
            _wait_for(
                lambda log=log: "ready." in log.read_text(errors="replace"),
                "a Celery worker",
                processes[-1],
                log,
            )
        beat = [sys.executable, "-m", "celery", "-A", "wallsite", "beat", "-l", "info",
                "--schedule", str(scratch / "beat-schedule")]  # fmt: skip
        processes.append(_spawn(beat, env=env, log=scratch / "beat.log"))
        _warm_up(users, base, args)
        server = Server(gunicorn=processes[0].pid, redis=setup.redis_pid, database=config["NAME"])
        known = _first_answers(users, base, args)
        print(
            f"gunicorn is up on {base}, with {args.celery_workers} Celery worker(s) and beat; measuring ..."
        )

        feeder = ReminderFeeder(args.database_url, idle, args.reminders_per_second)
        feeder.start()
        feeder.running.set()
        levels = []
        for level in args.levels:
            result = _measure(level, users, base, args, mail_dir, server, known)
            levels.append(result)
            print(
                f"  concurrency {level}: {result.count(None) / result.seconds:.0f} req/s, "
                f"p99 {result.percentile(None, 0.99):.0f} ms"
            )
        feeder.running.clear()
        _report(levels, args=args, database=config["NAME"], feeder=feeder, load=load)
        dead = [p for p in processes if p.poll() is not None]
        if dead:
            print(
                f"\n{len(dead)} of the site's processes exited during the run "
                f"(their logs were in {scratch}, now removed)."
            )
    except Exception as exc:
        print(f"Setup failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        if feeder is not None:
            feeder.stopped.set()
        for process in reversed(processes):
            _stop(process)
        print("Stopped gunicorn, the workers and beat.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
