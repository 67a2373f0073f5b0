from __future__ import annotations

from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.conf import settings

        from games import tasks  # noqa: F401  (registers the tasks that games.dispatch sends by name)
        from games.engines import registry

        for entry in settings.EXTRA_ENGINES:
            slug, _, path = entry.partition("=")
            registry.register(slug.strip(), path.strip())
