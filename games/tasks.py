"""Celery tasks: each loads by id and calls a service, which re-checks everything under a row lock,
so a task delivered twice (a retry, a redelivery after a worker died) has the effect of once."""

from __future__ import annotations

import logging
from collections.abc import Callable

from celery import shared_task
from django.utils import timezone

from games import dispatch, notifications, sweep
from games.errors import NotFound
from games.services import analysing, clocks, playing

log = logging.getLogger(__name__)


@shared_task(name="games.sweep")
def sweep_task() -> dict[str, int]:
    return sweep.sweep_run().as_dict()


@shared_task(name="games.turns_expire")
def turns_expire(turn_ids: list[int]) -> dict[str, int]:
    return _each(turn_ids, lambda turn_id: clocks.turn_expire(turn_id=turn_id))


@shared_task(name="games.chance_resolve")
def chance_resolve(match_id: int, version: int) -> int | None:
    try:
        move = playing.chance_resolve(match_id=match_id, version=version)
    except NotFound:
        return None
    return move.seq if move else None


@shared_task(name="games.bot_move")
def bot_move(match_id: int, version: int, position: int) -> int | None:
    try:
        move = playing.bot_move(match_id=match_id, version=version, position=position)
    except NotFound:
        return None
    return move.seq if move else None


@shared_task(name="games.analysis_run")
def analysis_run(match_id: int) -> str | None:
    """A finished match's analysis, on the "bots" queue: seconds to a minute of search."""
    analysis = analysing.analysis_run(match_id=match_id)
    return analysis.status if analysis else None


@shared_task(name="games.notifications_send")
def notifications_send(notification_ids: list[int]) -> dict[str, int]:
    return _each(notification_ids, lambda pk: notifications.notification_send(notification_id=pk))


# At most this many e-mails per flush; the next flush or the sweep sends the rest.
FLUSH_LIMIT = 1000


@shared_task(name="games.notifications_flush")
def notifications_flush() -> dict[str, int]:
    """Send every notification due by now: one task for the e-mails of many moves (see
    dispatch.notifications_enqueue_on_commit). The flag goes first, so that a row committed while this
    runs either is read below or queues the next flush."""
    dispatch.notifications_flush_started()
    ids = notifications.pending_ids(due_by=timezone.now(), limit=FLUSH_LIMIT)
    return _each(ids, lambda pk: notifications.notification_send(notification_id=pk))


def _each(ids: list[int], work: Callable[[int], str]) -> dict[str, int]:
    """Run ``work`` for every id, each in its own transaction: one failure does not stop the others
    (what it left undone stays due, and the sweep queues it again)."""
    tally: dict[str, int] = {}
    for item in ids:
        try:
            outcome = work(item).split(":")[0]
        except Exception:
            log.exception("Task step failed for id %s; the sweep will queue it again.", item)
            outcome = "error"
        tally[outcome] = tally.get(outcome, 0) + 1
    return tally
