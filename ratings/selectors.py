"""Reads for the leaderboards and the profile pages."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.utils import timezone

from games.engines import registry
from ratings import chart
from ratings.models import Rating, RatingChange


def leaderboard(*, game: str) -> QuerySet[Rating]:
    """The game's rated players, best cautious rating (mu - 3 sigma) first; closed accounts left out."""
    return (
        Rating.objects.filter(game=game, user__is_active=True)
        .select_related("user")
        .order_by("-ordinal", "-matches", "user__username")
    )


def rated_games() -> list[tuple[str, str]]:
    """(slug, title) of every game in the registry, for the leaderboards' index."""
    return [(slug, registry.get_engine(slug).title) for slug in registry.slugs()]


@dataclass(frozen=True)
class GameRating:
    game: str
    title: str
    rating: Rating
    rank: int  # place on the game's leaderboard
    history: list[RatingChange]
    svg: str


def ratings_for_user(*, user: AbstractBaseUser) -> list[GameRating]:
    """Each game the user is rated in, with the leaderboard place, the history and its chart."""
    rows = list(Rating.objects.filter(user=user).order_by("-matches", "game"))
    changes: dict[str, list[RatingChange]] = {}
    for change in (
        RatingChange.objects.filter(user=user).select_related("match").order_by("finished_at", "match_id")
    ):
        changes.setdefault(change.game, []).append(change)
    result = []
    for row in rows:
        if row.game not in registry.ENGINES:
            continue
        title = registry.get_engine(row.game).title
        history = changes.get(row.game, [])
        better = Rating.objects.filter(game=row.game, user__is_active=True, ordinal__gt=row.ordinal).count()
        result.append(
            GameRating(
                game=row.game,
                title=title,
                rating=row,
                rank=better + 1,
                history=history,
                svg=chart.history_svg(
                    _points(history),
                    title=f"{title} rating history of {user.get_username()}",
                    chart_id=f"rating-chart-{row.game}",
                ),
            )
        )
    return result


def _points(history: list[RatingChange]) -> list[chart.Point]:
    """The starting rating, then the rating after each match."""
    if not history:
        return []
    first = history[0]
    points = [
        chart.Point(at=timezone.localtime(first.finished_at), mu=first.mu_before, sigma=first.sigma_before)
    ]
    points += [
        chart.Point(at=timezone.localtime(c.finished_at), mu=c.mu_after, sigma=c.sigma_after) for c in history
    ]
    return points
