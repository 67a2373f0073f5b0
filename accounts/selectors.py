"""Reads for the public profile: results, reliability and ratings of one player."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, F, IntegerField, OuterRef, Q, Subquery, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.models import User
from games.engines import registry
from games.models import Match, Seat, Turn
from games.selectors import matches_for_user
from games.timefmt import zone_for
from ratings.models import RatingChange
from ratings.selectors import ratings_for_user

RECENT_RESULTS = 15


@dataclass(frozen=True)
class Reliability:
    """How dependable a player is (after webDiplomacy's reliability rating): moves made before their
    deadline, turns lost to the clock, and matches left early.

    ``moves_timed`` counts the player's own moves on turns with a deadline (the computer's moves while
    it played for them are not theirs); a move after the deadline, before the expiry was processed, is
    late. A timeout is a turn whose clock ran out (a vacation day spent instead is not). A match left
    early is one the player was put out of for running out of time (``forfeited``)."""

    moves_timed: int
    moves_in_time: int
    timeouts: int
    matches_started: int
    forfeited: int
    resigned: int

    @property
    def turns_due(self) -> int:
        return self.moves_timed + self.timeouts

    @property
    def in_time_percent(self) -> float | None:
        return None if not self.turns_due else 100.0 * self.moves_in_time / self.turns_due

    @property
    def completed_percent(self) -> float | None:
        """Share of started matches the player did not abandon."""
        if not self.matches_started:
            return None
        return 100.0 * (self.matches_started - self.forfeited) / self.matches_started


def reliability_for(*, user: User) -> Reliability:
    timed = Turn.objects.filter(seat__user=user, closed_by="move", deadline__isnull=False).aggregate(
        total=Count("pk"), in_time=Count("pk", filter=Q(closed_at__lte=F("deadline")))
    )
    seats = Seat.objects.filter(user=user, match__started_at__isnull=False).aggregate(
        started=Count("pk"),
        timeouts=Coalesce(Sum("timeouts"), 0),
        forfeited=Count("pk", filter=Q(status=Seat.Status.FORFEITED)),
        resigned=Count("pk", filter=Q(status=Seat.Status.RESIGNED)),
    )
    return Reliability(
        moves_timed=timed["total"],
        moves_in_time=timed["in_time"],
        timeouts=seats["timeouts"],
        matches_started=seats["started"],
        forfeited=seats["forfeited"],
        resigned=seats["resigned"],
    )


@dataclass(frozen=True)
class GameRecord:
    game: str
    title: str
    played: int
    wins: int
    draws: int
    losses: int


def records_for(*, user: User) -> list[GameRecord]:
    """Finished matches per game: won (first alone), drawn (first, shared) and lost."""
    firsts = (
        Seat.objects.filter(match=OuterRef("match"), rank=1)
        .values("match")
        .annotate(count=Count("pk"))
        .values("count")
    )
    rows = (
        Seat.objects.filter(user=user, match__status=Match.Status.FINISHED)
        .annotate(firsts=Subquery(firsts, output_field=IntegerField()))
        .values("match__game")
        .annotate(
            played=Count("pk"),
            wins=Count("pk", filter=Q(rank=1, firsts=1)),
            draws=Count("pk", filter=Q(rank=1, firsts__gt=1)),
        )
        .order_by("-played", "match__game")
    )
    return [
        GameRecord(
            game=row["match__game"],
            title=_title(row["match__game"]),
            played=row["played"],
            wins=row["wins"],
            draws=row["draws"],
            losses=row["played"] - row["wins"] - row["draws"],
        )
        for row in rows
    ]


@dataclass(frozen=True)
class Result:
    match: Match
    seat: Seat
    outcome: str  # "won", "drew", "lost"
    place: str  # "1st of 4"
    rating_delta: float | None  # change of the cautious rating, when rated


def recent_results(*, user: User, limit: int = RECENT_RESULTS) -> list[Result]:
    seats = list(
        Seat.objects.filter(user=user, match__status=Match.Status.FINISHED)
        .select_related("match")
        .defer("match__engine_state", "match__rng_state", "match__public_view")
        .annotate(firsts=Count("match__seats", filter=Q(match__seats__rank=1)), count=Count("match__seats"))
        .order_by("-match__finished_at", "-match_id")[:limit]
    )
    changes = {
        change.match_id: change.ordinal_after - change.ordinal_before
        for change in RatingChange.objects.filter(user=user, match_id__in=[seat.match_id for seat in seats])
    }
    results = []
    for seat in seats:
        outcome = ("won" if seat.firsts == 1 else "drew") if seat.rank == 1 else "lost"
        place = f"{_ordinal(seat.rank)} of {seat.count}" if seat.rank else ""
        results.append(
            Result(
                match=seat.match,
                seat=seat,
                outcome=outcome,
                place=place,
                rating_delta=changes.get(seat.match_id),
            )
        )
    return results


def current_matches(*, user: User) -> list[Match]:
    """The matches in play or waiting for players, as ``games.selectors.matches_for_user`` orders them."""
    return [m for m in matches_for_user(user=user) if m.status in (Match.Status.ACTIVE, Match.Status.OPEN)]


def local_time(*, user: User) -> datetime:
    return timezone.now().astimezone(zone_for(user.time_zone))


def _title(game: str) -> str:
    try:
        return registry.get_engine(game).title
    except registry.UnknownGame:
        return game


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def profile_context(*, player: User, viewer: Any) -> dict[str, Any]:
    return {
        "player": player,
        "own_profile": viewer.is_authenticated and viewer.pk == player.pk,
        "matches": current_matches(user=player),
        "records": records_for(user=player),
        "results": recent_results(user=player),
        "reliability": reliability_for(user=player),
        "ratings": ratings_for_user(user=player),
        "local_time": local_time(user=player),
    }
