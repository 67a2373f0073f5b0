"""What open pages cost the server while they follow their matches: CPU per unchanged poll ("304").

    python bench/live.py [--polls 3000] [--clients 8] [--workers 4] [--threads 1] [--pages 1000]
                         [--database-url postgres://postgres@127.0.0.1:5432/wallsite_livebench]

Run from the repository root with the project's Python (.venv/bin/python). It creates the database if
needed and migrates it, adds ``--clients`` pairs of players, each pair with a started Wall Go match and a
session for its first player, starts a throw-away Redis (the cache that holds the matches' live keys,
games/livekeys.py) and gunicorn on a free loopback port, after a VACUUM ANALYZE of the filled database
(see bench/common.py), and has each page fetch its first answer (a 200 carrying the ETag). Then
``--clients`` threads with keep-alive ``httpx`` clients send, in turns of about two seconds so that the
machine's other load weighs on all alike, ``--polls`` unchanged polls of each kind, each with the
If-None-Match of its page's last answer, as static/js/live.js sends them:

1. match page, player: ``GET /matches/{id}/live/`` with the seated player's session;
2. match page, spectator: the same without a session;
3. badge: ``GET /me/matches/live/`` with the session (the header's badge on pages without a match poll);
4. the floor: a static file's 304 from WhiteNoise, what any request through gunicorn and Django costs.

1,000 open pages polling every 3 s would be 333 polls a second and more than this 2-core machine, where
the bench itself takes a core; so it measures the server's CPU per poll instead: the CPU time of
gunicorn's processes, this database's PostgreSQL backends and Redis, read from /proc before and after
(as bench/api.py does), divided by the polls answered. From that it computes what ``--pages`` open match
pages cost in cores at one poll every 3 s and at the rates live.js polls at (read from the script), in
sight and in hidden tabs, against the goal of a fifth of one core, and the shortest interval that meets
the goal. Every poll must be a 304; any other answer is counted and shown. It reports and asserts
nothing: the exit code is 0 unless the setup failed. Each run adds its own players and matches; the
database is left in place. Bounded: a few seconds per kind.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.api import Server, _cpu_spent, _gunicorn, _stop, _wait_until_up  # noqa: E402  (needs the path above)
from bench.common import Setup, free_port, site_on_postgres, statistics_refresh  # noqa: E402

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/wallsite_livebench"
GOAL_CORES = 0.2  # what 1,000 open pages may cost: a fifth of one core
BRIEF_VISIBLE_S = 3.0  # the rate first asked for, in sight
SLOWEST_S = 5.0  # a change must show within five seconds
SLICE_SECONDS = 2.0
WARMUP_POLLS = 200


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--polls", type=int, default=3000, help="measured polls per kind")
    parser.add_argument("--clients", type=int, default=8, help="concurrent pages (threads)")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument(
        "--threads", type=int, default=1, help="threads per gunicorn worker (1: the sync worker, as deployed)"
    )
    parser.add_argument("--pages", type=int, default=1000, help="open pages to cost")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    args = parser.parse_args()
    if min(args.polls, args.clients, args.workers, args.threads, args.pages) < 1:
        parser.error("--polls, --clients, --workers, --threads and --pages must be positive")
    return args


# --- the pages ---------------------------------------------------------------------------------------------


@dataclass
class Page:
    """One open page: what it polls, with which session (None: a spectator), and the ETag it holds."""

    url: str
    session: str | None
    etag: str = ""


def _prepare(clients: int) -> list[tuple[str, str, int]]:
    """A pair of players per client with a started match; (session key, match page's poll, user id)."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.sessions.backends.db import SessionStore

    from games import services
    from games.models import Notification

    user_model = get_user_model()
    run = f"v{int(time.time())}"
    prepared = []
    for index in range(clients):
        a, b = (
            user_model.objects.create_user(
                username=f"{run}-{index}-{side}", email=f"{run}-{index}-{side}@x.invalid"
            )
            for side in "ab"
        )
        match = services.match_create(creator=a, game="wallgo", seat_count=2)
        services.seat_join(match_id=match.pk, user=b)
        session = SessionStore()
        session[SESSION_KEY] = str(a.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = a.get_session_auth_hash()
        session.create()
        prepared.append((session.session_key, f"/matches/{match.pk}/live/", a.pk))
    Notification.objects.filter(user__username__startswith=f"{run}-", status="pending").update(
        status="skipped", skip_reason="bench set-up"
    )
    return prepared


def _client(base: str, session: str | None):
    import httpx

    cookies = {"sessionid": session} if session else None
    return httpx.Client(base_url=base, timeout=30.0, cookies=cookies)


def _first_answers(base: str, pages: list[Page]) -> None:
    """Each page's first poll: a 200 with the parts and the ETag it then sends back."""
    for page in pages:
        with _client(base, page.session) as http:
            response = http.get(page.url)
            if response.status_code != 200:
                raise RuntimeError(f"{page.url}: {response.status_code} {response.text[:200]}")
            page.etag = response.headers["ETag"]


# --- measuring ---------------------------------------------------------------------------------------------


@dataclass
class Result:
    kind: str
    polls: int = 0
    seconds: float = 0.0
    server_cpu: float = 0.0
    database_cpu: float = 0.0
    latencies: list[float] = field(default_factory=list)
    other: dict[str, int] = field(default_factory=dict)  # answers that were not a 304

    @property
    def cpu_ms(self) -> float:
        return self.server_cpu / self.polls * 1000 if self.polls else math.nan

    @property
    def database_ms(self) -> float:
        return self.database_cpu / self.polls * 1000 if self.polls else math.nan

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return math.nan
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)] * 1000

    def cores(self, pages: int, every: float) -> float:
        """Cores that ``pages`` open pages polling every ``every`` seconds keep busy."""
        return pages / every * self.cpu_ms / 1000


def _measure(base: str, pages: list[Page], polls: int, server: Server, result: Result) -> None:
    """``polls`` unchanged polls spread over the pages' threads; adds to ``result``."""
    lock = threading.Lock()
    share = [polls // len(pages) + (1 if i < polls % len(pages) else 0) for i in range(len(pages))]
    start = threading.Barrier(len(pages) + 1)

    def run(page: Page, count: int) -> None:
        latencies: list[float] = []
        other: dict[str, int] = {}
        with _client(base, page.session) as http:
            start.wait()
            for _ in range(count):
                began = time.perf_counter()
                try:
                    status = http.get(page.url, headers={"If-None-Match": page.etag}).status_code
                except Exception as exc:
                    status = type(exc).__name__
                latencies.append(time.perf_counter() - began)
                if status != 304:
                    other[str(status)] = other.get(str(status), 0) + 1
        with lock:
            result.latencies += latencies
            for key, value in other.items():
                result.other[key] = result.other.get(key, 0) + value

    threads = [
        threading.Thread(target=run, args=(p, n), daemon=True) for p, n in zip(pages, share, strict=True)
    ]
    gc.collect()
    gc.disable()  # a collection would pause every client thread and count as the server's latency
    for thread in threads:
        thread.start()
    before = server.cpu()
    began = time.perf_counter()
    start.wait()
    for thread in threads:
        thread.join()
    result.seconds += time.perf_counter() - began
    gc.enable()
    spent, database = _cpu_spent(before, server.cpu())
    result.server_cpu += spent
    result.database_cpu += database
    result.polls += sum(share)


# --- the report --------------------------------------------------------------------------------------------


def _report(results: list[Result], *, args: argparse.Namespace, database: str) -> None:
    player, spectator, badge, _floor = results
    worker = "sync" if args.threads == 1 else f"gthread x{args.threads} (connections kept alive)"
    print()
    print(
        f"Unchanged polls (304) on gunicorn ({args.workers} {worker} workers) + PostgreSQL ({database}), "
        f"{args.clients} pages polling at once on loopback, {args.polls} polls per kind in turns of "
        f"{SLICE_SECONDS:g} s. This machine has {os.cpu_count()} cores, shared with the bench's clients."
    )
    print()
    header = (
        f"{'kind':<42} {'polls':>7} {'p50 ms':>7} {'p99 ms':>7} {'server CPU/poll':>16} {'(database)':>11}"
    )
    print(header)
    print("-" * len(header))
    labels = {
        "player": "match page, player  GET /matches/{id}/live/",
        "spectator": "match page, spectator (no session)",
        "badge": "badge  GET /me/matches/live/",
        "floor": "(any request: a static file's 304)",
    }
    for result in results:
        print(
            f"{labels[result.kind]:<42} {result.polls:>7} {result.percentile(0.5):>7.2f} "
            f"{result.percentile(0.99):>7.2f} {result.cpu_ms:>13.3f} ms {result.database_ms:>8.3f} ms"
        )
    others = {f"{r.kind}: {k}": v for r in results for k, v in r.other.items()}
    if others:
        print("\nAnswers other than 304 (a page would have been sent its parts again):")
        for key, count in sorted(others.items()):
            print(f"  {key}: {count}")
    pages = args.pages
    visible, hidden, badge_visible, badge_hidden = _client_rates()
    budget = pages * player.cpu_ms / 1000 / GOAL_CORES  # the shortest interval the goal allows
    print()
    print(f"{pages:,} open match pages of seated players, server CPU (goal: at most {GOAL_CORES:g} core):")
    rows = [
        (f"in sight, a poll every {BRIEF_VISIBLE_S:g} s", player.cores(pages, BRIEF_VISIBLE_S)),
        (f"in sight, a poll every {visible:g} s (live.js)", player.cores(pages, visible)),
        (f"hidden tabs, a poll every {hidden:g} s (live.js)", player.cores(pages, hidden)),
    ]
    for label, cores in rows:
        print(f"  {label:<44} {cores:6.3f} cores  {'PASS' if cores <= GOAL_CORES else 'FAIL'}")
    # A change shows at the next poll: within the interval plus one answer's time.
    shows = visible + player.percentile(0.99) / 1000
    if budget <= BRIEF_VISIBLE_S:
        print(f"A poll every {BRIEF_VISIBLE_S:g} s meets the goal; {budget:.2f} s would too.")
    elif budget + player.percentile(0.99) / 1000 <= SLOWEST_S:
        print(
            f"A poll every {BRIEF_VISIBLE_S:g} s in sight costs more than the goal: it needs one every "
            f"{budget:.2f} s at least, which still shows a change within {SLOWEST_S:g} s."
        )
    else:
        print(
            f"No rate that shows a change within {SLOWEST_S:g} s meets the goal here: it needs a poll every "
            f"{budget:.2f} s at least."
        )
    print(
        f"live.js polls every {visible:g} s in sight: a change shows within {shows:.2f} s (interval + p99)."
    )
    print(
        f"Spectators' polls cost {spectator.cpu_ms:.3f} ms each: {spectator.cores(pages, visible):.3f} cores "
        f"for {pages:,} spectators' pages in sight."
    )
    print(
        f"Pages without a match poll (the lobby, My matches beside its table) keep the header's badge: "
        f"{pages:,} of them cost {badge.cores(pages, badge_visible):.3f} cores in sight (every "
        f"{badge_visible:g} s) and {badge.cores(pages, badge_hidden):.3f} hidden (every {badge_hidden:g} s); "
        "a match page's own poll brings its badge."
    )


def _client_rates() -> tuple[float, float, float, float]:
    """The intervals static/js/live.js polls at, in seconds, read from the script itself."""
    script = (ROOT / "static" / "js" / "live.js").read_text()

    def constant(name: str) -> float:
        found = re.search(rf"const {name} = (\d+);", script)
        if not found:
            raise RuntimeError(f"static/js/live.js has no {name}")
        return int(found.group(1)) / 1000

    return tuple(constant(n) for n in ("VISIBLE_MS", "HIDDEN_MS", "BADGE_VISIBLE_MS", "BADGE_HIDDEN_MS"))


# --- main --------------------------------------------------------------------------------------------------


def main() -> int:
    args = _arguments()
    with site_on_postgres(args.database_url, script="bench/live.py") as setup:
        return _run(args, setup)


def _run(args: argparse.Namespace, setup: Setup) -> int:
    server = None
    try:
        began = time.perf_counter()
        prepared = _prepare(args.clients)
        statistics_refresh()
        print(f"Prepared {args.clients} matches and sessions in {time.perf_counter() - began:.1f} s.")
        from django.core.management import call_command
        from django.db import connections

        call_command("collectstatic", interactive=False, verbosity=0)  # for the floor's static file
        connections.close_all()  # the server has the database to itself from here on
        port = free_port()
        env = {**os.environ, "ALLOWED_HOSTS": "127.0.0.1"}
        log = setup.scratch / "gunicorn.log"
        server = _gunicorn(port=port, workers=args.workers, threads=args.threads, env=env, log=log)
        base = f"http://127.0.0.1:{port}"
        _wait_until_up(base, server, log)
        kinds: dict[str, list[Page]] = {
            "player": [Page(url, session) for session, url, _ in prepared],
            "spectator": [Page(url, None) for _, url, _ in prepared],
            "badge": [Page("/me/matches/live/", session) for session, _, _ in prepared],
            # The floor: a static file's 304 (WhiteNoise, before the rest of Django): what any request costs.
            "floor": [Page("/static/js/live.js", None) for _ in prepared],
        }
        for pages in kinds.values():
            _first_answers(base, pages)
        serving = Server(gunicorn=server.pid, redis=setup.redis_pid, database=setup.config["NAME"])
        results = {kind: Result(kind) for kind in kinds}
        for kind, pages in kinds.items():  # warm-up: every worker has loaded its code and templates
            _measure(base, pages, WARMUP_POLLS, serving, Result(kind))
        print(f"gunicorn is up on {base}; measuring ...")
        per_slice = _slice_size(base, kinds["player"], serving)
        rounds = max(1, math.ceil(args.polls / per_slice))
        for index in range(rounds):
            for kind, pages in kinds.items():
                count = min(per_slice, args.polls - index * per_slice)
                if count > 0:
                    _measure(base, pages, count, serving, results[kind])
        _report(list(results.values()), args=args, database=setup.config["NAME"])
        if server.poll() is not None or any(r.other for r in results.values()):
            print("\nThe end of gunicorn's log:")
            print("\n".join(log.read_text(errors="replace").splitlines()[-30:]))
    except Exception as exc:
        print(f"Setup failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        if server is not None:
            _stop(server)
            print("Stopped gunicorn.")
    return 0


def _slice_size(base: str, pages: list[Page], server: Server) -> int:
    """How many polls take about SLICE_SECONDS here (from a short timed run)."""
    probe = Result("probe")
    _measure(base, pages, 200, server, probe)
    rate = probe.polls / probe.seconds if probe.seconds else 200.0
    return max(100, int(rate * SLICE_SECONDS))


if __name__ == "__main__":
    sys.exit(main())
