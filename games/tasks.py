"""Celery tasks: each loads by id and calls a service, which re-checks everything under a row lock,
so a task delivered twice (a retry, a redelivery after a worker died) has the effect of once."""

from __future__ import annotations

from celery import shared_task

from games import notifications, services, sweep


@shared_task(name="games.sweep")
def sweep_task() -> dict[str, int]:
    return sweep.sweep_run().as_dict()


@shared_task(name="games.turn_expire")
def turn_expire(turn_id: int) -> str:
    return services.turn_expire(turn_id=turn_id)


@shared_task(name="games.chance_resolve")
def chance_resolve(match_id: int, version: int) -> int | None:
    move = services.chance_resolve(match_id=match_id, version=version)
    return move.seq if move else None


@shared_task(name="games.bot_move")
def bot_move(match_id: int, version: int, position: int) -> int | None:
    move = services.bot_move(match_id=match_id, version=version, position=position)
    return move.seq if move else None


@shared_task(name="games.notification_send")
def notification_send(notification_id: int) -> str:
    return notifications.notification_send(notification_id=notification_id)
