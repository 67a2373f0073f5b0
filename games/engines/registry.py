"""Game slug -> dotted path of its engine class; an engine is imported on first use only."""

from __future__ import annotations

from functools import cache
from importlib import import_module

from games.engines.base import Engine

ENGINES: dict[str, str] = {
    "wallgo": "games.engines.wallgo.rules.WallGo",
    "stairways": "games.engines.stairways.rules.Stairways",
    "thewall": "games.engines.thewall.rules.TheWall",
    "wildlings": "games.engines.wildlings.rules.Wildlings",
    "greatwall": "games.engines.greatwall.rules.GreatWall",
}


class UnknownGame(LookupError):
    pass


@cache
def get_engine(slug: str) -> Engine:
    try:
        path = ENGINES[slug]
    except KeyError:
        raise UnknownGame(f"There is no game called {slug!r}.") from None
    module_name, class_name = path.rsplit(".", 1)
    return getattr(import_module(module_name), class_name)()


def slugs() -> list[str]:
    return list(ENGINES)


def choices() -> list[tuple[str, str]]:
    return [(slug, get_engine(slug).title) for slug in ENGINES]


def register(slug: str, path: str) -> None:
    """Add an engine at run time (the tests register small engines of their own)."""
    ENGINES[slug] = path
    get_engine.cache_clear()


def unregister(slug: str) -> None:
    ENGINES.pop(slug, None)
    get_engine.cache_clear()
