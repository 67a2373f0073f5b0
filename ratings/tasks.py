"""Ratings' Celery tasks: load by id, call a service that re-checks everything under the game's board
lock, so a task delivered twice counts its match once."""

from __future__ import annotations

from celery import shared_task

from ratings import services


@shared_task(name="ratings.match_rate")
def match_rate(match_id: int) -> bool:
    return services.match_rate_by_id(match_id=match_id) is not None


@shared_task(name="ratings.catch_up")
def catch_up() -> int:
    return services.unrated_rate()
