from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from games.engines import registry
from ratings import services


class Command(BaseCommand):
    help = "Rebuild the ratings of one game (or every game) from its finished rated matches."

    def add_arguments(self, parser) -> None:
        parser.add_argument("games", nargs="*", help="Game slugs; none for every game.")

    def handle(self, *args, games: list[str], **options) -> None:
        for game in games or registry.slugs():
            if game not in registry.ENGINES:
                raise CommandError(f"There is no game called {game!r}.")
            count = services.game_ratings_rebuild(game=game)
            self.stdout.write(f"{game}: {count} rated match(es) replayed.")
