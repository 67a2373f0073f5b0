"""The Celery app: broker and results on Redis (``REDIS_URL``), tasks acknowledged after they run."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wallsite.settings.base")

app = Celery("wallsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
