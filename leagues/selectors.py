"""Reads for the league pages."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, F, Prefetch, QuerySet

from games.errors import NotFound
from leagues.models import Division, Entry, Fixture, FixturePlayer, League, Season

TIE_BREAKS = [
    "Points (by place in each match; tied players share the points of the places they cover).",
    "Outright wins.",
    "Sonneborn-Berger: the final points of every player you finished ahead of, plus half of those of "
    "every player you tied with.",
    "Fewer forfeits (matches lost by running out of time or by leaving).",
    "The earlier sign-up.",
]


def leagues_list() -> QuerySet[League]:
    # Closed leagues keep their pages (their seasons' results), below the open ones.
    return League.objects.annotate(season_count=Count("seasons")).order_by(
        F("closed_at").desc(nulls_first=True), "name"
    )


def league_get(*, slug: str) -> League:
    league = League.objects.select_related("created_by").filter(slug=slug).first()
    if league is None:
        raise NotFound("There is no such league.")
    return league


@dataclass
class DivisionPage:
    division: Division
    standings: list[Entry]
    rounds: list[tuple[int, list[Fixture]]] = field(default_factory=list)


@dataclass
class SeasonPage:
    season: Season
    entries: list[Entry]  # sign-ups, before the start
    divisions: list[DivisionPage]


def season_page(*, league: League, number: int | None) -> SeasonPage | None:
    """One season (the latest when ``number`` is None) with its standings and fixtures by round."""
    seasons = league.seasons.all()
    season = (
        seasons.filter(number=number).first() if number is not None else seasons.order_by("-number").first()
    )
    if season is None:
        if number is not None:
            raise NotFound("There is no such season.")
        return None
    entries = list(season.entries.select_related("user").order_by("signed_up_at", "pk"))
    players = Prefetch("players", queryset=FixturePlayer.objects.select_related("user").order_by("position"))
    pages = []
    for division in season.divisions.order_by("level"):
        standings = list(division.entries.select_related("user").order_by("position", "signed_up_at"))
        fixtures = (
            division.fixtures.select_related("match")
            .defer("match__engine_state", "match__rng_state", "match__public_view")
            .prefetch_related(players)
            .order_by("round", "table")
        )
        rounds: dict[int, list[Fixture]] = {}
        for fixture in fixtures:
            rounds.setdefault(fixture.round, []).append(fixture)
        pages.append(DivisionPage(division=division, standings=standings, rounds=sorted(rounds.items())))
    return SeasonPage(season=season, entries=entries, divisions=pages)
