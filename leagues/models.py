"""Leagues: one game, seasons in tiers of divisions, every fixture a real match.

A ``Season`` takes sign-ups until it starts; then players are placed in ``Division`` s (level 1 is the
top; promotion and relegation of the season before decide the levels), and every ``Fixture`` of every
division is created at once as a started match with the league's clock and options. A finished match
writes its places and points into its ``FixturePlayer`` rows, and the division's standings (on
``Entry``) are computed again from them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse

from games.engines import registry
from games.models import Match


class League(models.Model):
    name = models.CharField(max_length=80)
    slug = models.SlugField(max_length=80, unique=True)
    game = models.CharField(max_length=32, choices=registry.choices)
    description = models.TextField(blank=True)
    players_per_match = models.PositiveSmallIntegerField(default=2)
    options = models.JSONField(default=dict, blank=True, help_text="The game's options for every match.")
    move_time_limit = models.DurationField(null=True, blank=True)
    bank_initial = models.DurationField(null=True, blank=True)
    bank_increment = models.DurationField(null=True, blank=True)
    bank_max = models.DurationField(null=True, blank=True)
    pause_weekends = models.BooleanField(default=False)
    timeout_policy = models.CharField(
        max_length=16, choices=Match.Timeout.choices, default=Match.Timeout.SKIP
    )
    division_size = models.PositiveSmallIntegerField(default=8, help_text="Players a division aims at.")
    meetings = models.PositiveSmallIntegerField(
        default=1, help_text="How many times each pair of players in a division should meet."
    )
    points_by_place = models.JSONField(
        default=list,
        blank=True,
        help_text="Points for 1st, 2nd, ... place; empty: one point per player beaten (a tie shares).",
    )
    promotion_places = models.PositiveSmallIntegerField(
        default=2, help_text="Players promoted from (and relegated into) each division boundary."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="leagues_created"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(
        null=True, blank=True, help_text="No new seasons once closed; a season under way plays to its end."
    )
    closed_note = models.CharField(max_length=200, blank=True, help_text="Why it was closed.")

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("league-detail", args=[self.slug])

    @property
    def engine(self):
        return registry.get_engine(self.game)

    def place_points(self) -> list[float]:
        """Points for each place, first to last."""
        if self.points_by_place:
            return [float(value) for value in self.points_by_place]
        return [float(self.players_per_match - 1 - place) for place in range(self.players_per_match)]


class Season(models.Model):
    class Status(models.TextChoices):
        SIGNUP = "signup", "Taking sign-ups"
        RUNNING = "running", "Under way"
        FINISHED = "finished", "Finished"
        CANCELLED = "cancelled", "Cancelled"

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="seasons")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.SIGNUP, db_index=True)
    starts_at = models.DateTimeField(help_text="Sign-up closes and every fixture is created then.")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=200, blank=True, help_text="Why it was cancelled, if it was.")

    class Meta:
        ordering = ["league", "-number"]
        constraints = [models.UniqueConstraint(fields=["league", "number"], name="season_number_unique")]

    def __str__(self) -> str:
        return f"{self.league.name}, season {self.number}"

    def get_absolute_url(self) -> str:
        return reverse("league-season", args=[self.league.slug, self.number])


class Division(models.Model):
    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="divisions")
    level = models.PositiveSmallIntegerField(help_text="1 is the top division.")

    class Meta:
        ordering = ["season", "level"]
        constraints = [models.UniqueConstraint(fields=["season", "level"], name="division_level_unique")]

    def __str__(self) -> str:
        return f"{self.season}: {self.name}"

    @property
    def name(self) -> str:
        return f"Division {self.level}"


class Entry(models.Model):
    """A player's sign-up for a season, and their line in the division's standings."""

    class Movement(models.TextChoices):
        UP = "up", "Promoted"
        DOWN = "down", "Relegated"
        STAY = "stay", "Stays"

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="league_entries"
    )
    division = models.ForeignKey(
        Division, null=True, blank=True, on_delete=models.SET_NULL, related_name="entries"
    )
    signed_up_at = models.DateTimeField(auto_now_add=True)
    played = models.PositiveSmallIntegerField(default=0)
    points = models.FloatField(default=0)
    wins = models.PositiveSmallIntegerField(default=0, help_text="Matches won outright (first, not shared).")
    tiebreak = models.FloatField(default=0, help_text="Sonneborn-Berger: the points of the players beaten.")
    forfeits = models.PositiveSmallIntegerField(default=0, help_text="Matches lost by running out of time.")
    position = models.PositiveSmallIntegerField(null=True, blank=True)
    movement = models.CharField(max_length=8, choices=Movement.choices, blank=True)

    class Meta:
        verbose_name_plural = "entries"
        ordering = ["season", "division__level", "position", "signed_up_at"]
        constraints = [models.UniqueConstraint(fields=["season", "user"], name="entry_once_per_season")]

    def __str__(self) -> str:
        return f"{self.user} in {self.season}"


class Fixture(models.Model):
    class Status(models.TextChoices):
        PLAYING = "playing", "In play"
        DONE = "done", "Played"
        VOID = "void", "Void"

    division = models.ForeignKey(Division, on_delete=models.CASCADE, related_name="fixtures")
    round = models.PositiveSmallIntegerField()
    table = models.PositiveSmallIntegerField()
    match = models.OneToOneField(Match, on_delete=models.PROTECT, related_name="league_fixture")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PLAYING, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["division", "round", "table"]
        constraints = [
            models.UniqueConstraint(fields=["division", "round", "table"], name="fixture_slot_unique")
        ]

    def __str__(self) -> str:
        return f"{self.division}, round {self.round}, table {self.table}"

    @property
    def title(self) -> str:
        """How players tell their fixtures apart (its division and season loaded with it)."""
        division = self.division
        season = division.season
        return f"{season.league.name}, season {season.number}, division {division.level}, round {self.round}"


class FixturePlayer(models.Model):
    fixture = models.ForeignKey(Fixture, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveSmallIntegerField(help_text="The seat in the match.")
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    points = models.FloatField(null=True, blank=True)
    forfeited = models.BooleanField(default=False)

    class Meta:
        ordering = ["fixture", "position"]
        constraints = [
            models.UniqueConstraint(fields=["fixture", "user"], name="fixtureplayer_once"),
            models.UniqueConstraint(fields=["fixture", "position"], name="fixtureplayer_seat_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user} at {self.fixture}"
