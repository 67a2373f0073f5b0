"""Celery tasks of the moderation app (beat runs suspensions_expire every minute: see apps.py)."""

from __future__ import annotations

from celery import shared_task

from moderation import services


@shared_task(name="moderation.suspensions_expire")
def suspensions_expire() -> int:
    return services.suspensions_expire()
