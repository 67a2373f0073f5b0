from __future__ import annotations

from django.apps import AppConfig


class LeaguesConfig(AppConfig):
    name = "leagues"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from leagues import receivers, tasks  # noqa: F401  (connects the games signals; registers the tasks)
