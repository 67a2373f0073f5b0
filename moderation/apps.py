from __future__ import annotations

from datetime import timedelta

from django.apps import AppConfig

# Suspensions run out on their own: this often, a task lifts those whose time is up.
LIFT_EVERY = timedelta(minutes=1)


class ModerationConfig(AppConfig):
    name = "moderation"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from moderation import signals  # noqa: F401  (connects the login-refusal message)

        # Beat's schedule belongs to the settings; the moderation app adds its own entry rather than
        # asking every deployment to list it.
        from wallsite.celery import app

        app.conf.beat_schedule = {
            **(app.conf.beat_schedule or {}),
            "moderation-suspensions": {
                "task": "moderation.suspensions_expire",
                "schedule": LIFT_EVERY.total_seconds(),
            },
        }
