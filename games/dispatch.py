"""Putting work on the queue without ever failing the caller.

The database already records every piece of owed work (an open turn past its deadline, a match whose
``work_due_at`` is set, a pending notification), so when Redis is unreachable the work is only
delayed: the next sweep queues it again.
"""

from __future__ import annotations

import logging
from contextlib import suppress
from functools import cache
from typing import NamedTuple

from django.conf import settings

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


def notifications_enqueue_soon(ids: list[int]) -> bool:
    """Have the rows of a commit that just happened sent, together with any others then pending.

    With ``NOTIFY_COALESCE`` off, each commit queues its own ids. On, a commit queues one flush task,
    which sends every pending row, unless a flush is already queued and not yet started: that one will
    find these rows too. The flag that says so lives in the broker's Redis (set here, cleared by the
    flush before it reads the rows). Under load, one message then serves many moves, and most moves
    skip the publish, which costs a web process more than the rest of the move's bookkeeping.
    """
    if not settings.NOTIFY_COALESCE:
        return notifications_enqueue(ids)
    from games import tasks

    def send() -> None:
        flag = _flag()
        if flag.set(FLUSH_QUEUED, 1, nx=True, ex=FLUSH_FLAG_SECONDS):
            try:
                tasks.notifications_flush.delay()
            except Exception:
                # No flush is queued after all: let the next commit try again rather than wait.
                with suppress(Exception):
                    flag.delete(FLUSH_QUEUED)
                raise

    return enqueue_safely(send, what=f"{len(ids)} notification(s)")


def notifications_flush_started() -> None:
    """Called by the flush before it reads the pending rows: a commit from now on queues another."""
    try:
        _flag().delete(FLUSH_QUEUED)
    except Exception as exc:  # the flag then expires by itself; the rows are sent all the same
        log.warning("Could not clear the notification flag (%s).", exc)


FLUSH_QUEUED = "wallsite:notifications:flush-queued"
# Should a queued flush be lost (Redis restarted empty keeps neither it nor the flag, but a lost
# message alone would leave the flag), commits queue flushes again after this long; the sweep covers
# the gap.
FLUSH_FLAG_SECONDS = 60


def _flag():
    from wallsite.celery import app

    return _redis_at(app.conf.broker_url)


@cache
def _redis_at(url: str):
    import redis

    # Short timeouts: with Redis away, a move must still be answered at once (the sweep sends later).
    return redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)


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
