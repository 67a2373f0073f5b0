"""Putting work on the queue without ever failing the caller.

The database already records every piece of owed work (an open turn past its deadline, a match whose
``work_due_at`` is set, a pending notification), so when Redis is unreachable the work is only
delayed: the next sweep queues it again.

Tasks are sent by their registered names (games/tasks.py), so that the code that queues work never
imports the tasks, which import the services that queue it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import suppress
from typing import Any, NamedTuple

from celery import current_app
from django.conf import settings
from django.core.cache import cache
from django.db import transaction

log = logging.getLogger(__name__)


class Work(NamedTuple):
    kind: str  # "chance" or "bot"
    match_id: int
    version: int
    position: int | None = None


def task_send(name: str, *args: Any) -> None:
    """Queue the task registered as ``name``; run in place where tasks run eagerly (the test suite)."""
    current_app.signature(name, args=args).delay()


def work_enqueue(work: list[Work]) -> bool:
    def send() -> None:
        for item in work:
            if item.kind == "chance":
                task_send("games.chance_resolve", item.match_id, item.version)
            else:
                task_send("games.bot_move", item.match_id, item.version, item.position)

    return enqueue_safely(send, what=f"{len(work)} automatic step(s)")


# Ids per task message: one message per hundred items keeps a sweep of thousands to tens of messages.
BATCH = 100


def turns_expire_enqueue(turn_ids: list[int]) -> bool:
    return enqueue_safely(lambda: _batches("games.turns_expire", turn_ids), what=f"{len(turn_ids)} expiries")


def notifications_enqueue(ids: list[int]) -> bool:
    return enqueue_safely(
        lambda: _batches("games.notifications_send", ids), what=f"{len(ids)} notification(s)"
    )


def notifications_enqueue_on_commit(ids: list[int]) -> None:
    """Have the rows of the transaction under way sent once it commits. Never raises after the commit:
    a broker outage must not turn a saved move into an error page; the rows stay pending and the sweep
    sends them.

    With ``NOTIFY_COALESCE`` (production's default), the commit queues one flush task, which sends every
    row then pending, unless a flush is already queued and not yet started: that one will find these
    rows too. A cache entry says so (``cache.add`` sets it for one caller only); the flush deletes it
    before it reads the rows. Under load one task serves many moves, and a turn played before the flush
    runs is not mailed at all. Off, each commit queues its own rows.
    """
    if ids:
        transaction.on_commit(lambda: _notifications_queue(ids))


def _notifications_queue(ids: list[int]) -> bool:
    if not settings.NOTIFY_COALESCE:
        return notifications_enqueue(ids)

    def send() -> None:
        try:
            raised = cache.add(FLUSH_QUEUED, True, timeout=FLUSH_FLAG_SECONDS)
        except Exception:  # the cache is away: queue a flush all the same
            raised = True
        if raised:
            try:
                task_send("games.notifications_flush")
            except Exception:
                # No flush is queued after all: let the next commit try again rather than wait.
                with suppress(Exception):
                    cache.delete(FLUSH_QUEUED)
                raise

    return enqueue_safely(send, what=f"{len(ids)} notification(s)")


def notifications_flush_started() -> None:
    """Called by the flush before it reads the pending rows: a commit from now on queues another."""
    try:
        cache.delete(FLUSH_QUEUED)
    except Exception as exc:  # the entry then expires by itself; the rows are sent all the same
        log.warning("Could not clear the notification flush flag (%s).", exc)


FLUSH_QUEUED = "games:notifications:flush-queued"
# Should a queued flush be lost (a Redis restarted empty, a message dropped), commits queue flushes again
# after this long; the sweep sends what waited meanwhile.
FLUSH_FLAG_SECONDS = 60


def _batches(name: str, ids: list[int]) -> None:
    for start in range(0, len(ids), BATCH):
        task_send(name, ids[start : start + BATCH])


def enqueue_safely(send: Callable[[], None], *, what: str) -> bool:
    """Run ``send``; if the broker cannot be reached, log it and report False instead of raising."""
    try:
        send()
    except Exception as exc:  # kombu, redis and socket errors differ by transport; all mean the same here
        log.warning("Could not queue %s (%s); the sweep will queue it again.", what, exc)
        return False
    return True
