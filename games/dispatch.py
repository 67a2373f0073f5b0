"""Putting work on the queue without ever failing the caller.

The database already records every piece of owed work (an open turn past its deadline, a match whose
``work_due_at`` is set, a pending notification), so when Redis is unreachable the work is only
delayed: the next sweep queues it again.
"""

from __future__ import annotations

import logging
from typing import NamedTuple

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
