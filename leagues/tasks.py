"""Celery tasks for leagues: thin, and safe to run twice (the services claim their work)."""

from __future__ import annotations

from celery import shared_task

from leagues import services


@shared_task(name="leagues.tick")
def tick() -> dict[str, int]:
    return services.seasons_tick()


@shared_task(name="leagues.season_start")
def season_start(season_id: int) -> str:
    return services.season_start(season_id=season_id)
