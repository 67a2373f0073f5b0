"""Writes for leagues: seasons, sign-ups, the start that creates every fixture, results and standings.

Standings, by rule (shown on the league page):

* A match gives each player the points of their place (``League.place_points``: by default one point
  per player beaten); players tied for a place share the points of the places they cover. A player who
  resigned or ran out of time ranks below everyone still playing; one whose seat a moderator handed to
  someone else scores last place. Both count as a forfeit.
* Order: points; then outright wins; then the Sonneborn-Berger score (for every match, the final points
  of each player finished ahead of, plus half those of each player tied with); then fewer forfeits;
  then the earlier sign-up.
* When every fixture of a season is played (or void), the season finishes: in each division the top
  ``promotion_places`` go up a level and the bottom as many go down (never more than half the division
  either way; nobody above the top or below the bottom). The next season places its players by that;
  newcomers start at the bottom, the best rated first.

Every step is safe to repeat: the season start is claimed by a conditional update, and a result
recomputes the division's standings from all its results rather than adding to them.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone
from django.utils.text import slugify

from games.dispatch import enqueue_safely, task_send
from games.engines import registry
from games.errors import Conflict, Forbidden, LimitReached, NotFound, ServiceError
from games.models import Match, Seat
from games.services import creating
from leagues import pairing
from leagues.models import Division, Entry, Fixture, FixturePlayer, League, Season
from moderation import permissions
from ratings.models import Rating

log = logging.getLogger(__name__)

MAX_POINTS = 1000


# --- leagues and seasons ----------------------------------------------------------------------------


def league_check(league: League) -> None:
    """Raise ServiceError with the reason when the league's settings cannot make matches."""
    try:
        engine = registry.get_engine(league.game)
    except registry.UnknownGame as exc:
        raise ServiceError(str(exc)) from None
    k = league.players_per_match
    if not engine.min_players <= k <= engine.max_players or k < 2:
        low = max(2, engine.min_players)
        raise ServiceError(f"A league match of {engine.title} has {low} to {engine.max_players} players.")
    try:
        league.options = engine.resolve_options(league.options or {}, seats=k)
    except ValueError as exc:
        raise ServiceError(str(exc)) from None
    if league.division_size < k:
        raise ServiceError(f"A division needs at least {k} players, enough for one match.")
    if not 1 <= league.meetings <= 4:
        raise ServiceError("Players meet each other one to four times a season.")
    points = league.points_by_place
    if points:
        if not isinstance(points, list) or len(points) != k:
            raise ServiceError(f"Give points for each of the {k} places.")
        if any(type(p) not in (int, float) or not 0 <= p <= MAX_POINTS for p in points):
            raise ServiceError(f"Points are numbers from 0 to {MAX_POINTS}.")
        if any(a < b for a, b in itertools.pairwise(points)):
            raise ServiceError("A better place cannot give fewer points.")
    if league.move_time_limit is None and (league.bank_initial or league.bank_increment or league.bank_max):
        raise ServiceError("A reserve needs a time per move.")


# What may change between seasons; the game and the address stay what they were made with.
SETTINGS = (
    "name",
    "description",
    "players_per_match",
    "options",
    "move_time_limit",
    "bank_initial",
    "bank_increment",
    "bank_max",
    "pause_weekends",
    "timeout_policy",
    "division_size",
    "meetings",
    "points_by_place",
    "promotion_places",
)
# Read again when a result comes in or a season ends: a season under way keeps them as they were.
SCORING = ("players_per_match", "points_by_place", "promotion_places")
# Addresses under /leagues/ that are pages rather than leagues.
RESERVED_SLUGS = frozenset({"new"})
MAX_NAME = 80
MAX_DESCRIPTION = 2000
MAX_CLOSE_NOTE = 200


def league_create(
    *, created_by: AbstractBaseUser, name: str, game: str, slug: str = "", **settings: Any
) -> League:
    """A new league organised by ``created_by``; without a ``slug`` its address comes from the name."""
    if not created_by.is_authenticated:
        raise Forbidden("Log in to organise a league.")
    unknown = set(settings) - set(SETTINGS)
    if unknown:
        raise ServiceError(f"A league has no setting {sorted(unknown)[0]!r}.")
    league = League(created_by=created_by, name=name.strip(), game=game, **settings)
    _settings_check(league)
    slug = slug.strip().lower()
    if slug:
        if not _SLUG.fullmatch(slug) or slug in RESERVED_SLUGS:
            raise ServiceError(
                "An address is up to 80 lower-case letters, digits, hyphens and underscores, and not 'new'."
            )
    else:
        slug = _free_slug(league.name)
    with transaction.atomic():
        # One creator's leagues are counted one at a time (the user row is the lock; SQLite's
        # IMMEDIATE transactions run one writer at a time anyway).
        get_user_model().objects.select_for_update(no_key=True).filter(pk=created_by.pk).first()
        cap = django_settings.MAX_OPEN_LEAGUES_PER_USER
        if League.objects.filter(created_by=created_by, closed_at__isnull=True).count() >= cap:
            raise LimitReached(
                f"You organise {cap} open leagues, as many as one account may. Close one of them "
                "before you start another."
            )
        if League.objects.filter(slug=slug).exists():
            raise ServiceError(f"There is already a league at {slug!r}: choose another address.")
        league.slug = slug
        league.save()
    return league


_SLUG = re.compile(r"[a-z0-9_-]{1,80}")


def _free_slug(name: str) -> str:
    """An unused address made from the name: ``spring-league``, then ``spring-league-2`` and on."""
    base = slugify(name)[:70].strip("-") or "league"
    if base in RESERVED_SLUGS:
        base = f"{base}-league"
    taken = set(League.objects.filter(slug__startswith=base).values_list("slug", flat=True))
    slug, number = base, 1
    while slug in taken:
        number += 1
        slug = f"{base}-{number}"
    return slug


def _settings_check(league: League) -> None:
    """Every reason in one place, for the pages and for callers of the services alike."""
    if not league.name:
        raise ServiceError("A league needs a name.")
    if len(league.name) > MAX_NAME:
        raise ServiceError(f"A league's name has at most {MAX_NAME} characters.")
    if len(league.description) > MAX_DESCRIPTION:
        raise ServiceError(f"A league's description has at most {MAX_DESCRIPTION} characters.")
    if league.move_time_limit is not None and not (
        timedelta(hours=1) <= league.move_time_limit <= creating.MAX_MOVE_TIME_LIMIT
    ):
        raise ServiceError("The time per move must be between one hour and 30 days.")
    for value in (league.bank_initial, league.bank_increment, league.bank_max):
        if value is not None and not timedelta(0) <= value <= creating.MAX_MOVE_TIME_LIMIT * 2:
            raise ServiceError("A reserve must be between zero and 60 days.")
    if league.timeout_policy not in Match.Timeout.values:
        raise ServiceError(f"{league.timeout_policy!r} is not a timeout policy.")
    if not 2 <= league.division_size <= MAX_DIVISION:
        raise ServiceError(f"A division has 2 to {MAX_DIVISION} players.")
    if league.promotion_places > MAX_DIVISION // 2:
        raise ServiceError(f"At most {MAX_DIVISION // 2} players go up or down from a division.")
    league_check(league)


# A season's start creates every fixture at once: a division of 20 makes 190 two-player matches.
MAX_DIVISION = 20


def league_update(*, league_id: Any, by: AbstractBaseUser, **changes: Any) -> League:
    """Change the settings of the organiser's league. They apply to the seasons not yet started; while
    one is under way, what scores it (players a match, points, promotion) stays as it is."""
    unknown = set(changes) - set(SETTINGS)
    if unknown:
        raise ServiceError(f"A league has no setting {sorted(unknown)[0]!r}.")
    with transaction.atomic():
        league = _lock_league(league_id)
        if not can_organise(league=league, user=by):
            raise Forbidden("Only the league's organiser can change its settings.")
        if league.closed_at is not None:
            raise Conflict("This league is closed.")
        running = league.seasons.filter(status=Season.Status.RUNNING).order_by("number").first()
        if isinstance(changes.get("name"), str):
            changes["name"] = changes["name"].strip()
        moved = [name for name in SCORING if name in changes and changes[name] != getattr(league, name)]
        if running is not None and moved:
            raise Conflict(
                f"Season {running.number} is under way: players a match, points by place and promotion "
                "stay as they are until it ends."
            )
        for name, value in changes.items():
            setattr(league, name, value)
        _settings_check(league)
        league.save(update_fields=[*changes, *(["options"] if "options" not in changes else [])])
    return league


def can_close(*, league: League, user: AbstractBaseUser) -> bool:
    """The organiser, or a moderator."""
    return can_organise(league=league, user=user) or permissions.is_moderator(user)


def league_close(*, league_id: Any, by: AbstractBaseUser, note: str) -> League:
    """Close the league for good: no new season, and one taking sign-ups is cancelled. A season under
    way plays on to its end (its fixtures are real matches, which moderators can end one by one)."""
    note = " ".join(note.split())
    if not note:
        raise ServiceError("Say why the league closes: the players will read it on its page.")
    if len(note) > MAX_CLOSE_NOTE:
        raise ServiceError(f"The reason has at most {MAX_CLOSE_NOTE} characters.")
    with transaction.atomic():
        league = _lock_league(league_id)
        if not can_close(league=league, user=by):
            raise Forbidden("Only the league's organiser or a moderator can close it.")
        if league.closed_at is not None:
            raise Conflict("This league is closed already.")
        now = timezone.now()
        league.closed_at, league.closed_note = now, note
        league.save(update_fields=["closed_at", "closed_note"])
        league.seasons.filter(status=Season.Status.SIGNUP).update(
            status=Season.Status.CANCELLED,
            note="The league closed before this season started.",
            finished_at=now,
        )
    log.info("League %s closed by %s: %s", league.pk, by.pk, note)
    return league


def _lock_league(league_id: Any) -> League:
    try:
        return League.objects.select_for_update().get(pk=int(league_id))
    except (League.DoesNotExist, ValueError, TypeError, OverflowError):
        raise NotFound("There is no such league.") from None


def season_open(*, league: League, starts_at: datetime, by: AbstractBaseUser) -> Season:
    """Open the league's next season for sign-ups; it starts at ``starts_at``."""
    if not can_organise(league=league, user=by):
        raise Forbidden("Only the league's organiser can open a season.")
    try:
        # Stored in UTC: the last days of year 9999 in a zone behind UTC fall in year 10000, which a
        # Python datetime cannot hold (PostgreSQL would store it, and every read of it would then fail).
        starts_at = starts_at.astimezone(UTC)
    except OverflowError:
        raise ServiceError(
            "That date is out of range (years 1 to 9999 in UTC): choose one in the coming weeks."
        ) from None
    if starts_at <= timezone.now():
        raise ServiceError("A season starts in the future, after its sign-ups.")
    with transaction.atomic():
        if League.objects.select_for_update().get(pk=league.pk).closed_at is not None:
            raise Conflict("This league is closed: it starts no more seasons.")
        if league.seasons.filter(status=Season.Status.SIGNUP).exists():
            raise Conflict("A season of this league is already taking sign-ups.")
        number = (league.seasons.aggregate(top=Max("number"))["top"] or 0) + 1
        return Season.objects.create(league=league, number=number, starts_at=starts_at)


def can_organise(*, league: League, user: AbstractBaseUser) -> bool:
    # Staff status alone is not enough: moderators have it for the admin, not to run others' leagues.
    return user.is_authenticated and (
        user.pk == league.created_by_id or (user.is_staff and user.has_perm("leagues.change_league"))
    )


def entry_signup(*, season_id: int, user: AbstractBaseUser) -> Entry:
    if not user.is_authenticated:
        raise Forbidden("Log in to sign up.")
    with transaction.atomic():
        season = _lock_season(season_id)
        if season.status != Season.Status.SIGNUP:
            raise Conflict("Sign-up for this season is closed.")
        entry, created = Entry.objects.get_or_create(season=season, user=user)
        if not created:
            raise Conflict("You have already signed up for this season.")
    return entry


def entry_withdraw(*, season_id: int, user: AbstractBaseUser) -> None:
    with transaction.atomic():
        season = _lock_season(season_id)
        if season.status != Season.Status.SIGNUP:
            raise Conflict("The season has started: resign its matches instead.")
        deleted, _ = Entry.objects.filter(season=season, user=user).delete()
        if not deleted:
            raise Conflict("You had not signed up for this season.")


def season_start_now(*, season_id: int, by: AbstractBaseUser) -> None:
    """The organiser closes sign-up at once; the start itself is the task's (queued after commit)."""
    with transaction.atomic():
        season = _lock_season(season_id)
        if not can_organise(league=season.league, user=by):
            raise Forbidden("Only the league's organiser can start a season.")
        if season.status != Season.Status.SIGNUP:
            raise Conflict("This season is not taking sign-ups.")
        Season.objects.filter(pk=season.pk).update(starts_at=timezone.now())

        transaction.on_commit(
            lambda: enqueue_safely(
                lambda: task_send("leagues.season_start", season.pk), what=f"start of season {season.pk}"
            )
        )


def season_start(*, season_id: int, now: datetime | None = None) -> str:
    """Close sign-up, place the players in divisions and create every fixture as a started match.

    Returns what happened: "started", "cancelled" (too few players, or the league cannot make matches),
    "waiting" (an earlier season is still running), "not due", or "done already" (a repeated task).
    """
    now = now or timezone.now()
    try:
        with transaction.atomic():
            season = Season.objects.select_related("league").filter(pk=season_id).first()
            if season is None:
                return "gone"
            if season.status != Season.Status.SIGNUP:
                return "done already"
            if season.starts_at > now:
                return "not due"
            earlier = season.league.seasons.filter(number__lt=season.number, status=Season.Status.RUNNING)
            if earlier.exists():
                return "waiting"
            # The claim: of two runs, one only moves the season on; the other finds it started.
            claimed = Season.objects.filter(pk=season.pk, status=Season.Status.SIGNUP).update(
                status=Season.Status.RUNNING, started_at=now
            )
            if claimed != 1:
                return "done already"
            league = season.league
            league_check(league)
            entries = list(season.entries.select_related("user").filter(user__is_active=True))
            if len(entries) < league.players_per_match:
                Season.objects.filter(pk=season.pk).update(
                    status=Season.Status.CANCELLED,
                    note=f"Too few players signed up (at least {league.players_per_match} are needed).",
                    finished_at=now,
                )
                return "cancelled"
            for level, members in enumerate(_divisions(league, season, entries), start=1):
                division = Division.objects.create(season=season, level=level)
                Entry.objects.filter(pk__in=[entry.pk for entry in members]).update(division=division)
                _fixtures_create(league, season, division, [entry.user for entry in members])
    except ServiceError as exc:
        Season.objects.filter(pk=season_id, status=Season.Status.SIGNUP).update(
            status=Season.Status.CANCELLED, note=f"Could not start: {exc.message}"[:200], finished_at=now
        )
        log.warning("Season %s could not start: %s", season_id, exc.message)
        return "cancelled"
    return "started"


def _divisions(league: League, season: Season, entries: list[Entry]) -> list[list[Entry]]:
    """The players of each division, top first: last season's levels after promotion and relegation,
    then newcomers at the bottom, best rated first."""
    previous = (
        league.seasons.filter(number__lt=season.number, status=Season.Status.FINISHED)
        .order_by("-number")
        .first()
    )
    history: dict[int, Entry] = {}
    if previous is not None:
        history = {
            entry.user_id: entry
            for entry in previous.entries.select_related("division").filter(division__isnull=False)
        }
    ordinals = dict(
        Rating.objects.filter(game=league.game, user_id__in=[e.user_id for e in entries]).values_list(
            "user_id", "ordinal"
        )
    )
    bottom = 1 + max((entry.division.level for entry in history.values()), default=0)

    def key(entry: Entry) -> tuple:
        before = history.get(entry.user_id)
        if before is None:
            return (bottom, bottom, -ordinals.get(entry.user_id, float("-inf")), entry.signed_up_at, entry.pk)
        level = before.division.level
        target = level - 1 if before.movement == Entry.Movement.UP else level
        target = level + 1 if before.movement == Entry.Movement.DOWN else target
        # Within a level: those relegated into it first, then those who stayed, then the promoted.
        return (target, level, before.position or 0, entry.signed_up_at, entry.pk)

    ordered = sorted(entries, key=key)
    k = league.players_per_match
    count = max(1, min(round(len(ordered) / max(league.division_size, k)), len(ordered) // k))
    base, extra = divmod(len(ordered), count)
    groups, start = [], 0
    for index in range(count):
        # Extra players go to the lower divisions, so the top keeps its size and its promoted players.
        size = base + (1 if index >= count - extra else 0)
        groups.append(ordered[start : start + size])
        start += size
    return groups


def _fixtures_create(league: League, season: Season, division: Division, users: list[Any]) -> None:
    by_id = {user.pk: user for user in users}
    ids = [user.pk for user in users]
    k = league.players_per_match
    if k == 2:
        rounds = pairing.round_robin(ids, meetings=league.meetings)
    else:
        count = pairing.rounds_needed(len(ids), k, meetings=league.meetings)
        rounds = pairing.balanced_tables(ids, size=k, rounds=count, seed=division.pk)
    for number, tables in enumerate(rounds, start=1):
        for table_number, table in enumerate(tables, start=1):
            name = f"{league.name[:48]} S{season.number} D{division.level} round {number}"
            match = creating.match_create(
                creator=by_id[table[0]],
                game=league.game,
                seat_count=k,
                options=league.options,
                name=name,
                move_time_limit=league.move_time_limit,
                bank_initial=league.bank_initial,
                bank_increment=league.bank_increment,
                bank_max=league.bank_max,
                pause_weekends=league.pause_weekends,
                timeout_policy=league.timeout_policy,
                rated=True,
                present=False,  # made by the season's start, in the players' names: they are away
            )
            for user_id in table[1:]:
                creating.seat_join(match_id=match.pk, user=by_id[user_id], present=False)
            fixture = Fixture.objects.create(division=division, round=number, table=table_number, match=match)
            FixturePlayer.objects.bulk_create(
                [
                    FixturePlayer(fixture=fixture, user_id=user_id, position=position)
                    for position, user_id in enumerate(table)
                ]
            )


# --- results ---------------------------------------------------------------------------------------


def result_record(*, match: Match, now: datetime | None = None) -> Fixture | None:
    """Write a finished league match's places and points, and recompute its division's standings."""
    now = now or timezone.now()
    with transaction.atomic():
        fixture = (
            Fixture.objects.select_for_update()
            .select_related("division__season__league")
            .filter(match_id=match.pk)
            .first()
        )
        if fixture is None:
            return None
        league = fixture.division.season.league
        seats = {seat.position: seat for seat in Seat.objects.filter(match_id=match.pk)}
        players = list(fixture.players.all())
        last = len(players)
        for player in players:
            seat = seats.get(player.position)
            handed_over = seat is None or seat.user_id != player.user_id
            player.rank = last if handed_over or seat.rank is None else seat.rank
            player.forfeited = handed_over or seat.status == Seat.Status.FORFEITED
        _award_points(players, league.place_points())
        FixturePlayer.objects.bulk_update(players, ["rank", "points", "forfeited"])
        fixture.status = Fixture.Status.DONE
        fixture.finished_at = match.finished_at or now
        fixture.save(update_fields=["status", "finished_at"])
        division_standings_refresh(division=fixture.division)
        season_finish_if_done(season_id=fixture.division.season_id, now=now)
    return fixture


def result_void(*, match: Match, now: datetime | None = None) -> Fixture | None:
    """A league match that no longer counts: its result leaves the standings. A match a moderator took
    back into play (a move rolled back) is in play again, and so is its fixture."""
    with transaction.atomic():
        fixture = (
            Fixture.objects.select_for_update().select_related("division").filter(match_id=match.pk).first()
        )
        if fixture is None:
            return None
        _fixture_void(fixture, again_in_play=match.status == Match.Status.ACTIVE)
        season_finish_if_done(season_id=fixture.division.season_id, now=now or timezone.now())
    return fixture


def _fixture_void(fixture: Fixture, *, again_in_play: bool = False) -> None:
    fixture.players.update(rank=None, points=None, forfeited=False)
    fixture.status = Fixture.Status.PLAYING if again_in_play else Fixture.Status.VOID
    fixture.finished_at = None
    fixture.save(update_fields=["status", "finished_at"])
    division_standings_refresh(division=fixture.division)


def _award_points(players: list[FixturePlayer], table: list[float]) -> None:
    """Each player gets their place's points; tied players share the points of the places they cover."""
    for player in players:
        tied = sum(1 for other in players if other.rank == player.rank)
        first = player.rank - 1
        covered = [table[place] if place < len(table) else 0.0 for place in range(first, first + tied)]
        player.points = sum(covered) / len(covered)


def division_standings_refresh(*, division: Division) -> list[Entry]:
    """Recompute every line of the division's standings from all its played fixtures."""
    entries = list(division.entries.all())
    results = list(
        FixturePlayer.objects.filter(
            fixture__division=division, fixture__status=Fixture.Status.DONE
        ).order_by("fixture_id", "position")
    )
    by_fixture: dict[int, list[FixturePlayer]] = defaultdict(list)
    for result in results:
        by_fixture[result.fixture_id].append(result)
    points: dict[int, float] = defaultdict(float)
    for result in results:
        points[result.user_id] += result.points or 0.0
    played: dict[int, int] = defaultdict(int)
    wins: dict[int, int] = defaultdict(int)
    forfeits: dict[int, int] = defaultdict(int)
    tiebreak: dict[int, float] = defaultdict(float)
    for table in by_fixture.values():
        firsts = [r for r in table if r.rank == 1]
        for result in table:
            played[result.user_id] += 1
            forfeits[result.user_id] += int(result.forfeited)
            if len(firsts) == 1 and firsts[0] is result:
                wins[result.user_id] += 1
            for other in table:
                if other is result:
                    continue
                if result.rank < other.rank:
                    tiebreak[result.user_id] += points[other.user_id]
                elif result.rank == other.rank:
                    tiebreak[result.user_id] += points[other.user_id] / 2
    for entry in entries:
        user = entry.user_id
        entry.played, entry.points, entry.wins = played[user], points[user], wins[user]
        entry.forfeits, entry.tiebreak = forfeits[user], tiebreak[user]
    entries.sort(key=lambda e: (-e.points, -e.wins, -e.tiebreak, e.forfeits, e.signed_up_at, e.pk))
    for position, entry in enumerate(entries, start=1):
        entry.position = position
    Entry.objects.bulk_update(entries, ["played", "points", "wins", "forfeits", "tiebreak", "position"])
    return entries


def season_finish_if_done(*, season_id: int, now: datetime) -> bool:
    """Finish the season once no fixture is in play: final places, promotion and relegation. A finished
    season whose result changed (a moderator's re-adjudication) has them worked out again. True when
    this call finished the season."""
    with transaction.atomic():
        season = _lock_season(season_id)
        if season.status not in (Season.Status.RUNNING, Season.Status.FINISHED):
            return False
        if Fixture.objects.filter(division__season=season, status=Fixture.Status.PLAYING).exists():
            return False
        divisions = list(season.divisions.order_by("level"))
        bottom = divisions[-1].level if divisions else 1
        places = season.league.promotion_places
        for division in divisions:
            entries = division_standings_refresh(division=division)
            moving = min(places, len(entries) // 2)
            for entry in entries:
                if division.level > 1 and entry.position <= moving:
                    entry.movement = Entry.Movement.UP
                elif division.level < bottom and entry.position > len(entries) - moving:
                    entry.movement = Entry.Movement.DOWN
                else:
                    entry.movement = Entry.Movement.STAY
            Entry.objects.bulk_update(entries, ["movement"])
        finished = Season.objects.filter(pk=season.pk, status=Season.Status.RUNNING).update(
            status=Season.Status.FINISHED, finished_at=now
        )
    return finished == 1


# --- the periodic tick --------------------------------------------------------------------------------


def seasons_tick(*, now: datetime | None = None) -> dict[str, int]:
    """Start the seasons that are due; settle fixtures whose match ended without a result (a moderator
    abandoned or cancelled it) or whose result was missed; finish seasons with nothing left to play."""
    now = now or timezone.now()
    tally: dict[str, int] = defaultdict(int)
    due = Season.objects.filter(status=Season.Status.SIGNUP, starts_at__lte=now).order_by("starts_at", "pk")
    for season_id in list(due.values_list("pk", flat=True)[:50]):
        tally[season_start(season_id=season_id, now=now)] += 1
    ended = (Match.Status.ABANDONED, Match.Status.CANCELLED)
    stuck = Fixture.objects.filter(
        Q(status=Fixture.Status.PLAYING, match__status=Match.Status.FINISHED)
        | Q(status__in=[Fixture.Status.PLAYING, Fixture.Status.DONE], match__status__in=ended)
    )
    for fixture_id in list(stuck.values_list("pk", flat=True)[:500]):
        with transaction.atomic():
            fixture = (
                Fixture.objects.select_for_update().select_related("division", "match").get(pk=fixture_id)
            )
            status = fixture.match.status
            if fixture.status == Fixture.Status.PLAYING and status == Match.Status.FINISHED:
                result_record(match=fixture.match, now=now)
                tally["recorded"] += 1
            elif fixture.status != Fixture.Status.VOID and status in ended:
                _fixture_void(fixture)
                tally["voided"] += 1
    running = Season.objects.filter(status=Season.Status.RUNNING).values_list("pk", flat=True)
    for season_id in list(running):
        if season_finish_if_done(season_id=season_id, now=now):
            tally["finished"] += 1
    return dict(tally)


def _lock_season(season_id: Any) -> Season:
    try:
        return Season.objects.select_for_update().select_related("league").get(pk=int(season_id))
    except (Season.DoesNotExist, ValueError, TypeError):
        raise NotFound("There is no such season.") from None
