"""Putting work on the queue without ever failing the caller.

The database already records every piece of owed work (an open turn past its deadline, a match whose
``work_due_at`` is set, a pending notification), so when Redis is unreachable the work is only
delayed: the next sweep queues it again.
"""

from __future__ import annotations

import logging
import time
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

    A flush starts ``FLUSH_DELAY_SECONDS`` after it was queued, never sooner, so a flag stands at least
    that long: a process that has seen it set skips Redis altogether until then (``_flag_stands``).
    """
    if not settings.NOTIFY_COALESCE:
        return notifications_enqueue(ids)
    from games import tasks

    def send() -> None:
        url = _broker_url()
        now = time.monotonic()
        if now < _flag_stands.get(url, 0.0):
            return  # a flush that has not started yet will read these rows
        left_ms = _flag_set(url)
        if left_ms == _FLAG_SET_NOW:
            try:
                tasks.notifications_flush.apply_async(countdown=FLUSH_DELAY_SECONDS)
            except Exception:
                # No flush is queued after all: let the next commit try again rather than wait.
                with suppress(Exception):
                    _redis_at(url).delete(FLUSH_QUEUED)
                raise
            age = 0.0
        elif left_ms > 0:
            age = FLUSH_FLAG_SECONDS - left_ms / 1000
        else:
            return  # cleared or expired in between: nothing is known
        _flag_stands[url] = now + FLUSH_DELAY_SECONDS - age - FLUSH_DELAY_MARGIN

    return enqueue_safely(send, what=f"{len(ids)} notification(s)")


def notifications_flush_started() -> None:
    """Called by the flush before it reads the pending rows: a commit from now on queues another."""
    try:
        _redis_at(_broker_url()).delete(FLUSH_QUEUED)
    except Exception as exc:  # the flag then expires by itself; the rows are sent all the same
        log.warning("Could not clear the notification flag (%s).", exc)


FLUSH_QUEUED = "wallsite:notifications:flush-queued"
# Should a queued flush be lost (Redis restarted empty keeps neither it nor the flag, but a lost
# message alone would leave the flag), commits queue flushes again after this long; the sweep covers
# the gap.
FLUSH_FLAG_SECONDS = 60
# A queued flush waits this long before it starts: an e-mail goes out at most this much later, and
# each web process asks Redis about the flag about once per this time instead of on every move.
FLUSH_DELAY_SECONDS = 1.0
# Taken off what is known of a flag's life, for the rounding of its time to live and of the flush's
# start time. That start time is the worker's clock; one running ahead of the web's by more than this
# may start a flush early, and a row it misses then goes with the sweep.
FLUSH_DELAY_MARGIN = 0.1
# Broker URL -> until when (this process's monotonic clock) a flag is known to stand there.
_flag_stands: dict[str, float] = {}

# Set the flag unless it is there; if it is, say how long it has left to live: one round trip.
_FLAG_SET = """
if redis.call('SET', KEYS[1], 1, 'NX', 'EX', ARGV[1]) then return -3 end
return redis.call('PTTL', KEYS[1])
"""
_FLAG_SET_NOW = -3  # PTTL itself answers -2 (no such key) or -1 (no expiry)


def _flag_set(url: str) -> int:
    """``_FLAG_SET`` on the broker at ``url``: _FLAG_SET_NOW, or the standing flag's PTTL."""
    return int(_flag_script(url)(keys=[FLUSH_QUEUED], args=[FLUSH_FLAG_SECONDS]))


@cache
def _flag_script(url: str):
    return _redis_at(url).register_script(_FLAG_SET)


def _broker_url() -> str:
    from wallsite.celery import app

    return app.conf.broker_url


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
