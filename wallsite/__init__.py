from __future__ import annotations

from wallsite.celery import app as celery_app

__all__ = ("celery_app",)
