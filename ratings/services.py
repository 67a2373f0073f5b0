"""Writes to ratings: a finished match is counted once, a voided one is taken out again.

A finished match is counted by a worker once the match's last move has committed (``match_rate_by_id``,
queued by ``ratings.receivers``; ``unrated_rate`` catches up on lost tasks); a void is withdrawn inside
the moderator's transaction. Every change of a game's ratings first locks that game's ``RatingBoard``
row, so two matches of one game finishing at once are rated one after the other.

The ratings of a game are always what replaying its ``RatedMatch`` rows in order (finishing time,
then match id) gives. A match that finishes in order is applied at once; one that lands before
results already counted (a re-adjudication keeps its old finishing time) and a voided one make the
game's ratings be replayed from its history, which is deterministic.

Who plays whom: a game may group its seats into teams by giving its engine a ``teams(seat_count)``
method returning lists of seat positions (The Wall: ``[[0, 2], [1, 3]]``), or None for every seat on
its own. A team ranks as its best member still playing. A seat that resigned or forfeited (timeouts
included) is rated on its own below everyone still playing, so a lost position cannot be escaped by
letting the clock run, even when a partner goes on to win. Computer seats have no rating and are left
out; a result needs people on at least two sides to count.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from games.models import Match, Seat
from ratings import skill
from ratings.models import RatedMatch, Rating, RatingBoard, RatingChange

log = logging.getLogger(__name__)


def match_rate(*, match: Match) -> RatedMatch | None:
    """Count a finished rated match in its game's ratings; a second call for it does nothing."""
    if not match.rated or match.status != Match.Status.FINISHED:
        return None
    seats = list(Seat.objects.filter(match_id=match.pk).order_by("position"))
    teams = result_teams(match=match, seats=seats)
    if teams is None:
        return None
    with transaction.atomic():
        _lock_board(match.game)
        if RatedMatch.objects.filter(match_id=match.pk).exists():
            return None
        finished_at = match.finished_at or timezone.now()
        rated = RatedMatch.objects.create(match=match, game=match.game, finished_at=finished_at, teams=teams)
        later = RatedMatch.objects.filter(game=match.game).filter(
            Q(finished_at__gt=finished_at) | Q(finished_at=finished_at, match_id__gt=match.pk)
        )
        if later.exists():
            _replay(match.game)
        else:
            _apply_one(rated)
    return rated


def match_rate_by_id(*, match_id: int) -> RatedMatch | None:
    """Count a finished match, read after its game's board is locked: a void that committed first is
    seen, and one still under way waits and then withdraws what this counted."""
    game = Match.objects.filter(pk=match_id).values_list("game", flat=True).first()
    if game is None:
        return None
    with transaction.atomic():
        _lock_board(game)
        match = Match.objects.defer(*_UNUSED).filter(pk=match_id).first()
        return match_rate(match=match) if match is not None else None


# How far back the catch-up looks for finished matches that no rating counts yet.
CATCH_UP_WINDOW = timedelta(days=2)


def unrated_rate(*, now: datetime | None = None, limit: int = 200) -> int:
    """Rate the recent finished matches that were left out (their task was lost while the queue was
    away, or failed); returns how many now count. Tables with fewer than two people never count and
    are not looked at; the rare match that still cannot count (all its people on one side) is looked at
    again on each call within the window."""
    now = now or timezone.now()
    left_out = (
        Match.objects.filter(status=Match.Status.FINISHED, rated=True, finished_at__gte=now - CATCH_UP_WINDOW)
        .exclude(pk__in=RatedMatch.objects.values("match_id"))
        .annotate(people=Count("seats", filter=Q(seats__user__isnull=False)))
        .filter(people__gte=2)
        .order_by("finished_at", "pk")
        .values_list("pk", flat=True)[:limit]
    )
    counted = 0
    for match_id in list(left_out):
        try:
            counted += match_rate_by_id(match_id=match_id) is not None
        except Exception:  # one bad match must not hold up the others; the next tick tries it again
            log.exception("Rating match %s failed; the next tick tries again.", match_id)
    return counted


def match_unrate(*, match: Match) -> bool:
    """Withdraw a match's effect on the ratings (a moderator voided it); False if it never counted."""
    with transaction.atomic():
        _lock_board(match.game)
        deleted, _ = RatedMatch.objects.filter(match_id=match.pk).delete()
        if not deleted:
            return False
        _replay(match.game)
    return True


def game_ratings_rebuild(*, game: str) -> int:
    """Rebuild a game's ratings from the matches themselves: every finished rated match counts with the
    result its seats hold now, nothing else does. A repair tool; returns how many matches count."""
    with transaction.atomic():
        _lock_board(game)
        RatedMatch.objects.filter(game=game).delete()
        finished = Match.objects.filter(game=game, status=Match.Status.FINISHED, rated=True).defer(*_UNUSED)
        for match in (
            finished.prefetch_related("seats").order_by("finished_at", "pk").iterator(chunk_size=200)
        ):
            teams = result_teams(match=match, seats=sorted(match.seats.all(), key=lambda seat: seat.position))
            if teams is not None:
                RatedMatch.objects.create(
                    match=match, game=game, finished_at=match.finished_at or match.updated_at, teams=teams
                )
        return _replay(game)


def result_teams(*, match: Match, seats: list[Seat]) -> list[dict[str, Any]] | None:
    """The result as rated: ``[{"users": [...], "rank": r}, ...]``, or None when it cannot count."""
    by_position = {seat.position: seat for seat in seats}
    if any(seat.rank is None for seat in seats):
        return None
    groups = _declared_teams(match, set(by_position))
    teams: list[dict[str, Any]] = []
    for group in groups:
        members = [by_position[position] for position in group]
        playing = [seat for seat in members if seat.status == Seat.Status.PLAYING and seat.user_id]
        if playing:
            teams.append({"users": sorted(s.user_id for s in playing), "rank": min(s.rank for s in playing)})
        for seat in members:
            if seat.status != Seat.Status.PLAYING and seat.user_id:
                teams.append({"users": [seat.user_id], "rank": seat.rank})
    if len(teams) < 2:
        return None
    return sorted(teams, key=lambda team: (team["rank"], team["users"]))


def _declared_teams(match: Match, positions: set[int]) -> list[list[int]]:
    hook = getattr(match.engine, "teams", None)
    declared = hook(match.seat_count) if callable(hook) else None
    if declared is not None:
        flat = [position for team in declared for position in team]
        if sorted(flat) == sorted(positions):
            return [sorted(team) for team in declared if team]
        # A wrong declaration must not stop the match from finishing: rate every seat on its own.
        log.warning(
            "Game %s declared teams %r for %s seats; rating seats singly.", match.game, declared, positions
        )
    return [[position] for position in sorted(positions)]


# --- internals --------------------------------------------------------------------------------------

# A match's position and RNG, which rating never reads.
_UNUSED = ("engine_state", "rng_state", "public_view")


def _lock_board(game: str) -> None:
    RatingBoard.objects.get_or_create(game=game)
    RatingBoard.objects.select_for_update().get(game=game)


def _step(rated: RatedMatch, current: dict[int, skill.Skill]) -> list[RatingChange]:
    """The changes one result makes to ``current`` (user id -> skill), which it updates in place."""
    teams = rated.teams
    before = [[current.get(user, skill.initial()) for user in team["users"]] for team in teams]
    after = skill.rate(before, [team["rank"] for team in teams])
    changes = []
    for team, old_skills, new_skills in zip(teams, before, after, strict=True):
        for user, old, new in zip(team["users"], old_skills, new_skills, strict=True):
            current[user] = new
            changes.append(
                RatingChange(
                    rated_match=rated,
                    match_id=rated.match_id,
                    user_id=user,
                    game=rated.game,
                    rank=team["rank"],
                    mu_before=old.mu,
                    sigma_before=old.sigma,
                    mu_after=new.mu,
                    sigma_after=new.sigma,
                    ordinal_after=new.ordinal,
                    finished_at=rated.finished_at,
                )
            )
    return changes


def _apply_one(rated: RatedMatch) -> None:
    users = [user for team in rated.teams for user in team["users"]]
    rows = {row.user_id: row for row in Rating.objects.filter(game=rated.game, user_id__in=users)}
    current = {user: skill.Skill(mu=row.mu, sigma=row.sigma) for user, row in rows.items()}
    changes = _step(rated, current)
    RatingChange.objects.bulk_create(changes)
    _store(
        rated.game, current, counts={user: (rows[user].matches if user in rows else 0) + 1 for user in users}
    )


def _replay(game: str) -> int:
    RatingChange.objects.filter(game=game).delete()
    current: dict[int, skill.Skill] = {}
    counts: dict[int, int] = {}
    changes: list[RatingChange] = []
    replayed = 0
    for rated in RatedMatch.objects.filter(game=game).order_by("finished_at", "match_id").iterator():
        changes += _step(rated, current)
        for team in rated.teams:
            for user in team["users"]:
                counts[user] = counts.get(user, 0) + 1
        replayed += 1
    RatingChange.objects.bulk_create(changes, batch_size=500)
    Rating.objects.filter(game=game).exclude(user_id__in=list(current)).delete()
    _store(game, current, counts=counts)
    return replayed


def _store(game: str, skills: dict[int, skill.Skill], *, counts: dict[int, int]) -> None:
    """Write ``skills`` (only the users in ``counts`` changed) into the game's Rating rows."""
    existing = {row.user_id: row for row in Rating.objects.filter(game=game, user_id__in=list(counts))}
    new_rows: list[Rating] = []
    changed: list[Rating] = []
    for user in sorted(counts):
        value = skills[user]
        row = existing.get(user)
        if row is None:
            new_rows.append(
                Rating(
                    user_id=user,
                    game=game,
                    mu=value.mu,
                    sigma=value.sigma,
                    ordinal=value.ordinal,
                    matches=counts[user],
                )
            )
            continue
        row.mu, row.sigma, row.ordinal, row.matches = value.mu, value.sigma, value.ordinal, counts[user]
        row.updated_at = timezone.now()
        changed.append(row)
    Rating.objects.bulk_create(new_rows)
    Rating.objects.bulk_update(changed, ["mu", "sigma", "ordinal", "matches", "updated_at"], batch_size=500)
