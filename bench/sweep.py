"""How long one minute sweep takes on PostgreSQL with many active matches, and whether it uses its indexes.

    python bench/sweep.py [--matches 100000] [--due-fraction 0.01]
                          [--database-url postgres://postgres@127.0.0.1:5432/wallsite_bench]
                          [--redis-url URL] [--keep]

Run from the repository root. It builds (or, with --keep, reuses) a database of active Wall Go matches in
which ``--due-fraction`` of the open turns are past their deadline and as many again owe their first
reminder; every open turn already had its "your turn" e-mail sent, so the notification table holds the
history the sweep's pending-notification query must skip. It then times ``games.sweep.sweep_run()``
claiming that work and publishing its tasks to Redis (no worker runs), breaks one sweep down by part, and
prints the query plans of the sweep's claims. Without --redis-url it starts a throw-away Redis, because it
empties the Redis database it publishes to. It reports and does not assert: the exit code is 0 unless the
setup failed. The database is left in place.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

# Django, the site and its settings come from this checkout, as with bench/engines.py.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import database_create, postgres_config  # noqa: E402  (needs the path above)

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/wallsite_bench"
TARGET_SECONDS = 2.0
USERS = 2_000
RUNS = 3
SEED = 7  # picks which turns are due, so --keep finds the same ones again
SWEEP_LIMIT = 5000  # sweep_run's default
DUE_AGO = timedelta(minutes=1)  # how long ago the due turns and reminders fell due
QUIET_HORIZON = timedelta(days=1)  # no other turn may become due sooner than this, or --keep rebuilds


@dataclass(frozen=True)
class Layout:
    """Which rows the data holds. Ids are fixed: match m has seats 2m-1 (position 0) and 2m, turn m."""

    matches: int
    users: int
    due: list[int]  # turn ids past their deadline
    remind: list[int]  # turn ids owing their 24-hour reminder

    @classmethod
    def build(cls, matches: int, fraction: float) -> Layout:
        count = round(matches * fraction)
        # Scattered over the table, as real due turns are, rather than packed into its first pages.
        picked = random.Random(SEED).sample(range(1, matches + 1), 2 * count)
        return cls(matches, USERS, sorted(picked[:count]), sorted(picked[count:]))


# --- before Django ------------------------------------------------------------------------------------


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--due-fraction", type=float, default=0.01)
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument(
        "--redis-url", help="publish here (its database is emptied!) instead of a fresh Redis"
    )
    parser.add_argument("--keep", action="store_true", help="reuse the data if it is already there")
    args = parser.parse_args()
    if args.matches < 2:
        parser.error("--matches must be at least 2")
    if not 0 < args.due_fraction <= 0.5 or round(args.matches * args.due_fraction) < 1:
        parser.error("--due-fraction must leave at least one due turn and be at most 0.5")
    return args


# --- the data -----------------------------------------------------------------------------------------


def _tables() -> dict[str, str]:
    from accounts.models import User
    from games.models import Match, Notification, Seat, Turn

    return {model.__name__: model._meta.db_table for model in (User, Match, Seat, Turn, Notification)}


def _data_ready(layout: Layout, now: datetime) -> tuple[bool, str]:
    """Whether the data already has this layout's counts and nothing else falls due soon."""
    from django.db import connection

    t = _tables()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT (SELECT count(*) FROM {t['User']}),"
            f" (SELECT count(*) FROM {t['Match']} WHERE status = 'active' AND work_due_at IS NULL),"
            f" (SELECT count(*) FROM {t['Match']}),"
            f" (SELECT count(*) FROM {t['Seat']}),"
            f" (SELECT count(*) FROM {t['Turn']} WHERE closed_at IS NULL),"
            f" (SELECT count(*) FROM {t['Turn']}),"
            f" (SELECT count(*) FROM {t['Notification']} WHERE kind = 'your_turn' AND status = 'sent')"
        )
        users, active, matches, seats, open_turns, turns, sent = cursor.fetchone()
        wanted = (layout.users, layout.matches, layout.matches, 2 * layout.matches) + (layout.matches,) * 3
        if (users, active, matches, seats, open_turns, turns, sent) != wanted:
            return False, (
                f"found {users} users, {active}/{matches} active matches, {seats} seats, "
                f"{open_turns}/{turns} open turns, {sent} sent notifications"
            )
        horizon = now + QUIET_HORIZON
        cursor.execute(
            f"SELECT count(*) FROM {t['Turn']} WHERE closed_at IS NULL"
            " AND (deadline <= %s OR remind_at <= %s) AND NOT (id = ANY(%s))",
            [horizon, horizon, layout.due + layout.remind],
        )
        (stray,) = cursor.fetchone()
    if stray:
        hours = QUIET_HORIZON.total_seconds() / 3600
        return False, f"{stray} other turns fall due within {hours:.0f} hours (the data has aged)"
    return True, "counts match"


def _rebuild(layout: Layout, now: datetime) -> dict[str, float]:
    """Empty the games and accounts tables and load the layout with COPY; seconds per step."""
    from django.apps import apps
    from django.db import connection, transaction

    from games.engines.registry import get_engine

    t = _tables()
    steps: dict[str, float] = {}
    engine = get_engine("wallgo")
    options = engine.resolve_options({})
    # One real opening position, shared by every match: the sweep never reads it, but it must be valid.
    state = engine.new_state(seats=2, options=options, rng=random.Random(1))
    state_json, view_json, options_json = (
        json.dumps(state),
        json.dumps(engine.public_view(state)),
        json.dumps(options),
    )
    due, remind = set(layout.due), set(layout.remind)
    started = now - timedelta(days=1)

    tables = {
        model._meta.db_table
        for label in ("accounts", "games")
        for model in apps.get_app_config(label).get_models(include_auto_created=True)
    }
    connection.ensure_connection()
    raw = connection.connection  # the psycopg connection, for COPY

    def copy(table: str, columns: str, rows: Iterator[tuple]) -> None:
        begin = time.perf_counter()
        with raw.cursor() as cursor, cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as stream:
            for row in rows:
                stream.write_row(row)
        steps[f"COPY {table}"] = time.perf_counter() - begin

    def users() -> Iterator[tuple]:
        for uid in range(1, layout.users + 1):
            yield (uid, "!", False, f"bench{uid}", "", "", f"bench{uid}@bench.invalid", False, True, now,
                   "UTC", "immediate", "[24, 2]", 8, 21, 0, False, f"bench-calendar-{uid}")  # fmt: skip

    def matches() -> Iterator[tuple]:
        for mid in range(1, layout.matches + 1):
            creator = 1 + (mid - 1) % layout.users
            yield (mid, "wallgo", "", options_json, 2, "active", 0, timedelta(days=3), False, "skip",
                   creator, started, started, now, "", view_json, state_json)  # fmt: skip

    def seats() -> Iterator[tuple]:
        for mid in range(1, layout.matches + 1):
            # Round-robin users; the two seats of a match always hold two different users.
            for position in (0, 1):
                user = 1 + (mid - 1 + position) % layout.users
                yield (2 * mid - 1 + position, mid, position, user, "", "playing", started, False, 0)

    def turns() -> Iterator[tuple]:
        for mid in range(1, layout.matches + 1):
            if mid in due:
                deadline, remind_at, lead = now - DUE_AGO, None, None
            elif mid in remind:
                deadline, remind_at, lead = now + timedelta(hours=23), now - DUE_AGO, 24
            else:
                # Days ahead and spread out; even the first reminder stays a QUIET_HORIZON and more away.
                deadline = now + timedelta(days=3, minutes=(mid * 37) % (3 * 24 * 60))
                remind_at, lead = deadline - timedelta(hours=24), 24
            yield (mid, mid, 2 * mid - 1, 0, started, deadline, remind_at, lead, "")

    def history() -> Iterator[tuple]:
        for mid in range(1, layout.matches + 1):
            user = 1 + (mid - 1) % layout.users
            key = f"turn:{mid}:start"
            yield (mid, user, mid, mid, "your_turn", key, "", "sent", started, started, started, "", 1)

    with transaction.atomic():
        begin = time.perf_counter()
        with connection.cursor() as cursor:
            cursor.execute(f"TRUNCATE {', '.join(sorted(tables))} RESTART IDENTITY CASCADE")
        steps["TRUNCATE"] = time.perf_counter() - begin
        copy(
            t["User"],
            "id, password, is_superuser, username, first_name, last_name, email, is_staff, is_active,"
            " date_joined, time_zone, notify, reminder_hours, digest_hour, vacation_days_left, vacation_year,"
            " on_vacation, calendar_token",
            users(),
        )
        copy(
            t["Match"],
            "id, game, name, options, seat_count, status, version, move_time_limit, pause_weekends,"
            " timeout_policy, created_by_id, created_at, started_at, updated_at, result_text, public_view,"
            " engine_state",
            matches(),
        )
        copy(
            t["Seat"],
            "id, match_id, position, user_id, bot, status, joined_at, autopilot, timeouts",
            seats(),
        )
        copy(
            t["Turn"],
            "id, match_id, seat_id, number, started_at, deadline, remind_at, remind_lead, closed_by",
            turns(),
        )
        copy(
            t["Notification"],
            "id, user_id, match_id, turn_id, kind, key, text, status, due_at, created_at, sent_at,"
            " skip_reason, attempts",
            history(),
        )
        with connection.cursor() as cursor:
            # The ids were given explicitly, so the identity sequences must be moved past them.
            for table in (t["User"], t["Match"], t["Seat"], t["Turn"], t["Notification"]):
                cursor.execute(
                    f"SELECT setval(pg_get_serial_sequence(%s, 'id'), (SELECT max(id) FROM {table}))", [table]
                )
    begin = time.perf_counter()
    with connection.cursor() as cursor:
        # VACUUM too, not only ANALYZE: else autovacuum wakes up on the fresh tables mid-measurement.
        cursor.execute(f"VACUUM (ANALYZE) {', '.join(sorted(tables))}")
    steps["VACUUM (ANALYZE)"] = time.perf_counter() - begin
    return steps


def _due_reset(layout: Layout, *, notifications: bool = True) -> None:
    """Make the due turns and reminders due again, as they were before a sweep claimed them, and (unless
    told not to) delete the reminder e-mails the last sweep wrote."""
    from django.db import connection
    from django.utils import timezone

    t = _tables()
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {t['Turn']} SET deadline = %s, expiry_claimed_at = NULL, remind_at = NULL,"
            " remind_lead = NULL WHERE id = ANY(%s)",
            [now - DUE_AGO, layout.due],
        )
        cursor.execute(
            f"UPDATE {t['Turn']} SET deadline = %s, expiry_claimed_at = NULL, remind_at = %s,"
            " remind_lead = 24 WHERE id = ANY(%s)",
            [now + timedelta(hours=23), now - DUE_AGO, layout.remind],
        )
        if notifications:
            cursor.execute(
                f"DELETE FROM {t['Notification']} WHERE kind = 'reminder' AND turn_id = ANY(%s)",
                [layout.remind],
            )
        # Every run starts from the same physical state: no dead index entries left by the last one.
        cursor.execute(f"VACUUM (ANALYZE) {t['Turn']}, {t['Notification']}")


def _reminders_written() -> int:
    from games.models import Notification

    return Notification.objects.filter(
        kind=Notification.Kind.REMINDER, status=Notification.Status.PENDING
    ).count()


# --- measuring ----------------------------------------------------------------------------------------


class SqlMeter:
    """Counts the statements Django sends and the time spent waiting on them, per kind of statement.

    The Python time since the previous statement is charged to the next one: it is the work that
    built it (an ORM query, a bulk_update's CASE expression), so slow code shows next to its SQL.
    """

    def __init__(self) -> None:
        self.statements = 0
        self.seconds = 0.0
        self.last = time.perf_counter()
        self.kinds: dict[str, list[float]] = {}  # kind -> [count, SQL seconds, Python seconds before]

    def __call__(self, execute, sql, params, many, context):
        begin = time.perf_counter()
        built = begin - self.last
        try:
            return execute(sql, params, many, context)
        finally:
            self.last = time.perf_counter()
            row = self.kinds.setdefault(_statement_kind(sql), [0, 0.0, 0.0])
            row[0] += 1
            row[1] += self.last - begin
            row[2] += built
            self.statements += 1
            self.seconds += self.last - begin


def _statement_kind(sql: str) -> str:
    """A short name for a statement: its verb and table, and what kind of UPDATE it is."""
    words = sql.split()
    verb = words[0].upper()
    if verb in ("SAVEPOINT", "RELEASE", "ROLLBACK"):
        return " ".join(words[:-1])  # without the savepoint's name
    table = re.search(r'(?:FROM|INTO|UPDATE)\s+"?(\w+)"?', sql)
    name = f"{verb} {table.group(1) if table else '?'}"
    if verb == "UPDATE" and "CASE WHEN" in sql:
        return name + " SET ... CASE WHEN (bulk_update)"
    if verb == "UPDATE" and " RETURNING " in sql:
        return name + " ... RETURNING (the claim)"
    if verb == "SELECT" and " JOIN " in sql:
        return name + " + joins"
    return name


@dataclass
class Part:
    name: str
    seconds: float
    statements: int
    sql_seconds: float
    rows: int
    messages: int
    kinds: dict[str, list[float]]


def _measure(name: str, call: Callable[[], int], queue_length: Callable[[], int]) -> Part:
    from django.db import connection

    meter = SqlMeter()
    before = queue_length()
    with connection.execute_wrapper(meter):
        begin = meter.last = time.perf_counter()
        rows = call()
        seconds = time.perf_counter() - begin
    return Part(name, seconds, meter.statements, meter.seconds, rows, queue_length() - before, meter.kinds)


def _breakdown(queue_length: Callable[[], int]) -> list[Part]:
    """sweep_run's steps in its order, each timed on its own."""
    from django.db import transaction
    from django.utils import timezone

    from games import dispatch, sweep

    now = timezone.now()
    found: dict[str, list[int]] = {}
    parts: list[Part] = []
    held = contextlib.ExitStack()

    def claim(key: str, function: Callable[..., list[int]]) -> Callable[[], int]:
        def call() -> int:
            found[key] = function(now=now, limit=SWEEP_LIMIT)
            return len(found[key])

        return call

    def reminders_open() -> int:
        # Held open so the reminder e-mails, queued on commit, can be timed apart from their claim.
        held.enter_context(transaction.atomic())
        return claim("reminders", sweep._claim_reminders)()

    def reminders_commit() -> int:
        held.close()
        return len(found["reminders"])

    parts.append(
        _measure("claim expired turns (UPDATE)", claim("expired", sweep._claim_expired_turns), queue_length)
    )
    parts.append(_measure("claim reminders + write notifications", reminders_open, queue_length))
    parts.append(_measure("  commit: publish reminder notifications", reminders_commit, queue_length))
    parts.append(
        _measure(
            "due notifications + digests", claim("notifications", sweep._due_notifications), queue_length
        )
    )
    parts.append(_measure("owed automatic work", claim("matches", sweep._owed_work), queue_length))

    def expiries() -> int:
        if found["expired"]:
            dispatch.turns_expire_enqueue(found["expired"])
        return len(found["expired"])

    def notes() -> int:
        if found["notifications"]:
            dispatch.notifications_enqueue(found["notifications"])
        return len(found["notifications"])

    def work() -> int:
        if found["matches"]:
            sweep._requeue_work(found["matches"])
        return len(found["matches"])

    parts.append(_measure("publish expiries", expiries, queue_length))
    parts.append(_measure("publish missed notifications", notes, queue_length))
    parts.append(_measure("requeue owed work", work, queue_length))
    return parts


# --- query plans ----------------------------------------------------------------------------------------


class _Seen(Exception):
    """Stops a code path at the statement wanted, before it runs."""

    def __init__(self, sql: str, params: Any) -> None:
        super().__init__(sql)
        self.sql, self.params = sql, params


def _statement_of(call: Callable[[], object], wanted: Callable[[str], bool]) -> tuple[str, Any]:
    """The exact SQL and parameters ``call`` sends first that ``wanted`` picks, without running it."""
    from django.db import connection, transaction

    def stop(execute, sql, params, many, context):
        if wanted(sql):
            raise _Seen(sql, params)
        return execute(sql, params, many, context)

    # Whatever the code path wrote before the statement is rolled back with this transaction.
    with transaction.atomic():
        try:
            with connection.execute_wrapper(stop):
                call()
        except _Seen as seen:
            transaction.set_rollback(True)
            return seen.sql, seen.params
        transaction.set_rollback(True)
    raise RuntimeError("the code path never sent the statement looked for")


def _explain(sql: str, params: Any) -> list[str]:
    """EXPLAIN (ANALYZE, BUFFERS) in a transaction rolled back, since ANALYZE runs an UPDATE for real."""
    from django.db import connection, transaction

    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
            lines = [row[0] for row in cursor.fetchall()]
        transaction.set_rollback(True)
    return lines


def _index_verdict(plan: list[str], index: str) -> str:
    text = "\n".join(plan)
    uses = re.search(
        rf"(Index Scan|Index Only Scan)( Backward)? using {index}\b|Bitmap Index Scan on {index}\b", text
    )
    if uses:
        return f"uses index {index}: YES ({uses.group(0)})"
    others = sorted(
        set(re.findall(r"(?:Index Scan|Index Only Scan) using (\w+)|Bitmap Index Scan on (\w+)", text))
    )
    names = ", ".join(a or b for a, b in others) or "none"
    seq = " and a Seq Scan" if "Seq Scan" in text else ""
    return f"uses index {index}: NO (indexes used: {names}{seq})"


def _plans() -> None:
    from django.db import connection
    from django.utils import timezone

    from games import sweep
    from games.models import Match, Notification, Turn

    now = timezone.now()
    turn, note, match = Turn._meta.db_table, Notification._meta.db_table, Match._meta.db_table
    cases = [
        (
            "(a) claim expired turns",
            lambda: sweep._claim_expired_turns(now=now, limit=SWEEP_LIMIT),
            lambda sql: sql.startswith(f"UPDATE {turn} SET expiry_claimed_at"),
            "turn_open_deadline",
        ),
        (
            "(b) claim reminders",
            lambda: sweep._claim_reminders(now=now, limit=SWEEP_LIMIT),
            lambda sql: sql.startswith(f"UPDATE {turn} SET remind_at = NULL"),
            "turn_open_remind",
        ),
        (
            "(c) pending notifications the queue missed",
            lambda: sweep._due_notifications(now=now, limit=SWEEP_LIMIT),
            lambda sql: f'FROM "{note}"' in sql and '"due_at" <=' in sql,
            "notification_pending_due",
        ),
        (
            "(d) matches owing automatic work",
            lambda: sweep._owed_work(now=now, limit=SWEEP_LIMIT),
            lambda sql: f'FROM "{match}"' in sql and '"work_due_at" <=' in sql,
            "match_work_due",
        ),
    ]
    for title, call, wanted, index in cases:
        sql, params = _statement_of(call, wanted)
        print(f"\n--- {title} ---")
        print(connection.ops.compose_sql(sql, params))
        plan = _explain(sql, params)
        for line in plan:
            print(f"  {line}")
        print(f"=> {_index_verdict(plan, index)}")


# --- main ---------------------------------------------------------------------------------------------


def _heading(text: str) -> None:
    print(f"\n== {text}")


def _run(args: argparse.Namespace, redis_url: str) -> None:
    import django
    import psycopg
    import redis

    django.setup()

    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from games import sweep, tasks
    from wallsite.celery import app

    if app.conf.task_always_eager:
        # Eager tasks would run the expiries in this process instead of publishing them.
        print("CELERY_TASK_ALWAYS_EAGER was set; turning it off for the benchmark.")
        app.conf.task_always_eager = False
    queue = app.conf.task_default_queue
    broker = redis.Redis.from_url(redis_url)

    def queue_length() -> int:
        return broker.llen(queue)

    layout = Layout.build(args.matches, args.due_fraction)
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        (server,) = cursor.fetchone()
    _heading("setup")
    print(f"PostgreSQL: {server.split(' on ')[0]}; psycopg {psycopg.__version__}; CPUs: {os.cpu_count()}")
    print(f"Redis: {redis_url} (queue {queue!r}); Celery broker {app.conf.broker_url}")
    print(
        f"Data: {layout.users:,} users, {layout.matches:,} active Wall Go matches, 2 seats and one open"
        f" turn each; {len(layout.due):,} turns past their deadline, {len(layout.remind):,} owing a reminder."
    )

    begin = time.perf_counter()
    call_command("migrate", verbosity=0)
    print(f"migrate: {time.perf_counter() - begin:.1f} s")
    ready, why = _data_ready(layout, timezone.now()) if args.keep else (False, "--keep not given")
    if ready:
        print(f"Reusing the data ({why}).")
    else:
        print(f"Building the data ({why}).")
        steps = _rebuild(layout, timezone.now())
        for step, seconds in steps.items():
            print(f"  {step:<28} {seconds:6.2f} s")
        print(f"  {'total':<28} {sum(steps.values()):6.2f} s")

    # A sweep runs in a long-lived worker whose broker connection is already open: open ours first.
    tasks.notifications_send.delay([])
    sweep._owed_work(now=timezone.now(), limit=1)

    _heading(f"one sweep_run(), {RUNS} times (target: under {TARGET_SECONDS:.0f} s)")
    print(f"{'run':>3} {'expired':>8} {'reminders':>9} {'notifs':>7} {'matches':>7} {'e-mails made':>12}"
          f" {'queued':>7} {'seconds':>8}  verdict")  # fmt: skip
    times: list[float] = []
    for run in range(1, RUNS + 1):
        _due_reset(layout)
        broker.flushdb()
        begin = time.perf_counter()
        report = sweep.sweep_run(limit=SWEEP_LIMIT)
        seconds = time.perf_counter() - begin
        times.append(seconds)
        made = _reminders_written()
        counts = report.as_dict()
        verdict = "PASS" if seconds < TARGET_SECONDS else "FAIL"
        print(
            f"{run:>3} {counts['expired']:>8} {counts['reminders']:>9} {counts['notifications']:>7}"
            f" {counts['matches']:>7} {made:>12} {queue_length():>7} {seconds:>8.3f}  {verdict}"
        )
    median = statistics.median(times)
    print(
        f"median {median:.3f} s: {'PASS' if median < TARGET_SECONDS else 'FAIL'}"
        f" (target {TARGET_SECONDS:.1f} s)"
    )

    _heading("one sweep, part by part (same order as sweep_run)")
    _due_reset(layout)
    broker.flushdb()
    parts = _breakdown(queue_length)
    print(f"{'part':<42} {'rows':>6} {'queued':>7} {'SQL':>6} {'SQL ms':>8} {'total ms':>9} {'other ms':>9}")
    for part in parts:
        print(
            f"{part.name:<42} {part.rows:>6} {part.messages:>7} {part.statements:>6}"
            f" {part.sql_seconds * 1e3:>8.1f} {part.seconds * 1e3:>9.1f}"
            f" {(part.seconds - part.sql_seconds) * 1e3:>9.1f}"
        )
    total = sum(part.seconds for part in parts)
    published = sum(part.messages for part in parts)
    publish_seconds = sum(part.seconds for part in parts if part.messages)
    print(f"{'total':<42} {'':>6} {published:>7} {sum(p.statements for p in parts):>6}"
          f" {sum(p.sql_seconds for p in parts) * 1e3:>8.1f} {total * 1e3:>9.1f}")  # fmt: skip
    if published:
        print(f"publishing: {publish_seconds * 1e6 / published:.0f} us per task message")
    for part in parts:
        if part.statements > 3:
            # Where a part that talks to the database a lot spends its time, statement kind by kind.
            print(f"\ninside '{part.name}' (Python = the work before each statement, building it):")
            print(f"  {'statement':<52} {'count':>6} {'SQL ms':>8} {'Python ms':>10}")
            for kind, (count, sql_seconds, python_seconds) in part.kinds.items():
                print(f"  {kind:<52} {count:>6.0f} {sql_seconds * 1e3:>8.1f} {python_seconds * 1e3:>10.1f}")
            after = part.seconds - sum(sql + python for _, sql, python in part.kinds.values())
            print(f"  {'(Python after the last statement)':<52} {'':>6} {'':>8} {after * 1e3:>10.1f}")

    _heading("query plans (EXPLAIN (ANALYZE, BUFFERS), rolled back; the due rows are due again)")
    # Keep the breakdown's pending reminder e-mails: the missed-notification query then has rows to skip.
    _due_reset(layout, notifications=False)
    _plans()

    broker.flushdb()
    print(f"\nThe database {connection.settings_dict['NAME']!r} is left in place; --keep reuses it.")


def main() -> int:
    args = _arguments()
    config = postgres_config(args.database_url, script="bench/sweep.py")
    # The settings read these when Django sets up; DEBUG off so no query log slows the sweep down.
    os.environ["DJANGO_SETTINGS_MODULE"] = "wallsite.settings.base"
    os.environ["DATABASE_URL"] = args.database_url
    os.environ["DEBUG"] = "0"
    try:
        created = database_create(config)
    except Exception as exc:
        print(f"Setup failed: cannot reach PostgreSQL to create {config['NAME']!r}: {exc}", file=sys.stderr)
        return 1
    if created:
        print(f"Created database {config['NAME']!r}.")

    from wallsite.embedded_redis import free_port, redis_start, redis_stop

    process, directory = None, None
    if args.redis_url:
        redis_url = args.redis_url
        print(f"Publishing to {redis_url}: its database is emptied before each run.")
    else:
        directory = Path(tempfile.mkdtemp(prefix="wallsite-bench-redis-"))
        port = free_port()
        try:
            process = redis_start(port=port, directory=directory)
        except Exception as exc:
            print(f"Setup failed: cannot start an embedded Redis: {exc}", file=sys.stderr)
            return 1
        redis_url = f"redis://127.0.0.1:{port}/0"
    os.environ["REDIS_URL"] = redis_url
    try:
        _run(args, redis_url)
    finally:
        # Clean up before printing: a closed stdout (a pipe into head) must not leave Redis running.
        if process is not None:
            redis_stop(process)
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)
        if process is not None:
            print("Stopped the embedded Redis.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
