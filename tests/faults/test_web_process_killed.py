"""A gunicorn worker killed (SIGKILL) in the middle of move requests leaves no partial state."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import httpx

from tests.faults.conftest import (
    Api,
    Db,
    Line,
    assert_consistent,
    run_threads,
    wait_until,
    wallgo_pairs,
)

CLIENTS = 6
# Enough games that no client runs out of moves before the kills are over, however fast moves go.
MATCHES_EACH = 10
WORKERS = 3
KILLS = 5

# A connection that holds a match's row lock (SELECT ... FOR UPDATE takes ROW SHARE on the table) inside
# an open transaction: a move being applied right now.
IN_A_MOVE = """
SELECT a.client_port FROM pg_stat_activity a
WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.xact_start IS NOT NULL
  AND EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.mode = 'RowShareLock'
              AND l.relation = 'games_match'::regclass)
"""


def socket_owners(pids: list[int]) -> dict[int, int]:
    """Local TCP port -> which of ``pids`` holds that socket (IPv4 loopback, from /proc)."""
    inode_pid = {}
    for pid in pids:
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inode_pid[target[8:-1]] = pid
        except OSError:
            continue
    owners = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, inode = fields[1], fields[9]
        if inode in inode_pid:
            owners[int(local.split(":")[1], 16)] = inode_pid[inode]
    return owners


def worker_in_a_move(pg: Db, workers: list[int]) -> int | None:
    ports = [row["client_port"] for row in pg.rows(IN_A_MOVE)]
    if not ports:
        return None
    owners = socket_owners(workers)
    return next((owners[port] for port in ports if port in owners), None)


def test_a_web_process_killed_in_the_middle_of_moves_leaves_no_partial_state(stack, pg):
    redis = stack.redis()
    lines = wallgo_pairs(stack, pg, redis, prefix="kill", clients=CLIENTS, matches_each=MATCHES_EACH)
    web = stack.web(redis=redis, workers=WORKERS)

    stop = threading.Event()
    problems: list[str] = []
    after_kills: list[int] = [0] * CLIENTS  # moves each client got through after the last kill
    last_kill = [float("inf")]

    def resync(api: Api, line: Line, seat: int, move: dict) -> None:
        """The answer was lost: the server either applied the whole move or none of it."""
        answer = None
        for _ in range(100):  # until a worker answers
            try:
                answer = api.match(line.match_id)
            except httpx.TransportError:
                time.sleep(0.1)
                continue
            if answer.status_code == 200:
                break
            time.sleep(0.1)
        assert answer is not None and answer.status_code == 200, "the server did not answer again"
        version = answer.json()["version"]
        if version == line.version + 1:
            line.played(seat, move)
        elif version != line.version:
            problems.append(
                f"match {line.match_id}: version {version} after {line.version} and one lost move"
            )

    def play(client: int) -> None:
        mine = lines[client * MATCHES_EACH : (client + 1) * MATCHES_EACH]
        apis = [Api(web.base, token) for token in mine[0].tokens]
        turn = 0
        while not stop.is_set():
            line = mine[turn % len(mine)]
            turn += 1
            chosen = line.next_move()
            if chosen is None:
                time.sleep(0.05)
                continue
            seat, move = chosen
            try:
                answer = apis[seat].move(line.match_id, move, line.version)
            except httpx.TransportError:
                line.unknown += 1
                resync(apis[seat], line, seat, move)
                continue
            if answer.status_code == 201:
                line.played(seat, move)
                line.applied.append(answer.json()["seq"])
                if time.monotonic() > last_kill[0]:
                    after_kills[client] += 1
            elif answer.status_code >= 500:
                line.unknown += 1
                resync(apis[seat], line, seat, move)
            else:
                problems.append(f"match {line.match_id}: {answer.status_code} {answer.text[:200]}")
                stop.set()
        for api in apis:
            api.close()

    targeted = 0
    kills = [0]

    def kill() -> None:
        try:
            kill_workers()
        finally:
            stop.set()  # the clients stop even when this fails, and the test reports why

    def kill_workers() -> None:
        nonlocal targeted
        time.sleep(1.0)  # the clients get going
        # At least KILLS, and more (up to a limit) until one has cut a request short.
        while kills[0] < KILLS or (kills[0] < 3 * KILLS and not any(line.unknown for line in lines)):
            kills[0] += 1
            wait_until(lambda: len(web.workers()) == WORKERS, "gunicorn to replace its worker", timeout=90)
            found = None
            deadline = time.monotonic() + 15
            while found is None and time.monotonic() < deadline:
                found = worker_in_a_move(pg, web.workers())
            victim = found or web.workers()[0]
            targeted += found is not None
            os.kill(victim, signal.SIGKILL)
            time.sleep(0.3)
        wait_until(lambda: len(web.workers()) == WORKERS, "gunicorn to replace its worker", timeout=90)
        last_kill[0] = time.monotonic()
        # The server goes on: every client gets moves through after the last kill.
        wait_until(lambda: all(after_kills) or problems, "moves after the kills", timeout=60)

    errors = run_threads([lambda c=c: play(c) for c in range(CLIENTS)] + [kill])
    assert not errors, errors
    assert not problems, problems
    print(
        f"killed {kills[0]} workers ({targeted} inside a move's transaction); "
        f"{sum(len(line.applied) for line in lines)} moves answered, "
        f"{sum(line.unknown for line in lines)} answers lost"
    )
    assert targeted >= 1, "no kill found a worker inside a move's transaction"
    assert web.alive()
    assert sum(line.unknown for line in lines) >= 1, "no request was cut short by a kill"

    # Everything the server confirmed is there, exactly once, and each match's position is the one its
    # client followed move by move: a move is there with its whole match update or not at all.
    ids = [line.match_id for line in lines]
    assert_consistent(pg, ids)
    for line in lines:
        row = pg.rows("SELECT version, engine_state FROM games_match WHERE id = %s", [line.match_id])[0]
        assert row["version"] == line.version
        assert row["engine_state"] == line.state
        seqs = {r["seq"] for r in pg.rows("SELECT seq FROM games_move WHERE match_id = %s", [line.match_id])}
        assert set(line.applied) <= seqs and len(set(line.applied)) == len(line.applied)
    # No transaction of a killed worker is left open, holding a lock.
    wait_until(
        lambda: not pg.rows(IN_A_MOVE.replace("xact_start IS NOT NULL", "state = 'idle in transaction'")),
        "no stranded transaction",
        timeout=10,
    )
