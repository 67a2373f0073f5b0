"""Putting work on the queue without ever failing the caller.

The database already records every piece of owed work (an open turn past its deadline, a match whose
``work_due_at`` is set, a pending notification), so when Redis is unreachable the work is only
delayed: the next sweep queues it again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import suppress
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from games import rows
from games.models import Flag

log = logging.getLogger(__name__)


class Work(NamedTuple):
    kind: str  # "chance" or "bot"
    match_id: int
    version: int
    position: int | None = None


def work_enqueue(work: list[Work]) -> bool:
    from games import tasks

    def send() -> None:
        for item in work:
            if item.kind == "chance":
                tasks.chance_resolve.delay(item.match_id, item.version)
            else:
                tasks.bot_move.delay(item.match_id, item.version, item.position)

    return enqueue_safely(send, what=f"{len(work)} automatic step(s)")


# Ids per task message: one message per hundred items keeps a sweep of thousands to tens of messages.
BATCH = 100


def turns_expire_enqueue(turn_ids: list[int]) -> bool:
    from games import tasks

    return enqueue_safely(lambda: _batches(tasks.turns_expire, turn_ids), what=f"{len(turn_ids)} expiries")


def notifications_enqueue(ids: list[int]) -> bool:
    from games import tasks

    return enqueue_safely(lambda: _batches(tasks.notifications_send, ids), what=f"{len(ids)} notification(s)")


def notifications_flush_on_commit(ids: list[int] | Callable[[], list[int]]) -> None:
    """Have the rows of the transaction under way sent once it commits, together with any others then
    pending. Never raises after the commit: a broker outage must not turn a saved move into an error
    page; the rows stay pending and the sweep sends them. ``ids`` may be a function that gives them
    after the commit, for rows whose ids only the commit gives (rows.Writes.flush_at_commit).

    With ``NOTIFY_COALESCE`` off, the commit queues its own ids. On, it queues one flush task, which
    sends every pending row, unless a flush is already queued and not yet started: that one will find
    these rows too. The flag that says so is a row of ``Flag``, tested and set after the commit (on
    PostgreSQL in the COMMIT's own round trip) and cleared by the flush before it reads the rows. Under
    load, one message then serves many moves, and most moves publish nothing.
    """
    if settings.NOTIFY_COALESCE:
        transaction.on_commit(_FlushAfterCommit(ids))
    else:
        transaction.on_commit(lambda: notifications_enqueue(_resolved(ids)))


def _resolved(ids: list[int] | Callable[[], list[int]]) -> list[int]:
    return ids() if callable(ids) else ids


class _FlushAfterCommit:
    """The commit hook: queues a flush if this commit is the one that raised the flag."""

    def __init__(self, ids: list[int] | Callable[[], list[int]]) -> None:
        self.ids = ids
        self.raised_at = timezone.now()
        self.with_commit = _flag_raise(self.raised_at)  # run in the COMMIT's round trip where it can be
        self.committed_counts: list[int] | None = None

    def __call__(self) -> None:
        enqueue_safely(self._send, what=f"{len(_resolved(self.ids))} notification(s)")

    def _send(self) -> None:
        from games import tasks

        counts = self.committed_counts
        if counts is None:  # not run with the commit (SQLite, or it failed there): run them now
            self.raised_at = timezone.now()
            with connection.cursor() as cursor:
                for sql, params in _flag_raise(self.raised_at):
                    cursor.execute(sql, params)
                counts = [cursor.rowcount]
        if counts[-1] != 1:
            return  # the flag stood: the queued flush will find these rows
        try:
            tasks.notifications_flush.delay()
        except Exception:
            # No flush is queued after all: let the next commit try again rather than wait.
            with suppress(Exception):
                Flag.objects.filter(name=FLUSH_QUEUED, set_at=self.raised_at).delete()
            raise


def _flag_raise(now: datetime) -> list[tuple[str, list[Any]]]:
    """Raise the flag unless it stands: the row count is 1 for the one caller that raised it. Prepared
    on PostgreSQL, where it runs with every move's COMMIT: unprepared, it cost the server as much
    again as the COMMIT itself."""
    quote = connection.ops.quote_name
    table, name, set_at = quote(Flag._meta.db_table), quote("name"), quote("set_at")
    # Only quoted names of the model's own go into the text; the values are parameters.
    sql = f"INSERT INTO {table} ({name}, {set_at}) VALUES (%s, %s) ON CONFLICT ({name}) DO NOTHING"  # nosec B608
    return [(rows.prepared(connection, sql), [FLUSH_QUEUED, connection.ops.adapt_datetimefield_value(now)])]


def notifications_flush_started() -> None:
    """Called by the flush before it reads the pending rows: a commit from now on queues another."""
    try:
        Flag.objects.filter(name=FLUSH_QUEUED).delete()
    except Exception as exc:  # the flag then goes stale by itself; the rows are sent all the same
        log.warning("Could not clear the notification flag (%s).", exc)


def notifications_flag_clear_stale(*, now: datetime) -> bool:
    """Take down a flag that has stood too long: its flush was lost (a Redis restarted empty, a
    message dropped). Called by the sweep, which meanwhile queues what that flush would have sent."""
    return bool(Flag.objects.filter(name=FLUSH_QUEUED, set_at__lt=now - FLUSH_FLAG_AGE).delete()[0])


FLUSH_QUEUED = "notifications-flush-queued"
FLUSH_FLAG_AGE = timedelta(seconds=60)


def _batches(task, ids: list[int]) -> None:
    for start in range(0, len(ids), BATCH):
        task.delay(ids[start : start + BATCH])


def enqueue_safely(send, *, what: str) -> bool:
    """Run ``send``; if the broker cannot be reached, log it and report False instead of raising."""
    try:
        send()
    except Exception as exc:  # kombu, redis and socket errors differ by transport; all mean the same here
        log.warning("Could not queue %s (%s); the sweep will queue it again.", what, exc)
        return False
    return True
