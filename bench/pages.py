"""Long matches cost what short ones cost: page, board, API view, log and move against the log's length.

    python bench/pages.py [--lengths 0,120,220,320] [--rounds 40]
                          [--database-url postgres://postgres@127.0.0.1:5432/wallsite_pagesbench]

Run from the repository root with the project's Python (.venv/bin/python). It creates the database if
needed and migrates it, starts a throw-away Redis (moves queue their e-mails there; no worker runs) and
plays, through the site's services, one two-player match of The Wall (the longest game of the site:
over three hundred log lines) to each of the ``--lengths``, chance steps included. Then, in ``--rounds``
rounds that visit every match in turn, so that the machine's other load falls on all alike, it times
in process (Django's test client: no sockets, no gunicorn, the database on loopback):

- the match page as the player to move (the first load of the position, then a second one, whose
  parts come from the cache), the board SVG, the API's match view and the first page of the log
  (``/matches/{id}/log/``);
- a move over the API by the player to move (the match's log grows by a line or two per round).

It prints, per kind and log length, the median and 90th percentile in milliseconds and the number of
database queries (the usual count; a move that ends the match or opens a chance step runs more), and
the ratio of the longest match's median to the shortest's. It reports and
asserts nothing (tests/games/test_query_budget.py holds the query bounds); each run adds its own players
and matches.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import site_on_postgres, statistics_refresh  # noqa: E402  (needs the path above)

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/wallsite_pagesbench"
GAME = "thewall"
KINDS = ("match page", "page again", "board SVG", "API match", "log page", "move (API)")


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", default="0,120,220,320", help="log lines of the matches to compare")
    parser.add_argument("--rounds", type=int, default=40, help="timings per kind and match")
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    args = parser.parse_args()
    try:
        args.lengths = sorted({int(part) for part in args.lengths.split(",")})
    except ValueError:
        parser.error("--lengths takes whole numbers separated by commas")
    if args.rounds < 3 or any(length < 0 for length in args.lengths):
        parser.error("--rounds must be at least 3 and every length at least 0")
    return args


def _advance(match_id: int, *, rng: random.Random, lines: int | None = None) -> bool:
    """Play random moves and chance steps until the log has ``lines`` lines (or one move when None).

    False if the match ended first."""
    from games import services
    from games.models import Match

    moved = False
    while True:
        match = Match.objects.get(pk=match_id)
        if match.status != Match.Status.ACTIVE:
            return False
        engine = match.engine
        if engine.chance_pending(match.engine_state):
            services.chance_resolve(match_id=match_id, version=match.version)
            continue
        if moved if lines is None else match.log_length >= lines:
            return True
        actor = min(engine.actors(match.engine_state))
        seat = match.seats.select_related("user").get(position=actor)
        move = rng.choice(engine.legal_moves(match.engine_state, actor))
        services.move_play(match_id=match_id, user=seat.user, expected_version=match.version, move=move)
        moved = True


def _prepare(lengths: list[int]) -> dict[int, int]:
    """One started match per length, played to it: {length: match id}."""
    from django.contrib.auth import get_user_model

    from games import services
    from games.models import Match

    user_model = get_user_model()
    run = f"p{int(time.time())}"
    players = [
        user_model.objects.create_user(username=f"{run}-{side}", email=f"{run}-{side}@bench.invalid")
        for side in "ab"
    ]
    matches: dict[int, int] = {}
    for length in lengths:
        for attempt in range(50):  # a random game may end before the longest length; deal another
            match = services.match_create(creator=players[0], game=GAME, seat_count=2)
            services.seat_join(match_id=match.pk, user=players[1])
            if _advance(match.pk, rng=random.Random(f"{length}-{attempt}"), lines=length):
                matches[Match.objects.get(pk=match.pk).log_length] = match.pk
                break
        else:
            sys.exit(f"No random game of {GAME} lasted {length} log lines; ask for shorter ones.")
    return matches


def _measure(matches: dict[int, int], rounds: int) -> dict[tuple[str, int], tuple[list[float], list[int]]]:
    """{(kind, length): (milliseconds of each request, queries of each request)}."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse
    from rest_framework.authtoken.models import Token

    from games.models import Match

    rng = random.Random(5)
    timings: dict[tuple[str, int], tuple[list[float], list[int]]] = {}

    def timed(kind: str, length: int, call, url: str, **extra) -> None:
        with CaptureQueriesContext(connection) as queries:
            began = time.perf_counter()
            response = call(url, **extra)
            took = (time.perf_counter() - began) * 1000
        if response.status_code not in (200, 201):
            sys.exit(f"{kind} of the {length}-line match answered {response.status_code}")
        spent, counts = timings.setdefault((kind, length), ([], []))
        spent.append(took)
        counts.append(len(queries))

    clients: dict[int, Client] = {}
    for _ in range(rounds):
        for length, match_id in matches.items():
            match = Match.objects.get(pk=match_id)
            if match.status != Match.Status.ACTIVE:
                continue
            engine = match.engine
            actor = min(engine.actors(match.engine_state))
            seat = match.seats.select_related("user").get(position=actor)
            client = clients.setdefault(seat.user_id, Client())
            client.force_login(seat.user)
            api = {"HTTP_AUTHORIZATION": f"Token {Token.objects.get_or_create(user=seat.user)[0].key}"}
            timed("match page", length, client.get, reverse("match-detail", args=[match_id]))
            # Unchanged since: its board, legal moves, panel and log come from the cache.
            timed("page again", length, client.get, reverse("match-detail", args=[match_id]))
            timed("board SVG", length, client.get, reverse("match-board", args=[match_id]))
            timed("API match", length, client.get, f"/api/matches/{match_id}/", **api)
            timed("log page", length, client.get, reverse("match-log", args=[match_id]) + "?page=1")
            move = rng.choice(engine.legal_moves(match.engine_state, actor))
            body = {"move": engine.format_move(move), "version": match.version}
            moves = f"/api/matches/{match_id}/moves/"
            timed("move (API)", length, client.post, moves, data=body, content_type="application/json", **api)
            _advance(match_id, rng=rng, lines=0)  # the chance step the move may have opened
    return timings


def _report(timings: dict[tuple[str, int], tuple[list[float], list[int]]], lengths: list[int]) -> None:
    print()
    print(f"{GAME}, two players, requests in process on PostgreSQL; ms median / p90 (queries)")
    print(
        f"{'kind':<12}"
        + "".join(f"{f'{length} lines':>24}" for length in lengths)
        + f"{'longest/shortest':>18}"
    )
    for kind in KINDS:
        cells, medians = [], []
        for length in lengths:
            spent, counts = timings.get((kind, length), ([], []))
            if not spent:
                cells.append(f"{'(match ended)':>24}")
                continue
            median = statistics.median(spent)
            p90 = statistics.quantiles(spent, n=10)[-1]
            medians.append(median)
            queries = statistics.mode(counts)
            cells.append(f"{f'{median:.1f} / {p90:.1f} ({queries})':>24}")
        ratio = f"{medians[-1] / medians[0]:.2f}" if len(medians) > 1 else "-"
        print(f"{kind:<12}" + "".join(cells) + f"{ratio:>18}")


def main() -> int:
    args = _arguments()
    os.environ["ALLOWED_HOSTS"] = "testserver"
    with site_on_postgres(args.database_url, script="bench/pages.py"):
        began = time.perf_counter()
        matches = _prepare(args.lengths)
        statistics_refresh()
        print(
            f"Played {len(matches)} matches of {GAME} to {', '.join(map(str, matches))} log lines "
            f"in {time.perf_counter() - began:.1f} s; measuring {args.rounds} rounds ..."
        )
        _report(_measure(matches, args.rounds), list(matches))
    return 0


if __name__ == "__main__":
    sys.exit(main())
