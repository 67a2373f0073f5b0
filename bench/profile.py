"""Where a page's time goes: cProfile over My matches, the match page and a move, on PostgreSQL.

    python bench/profile.py [--requests 200] [--top 25] [--history 24]
                            [--database-url postgres://postgres@127.0.0.1:5432/wallsite_profilebench]

Run from the repository root with the project's Python (.venv/bin/python). It creates the database if
needed and migrates it, starts a throw-away Redis (the cache, and the queue that moves' e-mails go to;
no worker runs) and sets up, through the site's services, what one simulated user of bench/load.py
has: a Wall Go match with ``--history`` moves played, two idle matches with a three-day clock, two
matches being played and an open table. Then it sends, in process through Django's test client (the
whole middleware stack, a session in the database as a browser has, no sockets, no gunicorn):

- ``--requests`` loads of My matches (``GET /me/matches/``);
- ``--requests`` loads of the match page (``GET /matches/{id}/``) of the long match, as the player
  to move and as the other player, in turn;
- the same two pages asked for again with the ETag of the copy the browser holds, each a 304;
- the match page of a new position as the player to move, after the opponent's move (played outside
  the measurement): the board drawn anew, with the legal moves its script offers;
- the open page's poll of such a position (``GET /matches/{id}/live/``), from a copy of the page that
  shows the position before: every part it follows comes back, the board and its legal moves included;
- moves over the API (``POST /api/matches/{id}/moves/``) in a match played back and forth.

Each kind runs under its own profiler after a few unmeasured requests (templates loaded, the cache
warm as a live site's is). It prints the mean milliseconds per request, in time and in CPU of the Django
process (the rest is PostgreSQL's and Redis's part, and waiting), then for each kind the queries and
Redis commands per request and the functions that took the most CPU, by their own time and with what
they called. It asserts nothing; each run adds its own players and matches.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Run as a script, this file's folder comes first on the path, and this file would then stand in for
# the standard library's ``profile``, which cProfile imports: the repository root instead.
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() not in (ROOT, ROOT / "bench")]

import argparse  # noqa: E402
import cProfile  # noqa: E402
import functools  # noqa: E402
import io  # noqa: E402
import os  # noqa: E402
import pstats  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from datetime import timedelta  # noqa: E402
from typing import Any, NamedTuple  # noqa: E402

from bench.common import site_on_postgres, statistics_refresh  # noqa: E402  (needs the path above)

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/wallsite_profilebench"
WARM_UP = 5


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200, help="requests profiled per kind")
    parser.add_argument("--top", type=int, default=25, help="functions listed per kind and order")
    parser.add_argument("--history", type=int, default=24, help="moves already played in the long match")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    args = parser.parse_args()
    if args.requests < 1 or args.top < 1 or args.history < 0:
        parser.error("--requests and --top must be positive, --history at least 0")
    return args


def _prepare(history: int) -> dict:
    """Two players and their matches, as bench/load.py makes them for one simulated user."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from games import services
    from games.playouts import play_random_moves

    user_model = get_user_model()
    run = f"f{int(time.time())}"
    a, b = (
        user_model.objects.create_user(username=f"{run}-{side}", email=f"{run}-{side}@bench.invalid")
        for side in "ab"
    )

    def duel(first, second, **options) -> int:
        match = services.match_create(creator=first, game="wallgo", seat_count=2, **options)
        services.seat_join(match_id=match.pk, user=second)
        return match.pk

    long = duel(a, b)
    play_random_moves(match_id=long, rng=random.Random(3), moves=history)
    for _ in range(2):
        duel(b, a, move_time_limit=timedelta(days=3))
    played = duel(a, b)
    duel(a, b)
    services.match_create(creator=a, game="wallgo", seat_count=2)
    tokens = {user.pk: Token.objects.create(user=user).key for user in (a, b)}
    return {"players": (a, b), "long": long, "played": played, "tokens": tokens}


def _planned_games(engine, *, moves: int, label: str) -> tuple[list, list]:
    """Two more players (kept off the first two's My matches; ``label`` tells their names apart) and
    their matches with the moves planned: ([player], [(id, [(version, (seat, move))])]), at least
    ``moves`` moves in all."""
    from django.contrib.auth import get_user_model

    from games import services

    run = f"{label}{int(time.time())}"
    a, b = (
        get_user_model().objects.create_user(username=f"{run}-{side}", email=f"{run}-{side}@bench.invalid")
        for side in "ab"
    )
    rng = random.Random(11)
    games = []
    while sum(len(plan) for _, plan in games) < moves:
        match = services.match_create(creator=a, game="wallgo", seat_count=2)
        services.seat_join(match_id=match.pk, user=b)
        state = engine.new_state(seats=2, options=engine.resolve_options(None, seats=2), rng=rng)
        plan = []
        while engine.actors(state):
            seat = min(engine.actors(state))
            chosen = rng.choice(engine.legal_moves(state, seat))
            plan.append((len(plan), (seat, chosen)))
            state, _ = engine.apply(state, seat, chosen)
        games.append((match.pk, plan))
    return [a, b], games


class Kind(NamedTuple):
    name: str
    send: Callable[[int], int]
    # Run before each request and left out of its measurement: what the request is to find.
    before: Callable[[int], None] | None = None

    def warm_up(self) -> None:
        for number in range(WARM_UP):
            self.prepare(-1 - number)
            self.send(-1 - number)

    def prepare(self, number: int) -> None:
        if self.before is not None:
            self.before(number)


@functools.cache
def _redis() -> Any:
    import redis

    return redis.Redis.from_url(os.environ["REDIS_URL"])


def _redis_commands() -> int:
    """Commands the throw-away Redis has answered so far (the cache's and the queue's alike), less
    the INFO asking for them."""
    stats = _redis().info("commandstats")
    return sum(entry["calls"] for name, entry in stats.items() if name != "cmdstat_info")


def _profiled(kind: Kind, requests: int, top: int) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    kind.warm_up()
    commands = 0
    # CPU time of this process: on a shared machine, waiting for PostgreSQL (its own process) or for a
    # core would otherwise swamp what the site's code costs.
    profiler = cProfile.Profile(time.process_time)
    queried = 0
    with CaptureQueriesContext(connection) as queries:
        for number in range(requests):
            kind.prepare(number)
            already, answered = len(queries), _redis_commands()
            profiler.enable()
            kind.send(number)
            profiler.disable()
            queried += len(queries) - already
            commands += _redis_commands() - answered
    print(
        f"\n=== {kind.name}: {requests} requests, {queried / requests:.1f} queries and"
        f" {commands / requests:.1f} Redis commands each; CPU seconds:"
    )
    for order in ("tottime", "cumulative"):
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out)
        stats.strip_dirs().sort_stats(order).print_stats(top)
        # The table only: pstats' preamble repeats what is printed above.
        table = out.getvalue().split("\n")
        start = next((i for i, line in enumerate(table) if line.lstrip().startswith("ncalls")), 0)
        print(f"--- by {order} ---")
        print("\n".join(line for line in table[start:] if line.strip()))


def _timed(kind: Kind, requests: int) -> None:
    """The same requests without the profiler: what they cost for real, in time and in this process's
    CPU (the rest is PostgreSQL's and Redis's work, and waiting for them or for a core)."""
    kind.warm_up()
    wall = cpu = 0.0
    for number in range(requests):
        kind.prepare(number)
        began, began_cpu = time.perf_counter(), time.process_time()
        kind.send(number)
        wall += time.perf_counter() - began
        cpu += time.process_time() - began_cpu
    print(f"{kind.name:<34} {wall / requests * 1000:8.2f} ms {cpu / requests * 1000:8.2f} ms")


def main() -> int:
    args = _arguments()
    os.environ["ALLOWED_HOSTS"] = "testserver"
    with site_on_postgres(args.database_url, script="bench/profile.py"):
        from django.test import Client
        from rest_framework.authtoken.models import Token

        from games.engines import registry

        made = _prepare(args.history)
        statistics_refresh()
        a, b = made["players"]
        clients = {}
        for user in (a, b):
            clients[user.pk] = Client()
            clients[user.pk].force_login(user)
        engine = registry.get_engine("wallgo")

        def check(response, expected: int = 200) -> int:
            if response.status_code != expected:
                sys.exit(f"{response.request['PATH_INFO']} answered {response.status_code}")
            return response.status_code

        def my_matches(_: int) -> int:
            return check(clients[a.pk].get("/me/matches/"))

        def match_page(number: int) -> int:
            user = (a, b)[number % 2]
            return check(clients[user.pk].get(f"/matches/{made['long']}/"))

        # Games planned beforehand (Wall Go has no chance: the planned position is the server's), so
        # that choosing a move costs the profiled loop nothing.
        movers, games = _planned_games(engine, moves=2 * (args.requests + WARM_UP), label="g")
        # A page or poll a move, for the timed and the profiled runs; a move that ends a match needs one
        # more.
        lookers, looked_at = _planned_games(engine, moves=6 * (args.requests + WARM_UP), label="h")
        for user in (*movers, *lookers):
            clients[user.pk] = Client()
            made["tokens"][user.pk] = Token.objects.create(user=user).key
        for user in lookers:
            clients[user.pk].force_login(user)

        def play(players: list, planned: list) -> tuple[int, int | None]:
            """The next planned move over the API: (the match, the seat to move after it, if any)."""
            match_id, plan = planned[0]
            version, (seat, chosen) = plan.pop(0)
            if not plan:
                planned.pop(0)
            user = players[seat]
            response = clients[user.pk].post(
                f"/api/matches/{match_id}/moves/",
                data={"move": engine.format_move(chosen), "version": version},
                content_type="application/json",
                HTTP_AUTHORIZATION=f"Token {made['tokens'][user.pk]}",
            )
            check(response, 201)
            return match_id, (plan[0][1][0] if plan else None)

        def move(_: int) -> int:
            play(movers, games)
            return 201

        new_position: list[tuple[int, int]] = []

        def opponent_moves(_: int) -> None:
            match_id, seat = play(lookers, looked_at)
            while seat is None:  # that move ended the match: the next one's first
                match_id, seat = play(lookers, looked_at)
            new_position[:] = [(match_id, seat)]

        def new_position_page(_: int) -> int:
            ((match_id, seat),) = new_position
            return check(clients[lookers[seat].pk].get(f"/matches/{match_id}/"))

        def new_position_poll(_: int) -> int:
            # The open page of the player to move, whose copy shows the position before: every part
            # it follows has changed (static/js/live.js sends the keys of what it holds).
            ((match_id, seat),) = new_position
            stale = {"HTTP_IF_NONE_MATCH": '"before"', "HTTP_X_LIVE_BOARD": "before", "HTTP_X_LIVE_LOG": "0"}
            return check(clients[lookers[seat].pk].get(f"/matches/{match_id}/live/", **stale))

        held: dict[tuple[int, str], str] = {}

        def again(user, address: str) -> int:
            """The page asked for again with the ETag of the copy the browser holds: a 304. A copy is
            good for the minute it was drawn in; on the first load, or when the minute has turned, the
            page is drawn and the browser holds the new copy."""
            key = (user.pk, address)
            response = clients[user.pk].get(address, HTTP_IF_NONE_MATCH=held.get(key, ""))
            if response.status_code == 200:
                held[key] = response["ETag"]
                response = clients[user.pk].get(address, HTTP_IF_NONE_MATCH=held[key])
            return check(response, 304)

        def my_matches_again(_: int) -> int:
            return again(a, "/me/matches/")

        def match_page_again(number: int) -> int:
            return again((a, b)[number % 2], f"/matches/{made['long']}/")

        kinds = [
            Kind("My matches", my_matches),
            Kind("My matches, copy held (304)", my_matches_again),
            Kind("match page (both seats)", match_page),
            Kind("match page, copy held (304)", match_page_again),
            Kind("match page, new position, to move", new_position_page, before=opponent_moves),
            Kind("poll, new position, to move", new_position_poll, before=opponent_moves),
            Kind("move (API)", move),
        ]
        print(f"Without the profiler, mean per request:\n{'':34} {'time':>11} {'CPU':>11}")
        for kind in kinds:
            _timed(kind, args.requests)
        for kind in kinds:
            _profiled(kind, args.requests, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
