"""Throughput and latency of the REST API on gunicorn and PostgreSQL, next to a trivial view.

    python bench/api.py [--clients 20] [--seconds 10] [--workers 4]
                        [--database-url postgres://postgres@127.0.0.1:5432/wallsite_apibench]

Run from the repository root with the project's Python (.venv/bin/python). It creates the database if
needed and migrates it, adds users with API tokens and started Wall Go matches (each client gets its
own pair of players and its own matches, so no two clients ever wait on one match's lock), starts a
throw-away Redis (moves queue their e-mails there after commit, and finishing moves their ratings; no
worker runs) and gunicorn on a free loopback port, after a VACUUM ANALYZE of the filled database
(see bench/common.py). Then, for ``--seconds`` each after a short warm-up
(in turns of about two seconds, so that the machine's other load weighs on all three alike),
``--clients`` threads with keep-alive ``httpx`` clients measure (with the client's garbage collector
paused, so that its pauses do not count as the server's latency):

1. the trivial view: ``GET /api/ping/`` (no database, no session);
2. read match: ``GET /api/matches/{id}/`` with a seated player's token;
3. submit move: ``POST /api/matches/{id}/moves/``. Before the run, each client plays one random Wall
   Go game with the engine locally (Wall Go has no chance and no secrets, so a fresh match reaches the
   same positions); during the run it replays that game's moves in each of its matches in turn, each
   with the right player's token and the version it expects. Only the POST is timed, and the client
   spends no time on the rules while the server is measured.

It prints requests/s and p50/p99 latency per kind, with the targets: move throughput at least 40% of
the trivial view's, and move p99 under 100 ms. It reports and does not assert: the exit code is 0
unless the setup failed. Each run adds its own users and matches; the database is left in place.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import Setup, cpu_times, free_port, site_on_postgres, statistics_refresh  # noqa: E402  (needs the path above)

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/wallsite_apibench"
TARGET_RATIO = 0.40
TARGET_P99_MS = 100.0
WARMUP_SECONDS = 1.5
SLICE_SECONDS = 2.0  # each kind is measured in turns of about this long
SEED = 11


# --- before Django ------------------------------------------------------------------------------------


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=20, help="concurrent clients (threads)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measuring time per kind of request")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn worker processes")
    parser.add_argument(
        "--threads", type=int, default=1, help="threads per gunicorn worker (1: the sync worker)"
    )
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument(
        "--moves-per-second",
        type=float,
        default=60.0,
        help="the fastest one client might move; sizes how many matches each client gets",
    )
    args = parser.parse_args()
    if args.clients < 1 or args.seconds <= 0 or args.workers < 1 or args.threads < 1:
        parser.error("--clients, --seconds, --workers and --threads must be positive")
    return args


# --- the data -----------------------------------------------------------------------------------------


@dataclass
class Client:
    """One simulated client: two players (seat 0 and seat 1 of each of its matches) and its matches."""

    tokens: tuple[str, str]
    matches: list[int]
    game: list[tuple[int, str]]  # a whole game played in advance: (seat, move in notation)
    # Where the client's play has got to: the match being played, its next move and version.
    current: int = -1
    step: int = -1  # -1: no match under way
    version: int = 0
    finished: int = 0
    exhausted: bool = False
    reading: int = -1  # the match read last


def _prepare(*, clients: int, moves_each: float) -> list[Client]:
    """Users with tokens and started matches, through the same services as the site: each client gets
    enough matches to replay its game for ``moves_each`` moves."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from games import services

    user_model = get_user_model()
    run = f"b{int(time.time())}"
    prepared = []
    for index in range(clients):
        players = []
        for seat in (0, 1):
            name = f"{run}-c{index}-{'ab'[seat]}"
            # Immediate "your turn" e-mails, as a new account has: each move writes and queues one.
            user = user_model.objects.create_user(username=name, email=f"{name}@bench.invalid", password=None)
            players.append(user)
        tokens = tuple(Token.objects.create(user=user).key for user in players)
        game = _random_game(random.Random(f"{SEED}-{index}"))
        ids = []
        for _ in range(max(2, math.ceil(moves_each / len(game)))):
            match = services.match_create(creator=players[0], game="wallgo", seat_count=2)
            services.seat_join(match_id=match.pk, user=players[1])
            ids.append(match.pk)
        prepared.append(Client(tokens=tokens, matches=ids, game=game))
    return prepared


def _random_game(rng: random.Random) -> list[tuple[int, str]]:
    """A random two-player Wall Go game from the opening to its end, as (seat, notation) pairs."""
    from games.engines import registry

    engine = registry.get_engine("wallgo")
    state = engine.new_state(seats=2, options={}, rng=random.Random(0))
    game = []
    while not engine.is_over(state):
        seat = min(engine.actors(state))
        move = rng.choice(engine.legal_moves(state, seat))
        game.append((seat, engine.format_move(move)))
        state, _ = engine.apply(state, seat, move)
    return game


# --- the server -----------------------------------------------------------------------------------------


def _gunicorn(*, port: int, workers: int, threads: int, env: dict[str, str], log: Path) -> subprocess.Popen:
    binary = Path(sys.executable).with_name("gunicorn")
    if not binary.exists():
        binary = ROOT / ".venv" / "bin" / "gunicorn"
    command = [str(binary), "wallsite.wsgi", "-w", str(workers), "-b", f"127.0.0.1:{port}"]
    if threads > 1:
        command += ["--threads", str(threads)]
    with log.open("wb") as out:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


def _wait_until_up(base: str, process: subprocess.Popen, log: Path, timeout: float = 60.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {process.returncode}; see {log}")
        try:
            if httpx.get(f"{base}/api/ping/", timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"gunicorn did not answer within {timeout:.0f} s; see {log}")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


# --- measuring ----------------------------------------------------------------------------------------


@dataclass
class Result:
    kind: str
    seconds: float
    latencies: list[float] = field(default_factory=list)  # seconds, successful requests only
    errors: dict[str, int] = field(default_factory=dict)
    client_cpu: float = 0.0  # cores the client process used on average
    machine_cpu: float = 0.0  # fraction of all cores busy
    server_cpu: float = 0.0  # CPU seconds used by gunicorn, PostgreSQL (this database) and Redis
    database_cpu: float = 0.0  # the PostgreSQL part of it

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds

    @property
    def server_ms(self) -> float:
        """Server CPU per request: unlike throughput, hardly moved by other load on the machine."""
        return self.server_cpu / len(self.latencies) * 1000 if self.latencies else math.nan

    @property
    def database_ms(self) -> float:
        return self.database_cpu / len(self.latencies) * 1000 if self.latencies else math.nan

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return math.nan
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)] * 1000


Step = Callable[[Any, Client], tuple[float, str | None]]  # (seconds, error or None)


def _combine(parts: list[Result]) -> Result:
    seconds = sum(part.seconds for part in parts)
    combined = Result(kind=parts[0].kind, seconds=seconds)
    for part in parts:
        combined.latencies += part.latencies
        for key, count in part.errors.items():
            combined.errors[key] = combined.errors.get(key, 0) + count
        combined.client_cpu += part.client_cpu * part.seconds / seconds
        combined.machine_cpu += part.machine_cpu * part.seconds / seconds
        combined.server_cpu += part.server_cpu
        combined.database_cpu += part.database_cpu
    return combined


@dataclass(frozen=True)
class Server:
    """The processes that serve the bench: their CPU time is the server's cost of the requests."""

    gunicorn: int
    redis: int
    database: str

    def cpu(self) -> dict[int, tuple[float, bool]]:
        """CPU seconds so far of each serving process, and whether it is PostgreSQL's."""
        tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        found: dict[int, tuple[float, bool]] = {}
        for entry in Path("/proc").iterdir() if Path("/proc").exists() else ():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
                name = stat[stat.index("(") + 1 : stat.rindex(")")]
                rest = stat[stat.rindex(")") + 2 :].split()
                pid, parent = int(entry.name), int(rest[1])
                if name == "postgres":
                    command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                    # This database's backends, and the server's own writers; not other clients' backends.
                    if "(" in command and f" {self.database} " not in command:
                        continue
                elif pid not in (self.gunicorn, self.redis) and parent != self.gunicorn:
                    continue
                found[pid] = ((int(rest[11]) + int(rest[12])) / tick, name == "postgres")
            except (OSError, ValueError, IndexError):
                continue
        return found


def _cpu_spent(
    before: dict[int, tuple[float, bool]], after: dict[int, tuple[float, bool]]
) -> tuple[float, float]:
    """(all, PostgreSQL's) CPU seconds the serving processes used between two readings."""
    spent = {
        pid: (value - before.get(pid, (0.0, False))[0], database) for pid, (value, database) in after.items()
    }
    return sum(v for v, _ in spent.values()), sum(v for v, database in spent.values() if database)


def _measure(
    kind: str, base: str, clients: list[Client], seconds: float, step: Step, server: Server
) -> Result:
    """Every client runs ``step`` in a loop for ``seconds``; returns the timings of all of them."""
    import httpx

    result = Result(kind=kind, seconds=seconds)
    lock = threading.Lock()
    start = threading.Barrier(len(clients) + 1)
    stop_at = [0.0]

    def run(client: Client) -> None:
        latencies: list[float] = []
        errors: dict[str, int] = {}
        with httpx.Client(base_url=base, timeout=30.0) as http:
            start.wait()
            while time.perf_counter() < stop_at[0] and not client.exhausted:
                try:
                    took, error = step(http, client)
                except httpx.HTTPError as exc:
                    took, error = 0.0, type(exc).__name__
                if error is None:
                    latencies.append(took)
                else:
                    errors[error] = errors.get(error, 0) + 1
        with lock:
            result.latencies += latencies
            for key, count in errors.items():
                result.errors[key] = result.errors.get(key, 0) + count

    threads = [threading.Thread(target=run, args=(client,), daemon=True) for client in clients]
    # The client's own garbage collector stays off while it measures: one full collection stops all
    # the client threads at once, for tens of milliseconds, and would count as the server's latency.
    # What this turn left is collected between turns.
    gc.collect()
    gc.freeze()
    gc.disable()
    for thread in threads:
        thread.start()
    server_before = server.cpu()
    cpu_before, wall_before, machine_before = time.process_time(), time.perf_counter(), cpu_times()
    stop_at[0] = wall_before + seconds
    start.wait()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - wall_before
    gc.enable()
    gc.unfreeze()
    machine_after = cpu_times()
    result.server_cpu, result.database_cpu = _cpu_spent(server_before, server.cpu())
    result.seconds = wall
    result.client_cpu = (time.process_time() - cpu_before) / wall
    total = machine_after[1] - machine_before[1]
    result.machine_cpu = (machine_after[0] - machine_before[0]) / total if total else math.nan
    return result


def _background_load(seconds: float = 2.0) -> float:
    """Fraction of all cores busy while this script does nothing: other work skews every figure."""
    before = cpu_times()
    time.sleep(seconds)
    after = cpu_times()
    total = after[1] - before[1]
    return (after[0] - before[0]) / total if total else math.nan


def _ping(http, client: Client) -> tuple[float, str | None]:
    began = time.perf_counter()
    response = http.get("/api/ping/")
    took = time.perf_counter() - began
    return took, None if response.status_code == 200 else f"ping {response.status_code}"


def _read(http, client: Client) -> tuple[float, str | None]:
    client.reading = (client.reading + 1) % len(client.matches)
    match_id = client.matches[client.reading]
    began = time.perf_counter()
    response = http.get(f"/api/matches/{match_id}/", headers={"Authorization": f"Token {client.tokens[0]}"})
    took = time.perf_counter() - began
    return took, None if response.status_code == 200 else f"read {response.status_code}"


def _move(http, client: Client) -> tuple[float, str | None]:
    if client.step < 0 or client.step >= len(client.game):
        if client.step >= 0:
            client.finished += 1
        client.current += 1
        if client.current >= len(client.matches):
            client.exhausted = True
            return 0.0, "client ran out of matches"
        client.step, client.version = 0, 0
    seat, notation = client.game[client.step]
    match_id = client.matches[client.current]
    began = time.perf_counter()
    response = http.post(
        f"/api/matches/{match_id}/moves/",
        json={"move": notation, "version": client.version},
        headers={"Authorization": f"Token {client.tokens[seat]}"},
    )
    took = time.perf_counter() - began
    if response.status_code != 201:
        # The match no longer follows the game: leave it for the next one.
        client.step = len(client.game)
        return took, f"move {response.status_code}"
    client.step += 1
    client.version = response.json()["version"]
    return took, None


# --- the report ---------------------------------------------------------------------------------------


def _report(
    results: list[Result], *, args: argparse.Namespace, database: str, matches: int, load: float
) -> None:
    trivial, _read_result, moves = results
    worker = "sync" if args.threads == 1 else f"gthread x{args.threads}"
    print()
    print(
        f"REST API on gunicorn ({args.workers} {worker} workers) + PostgreSQL ({database}), "
        f"{args.clients} concurrent clients on loopback, {args.seconds:g} s per kind (in turns of "
        f"{SLICE_SECONDS:g} s) after a {WARMUP_SECONDS:g} s warm-up."
    )
    print(
        f"This machine has {os.cpu_count()} CPU cores, shared by the client threads (one Python process), "
        "gunicorn, PostgreSQL and Redis: the figures are lower than on a separate client and server."
    )
    if args.threads == 1:
        print("gunicorn's sync workers close every connection, so each request opens a new one.")
    print(f"Before the run, other processes kept {load:.0%} of the CPU busy.", end=" ")
    print("The figures are skewed by that load; run again on a quiet machine." if load > 0.15 else "")
    print()
    header = (
        f"{'kind':<44} {'requests':>9} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} "
        f"{'server CPU/req':>15} {'(database)':>10} {'client CPU':>11} {'all CPU':>8}"
    )
    print(header)
    print("-" * len(header))
    labels = {
        0: "trivial view    GET  /api/ping/",
        1: "read match      GET  /api/matches/{id}/",
        2: "submit move     POST /api/matches/{id}/moves/",
    }
    for index, result in enumerate(results):
        print(
            f"{labels[index]:<44} {len(result.latencies):>9} {result.rate:>8.1f} "
            f"{result.percentile(0.50):>8.1f} {result.percentile(0.99):>8.1f} "
            f"{result.server_ms:>12.2f} ms {result.database_ms:>7.2f} ms "
            f"{result.client_cpu:>6.2f} cores {result.machine_cpu:>7.0%}"
        )
    print(
        "(server CPU/req: CPU time of gunicorn, this database's PostgreSQL processes and Redis per "
        "request, the PostgreSQL part in brackets; client CPU: the bench's own process; all CPU: the "
        "whole machine.)"
    )
    errors = {f"{r.kind}: {k}": v for r in results for k, v in r.errors.items()}
    if errors:
        print("\nRefused or failed requests (not in the timings):")
        for key, count in sorted(errors.items()):
            print(f"  {key}: {count}")
    ratio = moves.rate / trivial.rate if trivial.rate else math.nan
    p99 = moves.percentile(0.99)
    print()
    print(
        f"Move throughput / trivial view: {ratio:.0%} (target >= {TARGET_RATIO:.0%}): "
        f"{'PASS' if ratio >= TARGET_RATIO else 'FAIL'}"
    )
    print(
        f"Move p99: {p99:.1f} ms (target < {TARGET_P99_MS:g} ms): {'PASS' if p99 < TARGET_P99_MS else 'FAIL'}"
    )
    # Little's law for a closed loop: each client waits for its answer, so mean latency = clients / rate.
    needed = args.clients / (TARGET_P99_MS / 1000)
    print(
        f"Each client waits for its answer before sending the next, so the mean latency is clients / "
        f"throughput: a p99 under {TARGET_P99_MS:g} ms needs at least {needed:.0f} moves/s here "
        f"({needed / trivial.rate:.0%} of the trivial view's rate), and the trivial view's own p99 is "
        f"{trivial.percentile(0.99):.1f} ms."
        if trivial.rate
        else ""
    )
    cost = trivial.server_ms / moves.server_ms if moves.server_ms else math.nan
    print(
        f"By server CPU alone a move costs {moves.server_ms / trivial.server_ms:.1f} trivial requests: "
        f"a server with cores of its own would reach about {cost:.0%} of the trivial view's throughput."
    )
    print(
        f"({sum(len(r.latencies) for r in results[2:])} moves in {matches} prepared matches; "
        "each client replayed a game it had played with the engine before the run; only the POST was timed.)"
    )


# --- main -----------------------------------------------------------------------------------------------


def main() -> int:
    args = _arguments()
    with site_on_postgres(args.database_url, script="bench/api.py") as setup:
        return _run(args, setup)


def _run(args: argparse.Namespace, setup: Setup) -> int:
    server = None
    try:
        # Enough matches that no client runs out even at --moves-per-second (warm-up included).
        playing = args.seconds + WARMUP_SECONDS
        began = time.perf_counter()
        clients = _prepare(clients=args.clients, moves_each=playing * args.moves_per_second * 1.25)
        statistics_refresh()
        matches = sum(len(client.matches) for client in clients)
        print(
            f"Prepared {2 * args.clients} players with tokens and {matches} started Wall Go matches "
            f"in {time.perf_counter() - began:.1f} s."
        )
        from django.db import connections

        connections.close_all()  # the server has the database to itself from here on

        port = free_port()
        env = {**os.environ, "ALLOWED_HOSTS": "127.0.0.1"}
        log = setup.scratch / "gunicorn.log"
        server = _gunicorn(port=port, workers=args.workers, threads=args.threads, env=env, log=log)
        base = f"http://127.0.0.1:{port}"
        _wait_until_up(base, server, log)
        load = _background_load()
        print(f"gunicorn is up on {base}; measuring ...")

        kinds: list[tuple[str, Step]] = [("ping", _ping), ("read", _read), ("move", _move)]
        serving = Server(gunicorn=server.pid, redis=setup.redis_pid, database=setup.config["NAME"])
        for kind, step in kinds:
            _measure(kind, base, clients, WARMUP_SECONDS, step, serving)
        # The kinds take turns in short slices, so a change in the machine's other load during the run
        # hits all three alike and their ratio stays fair.
        rounds = max(1, round(args.seconds / SLICE_SECONDS))
        slices = {kind: [] for kind, _ in kinds}
        for _ in range(rounds):
            for kind, step in kinds:
                slices[kind].append(_measure(kind, base, clients, args.seconds / rounds, step, serving))
        results = [_combine(slices[kind]) for kind, _ in kinds]
        _report(results, args=args, database=setup.config["NAME"], matches=matches, load=load)
        if server.poll() is not None or any(r.errors for r in results):
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


if __name__ == "__main__":
    sys.exit(main())
