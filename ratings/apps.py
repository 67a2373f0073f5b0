from __future__ import annotations

from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from ratings import receivers  # noqa: F401  (connects the games signals)
