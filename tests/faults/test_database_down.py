"""PostgreSQL going away under load: clear errors at once while it is gone, full recovery after, and no
move lost or doubled.

Twice: the machine's PostgreSQL reached through a TCP proxy (tests/support/tcp_proxy.py) that the test
cuts, dropping every connection and refusing new ones, and then restores; and a PostgreSQL server of the
test's own (tests/support/pg_cluster.py) that it crashes (an immediate stop: no checkpoint, every
backend killed) and starts again, replaying its write-ahead log.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from urllib.parse import urlsplit

import httpx

from tests.faults.conftest import (
    Api,
    Db,
    Line,
    Stack,
    assert_consistent,
    migrated_database,
    run_threads,
    wait_until,
    wallgo_pairs,
    with_address,
)
from tests.support.pg_cluster import PrivateCluster
from tests.support.tcp_proxy import TcpProxy

CLIENTS = 3
MATCHES_EACH = 2
ANSWER_WITHIN = 10.0  # seconds: anything slower while the database is away counts as a hang
CUT_SECONDS = 4.0
STEADY = ("before", "cut", "after")  # phases whose answers are judged; the others are transitions


@dataclass
class Answer:
    phase: str  # "before", "cut", "after" or "edge" (begun or ended while the database went or came back)
    kind: str  # "move", "read", "page", "health"
    status: int
    content_type: str
    body: str
    seconds: float
    retry: bool = False  # a move sent again because an earlier answer could not say if it was stored


@dataclass(frozen=True)
class Outage:
    """How the database goes away, and how it comes back."""

    cut: Callable[[], None]
    restore: Callable[[], None]


def test_the_database_going_away_gives_clear_errors_then_everything_recovers(stack, pg, pg_url):
    redis = stack.redis()
    target = urlsplit(pg_url)
    proxy = TcpProxy(target_host=target.hostname or "127.0.0.1", target_port=target.port or 5432).start()
    try:
        run(stack, pg, redis, Outage(proxy.cut, proxy.restore), with_address(pg_url, "127.0.0.1", proxy.port))
    finally:
        proxy.close()


def test_postgresql_crashed_and_restarted_under_load_loses_no_committed_move(tmp_path):
    cluster = PrivateCluster()
    try:
        cluster.start()
        with migrated_database(cluster.url, "wallsite_restart", var=tmp_path / "var") as url:
            stack, pg = Stack(database_url=url, root=tmp_path), Db(url)
            try:
                run(stack, pg, stack.redis(), Outage(cluster.crash, cluster.start), url)
            except BaseException:
                print(stack.logs())
                raise
            finally:
                stack.stop_all()
                pg.close()
    finally:
        cluster.close()


def run(stack, pg: Db, redis, outage: Outage, database_url: str) -> None:
    lines = wallgo_pairs(stack, pg, redis, prefix="pgdown", clients=CLIENTS, matches_each=MATCHES_EACH)
    web = stack.web(redis=redis, workers=2, threads=2, database_url=database_url)

    answers: list[Answer] = []
    problems: list[str] = []
    lock = threading.Lock()
    phase = ["before"]
    stop = threading.Event()

    def timed(kind: str, send, retry: bool = False) -> httpx.Response | None:
        began, start_phase = time.monotonic(), phase[0]
        try:
            response = send()
        except httpx.TimeoutException:
            problems.append(f"{kind}: no answer within {ANSWER_WITHIN:g} s in phase {start_phase}")
            return None
        took = time.monotonic() - began
        end_phase = phase[0]
        with lock:
            answers.append(
                Answer(
                    phase=start_phase if start_phase == end_phase and start_phase in STEADY else "edge",
                    kind=kind,
                    status=response.status_code,
                    content_type=response.headers.get("content-type", ""),
                    body=response.text[:2000],
                    seconds=took,
                    retry=retry,
                )
            )
        return response

    def retry(api: Api, line: Line, seat: int, move: dict) -> None:
        """The answer did not say whether the move was stored: send it again with the same version until
        the server can tell. A 201 plays it now; a 409 means the first try was stored (nobody else plays
        this match), which the match's version confirms."""
        while True:
            time.sleep(0.05)
            answer = timed("move", lambda: api.move(line.match_id, move, line.version), retry=True)
            if answer is None:
                return
            if answer.status_code == 201:
                line.played(seat, move)
                line.applied.append(answer.json()["seq"])
                return
            if answer.status_code == 409:
                version = api.match(line.match_id).json()["version"]
                if version != line.version + 1:
                    problems.append(f"match {line.match_id}: version {version} after {line.version}")
                line.played(seat, move)
                return
            if answer.status_code < 500:
                problems.append(f"match {line.match_id}: {answer.status_code} {answer.text[:200]}")
                return

    def play(client: int) -> None:
        mine = lines[client * MATCHES_EACH : (client + 1) * MATCHES_EACH]
        apis = [Api(web.base, token, timeout=ANSWER_WITHIN) for token in mine[0].tokens]
        turn = 0
        while not stop.is_set():
            line = mine[turn % len(mine)]
            turn += 1
            chosen = line.next_move()
            if chosen is None:
                time.sleep(0.05)
                continue
            seat, move = chosen
            answer = timed("move", partial(apis[seat].move, line.match_id, move, line.version))
            if answer is None:
                return
            if answer.status_code == 201:
                line.played(seat, move)
                line.applied.append(answer.json()["seq"])
            elif answer.status_code >= 500:
                line.unknown += 1
                retry(apis[seat], line, seat, move)
            else:
                problems.append(f"match {line.match_id}: {answer.status_code} {answer.text[:200]}")
                return
        for api in apis:
            api.close()

    def browse() -> None:
        """Someone reading a match page and the API, and a load balancer polling /healthz."""
        reader = Api(web.base, lines[0].tokens[0], timeout=ANSWER_WITHIN)
        with httpx.Client(base_url=web.base, timeout=ANSWER_WITHIN) as http:
            while not stop.is_set():
                timed("page", lambda: http.get(f"/matches/{lines[0].match_id}/"))
                timed("read", lambda: reader.match(lines[0].match_id))
                timed("health", lambda: http.get("/healthz"))
                time.sleep(0.05)
        reader.close()

    def moved(phase_name: str) -> int:
        with lock:
            return sum(1 for a in answers if a.phase == phase_name and a.kind == "move" and a.status == 201)

    def control() -> None:
        try:
            cut_and_restore()
        finally:
            stop.set()  # the clients stop even when this fails, and the test reports why

    def cut_and_restore() -> None:
        wait_until(lambda: moved("before") >= 2 * CLIENTS, "moves before the cut", timeout=60)
        # Stopping and starting a server takes a moment, during which either answer is right: requests
        # begun then count as "edge", and only those begun once it is surely gone must be refused.
        phase[0] = "cutting"
        outage.cut()
        phase[0] = "cut"
        time.sleep(CUT_SECONDS)
        phase[0] = "restoring"
        outage.restore()
        phase[0] = "after"

        def healthy() -> bool:
            try:
                return httpx.get(f"{web.base}/healthz", timeout=ANSWER_WITHIN).status_code == 200
            except httpx.HTTPError:
                return False

        wait_until(healthy, "/healthz to recover", timeout=30)
        wait_until(lambda: moved("after") >= 4 * CLIENTS, "moves after the database came back", timeout=60)

    errors = run_threads([lambda c=c: play(c) for c in range(CLIENTS)] + [browse, control])
    assert not errors, errors
    assert not problems, problems

    summary = {}
    for answer in answers:
        key = (answer.phase, answer.kind, answer.status)
        summary[key] = summary.get(key, 0) + 1
    print("answers by (phase, kind, status):", dict(sorted(summary.items())))

    def of(phase_name: str, kind: str | None = None) -> list[Answer]:
        return [a for a in answers if a.phase == phase_name and (kind is None or a.kind == kind)]

    # Before: everything works.
    assert of("before") and all(a.status < 400 for a in of("before")), [
        (a.kind, a.status) for a in of("before")
    ]

    # While it is away: every answer comes at once, a 503 that says what is wrong, in the client's format.
    for kind in ("move", "read", "page", "health"):
        assert of("cut", kind), f"no {kind} request while the database was away"
    for answer in of("cut"):
        assert answer.status == 503, (answer.kind, answer.status, answer.body[:500])
        assert answer.seconds < ANSWER_WITHIN
        assert "Traceback" not in answer.body and "psycopg" not in answer.body
    for answer in of("cut", "move") + of("cut", "read"):
        assert answer.content_type.startswith("application/json")
        assert "database" in httpx.Response(200, text=answer.body).json()["detail"]
    for answer in of("cut", "page"):
        assert answer.content_type.startswith("text/html")
        assert "database" in answer.body and "try again" in answer.body.lower()
    for answer in of("cut", "health"):
        checks = httpx.Response(200, text=answer.body).json()["checks"]
        assert checks["database"]["status"].startswith("failing") and checks["redis"]["status"] == "ok"

    # After: it all works again, with nothing lost and nothing doubled.
    # A 409 is right only for a move sent again whose first try was stored after all: its commit went
    # through but the answer was lost with the connection. retry() checked the version in that case.
    recovered = of("after")
    assert all(a.status < 400 or (a.retry and a.status == 409) for a in recovered), [
        (a.kind, a.status, a.body[:200]) for a in recovered
    ]
    assert sum(a.status == 409 for a in recovered) <= sum(line.unknown for line in lines)

    pg.reconnect()  # a restarted server has dropped the test's own connection too
    assert_consistent(pg, [line.match_id for line in lines])
    for line in lines:
        row = pg.rows("SELECT version, engine_state FROM games_match WHERE id = %s", [line.match_id])[0]
        assert row["version"] == line.version and row["engine_state"] == line.state
        seqs = {r["seq"] for r in pg.rows("SELECT seq FROM games_move WHERE match_id = %s", [line.match_id])}
        assert set(line.applied) <= seqs and len(set(line.applied)) == len(line.applied)
